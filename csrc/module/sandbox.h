/* sandbox.h: process-mode worker confinement (sandbox.c: seccomp filters;
 * jail.c: namespaces, mounts, capabilities). */
#ifndef SMOLAGENTS_NATIVE_SANDBOX_H
#define SMOLAGENTS_NATIVE_SANDBOX_H

#include <Python.h>

/* Adds sandbox_apply / sandbox_apply_forkserver and the jail primitives to
 * module `m`; 0 or -1. */
int sandbox_add_functions(PyObject *m);

/* Adds the jail_* primitives and constants (jail.c) to module `m`; 0 or -1. */
int jail_add_functions(PyObject *m);

#endif
