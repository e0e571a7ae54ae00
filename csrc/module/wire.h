/* wire.h: the data-only value codec of the process boundary (wire.c). */
#ifndef SMOLAGENTS_NATIVE_WIRE_H
#define SMOLAGENTS_NATIVE_WIRE_H

#include <Python.h>

/* Adds wire_dumps / wire_loads to module `m`; 0 or -1. */
int wire_add_functions(PyObject *m);

#endif
