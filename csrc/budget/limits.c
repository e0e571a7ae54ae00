/* limits.c: budgets (docs/security.md lists each with its default).
 *
 * - operations: one decrement per evaluated node (charge() in eval.h);
 * - wall clock: checked every CLOCK_EVERY operations (a host call counts
 *   HOST_CALL_CLOCK_WEIGHT towards that), inside the interpreter, with no
 *   threads; blocking calls are bounded by the remaining time (policy.c);
 * - C stack and call depth: every interpreted call checks its depth
 *   (max_depth) and the address of a local against a limit computed from
 *   the current thread's (or generator's) stack bounds, so deep recursion is
 *   a RecursionError (catchable, as in CPython), never a crash;
 * - sizes: before **, <<, * on ints (max_int_bits) and before repetition and
 *   concatenation of sequences (max_result_bytes) the result size is
 *   estimated and refused; policy.c applies the same budgets to host calls.
 *
 * A budget violation sets in->abort, which makes the error uncatchable by
 * interpreted code (see eval_stmt.c): `except`, `finally` and `__exit__` do
 * not see it.  The abort is sticky: if host code swallows the error, the
 * next operation (or the end of the step, or the end of a hook call) raises
 * it again.
 */
#include "budget.h"

#include <pthread.h>
#include <stdarg.h>
#include <string.h>
#include <time.h>
#include <time.h>

#define CLOCK_EVERY 2048
#define STACK_MARGIN (256 * 1024)

double
limits_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Lowest safe address of the current thread's stack.  *own = 0 when the
 * stack pointer is outside the thread's own stack (some other stack
 * switcher's stack): the result is then a guess for this stack only, not
 * to be cached for the thread. */
/* The calling thread's stack extent as pthread_getattr_np last reported it
 * (NULL: not asked yet, or unusable).  The query is slow: for the main
 * thread glibc parses /proc/self/maps, about 450,000 instructions and 30
 * reads with the modules of a typical process loaded, which every new
 * executor's first step paid.  A thread-local dies with its thread, so a
 * later thread (even one given the same pthread_t) asks afresh; the stack
 * pointer is checked against the remembered extent on every use, so code
 * running on a switched stack (greenlets) asks afresh too. */
static _Thread_local char *tls_stack_lo, *tls_stack_hi;
/* pthread_getattr_np calls made by this thread (stack_bound_queries()). */
static _Thread_local unsigned long tls_stack_queries;

unsigned long
limits_stack_bound_queries(void)
{
    return tls_stack_queries;
}

static char *
thread_stack_limit(int *own)
{
    char *sp = (char *)__builtin_frame_address(0);
    if (tls_stack_lo != NULL && sp >= tls_stack_lo && sp <= tls_stack_hi) {
        *own = 1;
        return tls_stack_lo + STACK_MARGIN;
    }
    pthread_attr_t attr;
    void *addr = NULL;
    size_t size = 0;
    tls_stack_queries++;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        if (pthread_attr_getstack(&attr, &addr, &size) != 0) {
            addr = NULL;
        }
        pthread_attr_destroy(&attr);
    }
    *own = addr == NULL || (sp >= (char *)addr && sp <= (char *)addr + size);
    if (addr == NULL || size == 0 || size > ((size_t)1 << 30) ||
        sp < (char *)addr || sp > (char *)addr + size) {
        /* unknown bounds: assume 1 MiB below the current position */
        return (char *)((uintptr_t)sp - (1024 * 1024) + STACK_MARGIN);
    }
    tls_stack_lo = (char *)addr;
    tls_stack_hi = (char *)addr + size;
    return (char *)addr + STACK_MARGIN;
}

void
limits_prime_stack_extent(void)
{
    int own;
    (void)thread_stack_limit(&own);
}

/* Window numbers: process-wide, so that no two windows of any
 * interpreters share one (a program's node may be run by another
 * interpreter's window later). */
static uint64_t window_counter;

void
limits_new_window_epoch(Interp *in)
{
    in_budget(in)->window_epoch = ++window_counter;
}

void
limits_start(Interp *in)
{
    limits_new_window_epoch(in);
    limits_counters_set(in, limits_ops_budget(in), CLOCK_EVERY);
    double timeout = budget_timeout(in);
    in_budget(in)->deadline = timeout != BUDGET_NONE_SECONDS ? limits_now() + timeout : 0;
    in_budget(in)->depth = 0;
    in_budget(in)->abort = ABORT_NONE;
    /* on a generator's stack: its bound (stack.c), never the thread's */
    in_budget(in)->stack_limit = stack_current_limit();
    in_budget(in)->stack_lo = in_budget(in)->stack_hi = NULL; /* extent unknown: plain checks */
    if (in_budget(in)->stack_limit == NULL) {
        unsigned long me = (unsigned long)pthread_self();
        if (in_budget(in)->stack_thread_limit == NULL || in_budget(in)->stack_thread != me) {
            int own = 0;
            char *limit = thread_stack_limit(&own);
            if (!own) {
                in_budget(in)->stack_limit = limit; /* not cached */
            }
            else {
                in_budget(in)->stack_thread_limit = limit;
                in_budget(in)->stack_thread = me;
            }
        }
        if (in_budget(in)->stack_limit == NULL) {
            in_budget(in)->stack_limit = in_budget(in)->stack_thread_limit;
        }
    }
    int rl = Py_GetRecursionLimit();
    in_budget(in)->max_depth = rl > 50 ? rl - 20 : rl;
    if (budget_max_depth(in) < in_budget(in)->max_depth) {
        in_budget(in)->max_depth = (int)budget_max_depth(in);
    }
    in_budget(in)->abort_msg[0] = 0;
    citizen_start(in);
}

/* Make the abort sticky and remember its message (see limits_reraise_abort). */
static void
note_abort(Interp *in, AbortKind kind, PyObject *msg)
{
    in_budget(in)->abort = kind;
    limits_force_slow(in); /* every charge() now takes the slow path */
    const char *u = msg ? PyUnicode_AsUTF8(msg) : NULL;
    if (u == NULL) {
        PyErr_Clear();
        u = "Execution was stopped by an earlier limit";
    }
    size_t n = strlen(u);
    if (n >= sizeof(in_budget(in)->abort_msg)) {
        n = sizeof(in_budget(in)->abort_msg) - 1;
        /* do not cut a UTF-8 sequence */
        while (n > 0 && ((unsigned char)u[n] & 0xC0) == 0x80) {
            n--;
        }
    }
    memcpy(in_budget(in)->abort_msg, u, n);
    in_budget(in)->abort_msg[n] = 0;
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
    PyObject *cls =
        kind == ABORT_TIMEOUT ? in_budget(in)->timeout_error : in_budget(in)->interpreter_error;
    if (cls == NULL) {
        cls = PyExc_RuntimeError;
    }
    PyErr_SetObject(cls, msg);
    note_abort(in, kind, msg);
    Py_DECREF(msg);
    return -1;
}

int
limits_reraise_abort(Interp *in)
{
    if (citizen_abort_passes_through(in_budget(in)->abort)) {
        return citizen_reraise(in);
    }
    AbortKind kind = in_budget(in)->abort != ABORT_NONE ? in_budget(in)->abort : ABORT_BUDGET;
    PyObject *cls =
        kind == ABORT_TIMEOUT ? in_budget(in)->timeout_error : in_budget(in)->interpreter_error;
    if (cls == NULL) {
        cls = PyExc_RuntimeError;
    }
    PyErr_SetString(cls, in_budget(in)->abort_msg[0]
                             ? in_budget(in)->abort_msg
                             : "Execution was stopped by an earlier limit");
    in_budget(in)->abort = kind;
    limits_force_slow(in);
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
    PyObject *cls = in && in_budget(in)->interpreter_error ? in_budget(in)->interpreter_error
                                                : PyExc_RuntimeError;
    PyErr_SetObject(cls, msg);
    if (in && in_budget(in)->running) {
        note_abort(in, ABORT_POLICY, msg);
    }
    Py_DECREF(msg);
    return NULL;
}

/* The step's deadline has passed: its timeout error (an abort while a step
 * or hook runs; before the code runs, during the lowering, a plain error).
 * Always -1. */
int
limits_timeout(Interp *in)
{
    PyObject *t = PyFloat_FromDouble(budget_timeout(in));
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
        PyUnicode_Tailmatch(ts, in_st(in)->str_dot0_suffix, 0, PY_SSIZE_T_MAX,
                            1) == 1) {
        shown = PyUnicode_Substring(ts, 0, PyUnicode_GET_LENGTH(ts) - 2);
        Py_DECREF(ts);
        if (shown == NULL) {
            return -1;
        }
    }
    int r;
    if (in_budget(in)->running) {
        r = limits_abort(in, ABORT_TIMEOUT,
                         "Code execution exceeded the maximum execution "
                         "time of %U seconds",
                         shown);
    }
    else {
        PyErr_Format(in_budget(in)->timeout_error ? in_budget(in)->timeout_error
                                       : PyExc_RuntimeError,
                     "Code execution exceeded the maximum execution time of "
                     "%U seconds",
                     shown);
        r = -1;
    }
    Py_DECREF(shown);
    return r;
}

/* Lowering and other work before the code runs: has the deadline passed?
 * -1 with the timeout error when it has, else 0. */
int
limits_check_deadline(Interp *in)
{
    if (in != NULL && in_budget(in)->deadline > 0 && limits_now() > in_budget(in)->deadline) {
        return limits_timeout(in);
    }
    return 0;
}

int
limits_tick_slow(Interp *in)
{
    if (in_budget(in)->abort != ABORT_NONE) {
        /* an abort is pending (e.g. raised inside a host callback that
           swallowed it): stop at the next operation */
        if (!PyErr_Occurred()) {
            return limits_reraise_abort(in);
        }
        return -1;
    }
    long long ops = limits_ops_left(in);
    if (ops < 0) {
        return limits_abort(in, ABORT_BUDGET,
                            budget_message(BUDGET_ID_max_operations),
                            budget_max_operations(in));
    }
    long long clock = limits_clock_left(in);
    if (clock > 0) {
        /* nothing is due: tick reached 0 first because the budget is near
           its end, or operations were spent on one countdown alone */
        limits_counters_set(in, ops, clock);
        return 0;
    }
    limits_counters_set(in, ops, CLOCK_EVERY);
    if (in_budget(in)->deadline > 0 && limits_now() > in_budget(in)->deadline) {
        return limits_timeout(in);
    }
    if (citizen_tick(in) < 0) { /* GIL hand-over, signals */
        return -1;
    }
    return 0;
}

/* The stack pointer is below this interpreter's limit or above the top of
 * its stack.  Inside its stack's extent that is real exhaustion; outside,
 * interpreted code of this interpreter runs on a stack some other
 * interpreter switched to (a generator's, another big stack), and the
 * thread-local bound of stack.c is the one that applies.  0 / -1. */
int
limits_check_stack_slow(Interp *in, char *sp)
{
    int inside = in_budget(in)->stack_lo == NULL || in_budget(in)->stack_hi == NULL ||
                 (sp >= in_budget(in)->stack_lo && sp <= in_budget(in)->stack_hi);
    if (inside) {
        return sp < in_budget(in)->stack_limit ? limits_stack_error() : 0;
    }
    char *lim = stack_current_limit();
    if (lim == NULL) {
        lim = in_budget(in)->stack_thread_limit; /* back on the thread's own stack */
    }
    if (lim != NULL && sp < lim) {
        return limits_stack_error();
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
    size_t b = compat_long_num_bits(v);
    if (b == (size_t)-1) {
        PyErr_Clear();
        return LLONG_MAX / 4;
    }
    return (long long)b;
}

/* Size in bytes of a str / bytes / bytearray / list / tuple (its items for
 * containers: one pointer each), or -1 for other types.  Used by the size
 * pre-checks here and in policy.c. */
long long
seq_bytes(PyObject *v)
{
    /* the checks by type flag first: PyByteArray_Check is a call of
       PyType_IsSubtype for any other type */
    if (PyUnicode_Check(v)) {
        return (long long)PyUnicode_GET_LENGTH(v) * PyUnicode_KIND(v);
    }
    if (PyList_Check(v) || PyTuple_Check(v)) {
        return (long long)Py_SIZE(v) * (long long)sizeof(PyObject *);
    }
    if (PyBytes_Check(v)) {
        return PyBytes_GET_SIZE(v);
    }
    if (PyByteArray_Check(v)) {
        return PyByteArray_GET_SIZE(v);
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

/* The budgets as doubles, for the estimates below; none: past any estimate
 * (LLONG_MAX as a double is only 9.2e18). */
static inline double
limit_max_bits(Interp *in)
{
    return budget_limited(budget_max_int_bits(in))
               ? (double)budget_max_int_bits(in)
               : HUGE_VAL;
}

static inline double
limit_max_bytes(Interp *in)
{
    return budget_limited(budget_max_result_bytes(in))
               ? (double)budget_max_result_bytes(in)
               : HUGE_VAL;
}

int
limits_check_binop(Interp *in, int op, PyObject *l, PyObject *r)
{
    if (op == OP_Add) {
        /* concatenation: s = s + s doubles in a few steps (a sum of two
           numbers is no bigger than the larger, plus one bit) */
        if (PyLong_CheckExact(l) || PyFloat_CheckExact(l)) {
            return 0;
        }
        long long a = seq_bytes(l), b = seq_bytes(r);
        if (a >= 0 && b >= 0 && (double)a + (double)b > limit_max_bytes(in)) {
            return too_big(in, "concatenation");
        }
        return 0;
    }
    double max_bits = limit_max_bits(in);
    if (op == OP_Pow) {
        long long lb = int_bits(l);
        if (lb > 1 && PyLong_Check(r)) {
            int overflow = 0;
            long long e = PyLong_AsLongLongAndOverflow(r, &overflow);
            if (overflow > 0 || !limits_power_within(in, lb, e)) {
                return too_big(in, "power");
            }
        }
        return 0;
    }
    if (op == OP_LShift) {
        if (PyLong_Check(l) && PyLong_Check(r) && int_bits(l) > 0) {
            int overflow = 0;
            long long sh = PyLong_AsLongLongAndOverflow(r, &overflow);
            if (overflow > 0 || (double)sh + (double)int_bits(l) > max_bits) {
                return too_big(in, "shift");
            }
        }
        return 0;
    }
    if (op == OP_Mult) {
        long long lb = int_bits(l), rb = int_bits(r);
        if (lb >= 0 && rb >= 0) {
            if ((double)lb + (double)rb > max_bits) {
                return too_big(in, "multiplication");
            }
            return 0;
        }
        /* sequence repetition */
        PyObject *seq = lb < 0 ? l : r;
        PyObject *cnt = lb < 0 ? r : l;
        long long n = seq_bytes(seq);
        if (n > 0 && !PyFloat_Check(cnt) && PyIndex_Check(cnt)) {
            /* an int, or an object with __index__ (asked again by CPython) */
            PyObject *ci = PyNumber_Index(cnt);
            if (ci == NULL) {
                PyErr_Clear();
                return 0;
            }
            int overflow = 0;
            long long k = PyLong_AsLongLongAndOverflow(ci, &overflow);
            Py_DECREF(ci);
            if (overflow > 0 ||
                (k > 0 && (double)n * (double)k > limit_max_bytes(in))) {
                return too_big(in, "repetition");
            }
        }
        return 0;
    }
    return 0;
}
