/* limits.c: budgets.
 *
 * - operations: one decrement per evaluated node (charge() in interp.h);
 * - wall clock: checked every CLOCK_EVERY operations, inside the
 *   interpreter, with no threads;
 * - C stack: every recursive entry compares the address of a local with a
 *   limit computed from the current thread's (or generator's) stack bounds,
 *   so deep nesting is a RecursionError, never a crash;
 * - sizes: before **, <<, * on ints and sequences, the result size is
 *   estimated and refused above MAX_RESULT_BITS / MAX_SEQUENCE_ITEMS.
 *
 * A budget violation sets in->abort, which makes the error uncatchable by
 * interpreted code (see eval_stmt.c).
 */
#include "interp.h"

#include <pthread.h>
#include <stdarg.h>
#include <time.h>

#define CLOCK_EVERY 2048
#define STACK_MARGIN (256 * 1024)
#define MAX_RESULT_BITS ((long long)4000000)      /* ~1.2M decimal digits */
#define MAX_SEQUENCE_ITEMS ((long long)50000000)  /* items or characters */

double
limits_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Lowest safe address of the current thread's stack. */
static char *
thread_stack_limit(void)
{
    char *sp = (char *)__builtin_frame_address(0);
    pthread_attr_t attr;
    void *addr = NULL;
    size_t size = 0;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        if (pthread_attr_getstack(&attr, &addr, &size) != 0) {
            addr = NULL;
        }
        pthread_attr_destroy(&attr);
    }
    if (addr == NULL || size == 0 || size > ((size_t)1 << 30) ||
        sp < (char *)addr || sp > (char *)addr + size) {
        /* unknown bounds: assume 1 MiB below the current position */
        return (char *)((uintptr_t)sp - (1024 * 1024) + STACK_MARGIN);
    }
    return (char *)addr + STACK_MARGIN;
}

void
limits_start(Interp *in)
{
    in->ops_left = in->ops_limit;
    in->check_countdown = CLOCK_EVERY;
    in->deadline = in->timeout > 0 ? limits_now() + in->timeout : 0;
    in->depth = 0;
    in->abort = ABORT_NONE;
    unsigned long me = (unsigned long)pthread_self();
    if (in->stack_thread_limit == NULL || in->stack_thread != me) {
        in->stack_thread_limit = thread_stack_limit();
        in->stack_thread = me;
    }
    in->stack_limit = in->stack_thread_limit;
    int rl = Py_GetRecursionLimit();
    in->max_depth = rl > 50 ? rl - 20 : rl;
}

int
limits_abort(Interp *in, AbortKind kind, const char *fmt, ...)
{
    va_list va;
    va_start(va, fmt);
    PyObject *msg = PyUnicode_FromFormatV(fmt, va);
    va_end(va);
    if (msg == NULL) {
        return -1;
    }
    PyObject *cls = kind == ABORT_TIMEOUT ? in->timeout_error : in->interpreter_error;
    if (cls == NULL) {
        cls = PyExc_RuntimeError;
    }
    PyErr_SetObject(cls, msg);
    Py_DECREF(msg);
    in->abort = kind;
    return -1;
}

PyObject *
raise_interp_error(Interp *in, const char *fmt, ...)
{
    va_list va;
    va_start(va, fmt);
    PyObject *msg = PyUnicode_FromFormatV(fmt, va);
    va_end(va);
    if (msg == NULL) {
        return NULL;
    }
    PyObject *cls = in && in->interpreter_error ? in->interpreter_error
                                                : PyExc_RuntimeError;
    PyErr_SetObject(cls, msg);
    Py_DECREF(msg);
    if (in && in->running) {
        in->abort = ABORT_POLICY;
    }
    return NULL;
}

int
limits_tick_slow(Interp *in)
{
    if (in->abort != ABORT_NONE) {
        /* an abort is pending (e.g. raised inside a host callback that
           swallowed it): stop at the next operation */
        if (!PyErr_Occurred()) {
            return limits_abort(in, in->abort,
                                "Execution was stopped by an earlier limit");
        }
        return -1;
    }
    if (in->ops_left < 0) {
        return limits_abort(in, ABORT_BUDGET,
                            "Reached the max number of operations of %lld. "
                            "Maybe there is an infinite loop somewhere in the "
                            "code, or you're just asking too many calculations.",
                            in->ops_limit);
    }
    if (in->check_countdown <= 0) {
        in->check_countdown = CLOCK_EVERY;
        if (in->deadline > 0 && limits_now() > in->deadline) {
            PyObject *t = PyFloat_FromDouble(in->timeout);
            if (t == NULL) {
                return -1;
            }
            PyObject *ts = PyObject_Str(t);
            Py_DECREF(t);
            if (ts == NULL) {
                return -1;
            }
            /* smolagents prints the limit as given (an int usually) */
            PyObject *shown = ts;
            if (PyUnicode_GET_LENGTH(ts) > 2 &&
                PyUnicode_Tailmatch(ts, in->st->str_dot0_suffix, 0,
                                    PY_SSIZE_T_MAX, 1) == 1) {
                shown = PyUnicode_Substring(ts, 0, PyUnicode_GET_LENGTH(ts) - 2);
                Py_DECREF(ts);
                if (shown == NULL) {
                    return -1;
                }
            }
            int r = limits_abort(in, ABORT_TIMEOUT,
                                 "Code execution exceeded the maximum execution "
                                 "time of %U seconds",
                                 shown);
            Py_DECREF(shown);
            return r;
        }
        if (PyErr_CheckSignals() < 0) {
            in->abort = ABORT_BUDGET;
            return -1;
        }
    }
    return 0;
}

int
limits_stack_error(void)
{
    PyErr_SetString(PyExc_RecursionError, "maximum recursion depth exceeded");
    return -1;
}

/* Bits in |v| for an int, or -1 for other types. */
static long long
int_bits(PyObject *v)
{
    if (!PyLong_Check(v)) {
        return -1;
    }
    size_t b = _PyLong_NumBits(v);
    if (b == (size_t)-1) {
        PyErr_Clear();
        return LLONG_MAX / 4;
    }
    return (long long)b;
}

static long long
seq_len(PyObject *v)
{
    if (PyUnicode_Check(v) || PyBytes_Check(v) || PyByteArray_Check(v) ||
        PyList_Check(v) || PyTuple_Check(v)) {
        return (long long)PyObject_Length(v);
    }
    return -1;
}

static int
too_big(Interp *in, const char *what)
{
    return limits_abort(in, ABORT_BUDGET,
                        "The result of this %s would be too large for the "
                        "sandbox's size limit",
                        what);
}

int
limits_check_binop(Interp *in, int op, PyObject *l, PyObject *r)
{
    if (op == OP_Pow) {
        long long lb = int_bits(l);
        if (lb > 1 && PyLong_Check(r)) {
            int overflow = 0;
            long long e = PyLong_AsLongLongAndOverflow(r, &overflow);
            if (overflow > 0 || (e > 0 && (double)(lb - 1) * (double)e > (double)MAX_RESULT_BITS)) {
                return too_big(in, "power");
            }
        }
        return 0;
    }
    if (op == OP_LShift) {
        if (PyLong_Check(l) && PyLong_Check(r) && int_bits(l) > 0) {
            int overflow = 0;
            long long s = PyLong_AsLongLongAndOverflow(r, &overflow);
            if (overflow > 0 || s + int_bits(l) > MAX_RESULT_BITS) {
                return too_big(in, "shift");
            }
        }
        return 0;
    }
    if (op == OP_Mult) {
        long long lb = int_bits(l), rb = int_bits(r);
        if (lb >= 0 && rb >= 0 && !PyBool_Check(l) && !PyBool_Check(r)) {
            if (lb + rb > MAX_RESULT_BITS) {
                return too_big(in, "multiplication");
            }
            return 0;
        }
        /* sequence repetition */
        PyObject *seq = lb < 0 ? l : r;
        PyObject *cnt = lb < 0 ? r : l;
        long long n = seq_len(seq);
        if (n > 0 && PyLong_Check(cnt)) {
            int overflow = 0;
            long long k = PyLong_AsLongLongAndOverflow(cnt, &overflow);
            if (overflow > 0 || (k > 0 && (double)n * (double)k > (double)MAX_SEQUENCE_ITEMS)) {
                return too_big(in, "repetition");
            }
        }
        return 0;
    }
    return 0;
}

int
interp_enter(Interp *in, InterpSave *save)
{
    save->started = 0;
    if (in->running) {
        return 0;
    }
    /* a hook called by host code after the step: a fresh budget window */
    in->ops_limit = in->ops_limit_cfg > 0 ? in->ops_limit_cfg : 10000000;
    in->timeout = in->timeout_seconds;
    limits_start(in);
    in->running = 1;
    save->started = 1;
    return 0;
}

PyObject *
interp_leave(Interp *in, InterpSave *save, PyObject *res)
{
    if (save->started) {
        in->running = 0;
        in->abort = ABORT_NONE;
    }
    return res;
}
