/* base.h: the public header of the `base` layer (docs/design.md, section 6.1):
 * what every layer shares: CPython's headers, compat.h (every version
 * difference), the attributes of hot and cold code, and the name of the
 * interpreter state (Interp, whose parts the layers above declare).
 *
 * A file includes its own layer's header and, through it, the layers below;
 * never a header of a layer above (scripts/check_layers.py).
 *
 * Ownership conventions (docs/design.md, section 7): functions returning
 * PyObject * return a new reference or NULL with an exception set; functions
 * returning int return 0 on success and -1 with an exception set.  Statement
 * evaluation returns a Status.
 */
#ifndef SMOLAGENTS_NATIVE_BASE_H
#define SMOLAGENTS_NATIVE_BASE_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stdint.h>

#include "compat.h"

/* Keep cold paths out of the evaluator's hot functions, whose stack frames
 * (and so every node's cost) grow with what is inlined into them. */
#define NOINLINE __attribute__((noinline))
/* for the few hot helpers a compiler may leave out of line when a
   version's Py_INCREF grows (3.12+: immortal objects) */
#define ALWAYS_INLINE inline __attribute__((always_inline))

/* The interpreter state, one struct per layer (BudgetState, GuardState,
 * RuntimeState, EvalState, ModuleState), put together in module.h; a layer
 * reaches its part and the parts below through in_<layer>(in). */
typedef struct Interp Interp;

#endif /* SMOLAGENTS_NATIVE_BASE_H */
