/* window.c: the window, the one place where the per-thread mechanisms of a
 * running step are armed, suspended, resumed and disarmed.
 *
 * While interpreted code runs on a thread (a step, or a hook: interpreted
 * code host code calls after the step), the mechanisms of window.def are
 * armed on that thread.  Every transition is driven by that table, in its
 * order:
 *
 *   open / rejoin          top to bottom (arming order)
 *   close / rejoin_done    bottom to top
 *   suspend (a tool call)  bottom to top
 *   resume                 top to bottom
 *
 * Each mechanism has one static adapter per transition below
 * (w_<name>_<transition>); the transitions are loops over the table, so a
 * mechanism added to window.def without its adapters does not compile, and
 * one order holds for all of them.  Two partial pauses are their owners'
 * business, below this layer: a reviewed pure call pauses the gadget
 * refusals (gadgets_pause, hostcall.c), the interpreter's own import of an
 * authorized module the tripwire and the gadget refusals while module
 * bodies run (policy.c); interpreted code entered meanwhile rejoins the
 * window all the same (interp_rearm).
 *
 * Hooks enter here too: interp_enter / interp_leave open and close a
 * window when host code calls interpreted code after the step, and
 * interp_wrong_thread refuses entries from other threads.
 *
 * The run state of a window (running, its thread, hook or step, the
 * per-window counters) is set by window_begin and cleared by window_end;
 * the budget counters by limits_start (limits.c), which the caller runs
 * first: a step's lowering already runs under its deadline.
 */
#include "runtime.h"

#include <pthread.h>
#include <time.h>

/* ------------------------------------------------------------- adapters */

static int
w_ownstate_open(Interp *in, WindowSave *w)
{
    (void)w;
    if (ownstate_enter(in) < 0) {
        ownstate_leave(in); /* what it kept */
        return -1;
    }
    return 0;
}
static void
w_ownstate_close(Interp *in, WindowSave *w)
{
    (void)w;
    ownstate_leave(in); /* the host's decimal context back */
}
static void
w_ownstate_suspend(Interp *in, WindowSave *w)
{
    /* the tool computes with the host's decimal context */
    w->decimal_prev = ownstate_switch(in, 0);
}
static void
w_ownstate_resume(Interp *in, WindowSave *w)
{
    ownstate_switch_back(in, 0, w->decimal_prev);
    w->decimal_prev = NULL;
}
static void
w_ownstate_rejoin(Interp *in, WindowSave *w)
{
    /* the executor's decimal context, not the tool's */
    w->decimal_prev = ownstate_switch(in, 1);
}
static void
w_ownstate_rejoin_done(Interp *in, WindowSave *w)
{
    ownstate_switch_back(in, 1, w->decimal_prev);
    w->decimal_prev = NULL;
}

static int
w_provenance_open(Interp *in, WindowSave *w)
{
    w->prov_prev = provenance_arm(in);
    return 0;
}
static void
w_provenance_close(Interp *in, WindowSave *w)
{
    (void)in;
    provenance_disarm(w->prov_prev);
}
static void
w_provenance_suspend(Interp *in, WindowSave *w)
{
    (void)in;
    w->prov_prev = provenance_arm(NULL); /* the tool's classes are not the
                                            code's */
}
static void
w_provenance_rejoin(Interp *in, WindowSave *w)
{
    (void)w_provenance_open(in, w);
}
#define w_provenance_resume w_provenance_close
#define w_provenance_rejoin_done w_provenance_close

static int
w_gadgets_open(Interp *in, WindowSave *w)
{
    gadgets_arm(in, &w->gadgets);
    return 0;
}
static void
w_gadgets_close(Interp *in, WindowSave *w)
{
    (void)in;
    gadgets_disarm(&w->gadgets);
}
static void
w_gadgets_suspend(Interp *in, WindowSave *w)
{
    (void)in;
    gadgets_suspend(&w->gadgets); /* the tripwire is off already */
}
static void
w_gadgets_resume(Interp *in, WindowSave *w)
{
    (void)in;
    gadgets_resume(&w->gadgets); /* the tripwire is not on yet */
}
static void
w_gadgets_rejoin(Interp *in, WindowSave *w)
{
    (void)w_gadgets_open(in, w);
}
#define w_gadgets_rejoin_done w_gadgets_close

static int
w_memlimit_open(Interp *in, WindowSave *w)
{
    memlimit_begin(in, &w->mem); /* a new window's accounting */
    return 0;
}
static void
w_memlimit_close(Interp *in, WindowSave *w)
{
    memlimit_end(in, &w->mem);
}
static void
w_memlimit_suspend(Interp *in, WindowSave *w)
{
    (void)in;
    memlimit_suspend(&w->mem); /* the tool's allocations are not counted */
}
static void
w_memlimit_resume(Interp *in, WindowSave *w)
{
    (void)in;
    memlimit_resume(&w->mem);
}
static void
w_memlimit_rejoin(Interp *in, WindowSave *w)
{
    memlimit_rejoin(in, &w->mem); /* the step's accounting goes on */
}
#define w_memlimit_rejoin_done w_memlimit_resume

static int
w_tripwire_open(Interp *in, WindowSave *w)
{
    w->tripwire_prev = tripwire_arm(in);
    return 0;
}
static void
w_tripwire_close(Interp *in, WindowSave *w)
{
    (void)in;
    tripwire_restore(w->tripwire_prev);
}
static void
w_tripwire_suspend(Interp *in, WindowSave *w)
{
    (void)in;
    w->tripwire_prev = tripwire_suspend();
}
static void
w_tripwire_rejoin(Interp *in, WindowSave *w)
{
    (void)w_tripwire_open(in, w);
}
#define w_tripwire_resume w_tripwire_close
#define w_tripwire_rejoin_done w_tripwire_close

/* ---------------------------------------------------------------- table */

typedef struct {
    const char *name;
    int (*open)(Interp *, WindowSave *);
    void (*close)(Interp *, WindowSave *);
    void (*suspend)(Interp *, WindowSave *);
    void (*resume)(Interp *, WindowSave *);
    void (*rejoin)(Interp *, WindowSave *);
    void (*rejoin_done)(Interp *, WindowSave *);
} WindowMech;

static const WindowMech mechs[] = {
#define WINDOW_MECH(m, why)                                                 \
    {#m,                 w_##m##_open,   w_##m##_close, w_##m##_suspend,    \
     w_##m##_resume,     w_##m##_rejoin, w_##m##_rejoin_done},
#include "window.def"
#undef WINDOW_MECH
};
#define NMECHS ((int)(sizeof(mechs) / sizeof(mechs[0])))

/* ---------------------------------------------------------- transitions */

int
window_open(Interp *in, WindowSave *w)
{
    for (int i = 0; i < NMECHS; i++) {
        if (mechs[i].open(in, w) < 0) {
            /* nothing after it was armed: the ones before it off again */
            while (--i >= 0) {
                mechs[i].close(in, w);
            }
            return -1;
        }
    }
    return 0;
}

void
window_close(Interp *in, WindowSave *w)
{
    for (int i = NMECHS - 1; i >= 0; i--) {
        mechs[i].close(in, w);
    }
}

Interp *
window_suspend(WindowSave *w)
{
    /* the window of this thread, if any (a tool called outside a step,
       by host code, has none: the mechanisms are off already) */
    Interp *in = tripwire_armed_tls;
    for (int i = NMECHS - 1; i >= 0; i--) {
        mechs[i].suspend(in, w);
    }
    if (in != NULL) {
        /* interpreted code the tool enters (a __str__ of the code's object,
           a finalizer run by the collector meanwhile) rejoins the window */
        in_runtime(in)->tool_calls++;
    }
    return in;
}

void
window_resume(Interp *in, WindowSave *w)
{
    if (in != NULL) {
        in_runtime(in)->tool_calls--;
    }
    for (int i = 0; i < NMECHS; i++) {
        mechs[i].resume(in, w);
    }
}

void
interp_rearm(Interp *in, InterpRearm *r)
{
    r->boundary = provenance_reenter();
    r->tool_calls = in_runtime(in)->tool_calls;
    r->rearmed = in_runtime(in)->tool_calls > 0 || tripwire_armed_tls != in;
    if (r->rearmed) {
        /* a tool's host code called back into the code (a __str__, a key
           function, a finalizer run by the collector during the tool), or
           a finalizer of the code ran during an import: the code's checks,
           as during the step */
        in_runtime(in)->tool_calls = 0;
        for (int i = 0; i < NMECHS; i++) {
            mechs[i].rejoin(in, &r->w);
        }
    }
    /* and from a pure call: the gadget refusals on again */
    r->paused = -1;
    if (in_guard(in)->gadgets_paused > 0) {
        gadgets_reenter(in, &r->gadgets_pure, &r->paused);
    }
}

void
interp_rearm_done(Interp *in, InterpRearm *r)
{
    if (r->paused >= 0) {
        gadgets_reenter_done(in, &r->gadgets_pure, r->paused);
    }
    if (r->rearmed) {
        for (int i = NMECHS - 1; i >= 0; i--) {
            mechs[i].rejoin_done(in, &r->w);
        }
    }
    in_runtime(in)->tool_calls = r->tool_calls;
    provenance_reenter_done(r->boundary);
}

/* ------------------------------------------------------------ run state */

void
window_begin(Interp *in, int hook)
{
    in_budget(in)->running = 1;
    in_runtime(in)->in_hook = hook;
    in_runtime(in)->run_thread = (unsigned long)pthread_self();
    in_budget(in)->run_ts = PyThreadState_Get();
    in_budget(in)->abort = ABORT_NONE;
    in_guard(in)->pure_ok = -1; /* gadgets.c: decided again for this window */
    in_guard(in)->gadgets_paused = 0;
    in_runtime(in)->tool_calls = 0;
}

void
window_end(Interp *in)
{
    /* in_hook and running drop together: a thread waiting in
       interp_wrong_thread that saw the hook over but the window still
       running would fail instead of waiting */
    in_runtime(in)->in_hook = 0;
    in_budget(in)->running = 0;
    in_budget(in)->abort = ABORT_NONE;
    nesting_forget(in);
}

/* ---------------------------------------------------------------- hooks */

int
interp_closing_error(void)
{
    /* a finalizer of the code's objects at interpreter exit, after the
       module's state began to go (its policy tables are freed with its
       namespace): nothing of the code runs then */
    PyErr_SetString(PyExc_RuntimeError,
                    "smolagents_native is shutting down: interpreted code "
                    "does not run any more");
    return -1;
}

int
interp_enter(Interp *in, InterpSave *save)
{
    save->started = 0;
    if (in_budget(in)->running) {
        return 0;
    }
    /* a hook called by host code after the step: a fresh budget window
       (window.c) */
    limits_start(in);
    window_begin(in, 1);
    if (window_open(in, &save->w) < 0) {
        window_end(in);
        return -1;
    }
    save->started = 1;
    return 0;
}

int
interp_wait_for_hook(Interp *in, double max_seconds)
{
    unsigned long me = (unsigned long)pthread_self();
    double until = max_seconds > 0 ? limits_now() + max_seconds : 0;
    while (in_budget(in)->running && in_runtime(in)->in_hook && in_runtime(in)->run_thread != me) {
        if (until > 0 && limits_now() > until) {
            return 1; /* a hook blocked in host code: not waited for */
        }
        Py_BEGIN_ALLOW_THREADS
        struct timespec ts = {0, 100000};
        nanosleep(&ts, NULL);
        Py_END_ALLOW_THREADS
        if (PyErr_CheckSignals() < 0) {
            return -1;
        }
    }
    return 0;
}

/* How long a call from another thread waits for a hook window to end.
 * Short: the window may be the one that started the calling thread and
 * now waits for it (a test method that joins the threads it started). */
#define HOOK_WAIT_SECONDS 1.0

int
interp_wrong_thread(Interp *in, int finalizer)
{
    unsigned long me = (unsigned long)pthread_self();
    /* another thread runs a hook of this interpreter (host code calling an
       interpreted function after the step): wait for it to end, without the
       GIL, then run on this thread with a window of its own */
    double wait = budget_timeout(in) < HOOK_WAIT_SECONDS ? budget_timeout(in)
                                                         : HOOK_WAIT_SECONDS;
    int waited = interp_wait_for_hook(in, wait);
    if (waited < 0) {
        return -1;
    }
    if (waited > 0) {
        /* the window goes on: it may be the code's own (a hook that
           started this thread and joins it), so it ends too, with the
           same error at its next check, never a silent wrong result (C
           state: the hook's thread raises it) */
        static const char msg[] =
            "interpreted code runs only on the thread of the call that "
            "runs it: a function of the code was called on another thread "
            "(threading, concurrent.futures) while a call of the code's "
            "ran there; call it in that call itself (a loop instead of "
            "threads)";
        if (!finalizer && in_budget(in)->abort == ABORT_NONE) {
            snprintf(in_budget(in)->abort_msg, sizeof(in_budget(in)->abort_msg), "%s", msg);
            in_budget(in)->abort = ABORT_POLICY;
            limits_force_slow(in);
        }
        PyErr_SetString(in_budget(in)->interpreter_error ? in_budget(in)->interpreter_error
                                              : PyExc_RuntimeError,
                        finalizer ? "a finalizer of the code's objects ran "
                                    "on another thread while a call of the "
                                    "code's ran: it did not run"
                                  : msg);
        return -1;
    }
    if (!in_budget(in)->running || in_runtime(in)->run_thread == me) {
        return 0;
    }
    /* Interpreted code runs only on the thread of its step: its budgets
       are counted there, and the per-thread checks (tripwire, gadget
       profile, provenance, memory accounting, the thread state CPython's
       recursion counters and errors are kept on) are armed there.  A
       thread the code started (threading.Thread, a ThreadPoolExecutor
       worker) that calls back into the code is refused, and the refusal
       is an abort of the step, never a silent wrong result: the thread's
       call raises, and the step ends with the same error at its next
       check point (or when its body ends: module.c).  A thread of the
       host's calling into the code meanwhile cannot be told apart (3.10
       to 3.12 raise no audit event when a thread starts): it ends the
       step too.  A finalizer the collector runs on another thread (any
       thread's allocation may collect the code's garbage) fails alone,
       as an error in a finalizer does (an unraisable exception). */
    if (finalizer) {
        PyErr_SetString(in_budget(in)->interpreter_error ? in_budget(in)->interpreter_error
                                              : PyExc_RuntimeError,
                        "a finalizer of the code's objects ran on another "
                        "thread while the step ran: it did not run");
        return -1;
    }
    if (in_budget(in)->abort != ABORT_NONE) {
        return limits_reraise_abort(in);
    }
    return limits_abort(
        in, ABORT_POLICY,
        "interpreted code runs only on its step's thread: a function of "
        "the code was called on another thread (threading, "
        "concurrent.futures) while the step ran; call it in the step "
        "itself (a loop instead of threads)");
}

/* Is the pending exception the executor's own error for an abort? */
static int
abort_error_pending(Interp *in)
{
    PyObject *t = PyErr_Occurred();
    return t != NULL &&
           ((in_budget(in)->interpreter_error != NULL &&
             PyErr_GivenExceptionMatches(t, in_budget(in)->interpreter_error)) ||
            (in_budget(in)->timeout_error != NULL &&
             PyErr_GivenExceptionMatches(t, in_budget(in)->timeout_error)));
}

PyObject *
window_abort_takes_over(Interp *in, PyObject *res)
{
    if (in_budget(in)->abort != ABORT_NONE &&
        (res != NULL || (!citizen_abort_passes_through(in_budget(in)->abort) &&
                         !abort_error_pending(in)))) {
        /* host code inside the window swallowed the abort, or raised
           another error for it (the MemoryError of an allocation the memory
           budget refused, a library's rewrapping of a tripwire refusal), or
           the limit fired before the code could report it (the memory
           budget refusing a step's entry frame): the window ends with the
           abort (an abort that passes through, a signal's, is its own
           error) */
        Py_CLEAR(res);
        PyErr_Clear();
        limits_reraise_abort(in);
    }
    return res;
}

PyObject *
interp_leave(Interp *in, InterpSave *save, PyObject *res)
{
    if (!save->started) {
        return res;
    }
    window_close(in, &save->w);
    res = window_abort_takes_over(in, res);
    if (res == NULL && PyErr_Occurred() && in_budget(in)->abort != ABORT_SIGNAL &&
        !PyErr_ExceptionMatches(PyExc_Exception) &&
        !PyErr_ExceptionMatches(PyExc_GeneratorExit)) {
        /* SystemExit, KeyboardInterrupt, a final answer... raised by
           interpreted code that host code called after the step (e.g. an
           interpreted __repr__): must not end the host's control flow.  It
           becomes the interpreter error.  (Formatting it may enter the
           code again, an interpreted __str__: the window is closed, so
           that call rejoins it, with every check on: interp_rearm.) */
        PyObject *t, *v, *tb;
        PyErr_Fetch(&t, &v, &tb);
        PyErr_NormalizeException(&t, &v, &tb);
        PyObject *cls = in_budget(in)->interpreter_error ? in_budget(in)->interpreter_error
                                              : PyExc_RuntimeError;
        PyErr_Format(cls, "Code execution failed due to: %s: %S",
                     t ? ((PyTypeObject *)t)->tp_name : "?",
                     v ? v : Py_None);
        Py_XDECREF(t);
        Py_XDECREF(v);
        Py_XDECREF(tb);
    }
    window_end(in);
    citizen_hook_end(in);
    return res;
}
