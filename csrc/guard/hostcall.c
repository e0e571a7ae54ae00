/* hostcall.c: the one entry point for calls from interpreted code into host
 * code (docs/security.md, "Host-call entry point").
 *
 * What counts as a host call: any call the evaluator makes of a callable
 * that is not an interpreted function (or a method bound to one): explicit
 * calls `f(...)`, decorators, `with` __enter__ / __exit__ of host context
 * managers, `yield from` a host iterator (its send / throw / close), class
 * creation through a host metaclass.  The evaluator's protocol operations on
 * host objects (iteration, `in`, subscripts, arithmetic, attribute reads)
 * are not calls: they are single operations whose C loops, when they have
 * one, are bounded by the iterator wrapping below (deadline.c) and by the
 * size budgets (limits.c, memlimit.c); their results pass the value gate
 * where they enter.
 *
 * Every host call goes through hostcall_vectorcall (or hostcall_call for a
 * call with *args / **kwargs), which, in this order:
 * 1. applies the call policy (policy_check_call: dangerous callables;
 *    hostcall_gate says when a call site may remember a pass, for
 *    callables whose verdicts depend on their identity alone, and whether
 *    step 2 and the bridge have nothing to do for them (the site remembers
 *    it: eval/specialize.c; HC_PLAIN then skips those);
 * 2. applies the per-callable security hook (policy_prepare_call: bounded
 *    substitutes for blocking calls, size pre-checks, consumers' budgets);
 *    Then funcbridge_adapt_call: interpreted functions passed where
 *    CPython's C code demands real Python functions are bridged.
 * 3. [nothing for the deadline: the iterators with no end of their own
 *    charge for every item themselves (deadline.c), so the arguments are
 *    the objects the code gave];
 * 4. [the tripwire / tool-call state belongs here: a tool proxy suspends
 *    the audit-hook tripwire itself around the real tool call];
 * 5. calls (on the step's big stack when made on a generator's stack:
 *    bigstack.c); isinstance, len and list.append, when the gate passed
 *    them as plain and they run no code, are made without the call
 *    machinery, before step 2 (hostcall_fast_builtin);
 * 6. charges the deadline weight of a host call (limits_host_call_done);
 * 7. wraps an unbounded iterator it returns that does not charge
 *    (deadline_wrap_result: a fresh itertools module's) and gates the
 *    result (gate_value, nesting_check).
 *
 * tests/security/test_hostcall.py fails when a raw call appears in the
 * evaluator outside this file and a reviewed allowlist.
 */
#include "guard.h"

/* Step 7 on a result that is not a plain value. */
static NOINLINE PyObject *
finish_slow(Interp *in, PyObject *res)
{
    if (Py_TYPE(res)->tp_iternext != NULL) {
        res = deadline_wrap_result(in, res);
    }
    if (res != NULL &&
        (gate_value(in, res) < 0 ||
         (nesting_may_walk(res) && nesting_check(in, res) < 0))) {
        Py_CLEAR(res);
    }
    return res;
}

/* Steps 6 and 7 on the result of a host call.  Steals `res`; new reference
 * or NULL. */
static inline PyObject *
finish(Interp *in, PyObject *res)
{
    limits_host_call_done(in); /* security: deadline accounting */
    if (res == NULL || value_is_plain(res)) {
        return res; /* plain values: no iterator, gate nor nesting walk */
    }
    return finish_slow(in, res);
}

/* Callables that live as long as the host's modules and builtin types:
 * builtin functions of modules, static types and immutable heap types (C
 * extension types made by PyType_FromSpec with Py_TPFLAGS_IMMUTABLETYPE:
 * the code cannot set that flag, so none of its classes is one), method
 * descriptors of either (only C types have method descriptors; from 3.12
 * and 3.13 many of the standard library's types are heap types:
 * `collections.deque`, itertools, `re.Pattern`).  Holding one keeps nothing
 * of the code's alive.  (The call-gate
 * verdict and the policy_prepare_call kind of any callable are functions of
 * its identity: policy.c builds both tables once, at module init, and keys
 * them by object or C function; only the tool exemption changes, and
 * hostcall_gate never lets a site remember a pass it gave.) */
static inline int
type_is_host_fixed(PyTypeObject *tp)
{
    return !(tp->tp_flags & Py_TPFLAGS_HEAPTYPE) ||
           (tp->tp_flags & Py_TPFLAGS_IMMUTABLETYPE);
}

static int
identity_is_stable(PyObject *func)
{
    PyTypeObject *ft = Py_TYPE(func);
    if (ft == &PyCFunction_Type || ft == &PyCMethod_Type) {
        PyObject *self = PyCFunction_GET_SELF(func);
        return self == NULL || PyModule_CheckExact(self);
    }
    if (ft == &PyType_Type) {
        return type_is_host_fixed((PyTypeObject *)func);
    }
    if (ft == &PyMethodDescr_Type) {
        return type_is_host_fixed(PyDescr_TYPE(func));
    }
    return 0;
}

int
hostcall_gate(Interp *in, PyObject *func, int site)
{
    if (policy_check_call(in, func) < 0) {
        return -1;
    }
    /* never a pass the tool exemption gave: the tools change between
       steps, the remembered verdict would not */
    if ((site & HC_SITE_LEARNS) &&
        ((site & HC_SITE_HOLDS) || identity_is_stable(func)) &&
        !policy_callable_is_dangerous(in, func)) {
        int plain = policy_call_is_plain(in, func) &&
                    !funcbridge_may_adapt(in, func);
        return HC_CHECKED | HC_REMEMBER | (plain ? HC_REMEMBER_PLAIN : 0);
    }
    return HC_CHECKED;
}

/* Objects whose `__class__` is their type and whose length is their
 * type's C slot, with no code of anyone's run to find either: instances of
 * these exact builtin types.  (Not every static type: a weakref proxy
 * answers `__class__` with its referent's class.) */
static inline int
fast_builtin_inert(PyObject *v)
{
    if (value_is_plain(v)) { /* int, str, float, tuple, list, bool, None */
        return 1;
    }
    PyTypeObject *t = Py_TYPE(v);
    return t == &PyDict_Type || t == &PySet_Type || t == &PyFrozenSet_Type ||
           t == &PyBytes_Type || t == &PyComplex_Type;
}

/* isinstance(v, cls) for a class whose metatype is exactly `type` (so
 * type.__instancecheck__, CPython's object_isinstance): 1 or 0 when known
 * without running code, -1 when not (v of another type and not a
 * subclass: its __class__ must be asked). */
static inline int
fast_isinstance_one(PyObject *v, PyObject *cls)
{
    if (!PyType_CheckExact(cls)) {
        return -1;
    }
    if (PyObject_TypeCheck(v, (PyTypeObject *)cls)) {
        return 1;
    }
    return fast_builtin_inert(v) ? 0 : -1;
}

/* isinstance(v, cls) for a class or a tuple of classes (not nested): 1 or
 * 0 when fast_isinstance_one knows it for each class it asks, -1 when the
 * builtin must be called. */
static inline int
fast_isinstance(PyObject *v, PyObject *cls)
{
    if (!PyTuple_CheckExact(cls)) {
        return fast_isinstance_one(v, cls);
    }
    Py_ssize_t n = PyTuple_GET_SIZE(cls);
    int r = 0;
    for (Py_ssize_t i = 0; i < n && r == 0; i++) {
        r = fast_isinstance_one(v, PyTuple_GET_ITEM(cls, i));
    }
    return r;
}

/* list.append on an exact list (PRECALL_NO_KW_LIST_APPEND), args[0] the
 * list: the growth is the allocator's to account for (memlimit.c).  1 with
 * *res set (None, or NULL with an exception), 0 when not this call. */
static inline int
list_append_fast(Interp *in, PyObject *func, PyObject *const *args,
                 Py_ssize_t nargs, PyObject **res)
{
    if (func != in_st(in)->list_append || nargs != 2 ||
        !PyList_CheckExact(args[0])) {
        return 0;
    }
    limits_host_call_done(in);
    *res = PyList_Append(args[0], args[1]) < 0 ? NULL : Py_NewRef(Py_None);
    return 1;
}

/* `lst.extend(seq)`, the descriptor called unbound with an exact list
 * (args[0]) and an exact list or tuple: list_extend's own fast case, which
 * runs no code.  policy_prepare_call's step for it (PK_SEQ_EXTEND: the
 * size of the result against the size budget) is all of steps 2 to 5 that
 * applies: no substitution, no bridge (a list method), no iterator to
 * wrap.  Same returns as hostcall_fast_builtin. */
static int
list_extend_fast(Interp *in, PyObject *func, PyObject *const *args,
                 Py_ssize_t nargs, PyObject **res)
{
    if (func != in_st(in)->list_extend || nargs != 2 ||
        !PyList_CheckExact(args[0]) ||
        !(PyList_CheckExact(args[1]) || PyTuple_CheckExact(args[1]))) {
        return 0;
    }
    if (policy_check_extend_seq(in, args[0], args[1]) < 0) {
        *res = NULL;
        return 1;
    }
    limits_host_call_done(in);
#if PY_VERSION_HEX >= 0x030D0000
    /* list.extend itself, without the descriptor's call (PyList_Extend is
       public from 3.13) */
    *res = PyList_Extend(args[0], args[1]) < 0 ? NULL : Py_NewRef(Py_None);
#else
    *res = PyObject_Vectorcall(func, args, 2, NULL);
#endif
    return 1;
}

/* hostcall_fast_builtin's cases of isinstance and len (the same returns). */
static ALWAYS_INLINE int
fast_isinstance_len(Interp *in, PyObject *func, PyObject *const *args,
                    Py_ssize_t nargs, PyObject **res)
{
    ModState *st = in_st(in);
    if (func == st->builtin_isinstance && nargs == 2) {
        int r = fast_isinstance(args[0], args[1]);
        if (r < 0) {
            return 0;
        }
        limits_host_call_done(in);
        *res = Py_NewRef(r ? Py_True : Py_False);
        return 1;
    }
    if (func == st->builtin_len && nargs == 1) {
        /* the inert containers' lengths, read as their sq_length /
           mp_length slots read them (any other type: the builtin, which
           raises the TypeError of a type without one) */
        PyObject *v = args[0];
        PyTypeObject *t = Py_TYPE(v);
        Py_ssize_t n;
        if (t == &PyUnicode_Type) {
            n = PyUnicode_GET_LENGTH(v);
        }
        else if (t == &PyList_Type || t == &PyTuple_Type ||
                 t == &PyBytes_Type) {
            n = Py_SIZE(v);
        }
        else if (t == &PyDict_Type) {
            n = PyDict_GET_SIZE(v);
        }
        else if (t == &PySet_Type || t == &PyFrozenSet_Type) {
            n = PySet_GET_SIZE(v);
        }
        else {
            return 0;
        }
        limits_host_call_done(in);
        *res = PyLong_FromSsize_t(n);
        return 1;
    }
    return 0;
}

/* The specializations CPython 3.11 makes of these calls
 * (PRECALL_NO_KW_ISINSTANCE, PRECALL_NO_KW_LEN, PRECALL_NO_KW_LIST_APPEND),
 * for the cases in which the builtin itself would run no code: isinstance
 * with a class, or a tuple of classes, of metatype `type` and an object
 * that is an instance (or of an inert builtin type, fast_builtin_inert);
 * len of an inert builtin container; list.append on an exact list (args[0],
 * the object of the method call).  The results are a bool, an int and
 * None, plain values;
 * the deadline is charged as for any host call; nothing else of
 * hostcall_vectorcall applies (plain callables, no iterator arguments).
 * 1 with *res set (a new reference, or NULL with an exception), 0 when
 * the call takes the full path. */
static int
hostcall_fast_builtin(Interp *in, PyObject *func, PyObject *const *args,
                      Py_ssize_t nargs, PyObject **res)
{
    return list_append_fast(in, func, args, nargs, res) ||
           fast_isinstance_len(in, func, args, nargs, res);
}

static PyObject *hostcall_vectorcall_full(Interp *in, PyObject **pfunc,
                                          PyObject **args, size_t nargsf,
                                          PyObject *kwnames, int flags);

PyObject *
hostcall_vectorcall(Interp *in, PyObject **pfunc, PyObject **args,
                    size_t nargsf, PyObject *kwnames, int flags)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    /* isinstance, len, list.append that run no code: answered here (a
       call gate's HC_PLAIN comes with HC_CHECKED: step 1 is done) */
    PyObject *res;
    if ((flags & HC_PLAIN) && kwnames == NULL &&
        hostcall_fast_builtin(in, *pfunc, args, nargs, &res)) {
        return res;
    }
    if ((flags & (HC_CHECKED | HC_METHOD)) == (HC_CHECKED | HC_METHOD) &&
        kwnames == NULL && list_extend_fast(in, *pfunc, args, nargs, &res)) {
        return res;
    }
    return hostcall_vectorcall_full(in, pfunc, args, nargsf, kwnames, flags);
}

/* hostcall_vectorcall past the fast builtins. */
static NOINLINE PyObject *
hostcall_vectorcall_full(Interp *in, PyObject **pfunc, PyObject **args,
                         size_t nargsf, PyObject *kwnames, int flags)
{
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (!(flags & HC_CHECKED) && policy_check_call(in, *pfunc) < 0) {
        return NULL;
    }
    PyObject *res;
    /* an unbound method call (args[0] is the object, *pfunc a method
       descriptor): policy_prepare_call takes args[0] as the object */
    Py_ssize_t first = (flags & HC_METHOD) ? 1 : 0;
    if (!(flags & HC_PLAIN) &&
        policy_prepare_call(in, pfunc, args, nargs, kwnames) < 0) {
        return NULL;
    }
    /* interpreted functions where CPython's C code demands real ones
       (only ExceptionGroup's split / subgroup, both C methods) */
    if (!(flags & HC_PLAIN) &&
        (Py_IS_TYPE(*pfunc, &PyCFunction_Type) ||
         Py_IS_TYPE(*pfunc, &PyMethodDescr_Type)) &&
        funcbridge_adapt_call(in, *pfunc, args, nargs) < 0) {
        return NULL;
    }
    /* a call made on a generator's stack runs on the step's big stack;
       a reviewed pure function with inert arguments runs without the
       gadget profile (gadgets.c, pure.def) */
    if (gadgets_maybe_pure(*pfunc) &&
        gadgets_pure_call(in, *pfunc, first ? args[0] : NULL, args + first,
                          nargs + nkw - first)) {
        GadgetPause gp;
        gadgets_pause(in, &gp);
        res = bigstack_vectorcall(in, *pfunc, args, nargsf, kwnames);
        gadgets_unpause(in, &gp);
    }
    else {
        res = bigstack_vectorcall(in, *pfunc, args, nargsf, kwnames);
    }
    return finish(in, res);
}

PyObject *
hostcall_method_plain(Interp *in, PyObject *descr, PyObject **args,
                      Py_ssize_t n)
{
    /* hostcall_vectorcall with HC_CHECKED | HC_PLAIN | HC_METHOD and no
       keywords: steps 2 and the bridge have nothing to do */
    PyObject *res;
    if (list_append_fast(in, descr, args, n, &res)) {
        return res; /* the one method hostcall_fast_builtin answers */
    }
    res = bigstack_vectorcall(
        in, descr, args, (size_t)n | PY_VECTORCALL_ARGUMENTS_OFFSET, NULL);
    return finish(in, res);
}

PyObject *
hostcall_builtin_plain(Interp *in, PyObject **pfunc, PyObject **args,
                       Py_ssize_t nargs)
{
    /* hostcall_vectorcall with HC_CHECKED | HC_PLAIN and no keywords; not
       list.append, which is a method call */
    PyObject *res;
    if (fast_isinstance_len(in, *pfunc, args, nargs, &res)) {
        return res;
    }
    return hostcall_vectorcall_full(in, pfunc, args,
                                    (size_t)nargs |
                                        PY_VECTORCALL_ARGUMENTS_OFFSET,
                                    NULL, HC_CHECKED | HC_PLAIN);
}

PyObject *
hostcall_call(Interp *in, PyObject **pfunc, PyObject *args, PyObject *kw,
              int flags)
{
    if (!(flags & HC_CHECKED) && policy_check_call(in, *pfunc) < 0) {
        return NULL;
    }
    /* `args` is a fresh tuple the caller owns alone: its items may be
       replaced in place */
    PyObject **items = &PyTuple_GET_ITEM(args, 0);
    Py_ssize_t n = PyTuple_GET_SIZE(args);
    if (policy_prepare_call(in, pfunc, items, n, NULL) < 0 ||
        funcbridge_adapt_call(in, *pfunc, items, n) < 0) {
        return NULL;
    }
    PyObject *res = bigstack_call(in, *pfunc, args, kw);
    return finish(in, res);
}

PyObject *
hostcall_callv(Interp *in, PyObject *func, PyObject *const *args,
               Py_ssize_t nargs)
{
    PyObject *small[6];
    PyObject *f = Py_NewRef(func);
    if (hostcall_is_interpreted(in, func)) {
        /* not a host call: interpreted code gates its own values */
        PyObject *res = PyObject_Vectorcall(f, args, (size_t)nargs, NULL);
        Py_DECREF(f);
        return res;
    }
    PyObject **stack =
        nargs + 1 <= 6 ? small : PyMem_Malloc((nargs + 1) * sizeof(PyObject *));
    if (stack == NULL) {
        Py_DECREF(f);
        return PyErr_NoMemory();
    }
    stack[0] = NULL;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        stack[i + 1] = Py_NewRef(args[i]);
    }
    PyObject *res = hostcall_vectorcall(
        in, &f, stack + 1, (size_t)nargs | PY_VECTORCALL_ARGUMENTS_OFFSET,
        NULL, 0);
    for (Py_ssize_t i = 0; i < nargs; i++) {
        Py_DECREF(stack[i + 1]);
    }
    if (stack != small) {
        PyMem_Free(stack);
    }
    Py_DECREF(f);
    return res;
}

PyObject *
hostcall_getiter(Interp *in, PyObject *iterable)
{
    PyObject *it = PyObject_GetIter(iterable);
    if (it != NULL && deadline_wrap_iter(in, &it) < 0) {
        Py_CLEAR(it);
    }
    return it;
}

int
hostcall_contains(Interp *in, PyObject *container, PyObject *item)
{
    PyTypeObject *tp = Py_TYPE(container);
    if (tp->tp_iternext == NULL) {
        /* not an iterator: nothing to wrap (deadline_wrap_iter's first
           test).  (Not PySet_Contains for sets: their sq_contains also
           looks a set key up as a frozenset.) */
        return PySequence_Contains(container, item);
    }
    PyObject *c = Py_NewRef(container);
    if (deadline_wrap_iter(in, &c) < 0) {
        Py_DECREF(c);
        return -1;
    }
    int r = PySequence_Contains(c, item);
    Py_DECREF(c);
    return r;
}

PyObject *
hostcall_star_tuple(Interp *in, PyObject *v)
{
    if (PyTuple_CheckExact(v) || PyList_CheckExact(v)) {
        return PySequence_Tuple(v);
    }
    PyObject *it = hostcall_getiter(in, v);
    if (it == NULL) {
        return NULL;
    }
    PyObject *t = PySequence_Tuple(it);
    Py_DECREF(it);
    return t;
}
