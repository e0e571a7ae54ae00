/* tripwire.h: the audit-hook tripwire (tripwire.c) and opaque tools
 * (proxy.c).  See docs/security.md, "Tripwire" and "Opaque tools". */
#ifndef SMOLAGENTS_NATIVE_TRIPWIRE_H
#define SMOLAGENTS_NATIVE_TRIPWIRE_H

#include "guard.h"

/* Process-wide and one way: 1 in a process-mode worker whose kernel sandbox is
 * complete (sandbox.c, sandbox_enter_worker_mode).  What library code does for
 * the code there is bounded by the kernel (docs/isolation.md, "Two tiers"): the
 * audit-event tripwire, the gadget table and the host-object rules stand down;
 * the code's own actions still meet the policy. */
extern int tripwire_kernel_bounded;

/* The interpreter whose code runs on this thread with the tripwire armed,
 * or NULL.  Thread-local: arming is per thread, and the audit hook's fast
 * path is one read of it. */
extern HOT_TLS Interp *tripwire_armed_tls;

/* Disarm on this thread (around a tool call, an authorized import); returns
 * what tripwire_restore() must be given. */
static inline Interp *
tripwire_suspend(void)
{
    Interp *prev = tripwire_armed_tls;
    tripwire_armed_tls = NULL;
    return prev;
}
static inline void
tripwire_restore(Interp *prev)
{
    tripwire_armed_tls = prev;
}
/* Arm for `in`; returns the previous state for tripwire_restore(). */
static inline Interp *
tripwire_arm(Interp *in)
{
    Interp *prev = tripwire_armed_tls;
    tripwire_armed_tls = in;
    return prev;
}

/* Install the process-wide audit hook (once per process).  0 / -1. */
int tripwire_install(void);

/* A step's entry frame: a minimal Python frame whose globals and locals
 * are `state`, below which the body runs (host code's stack walks see a
 * clean frame).  tripwire_prepare_step makes what it needs (before the
 * window opens: our own imports and objects); tripwire_enter_step runs
 * fn(arg) (on the large stack, bigstack_run) below it, in the open window
 * (window.c armed the tripwire).  Both return -1 with an exception set if
 * that failed; otherwise 0 (and whatever fn left). */
int tripwire_prepare_step(Interp *in, PyObject *state);
/* The module's real paths of the installation (`st->install_dirs`), computed
 * now if they are not yet (sysconfig and realpath: the first step of every
 * new process would pay them).  0 / -1. */
int tripwire_install_dirs_ready(ModState *st);
int tripwire_enter_step(Interp *in, PyObject *state, void (*fn)(void *),
                        void *arg);

/* Interpreter.grants getter / setter (module.c's getset table). */
PyObject *tripwire_get_grants(Interp *in);
int tripwire_set_grants(Interp *in, PyObject *v);
/* Release what the Interp holds for the tripwire (interpreter_clear). */
void tripwire_clear(Interp *in);
int tripwire_traverse(Interp *in, visitproc visit, void *arg);

/* Is `v` the `__import__` of an entry frame's builtins (refused to the
 * code as a value and as a callee, policy.c)? */
int tripwire_is_entry_import(PyObject *v);

/* proxy.c */
extern PyType_Spec Proxy_spec;
extern PyType_Spec Runner_spec; /* tripwire.c */
/* `v` itself (a new reference) when it may reach the code as it is
 * (builtin functions and types), else a new call-only proxy of it. */
PyObject *proxy_wrap(ModState *st, PyObject *v);

#endif
