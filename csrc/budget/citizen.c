/* citizen.c: interpreted code as a good citizen of its host process.
 *
 * The budgets' check point (limits_tick_slow, every CLOCK_EVERY operations)
 * calls citizen_tick(), which does what CPython's eval loop does at its own
 * check points:
 *
 * - GIL: a step may run for seconds, and the host may have other threads (a
 *   web server's, a UI's, a heartbeat).  The GIL is released and taken again
 *   once per switch interval (sys.getswitchinterval(), re-read after each
 *   hand-over, so a change applies within one interval), when the process
 *   has other Python threads.  CPython offers no public way to know whether
 *   a thread waits for the GIL, and a release immediately followed by a
 *   re-take hands nothing over (the waiter asks for a switch only after an
 *   interval in which the GIL never changed hands); so the GIL is let go
 *   for a microsecond's sleep, in which a woken waiter takes it.  A thread
 *   that wants the GIL waits at most about one interval when it wins that
 *   race.  On a loaded machine a woken waiter is sometimes not scheduled
 *   within the sleep and waits a whole interval more; so while hand-overs
 *   are being taken (the re-take waited: another thread ran), the GIL is
 *   handed over every half interval, which keeps the worst wait near two
 *   intervals even with a missed hand-over.  An idle host thread costs
 *   only the one release per interval.
 *   Hooks the host calls after the step (an interpreted __repr__, a key
 *   function) hand it over too; another thread that calls the same
 *   executor's functions meanwhile waits for the hook to end
 *   (limits.c, interp_wrong_thread).
 * - Signals: PyErr_CheckSignals() runs the host's Python-level signal
 *   handlers (on the main thread only; elsewhere it does nothing).  The
 *   exception a handler raises ends the step as an uncatchable abort: user
 *   `except` / `finally` / `__exit__` do not see it (as for the budgets), and
 *   it reaches the caller unchanged (KeyboardInterrupt stays a
 *   KeyboardInterrupt; a host handler's TimeoutError stays a TimeoutError).
 *
 * KeyboardInterrupt from anywhere else (a host call interrupted by Ctrl-C,
 * such as time.sleep, or a `raise KeyboardInterrupt` in the code) is claimed
 * the same way where a handler would see it (citizen_claim_error), so user
 * code never swallows a Ctrl-C; smolagents behaves alike (its `try` only
 * handles Exception, and a KeyboardInterrupt reaches the host).
 *
 * Hooks the host calls after the step (limits.c, interp_leave) turn a
 * non-Exception into InterpreterError so that interpreted code cannot end
 * the host's control flow; an exception raised by a signal handler at a
 * check point (ABORT_SIGNAL) is the host's own and passes through them too.
 */
#include "budget.h"

#include <stdio.h>
#include <time.h>
#include <string.h>

#define DEFAULT_SWITCH_INTERVAL 0.005
/* A hand-over whose re-take took longer than this was taken by a waiter. */
#define GIL_TAKEN_SECONDS 0.0003
/* After a taken hand-over, this many hand-overs come every half interval. */
#define GIL_WANTED_HANDOVERS 8

/* Read sys.getswitchinterval() into in->gil_interval (the default if it
 * cannot be read).  No exception is left set. */
static void
read_switch_interval(Interp *in)
{
    double v = DEFAULT_SWITCH_INTERVAL;
    PyObject *fn = PySys_GetObject("getswitchinterval"); /* borrowed */
    if (fn != NULL) {
        Py_INCREF(fn); /* sys may drop it while it runs */
        PyObject *r = PyObject_CallNoArgs(fn);
        Py_DECREF(fn);
        double d = r != NULL ? PyFloat_AsDouble(r) : -1.0;
        Py_XDECREF(r);
        if (d == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
        }
        else if (d > 0.0 && d < 1e6) {
            v = d;
        }
    }
    in_budget(in)->gil_interval = v;
}

void
citizen_start(Interp *in)
{
    in_budget(in)->gil_interval = -1.0; /* read at the first check point */
    in_budget(in)->gil_last = 0.0;      /* the first check point hands over */
    in_budget(in)->gil_wanted = 0;
}

/* abort_msg of a KeyboardInterrupt raised by a signal handler (ABORT_SIGNAL):
 * citizen_reraise raises a KeyboardInterrupt again for it. */
static const char SIGNAL_KBI_MSG[] = "KeyboardInterrupt";

/* Make the pending exception (raised by a signal handler at a check point
 * when `from_signal`, else a KeyboardInterrupt) an uncatchable abort that
 * reaches the caller unchanged.  Returns -1 (the exception stays set). */
static int
claim(Interp *in, PyObject *type, int from_signal)
{
    int kbi = PyErr_GivenExceptionMatches(type, PyExc_KeyboardInterrupt);
    in_budget(in)->abort = from_signal ? ABORT_SIGNAL : ABORT_INTERRUPT;
    limits_force_slow(in); /* every charge() now takes the slow path */
    if (kbi) {
        snprintf(in_budget(in)->abort_msg, sizeof(in_budget(in)->abort_msg), "%s", SIGNAL_KBI_MSG);
    }
    else {
        snprintf(in_budget(in)->abort_msg, sizeof(in_budget(in)->abort_msg),
                 "Execution was interrupted by a signal handler raising %.100s",
                 PyExceptionClass_Check(type) ? ((PyTypeObject *)type)->tp_name
                                              : "?");
    }
    return -1;
}

/* 1 when the interpreter has another thread state than the caller's. */
static int
other_threads(void)
{
    PyThreadState *me = PyThreadState_Get();
    PyThreadState *h = PyInterpreterState_ThreadHead(PyThreadState_GetInterpreter(me));
    return h != NULL && (h != me || PyThreadState_Next(h) != NULL);
}

int
citizen_tick(Interp *in)
{
    if (in_budget(in)->gil_interval < 0) {
        read_switch_interval(in);
    }
    double now = limits_now();
    double period = in_budget(in)->gil_wanted > 0 ? in_budget(in)->gil_interval / 2 : in_budget(in)->gil_interval;
    if (now - in_budget(in)->gil_last >= period) {
        /* Hand the GIL over when the process has other Python threads.  A
           bare release and re-take does not: a waiting thread asks for a
           switch only after a whole interval in which the GIL never changed
           hands, and our re-take changes it.  So the release lasts a
           moment (a microsecond's sleep), enough for a woken waiter to take
           the GIL; the re-take then waits until that thread lets it go. */
        if (other_threads()) {
            Py_BEGIN_ALLOW_THREADS
            struct timespec ts = {0, 1000};
            nanosleep(&ts, NULL);
            Py_END_ALLOW_THREADS
            /* the sleep lasts ~60 us (timer slack); a re-take that took
               far longer waited for a thread that took the GIL */
            double took = limits_now() - now;
            if (took > GIL_TAKEN_SECONDS) {
                in_budget(in)->gil_wanted = GIL_WANTED_HANDOVERS;
            }
            else if (in_budget(in)->gil_wanted > 0) {
                in_budget(in)->gil_wanted--;
            }
        }
        else {
            in_budget(in)->gil_wanted = 0;
        }
        in_budget(in)->gil_last = limits_now();
        read_switch_interval(in);
    }
    if (PyErr_CheckSignals() < 0) {
        PyObject *t = PyErr_Occurred();
        return claim(in, t != NULL ? t : PyExc_KeyboardInterrupt, 1);
    }
    return 0;
}

void
citizen_hook_end(Interp *in)
{
    /* per thread: a window's start resets the interpreter's own clock */
    static _Thread_local double last;
    double now = limits_now();
    if (last == 0.0) {
        last = now;
        return;
    }
    double interval =
        in_budget(in)->gil_interval > 0 ? in_budget(in)->gil_interval : DEFAULT_SWITCH_INTERVAL;
    if (now - last < interval) {
        return;
    }
    /* (no Python call here: the window may end with its error set) */
    if (other_threads()) {
        Py_BEGIN_ALLOW_THREADS
        struct timespec ts = {0, 1000};
        nanosleep(&ts, NULL);
        Py_END_ALLOW_THREADS
    }
    last = limits_now();
}

int
citizen_claim_error(Interp *in)
{
    if (citizen_abort_passes_through(in_budget(in)->abort)) {
        return 1;
    }
    if (in_budget(in)->abort == ABORT_NONE &&
        PyErr_ExceptionMatches(PyExc_KeyboardInterrupt)) {
        claim(in, PyExc_KeyboardInterrupt, 0);
        return 1;
    }
    return 0;
}

int
citizen_reraise(Interp *in)
{
    if (in_budget(in)->abort == ABORT_INTERRUPT ||
        strcmp(in_budget(in)->abort_msg, SIGNAL_KBI_MSG) == 0) {
        PyErr_SetNone(PyExc_KeyboardInterrupt);
    }
    else {
        PyObject *cls = in_budget(in)->interpreter_error ? in_budget(in)->interpreter_error
                                              : PyExc_RuntimeError;
        PyErr_SetString(cls, in_budget(in)->abort_msg);
    }
    limits_force_slow(in);
    return -1;
}
