/* module.h: the public header of the `module` layer (docs/design.md, section
 * 6.1): the Python module _core, the Interpreter type and the whole Interp,
 * the shim's helpers, the process worker's sandbox and wire codec.
 *
 * A file includes its own layer's header and, through it, the layers below;
 * never a header of a layer above (scripts/check_layers.py).
 */
#ifndef SMOLAGENTS_NATIVE_MODULE_H
#define SMOLAGENTS_NATIVE_MODULE_H

#include "front/front.h"

/* The module layer's part of the interpreter state: the builtins the step
 * sees, its print buffer, its program. */
typedef struct ModuleState {
    PyObject *builtins;     /* dict: safe builtins + extra_builtins + tools */
    PyObject *print_chunks; /* list of str */
    Py_ssize_t print_len;
    PyObject *current_program; /* borrowed: program of the running step */
} ModuleState;

/* The live interpreter: every layer's state, lowest first (the views of
 * guard.h, runtime.h and eval.h are its prefixes, BudgetState its first
 * member), then the module layer's.  Owned by an Interpreter Python object.
 * Interpreted functions keep a strong reference to the Interpreter object so
 * that hooks called later by host code still run under the same policy and
 * budgets. */
struct Interp {
    InterpEvalView lower;
    ModuleState module;
};

static inline ModuleState *
in_module(const Interp *in)
{
    return &((Interp *)in)->module;
}

/* The Interpreter object: its Interp first after the object header, where
 * interp_of() (budget.h) finds it. */
typedef struct InterpreterObject {
    PyObject_HEAD Interp in;
    PyObject *cache; /* dict: source -> ProgramObject, oldest first, at
                        most CACHE_BYTES of programs (module.c) */
    size_t cache_bytes;  /* the programs' ProgramObject.bytes, summed */
    long long cache_hits, cache_misses, cache_evictions;
    PyObject *extra_builtins;
    /* the tools or the extra builtins changed since the code's builtins
       (ModuleState.builtins) were built: the next step builds them
       (interpreter_rebuild_builtins), once however many setters ran */
    int builtins_stale;
} InterpreterObject;
_Static_assert(offsetof(InterpreterObject, in) == INTERP_OFFSET,
               "interp_of(): the Interp follows the object header");

/* module.c: the module's state from one of its types. */
ModState *get_modstate_from_type(PyTypeObject *tp);

/* shim.c: functions of `_core` for the Python shim's per-step path. */
int shim_add_functions(PyObject *m);

/* fuzzcov.c: add _fuzz_counters() in the fuzz build; nothing otherwise. */
int fuzzcov_add_to_module(PyObject *m);

#include "sandbox.h"
#include "wire.h"

#endif /* SMOLAGENTS_NATIVE_MODULE_H */
