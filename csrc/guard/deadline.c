/* deadline.c: the deadline at its sources (docs/security.md, "Deadline").
 *
 * The interpreter reads the clock every CLOCK_EVERY operations (limits.c).
 * That bounds the time between two reads only if every operation is
 * short.  Three kinds are not, and are handled here:
 *
 * - Iterators with no end of their own (itertools.count, cycle, repeat
 *   without `times`, iter(callable, sentinel), huge ranges): a C loop that
 *   consumes them, or a chain of lazy iterators ending in one (math.fsum,
 *   set().union, `in`, dict.update, a key function of sorted()...), never
 *   comes back to the interpreter.  Their types are deadline sources: every
 *   item charges the clock countdown and checks the deadline
 *   (deadline_install_sources, below), so the code's values stay CPython's
 *   objects.  The code's own iteration in C (`in`, star-unpacking) of an
 *   iterator that neither charges nor is bounded by a container gets a
 *   budget iterator (deadline_wrap_iter, policy.c), and so does an
 *   itertools module loaded again, whose types were never made sources
 *   (deadline_wrap_result).
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
#include "guard.h"

#include <math.h>
#include <string.h>

/* Operands below this many bits cost about as much as any operation
 * (guard.h, where deadline_power_light reads it too). */
#define HEAVY_BITS DEADLINE_HEAVY_BITS
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
        if (deadline_power_light(lb, e)) {
            return 0;
        }
        double res = lb * e / 30.0;
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

/* ---------------------------------------------------- sources that charge
 *
 * The builtin iterator types with no end of their own are deadline sources
 * themselves: their tp_iternext is replaced, once per process, by one that
 * charges the clock countdown and checks the deadline while a step's code
 * runs on the thread (tripwire_armed_tls: a step, or a hook of the code's
 * that host code calls; not a tool, nor host code outside a step, which
 * only pay the test), then calls CPython's own.  So any C loop over them,
 * or over any chain of lazy iterators (map, zip, enumerate, chain, islice,
 * accumulate...) that ends in one, ends at the deadline, however it was
 * reached (a host function no list names, a builtin that C code calls as a
 * key, host code called by host code), and the code's values stay the
 * objects CPython gives: `iter(f, sentinel)` is a callable_iterator,
 * `iter(e) is e`, pickle sees the iterator itself.
 *
 *   - range iterators: a range is not an iterator; a C loop over one
 *     (`s.isdisjoint(r)`, `max(r)` as sorted()'s key) makes its own;
 *   - callable_iterator (`iter(f, sentinel)`: `iter(int, 1)` never ends);
 *   - itertools.count, cycle (after its first pass it calls no source) and
 *     repeat (without `times`).
 *
 * The interpreter's own loops (a for statement, a comprehension's and a
 * generator's loops) call CPython's tp_iternext (deadline_next_orig):
 * every iteration of theirs runs charged nodes. */
typedef struct {
    PyTypeObject *tp;
    iternextfunc orig;
} Source;
#define MAX_SOURCES 8
static Source sources[MAX_SOURCES];
static int nsources;

/* Items seen on this thread while an abort was pending. */
static HOT_TLS unsigned int items_aborting;

/* Items between two raises of a pending abort by a source. */
#define ABORT_EVERY 2048

static inline int
source_charge(void)
{
    Interp *in = tripwire_armed_tls;
    if (in == NULL || !in_budget(in)->running) {
        return 0;
    }
    if (in_budget(in)->abort != ABORT_NONE) {
        /* host code reporting the abort (an unraisable hook formatting a
           traceback) may iterate small ranges: the pending abort is raised
           again only every ABORT_EVERY items, enough to end a C loop that
           swallowed it */
        return ++items_aborting % ABORT_EVERY == 0 && !tripwire_foreign(in) &&
               limits_tick_slow(in) < 0;
    }
    limits_clock_spend(in, 1);
    return in_budget(in)->tick <= 0 && !tripwire_foreign(in) && limits_tick_slow(in) < 0;
}

/* CPython's tp_iternext of source type `tp` or of the source it derives
 * from (a subclass inherits the replaced slot), or NULL. */
static iternextfunc
source_orig(PyTypeObject *tp)
{
    for (; tp != NULL; tp = tp->tp_base) {
        for (int i = 0; i < nsources; i++) {
            if (sources[i].tp == tp) {
                return sources[i].orig;
            }
        }
    }
    return NULL;
}

static PyObject *
source_next(PyObject *it)
{
    iternextfunc orig = source_orig(Py_TYPE(it));
    if (orig == NULL) { /* cannot happen: only sources have this slot */
        PyErr_SetString(PyExc_SystemError, "deadline source not found");
        return NULL;
    }
    return source_charge() ? NULL : orig(it);
}

static void
install_source(PyTypeObject *tp)
{
    if (tp == NULL || tp->tp_iternext == NULL ||
        tp->tp_iternext == source_next || nsources == MAX_SOURCES) {
        return;
    }
    iternextfunc orig = tp->tp_iternext;
    sources[nsources].tp = tp;
    sources[nsources].orig = orig;
    nsources++;
    tp->tp_iternext = source_next;
    /* the type's __next__ slot wrapper holds CPython's function too: a
       subclass takes its tp_iternext from it (typeobject.c's
       update_one_slot), and `it.__next__()` calls it */
    PyObject *d = PyObject_GetAttrString((PyObject *)tp, "__next__");
    if (d != NULL && Py_IS_TYPE(d, &PyWrapperDescr_Type) &&
        ((PyWrapperDescrObject *)d)->d_wrapped == (void *)orig) {
        ((PyWrapperDescrObject *)d)->d_wrapped = (void *)source_next;
    }
    Py_XDECREF(d);
    PyErr_Clear();
}

int
deadline_install_sources(void)
{
    /* once per process (the types are the process's; the GIL is held) */
    install_source(&PyRangeIter_Type);
    install_source(&PyLongRangeIter_Type);
    install_source(&PyCallIter_Type);
    PyObject *itertools = PyImport_ImportModule("itertools");
    if (itertools == NULL) {
        return -1;
    }
    static const char *const names[] = {"count", "cycle", "repeat", NULL};
    for (int i = 0; names[i]; i++) {
        PyObject *t = PyObject_GetAttrString(itertools, names[i]);
        if (t == NULL) {
            Py_DECREF(itertools);
            return -1;
        }
        if (PyType_Check(t)) {
            /* the module keeps its types alive (3.12+: heap types of its
               state; the module stays in sys.modules) */
            install_source((PyTypeObject *)t);
        }
        Py_DECREF(t);
    }
    Py_DECREF(itertools);
    return 0;
}

iternextfunc
deadline_next_orig(PyTypeObject *tp)
{
    if (tp->tp_iternext != source_next) {
        return tp->tp_iternext;
    }
    return source_orig(tp);
}

/* 1 when iterating `it` in C may not end (or take long) without passing
 * through interpreted code or a source that charges: 0 for iterators over
 * a container that exists (bounded by its size), interpreted generators
 * (they charge), sources and budget iterators. */
static int
unbounded_iterator(Interp *in, PyObject *it)
{
    PyTypeObject *tp = Py_TYPE(it);
    if (tp->tp_iternext == NULL || tp == &PyTupleIter_Type ||
        tp == &PyListIter_Type || tp->tp_iternext == source_next) {
        return 0; /* the common cases first */
    }
    if (!PyIter_Check(it) || tp == in_st(in)->GeneratorType ||
        tp == in_st(in)->CoroWrapperType ||
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
    return 1;
}

/* 1 for an iterator a host function returns that has no end of its own
 * and does not charge: the types of an itertools module loaded again
 * (importlib's fresh imports make new types on 3.12+), whose count / cycle
 * / repeat were never made sources. */
static int
unbounded_source(Interp *in, PyObject *v)
{
    PyTypeObject *tp = Py_TYPE(v);
    if (tp->tp_iternext == NULL || tp->tp_iternext == source_next ||
        (tp->tp_flags & Py_TPFLAGS_HEAPTYPE) == 0 ||
        strncmp(tp->tp_name, "itertools.", 10) != 0) {
        return 0; /* not an iterator (the common case), a source, or a
                     static type (made a source at install) */
    }
    const char *n = tp->tp_name + 10;
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
    }
    return 0;
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
