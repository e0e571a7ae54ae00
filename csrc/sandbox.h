/* sandbox.h: process-mode worker confinement (sandbox.c). */
#ifndef SMOLAGENTS_NATIVE_SANDBOX_H
#define SMOLAGENTS_NATIVE_SANDBOX_H

#include <Python.h>

/* Adds sandbox_apply / sandbox_unshare_network to module `m`; 0 or -1. */
int sandbox_add_functions(PyObject *m);

#endif
