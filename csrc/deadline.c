/* deadline.c: the deadline at its sources (docs/security.md, "Deadline").
 *
 * The interpreter reads the clock every CLOCK_EVERY operations (limits.c).
 * That bounds the time between two reads only if every operation is
 * short.  Three kinds are not, and are handled here:
 *
 * - Iterators with no end of their own (itertools.count, cycle, repeat
 *   without `times`, iter(callable, sentinel), huge ranges, and any iterator
 *   produced by host code that the code hands to host code): a C loop that
 *   consumes them (math.fsum, set().union, `in`, dict.update, ...) never
 *   comes back to the interpreter.  Such iterators are wrapped in budget
 *   iterators (policy.c), whose every item charges the clock countdown and
 *   checks the deadline: when a host call returns one
 *   (deadline_wrap_result), when one whose whole interface is iteration is
 *   passed to a host call (deadline_wrap_args, hostcall.c: a StringIO or a
 *   file stays the object host code was given), and when the code iterates
 *   one in C (`in`, star-unpacking: deadline_wrap_iter).  A huge range, which is
 *   not an iterator, is bounded at the source: the range iterator types
 *   check the deadline themselves (deadline_install_sources).
 * - Big-int arithmetic: one `x * y` of two ints inside max_int_bits can take
 *   a second.  Each int operation charges the clock countdown with a weight
 *   that grows with the operands' size (deadline_charge_binop), so the clock
 *   is read before the next heavy operation starts: the overshoot is at
 *   most one operation.
 * - One int operation (or pow(b, e, m), one C loop of bits(e) modular
 *   multiplications) estimated to run longer than MAX_SINGLE_NS is refused
 *   before it starts: nothing could interrupt it.
 *
 * A single long C call on data the code built within its budgets is still
 * unbounded in-process (docs/security.md lists the known ones).
 */
#include "interp.h"

#include <math.h>
#include <string.h>

/* Operands below this many bits cost about as much as any operation. */
#define HEAVY_BITS 4096
/* Estimated nanoseconds per unit of the clock countdown: about the cost of
 * one interpreted operation. */
#define NS_PER_OP 20.0
/* One int operation or pow(b, e, m) estimated to run longer than this (in
 * nanoseconds, on a slow machine) is refused: the deadline cannot
 * interrupt it once started. */
#define MAX_SINGLE_NS 2e9
/* CPython's Karatsuba cutoff (digits) */
#define KARATSUBA_DIGITS 70.0

/* Bits of the int `v`, or -1 with an exception set (only for an int that
 * is not normalized, which compat_long_num_bits reads with
 * int.bit_length(): that call may allocate, and a refusal by the memory
 * budget there must end the step as that refusal, so it is not cleared). */
static double
bits_of(PyObject *v)
{
    size_t b = compat_long_num_bits(v);
    if (b == (size_t)-1) {
        return -1.0;
    }
    return (double)b;
}

/* Estimated time (ns) of multiplying ints of `a` and `b` 30-bit digits:
 * schoolbook below the Karatsuba cutoff, Karatsuba (n^1.585) above it,
 * in slices for lopsided operands, as CPython does. */
static double
mul_ns(double a, double b)
{
    double lo = a < b ? a : b, hi = a < b ? b : a;
    if (lo < KARATSUBA_DIGITS) {
        return lo * hi;
    }
    return 12.0 * (hi / lo) * pow(lo, 1.585);
}

/* Charge the clock countdown with an operation estimated at `ns`; refuse
 * one too long to be interrupted.  0 / -1. */
static int
charge_ns(Interp *in, double ns, const char *what)
{
    if (ns > MAX_SINGLE_NS) {
        return limits_abort(in, ABORT_BUDGET,
                            "This %s would run too long for the sandbox "
                            "(the deadline cannot interrupt it)",
                            what);
    }
    double w = ns / NS_PER_OP;
    if (w < 1) {
        return 0;
    }
    if (w >= (double)limits_clock_left(in)) {
        /* read the clock now, before the heavy operation starts */
        limits_force_slow(in);
        return limits_tick_slow(in);
    }
    limits_clock_spend(in, (long long)w);
    return 0;
}

int
deadline_charge_binop(Interp *in, int op, PyObject *l, PyObject *r)
{
    double lb = bits_of(l), rb = lb < 0 ? -1.0 : bits_of(r);
    if (lb < 0 || rb < 0) {
        return -1;
    }
    if (lb < HEAVY_BITS && rb < HEAVY_BITS && op != OP_Pow) {
        return 0;
    }
    double ld = lb / 30.0 + 1, rd = rb / 30.0 + 1, ns = 0;
    const char *what = "operation";
    switch ((BinOpKind)op) {
    case OP_Mult:
        ns = mul_ns(ld, rd);
        what = "multiplication";
        break;
    case OP_FloorDiv:
    case OP_Mod:
        /* schoolbook long division: quotient digits x divisor digits */
        ns = 4.0 * (ld > rd ? ld - rd + 1 : 1) * rd;
        what = "division";
        break;
    case OP_Div:
        ns = ld + rd;
        break;
    case OP_Pow: {
        /* the result's size is bounded by max_int_bits (limits.c); the
           squarings up to it cost about twice the last one */
        double e = PyLong_AsDouble(r);
        if (e == -1.0 && PyErr_Occurred()) {
            PyErr_Clear();
            e = 1e18;
        }
        if (e <= 1 || lb <= 1) {
            return 0;
        }
        double res = lb * e / 30.0;
        if (res < HEAVY_BITS / 30.0) {
            return 0;
        }
        ns = 2.0 * mul_ns(res / 2, res / 2);
        what = "power";
        break;
    }
    case OP_Add:
    case OP_Sub:
    case OP_LShift:
    case OP_RShift:
    case OP_BitAnd:
    case OP_BitOr:
    case OP_BitXor:
    case OP_MatMult:
    case OP__BIN_COUNT:
        ns = ld + rd;
        break;
    }
    return charge_ns(in, ns, what);
}

int
deadline_check_modpow(Interp *in, PyObject *b, PyObject *e, PyObject *m)
{
    if (!PyLong_Check(b) || !PyLong_Check(e) || !PyLong_Check(m)) {
        return 0;
    }
    double eb = bits_of(e), mb = eb < 0 ? -1.0 : bits_of(m);
    if (eb < 0 || mb < 0) {
        return -1;
    }
    double md = mb / 30.0 + 1;
    /* per exponent bit: a squaring and a reduction modulo m */
    return charge_ns(in, eb * (mul_ns(md, md) + 2.0 * md * md),
                     "pow(base, exp, mod)");
}

/* 1 when iterating `it` in C may not end (or take long) without passing
 * through interpreted code; 0 for iterators over a container that exists
 * (bounded by its size), interpreted generators (they charge) and budget
 * iterators. */
static int
unbounded_iterator(Interp *in, PyObject *it)
{
    PyTypeObject *tp = Py_TYPE(it);
    if (tp->tp_iternext == NULL || tp == &PyTupleIter_Type ||
        tp == &PyListIter_Type) {
        return 0; /* the common cases first */
    }
    if (!PyIter_Check(it) || tp == in->st->GeneratorType ||
        tp == in->st->CoroWrapperType ||
        policy_is_budget_iterator(in, it)) {
        return 0;
    }
    if (tp == &PyListIter_Type || tp == &PyListRevIter_Type ||
        tp == &PyTupleIter_Type || tp == &PyUnicodeIter_Type ||
        tp == &PyBytesIter_Type || tp == &PyByteArrayIter_Type ||
        tp == &PyDictIterKey_Type || tp == &PyDictIterValue_Type ||
        tp == &PyDictIterItem_Type || tp == &PyDictRevIterKey_Type ||
        tp == &PyDictRevIterValue_Type || tp == &PyDictRevIterItem_Type ||
        tp == &PySetIter_Type) {
        return 0;
    }
    if (!(tp->tp_flags & Py_TPFLAGS_HEAPTYPE) &&
        strcmp(tp->tp_name, "str_ascii_iterator") == 0) {
        return 0; /* 3.12+: not exported */
    }
    if (tp == &PyRangeIter_Type || tp == &PyLongRangeIter_Type) {
        Py_ssize_t n = PyObject_LengthHint(it, PY_SSIZE_T_MAX);
        if (n < 0) {
            PyErr_Clear();
            return 1;
        }
        return n > 100000;
    }
    return 1;
}

/* 1 for an iterator a host function returns that has no end of its own:
 * itertools.count / cycle, repeat without `times`, iter(f, sentinel), an
 * iterator over a huge range. */
static int
unbounded_source(Interp *in, PyObject *v)
{
    PyTypeObject *tp = Py_TYPE(v);
    if (tp->tp_iternext == NULL || (tp->tp_flags & Py_TPFLAGS_HEAPTYPE)) {
        return 0; /* not an iterator (the common case), or a class's */
    }
    if (tp == &PyCallIter_Type || tp == &PyRangeIter_Type ||
        tp == &PyLongRangeIter_Type) {
        return unbounded_iterator(in, v);
    }
    const char *n = tp->tp_name;
    if (strncmp(n, "itertools.", 10) != 0) {
        return 0;
    }
    n += 10;
    if (strcmp(n, "count") == 0 || strcmp(n, "cycle") == 0) {
        return 1;
    }
    if (strcmp(n, "repeat") == 0) {
        /* repeat(x, n) has a length hint; repeat(x) has none */
        Py_ssize_t k = PyObject_LengthHint(v, -1);
        if (k < 0) {
            PyErr_Clear();
            return 1;
        }
        return 0;
    }
    return 0;
}

/* ---------------------------------------------- range iterators as sources
 *
 * A range is not an iterator: a host C loop over one (`s.isdisjoint(r)`,
 * `max(r)` called by sorted() as a key, any consumer no list names) makes
 * its own range iterator and never comes back.  So the range iterator
 * types are deadline sources themselves: their tp_iternext is replaced,
 * once per process, by one that charges the clock countdown and checks
 * the deadline while a step's code runs on the thread (tripwire_armed_tls:
 * a step, or a hook of the code's that host code calls; not a tool, nor
 * host code outside a step, which only pay the test), then calls
 * CPython's own.  The interpreter's `for` loop calls CPython's directly
 * (deadline_range_next_orig): its body's operations are charged already. */
static iternextfunc range_next_orig, longrange_next_orig;

/* Range items seen on this thread while an abort was pending. */
static HOT_TLS unsigned int range_items_aborting;

/* Items between two raises of a pending abort by a range iterator. */
#define RANGE_ABORT_EVERY 2048

static inline int
range_next_charge(void)
{
    Interp *in = tripwire_armed_tls;
    if (in == NULL || !in->running) {
        return 0;
    }
    if (in->abort != ABORT_NONE) {
        /* host code reporting the abort (an unraisable hook formatting a
           traceback) may iterate small ranges: the pending abort is raised
           again only every RANGE_ABORT_EVERY items, enough to end a C loop
           that swallowed it */
        return ++range_items_aborting % RANGE_ABORT_EVERY == 0 &&
               limits_tick_slow(in) < 0;
    }
    limits_clock_spend(in, 1);
    return in->tick <= 0 && limits_tick_slow(in) < 0;
}

static PyObject *
range_next_bounded(PyObject *it)
{
    return range_next_charge() ? NULL : range_next_orig(it);
}

static PyObject *
longrange_next_bounded(PyObject *it)
{
    return range_next_charge() ? NULL : longrange_next_orig(it);
}

void
deadline_install_sources(void)
{
    /* once per process (the types are the process's; the GIL is held) */
    if (range_next_orig == NULL &&
        PyRangeIter_Type.tp_iternext != range_next_bounded) {
        range_next_orig = PyRangeIter_Type.tp_iternext;
        PyRangeIter_Type.tp_iternext = range_next_bounded;
    }
    if (longrange_next_orig == NULL &&
        PyLongRangeIter_Type.tp_iternext != longrange_next_bounded) {
        longrange_next_orig = PyLongRangeIter_Type.tp_iternext;
        PyLongRangeIter_Type.tp_iternext = longrange_next_bounded;
    }
}

iternextfunc
deadline_range_next_orig(iternextfunc next)
{
    if (next == range_next_bounded) {
        return range_next_orig;
    }
    if (next == longrange_next_bounded) {
        return longrange_next_orig;
    }
    return next;
}

PyObject *
deadline_wrap_result(Interp *in, PyObject *res)
{
    if (!unbounded_source(in, res)) {
        return res;
    }
    PyObject *w = policy_budget_iterator(in, res);
    Py_DECREF(res);
    return w;
}

int
deadline_wrap_iter(Interp *in, PyObject **pit)
{
    if (!unbounded_iterator(in, *pit)) {
        return 0;
    }
    PyObject *w = policy_budget_iterator(in, *pit);
    if (w == NULL) {
        return -1;
    }
    Py_SETREF(*pit, w);
    return 0;
}

/* Builtins that look at an argument without iterating it, or whose answer
 * depends on its identity or type: an iterator passed to them stays as it
 * is (a compatibility list: a missing entry only costs a wrapper). */
static const char *const observers[] = {
    "isinstance", "issubclass", "id",   "next",    "iter",    "repr",
    "ascii",      "hash",       "callable", "len", "getattr", "hasattr",
    "setattr",    "delattr",    "print", "type",   "vars",    "dir",
    "format",     "str",        NULL};

static int
observes_identity(PyObject *func)
{
    if (func == (PyObject *)&PyType_Type ||
        func == (PyObject *)&PyUnicode_Type) {
        return 1;
    }
    if (!PyCFunction_Check(func)) {
        return 0;
    }
    PyObject *self = PyCFunction_GET_SELF(func);
    if (self == NULL || !PyModule_Check(self)) {
        return 0;
    }
    const char *mod = PyModule_GetName(self);
    if (mod == NULL) {
        PyErr_Clear();
        return 0;
    }
    const char *name = ((PyCFunctionObject *)func)->m_ml->ml_name;
    if (strcmp(mod, "itertools") == 0) {
        /* tee() copies a tee object it is given (3.14: tee of a tee is
           independent of it) and iterates nothing itself: whatever
           consumes its results in C gets them wrapped */
        return strcmp(name, "tee") == 0;
    }
    if (strcmp(mod, "builtins") != 0) {
        return 0;
    }
    for (int i = 0; observers[i]; i++) {
        if (strcmp(name, observers[i]) == 0) {
            return 1;
        }
    }
    return 0;
}

/* 1 for an iterator whose whole interface is iteration (a generator, a
 * call iterator, the builtin lazy iterators, itertools' iterators): a
 * budget iterator standing in for it loses nothing host code could ask of
 * it.  An iterator that is more than that (a StringIO, a file, a csv
 * reader, any object with methods of its own) is passed as it is: host code
 * receives the object the code gave it, and iterating it is bounded by what
 * it holds or by the sources it reads from, which are wrapped themselves
 * when they reach host code.  An allowlist: a type not named here is never
 * replaced. */
static int
pure_iterator(Interp *in, PyTypeObject *tp)
{
    if (tp == &PyGen_Type || tp == &PyCallIter_Type || tp == &PySeqIter_Type ||
        tp == &PyRangeIter_Type || tp == &PyLongRangeIter_Type || tp == &PyMap_Type ||
        tp == &PyFilter_Type || tp == &PyZip_Type || tp == &PyEnum_Type ||
        tp == &PyReversed_Type) {
        return 1;
    }
    return strncmp(tp->tp_name, "itertools.", 10) == 0;
}

int
deadline_wrap_args(Interp *in, PyObject *func, PyObject **args,
                   Py_ssize_t n)
{
    if (PyType_Check(func) && ((PyTypeObject *)func)->tp_iternext != NULL) {
        /* a lazy iterator type (map, zip, chain, islice...): it iterates
           its arguments only when it is consumed, and whatever consumes it
           in C gets it wrapped (the consumers that iterate at construction,
           product / permutations / cycle..., are policy.c's) */
        return 0;
    }
    int checked = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!unbounded_iterator(in, args[i]) || !pure_iterator(in, Py_TYPE(args[i]))) {
            continue;
        }
        if (!checked) {
            if (observes_identity(func)) {
                return 0;
            }
            checked = 1;
        }
        if (deadline_wrap_iter(in, &args[i]) < 0) {
            return -1;
        }
    }
    return 0;
}
