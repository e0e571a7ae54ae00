/* runtime.h: the public header of the `runtime` layer (docs/design.md, section
 * 6.1): the window and its state (RuntimeState, in_runtime): the per-thread
 * mechanisms of window.def armed, suspended, rejoined and disarmed; hook
 * entries.
 *
 * A file includes its own layer's header and, through it, the layers below;
 * never a header of a layer above (scripts/check_layers.py).
 */
#ifndef SMOLAGENTS_NATIVE_RUNTIME_H
#define SMOLAGENTS_NATIVE_RUNTIME_H

#include "guard/guard.h"

/* The runtime layer's part of the interpreter state: the running window. */
typedef struct RuntimeState {
    unsigned long run_thread;   /* pthread of the running step or hook */
    int tool_calls;      /* proxy.c: > 0 while a tool called by the running
                            step runs, with the step's checks suspended
                            (interpreted code it enters re-arms them:
                            interp_rearm) */
    int in_hook;         /* the running window is a hook (interp_enter),
                            not a step: other threads wait for it */
} RuntimeState;

/* The interpreter as the runtime layer sees it (budget.h, in_budget). */
typedef struct InterpRuntimeView {
    InterpGuardView lower;
    RuntimeState runtime;
} InterpRuntimeView;

static inline RuntimeState *
in_runtime(const Interp *in)
{
    return &((InterpRuntimeView *)in)->runtime;
}

/* window.c: what a window's transitions replaced on this thread, one
 * field per mechanism of window.def that keeps something. */
typedef struct {
    PyObject *decimal_prev;       /* ownstate_switch's (owned) */
    struct Interp *prov_prev;     /* provenance.c: armed interpreter before */
    GadgetSave gadgets;
    MemSave mem;                  /* accounting of the enclosing window */
    struct Interp *tripwire_prev; /* tripwire state to restore */
} WindowSave;

/* Saved state for a host -> interpreted call (see interp_enter). */
typedef struct {
    int started; /* this call started a window */
    WindowSave w;
} InterpSave;

/* Saved state for interp_rearm. */
typedef struct {
    int tool_calls;          /* in->tool_calls before */
    int paused;              /* gadgets_reenter's count */
    int rearmed;             /* the window was rejoined */
    GadgetSave gadgets_pure; /* gadgets_reenter's */
    PyFrameObject *boundary; /* provenance_reenter's */
    WindowSave w;
} InterpRearm;

/* Enter interpreted code from the host: when no step is running (a hook
 * called after the step, e.g. an interpreted __str__), start a fresh budget
 * window with the configured limits.  0 / -1. */
int interp_enter(Interp *in, InterpSave *save);
/* 0, or -1 with RuntimeError once the module's state is being torn down
 * (interpreter exit): the entries of host code into interpreted code
 * (function_vectorcall, gen_resume_other: a finalizer) ask first, before
 * any check reads the freed policy tables or interp_enter runs. */
int interp_closing_error(void);

/* Entering interpreted code while a step (or hook) of this interpreter
 * runs: only from the thread that runs it (its budgets and stack bounds
 * are that thread's).  0, or -1 with InterpreterError; from another thread
 * during a step, or during a hook still running after a short wait, the
 * refusal also aborts that window (limits.c).  Inline:
 * called on every call of an interpreted function by host code. */
int interp_wrong_thread(Interp *in, int finalizer);
/* While another thread runs a hook of this interpreter (an interpreted
 * function host code called after a step, e.g. a thread the code started),
 * wait for it to end, without the GIL (the hook's own budget window bounds
 * its operations, not a host call it blocks in), at most `max_seconds`
 * (<= 0: no bound).  0 when no such hook runs (any more), 1 when one still
 * runs after `max_seconds`, -1 when a signal handler raised. */
int interp_wait_for_hook(Interp *in, double max_seconds);

/* Leave; passes `res` through (NULL on error). */
PyObject *interp_leave(Interp *in, InterpSave *save, PyObject *res);

void interp_rearm(Interp *in, InterpRearm *r);
void interp_rearm_done(Interp *in, InterpRearm *r);

/* window.c: the per-thread mechanisms of window.def, armed, suspended and
 * disarmed in one place and one order (docs/design.md, "The window"). */
/* The run state of a window on this thread: running, its thread, a hook
 * (interpreted code host code called after the step) or a step, the
 * per-window counters.  The caller ran limits_start. */
void window_begin(Interp *in, int hook);
/* Not running any more (after window_close and the caller's clean-up). */
void window_end(Interp *in);
/* After a window closed: when an abort is pending but `res` (the window's
 * result, NULL with an exception on failure) does not carry its error (host
 * code swallowed it or raised another for it, or the limit fired before the
 * code could report it), the abort's error replaces it.  Returns `res` or
 * NULL (stolen). */
PyObject *window_abort_takes_over(Interp *in, PyObject *res);
/* Arm every mechanism, in window.def's order.  0, or -1 with an exception
 * and nothing armed. */
int window_open(Interp *in, WindowSave *w);
/* Disarm them, in the reverse order. */
void window_close(Interp *in, WindowSave *w);
/* Around a tool call (host code that does not act for the code): suspend
 * the window of this thread, if any (returns its interpreter, or NULL), and
 * resume it with what window_suspend returned. */
Interp *window_suspend(WindowSave *w);
void window_resume(Interp *in, WindowSave *w);

#endif /* SMOLAGENTS_NATIVE_RUNTIME_H */
