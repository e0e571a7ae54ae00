/* eval_expr.c: evaluate expression nodes.
 *
 * eval_expr() returns a new reference, or NULL with an exception set.  Every
 * node charges one operation.  Values that enter from outside the
 * interpreter's own computations (attribute loads, subscripts, call results)
 * pass the policy's value gate.
 */
#include "eval.h"

/* ------------------------------------------------------------------ names */

static NOINLINE PyObject *
unbound_local(PyObject *name)
{
    PyErr_Format(PyExc_UnboundLocalError, COMPAT_MSG_UNBOUND_LOCAL, name);
    return NULL;
}

PyObject *
raise_name_error(PyObject *name)
{
    PyObject *exc;
    PyErr_Format(PyExc_NameError, "name '%U' is not defined", name);
    /* CPython sets NameError.name for suggestions */
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    PyErr_NormalizeException(&t, &v, &tb);
    exc = v;
    if (exc && PyObject_SetAttrString(exc, "name", name) < 0) {
        PyErr_Clear();
    }
    PyErr_Restore(t, v, tb);
    return NULL;
}

/* Look `name` up in a mapping that may not be a dict (class namespaces from
 * __prepare__).  Returns new ref, or NULL with no error when missing. */
static PyObject *
mapping_lookup(PyObject *map, PyObject *name)
{
    if (PyDict_CheckExact(map)) {
        PyObject *v = PyDict_GetItemWithError(map, name);
        Py_XINCREF(v);
        return v;
    }
    PyObject *v = PyObject_GetItem(map, name);
    if (v == NULL && PyErr_ExceptionMatches(PyExc_KeyError)) {
        PyErr_Clear();
    }
    return v;
}

static NOINLINE PyObject *
global_lookup_slow(Frame *f, PyObject *name)
{
    gcache_note(f->in, name); /* a global read off the slots */
    PyObject *v = PyDict_GetItemWithError(f->globals, name);
    if (v != NULL && Py_TYPE(v) == in_st(f->in)->LazyImportType) {
        return lazyimport_resolve(f, name, v); /* PEP 810 */
    }
    if (v == NULL) {
        if (PyErr_Occurred()) {
            return NULL;
        }
        v = PyDict_GetItemWithError(f->builtins, name);
        if (v == NULL) {
            if (!PyErr_Occurred()) {
                raise_name_error(name);
            }
            return NULL;
        }
    }
    Py_INCREF(v);
    return v;
}

PyObject *
load_name(Frame *f, Node *e)
{
    PyObject *v;
    switch ((NameScope)e->scope_kind) {
    case NAME_FAST:
        v = f->fast[e->slot];
        if (v == NULL) {
            return unbound_local(e->obj);
        }
        Py_INCREF(v);
        return v;
    case NAME_DEREF:
        v = PyCell_GET(f->cells[e->slot]);
        if (v == NULL) {
            if (e->slot < f->scope->ncells) {
                return unbound_local(e->obj);
            }
            PyErr_Format(PyExc_NameError, COMPAT_MSG_UNBOUND_FREE, e->obj);
            return NULL;
        }
        Py_INCREF(v);
        return v;
    case NAME_GLOBAL:
        return gcache_load(f, e);
    case NAME_NAME:
        if (f->locals != NULL && f->locals != f->globals) {
            v = mapping_lookup(f->locals, e->obj);
            if (v != NULL || PyErr_Occurred()) {
                return v;
            }
            return global_lookup_slow(f, e->obj);
        }
        return gcache_load(f, e);
    case NAME_OUTER:
        v = f->back->fast[e->slot];
        if (v == NULL) {
#if PY_VERSION_HEX >= 0x030C0000
            /* 3.12+ inlines the comprehension: a local of the function */
            return unbound_local(e->obj);
#else
            /* a free variable of the comprehension's function */
            PyErr_Format(PyExc_NameError, COMPAT_MSG_UNBOUND_FREE, e->obj);
            return NULL;
#endif
        }
        Py_INCREF(v);
        return v;
    case NAME_CLASSDEREF:
        v = mapping_lookup(f->locals, e->obj);
        if (v != NULL || PyErr_Occurred()) {
            return v;
        }
        v = PyCell_GET(f->cells[e->slot]);
        if (v == NULL) {
            PyErr_Format(PyExc_NameError, COMPAT_MSG_UNBOUND_FREE, e->obj);
            return NULL;
        }
        Py_INCREF(v);
        return v;
    case NAME_CLASSDICT_GLOBAL:
    case NAME_CLASSDICT_DEREF: {
        /* an annotation scope in a class body: the class's namespace
           (__classdict__; the class's dict once it is made), then as
           NAME_GLOBAL / NAME_DEREF */
        PyObject *d = PyCell_GET(f->cells[f->scope->classdict_slot]);
        if (d != NULL) {
            v = mapping_lookup(d, e->obj);
            if (v != NULL || PyErr_Occurred()) {
                return v;
            }
        }
        if (e->scope_kind == NAME_CLASSDICT_GLOBAL) {
            return gcache_load(f, e);
        }
        v = PyCell_GET(f->cells[e->slot]);
        if (v == NULL) {
            PyErr_Format(PyExc_NameError, COMPAT_MSG_UNBOUND_FREE, e->obj);
            return NULL;
        }
        Py_INCREF(v);
        return v;
    }
    case NAME_UNRESOLVED:
        break;
    }
    PyErr_Format(PyExc_SystemError, "unresolved name '%U'", e->obj);
    return NULL;
}

/* Refuse rebinding a tool name, by any binding form. */
static int
check_tool_binding_slow(Frame *f, PyObject *name)
{
    PyObject *tools = in_guard(f->in)->tools;
    if (tools && PyDict_GET_SIZE(tools)) {
        PyObject *t = PyDict_GetItemWithError(tools, name);
        if (t != NULL) {
            raise_interp_error(f->in,
                               "Cannot assign to name '%U': doing this would "
                               "erase the existing tool!",
                               name);
            return -1;
        }
        if (PyErr_Occurred()) {
            return -1;
        }
    }
    return 0;
}

/* The tool check is cached per Name node: the name is constant and the
 * tools only change between steps (tools_epoch). */
static inline int
check_tool_binding(Frame *f, Node *t)
{
    if (t->Name.checked_epoch == in_eval(f->in)->tools_epoch) {
        return 0;
    }
    if (check_tool_binding_slow(f, t->obj) < 0) {
        return -1;
    }
    specialize_name_checked(t, in_eval(f->in)->tools_epoch);
    return 0;
}

int
store_name(Frame *f, Node *t, PyObject *value)
{
    if (check_tool_binding(f, t) < 0) {
        return -1;
    }
    switch ((NameScope)t->scope_kind) {
    case NAME_FAST:
        Py_INCREF(value);
        Py_XSETREF(f->fast[t->slot], value);
        return 0;
    case NAME_DEREF:
    case NAME_CLASSDEREF:
        return PyCell_Set(f->cells[t->slot], value);
    case NAME_GLOBAL:
        return gcache_store(f, t, value);
    case NAME_NAME:
        if (f->locals == f->globals) {
            return gcache_store(f, t, value);
        }
        if (PyDict_CheckExact(f->locals)) {
            return PyDict_SetItem(f->locals, t->obj, value);
        }
        return PyObject_SetItem(f->locals, t->obj, value);
    case NAME_OUTER: /* only read (lower.c, inline_outer_names) */
    case NAME_CLASSDICT_GLOBAL: /* only read (lower.c, assign_slots) */
    case NAME_CLASSDICT_DEREF:
    case NAME_UNRESOLVED:
        break;
    }
    PyErr_Format(PyExc_SystemError, "unresolved name '%U'", t->obj);
    return -1;
}

static int
delete_name(Frame *f, Node *t)
{
    if (check_tool_binding(f, t) < 0) {
        return -1;
    }
    switch ((NameScope)t->scope_kind) {
    case NAME_FAST:
        if (f->fast[t->slot] == NULL) {
            unbound_local(t->obj);
            return -1;
        }
        Py_CLEAR(f->fast[t->slot]);
        return 0;
    case NAME_DEREF:
    case NAME_CLASSDEREF:
        if (PyCell_GET(f->cells[t->slot]) == NULL) {
            unbound_local(t->obj);
            return -1;
        }
        return PyCell_Set(f->cells[t->slot], NULL);
    case NAME_GLOBAL:
    case NAME_NAME: {
        PyObject *ns = t->scope_kind == NAME_GLOBAL ? f->globals : f->locals;
        if (ns == f->globals) {
            int r = gcache_delete(f, t);
            if (r == -2) {
                raise_name_error(t->obj);
                return -1;
            }
            return r;
        }
        int r = PyObject_DelItem(ns, t->obj);
        if (r < 0 && PyErr_ExceptionMatches(PyExc_KeyError)) {
            PyErr_Clear();
            raise_name_error(t->obj);
        }
        return r;
    }
    case NAME_OUTER: /* only read (lower.c, inline_outer_names) */
    case NAME_CLASSDICT_GLOBAL: /* only read (lower.c, assign_slots) */
    case NAME_CLASSDICT_DEREF:
    case NAME_UNRESOLVED:
        break;
    }
    PyErr_Format(PyExc_SystemError, "unresolved name '%U'", t->obj);
    return -1;
}

/* ---------------------------------------------------------------- targets */

static NOINLINE int
unpack_store(Frame *f, Node *t, PyObject *value)
{
    /* Unpack `value` into the elements of a Tuple/List target, with at most
       one starred element, with CPython's error messages. */
    Py_ssize_t n = t->Seq.nelts;
    Py_ssize_t star = -1;
    for (Py_ssize_t i = 0; i < n && (t->flags & NF_HAS_STAR); i++) {
        if (t->Seq.elts[i]->kind == K_Starred) {
            star = i;
            break;
        }
    }
    PyObject *small[16];
    PyObject **items;
    PyObject *it = NULL;
    Py_ssize_t got = 0;
    int rc = -1;
    if (star < 0 && n <= 16 &&
        (PyTuple_CheckExact(value) || PyList_CheckExact(value)) &&
        Py_SIZE(value) == n) {
        /* an exact tuple or list of the right length (CPython's
           UNPACK_SEQUENCE_TUPLE / _LIST): its items, each held before any
           target is stored (a store may run code that changes the list) */
        PyObject **src = PyTuple_CheckExact(value)
                             ? &PyTuple_GET_ITEM(value, 0)
                             : &PyList_GET_ITEM(value, 0);
        items = small;
        for (; got < n; got++) {
            items[got] = Py_NewRef(src[got]);
        }
        goto store;
    }
    /* security (deadline.c): the starred target is filled in a C loop */
    it = hostcall_getiter(f->in, value);
    if (it == NULL) {
        if (PyErr_ExceptionMatches(PyExc_TypeError) &&
            Py_TYPE(value)->tp_iter == NULL && !PySequence_Check(value)) {
            PyErr_Format(PyExc_TypeError,
                         "cannot unpack non-iterable %.200s object",
                         Py_TYPE(value)->tp_name);
        }
        return -1;
    }
    items = n <= 16 ? small : PyMem_Malloc(n * sizeof(PyObject *));
    if (items == NULL) {
        Py_DECREF(it);
        PyErr_NoMemory();
        return -1;
    }
    Py_ssize_t before = star < 0 ? n : star;
    for (; got < before; got++) {
        PyObject *x = PyIter_Next(it);
        if (x == NULL) {
            if (!PyErr_Occurred()) {
                if (star < 0) {
                    PyErr_Format(
                        PyExc_ValueError,
                        "not enough values to unpack (expected %zd, got %zd)",
                        n, got);
                }
                else {
                    PyErr_Format(PyExc_ValueError,
                                 "not enough values to unpack (expected at "
                                 "least %zd, got %zd)",
                                 n - 1, got);
                }
            }
            goto done;
        }
        items[got] = x;
    }
    if (star < 0) {
        PyObject *extra = PyIter_Next(it);
        if (extra != NULL) {
            Py_DECREF(extra);
#if PY_VERSION_HEX >= 0x030E0000
            /* 3.14 says how many for an exact list, tuple or dict */
            if (PyList_CheckExact(value) || PyTuple_CheckExact(value) ||
                PyDict_CheckExact(value)) {
                Py_ssize_t len = PyDict_CheckExact(value)
                                     ? PyDict_GET_SIZE(value)
                                     : Py_SIZE(value);
                if (len > n) {
                    PyErr_Format(PyExc_ValueError,
                                 "too many values to unpack (expected %zd, "
                                 "got %zd)",
                                 n, len);
                    goto done;
                }
            }
#endif
            PyErr_Format(PyExc_ValueError,
                         "too many values to unpack (expected %zd)", n);
            goto done;
        }
        if (PyErr_Occurred()) {
            goto done;
        }
    }
    else {
        PyObject *rest = PySequence_List(it);
        if (rest == NULL) {
            goto done;
        }
        Py_ssize_t after = n - star - 1;
        Py_ssize_t rl = PyList_GET_SIZE(rest);
        if (rl < after) {
            PyErr_Format(
                PyExc_ValueError,
                "not enough values to unpack (expected at least %zd, got %zd)",
                n - 1, star + rl);
            Py_DECREF(rest);
            goto done;
        }
        for (Py_ssize_t j = 0; j < after; j++) {
            PyObject *x = PyList_GET_ITEM(rest, rl - after + j);
            Py_INCREF(x);
            items[star + 1 + j] = x;
        }
        if (PyList_SetSlice(rest, rl - after, rl, NULL) < 0) {
            for (Py_ssize_t j = 0; j < after; j++) {
                Py_DECREF(items[star + 1 + j]);
            }
            Py_DECREF(rest);
            goto done;
        }
        items[star] = rest;
        got = n;
    }
store:
    rc = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Node *ti = t->Seq.elts[i];
        /* items come from a container that host code may have filled */
        if (rc == 0 && ti->kind != K_Starred) {
            rc = gate_value(f->in, items[i]);
        }
        if (rc == 0 && ti->kind == K_Starred) {
            PyObject *rest = items[i];
            for (Py_ssize_t k = 0; rc == 0 && k < PyList_GET_SIZE(rest); k++) {
                rc = gate_value(f->in, PyList_GET_ITEM(rest, k));
            }
        }
        if (rc == 0) {
            rc = store_target(
                f, ti->kind == K_Starred ? ti->Starred.value : ti, items[i]);
        }
    }
done:
    for (Py_ssize_t i = 0; i < got; i++) {
        Py_DECREF(items[i]);
    }
    if (items != small) {
        PyMem_Free(items);
    }
    Py_XDECREF(it);
    return rc;
}

/* `a, b = t` with an exact tuple of the right length (CPython's
 * UNPACK_SEQUENCE_TUPLE), the commonest unpacking (`for k, v in
 * d.items()`, `x, y = queue.popleft()`): without unpack_store's frame.  The
 * caller holds the tuple, so its items stay alive while each target is
 * stored; they come from a container that host code may have filled: each
 * is gated. */
static NOINLINE int
unpack_exact_tuple(Frame *f, Node *t, PyObject *value)
{
    PyObject **src = &PyTuple_GET_ITEM(value, 0);
    Node **elts = t->Seq.elts;
    for (Py_ssize_t i = 0, n = t->Seq.nelts; i < n; i++) {
        if (gate_value(f->in, src[i]) < 0 ||
            store_target(f, elts[i], src[i]) < 0) {
            return -1;
        }
    }
    return 0;
}

static NOINLINE int store_target_other(Frame *f, Node *t, PyObject *value);

/* `obj[key] = value`, in a frame of its own size. */
static NOINLINE int
store_subscript(Frame *f, Node *t, PyObject *value)
{
    PyObject *obj, *key;
    if (subscript_operands(f, t, &obj, &key) < 0) {
        return -1;
    }
    int r = subscript_set(obj, key, value);
    Py_DECREF(obj);
    Py_DECREF(key);
    return r;
}

/* A store to a plain name (NF_PLAIN_NAME) at Attribute `t`:
 * policy_setattr_plain_cached with the verdict the site remembered, and the
 * one it learns remembered (eval_stmt.c's augmented assignment too). */
int
attr_store_plain(Frame *f, Node *t, PyObject *obj, PyObject *value)
{
    AttrVerdict cached = {t->Attribute.itype, t->Attribute.itag,
                          t->Attribute.stag, t->Attribute.svidx,
                          t->Attribute.sfills < SVIDX_MAX_FILLS};
    AttrVerdict learned = {NULL, 0, 0, 0, 0};
    int r = policy_setattr_plain_cached(f->in, obj, t->obj, value, &cached,
                                        &learned);
    if (learned.type != NULL) {
        specialize_attr_verdict(t, &learned);
    }
    return r;
}

/* Out of store_target: a tail jump to the store's own function, without
 * a frame.  A module-level name (agent code runs there: every assignment
 * and loop target of a step) goes straight to its global-cache store. */
int
store_target_slow(Frame *f, Node *t, PyObject *value)
{
    if (t->kind == K_Name && t->Name.checked_epoch == in_eval(f->in)->tools_epoch &&
        (t->scope_kind == NAME_GLOBAL ||
         (t->scope_kind == NAME_NAME && f->locals == f->globals))) {
        return gcache_store(f, t, value);
    }
    if ((t->kind == K_Tuple || t->kind == K_List) &&
        !(t->flags & NF_HAS_STAR) && PyTuple_CheckExact(value) &&
        PyTuple_GET_SIZE(value) == t->Seq.nelts) {
        return unpack_exact_tuple(f, t, value);
    }
    if (t->kind == K_Subscript) {
        return store_subscript(f, t, value);
    }
    return store_target_other(f, t, value);
}

/* store_target_slow's targets other than subscripts and exact-tuple
 * unpacking. */
static NOINLINE int
store_target_other(Frame *f, Node *t, PyObject *value)
{
    if (t->kind == K_Name && t->Name.checked_epoch == in_eval(f->in)->tools_epoch) {
        /* a name whose binding the tool check passed (check_tool_binding) */
        if (t->scope_kind == NAME_FAST) {
            Py_INCREF(value);
            Py_XSETREF(f->fast[t->slot], value);
            return 0;
        }
        if (t->scope_kind == NAME_GLOBAL ||
            (t->scope_kind == NAME_NAME && f->locals == f->globals)) {
            return gcache_store(f, t, value);
        }
    }
    switch (t->kind) {
    case K_Name:
        return store_name(f, t, value);
    case K_Attribute: {
        PyObject *obj = eval_operand(f, t->Attribute.value);
        if (obj == NULL) {
            return -1;
        }
        int r = t->flags & NF_PLAIN_NAME
                    ? attr_store_plain(f, t, obj, value)
                    : policy_setattr(f->in, obj, t->obj, value);
        Py_DECREF(obj);
        return r;
    }
    case K_Tuple:
    case K_List:
        return unpack_store(f, t, value);
    case K_Starred:
        return store_target(f, t->Starred.value, value);
    default:
        PyErr_SetString(PyExc_SystemError, "invalid assignment target");
        return -1;
    }
}

int
delete_target(Frame *f, Node *t)
{
    switch (t->kind) {
    case K_Name:
        return delete_name(f, t);
    case K_Attribute: {
        PyObject *obj = eval_expr(f, t->Attribute.value);
        if (obj == NULL) {
            return -1;
        }
        int r = policy_delattr(f->in, obj, t->obj);
        Py_DECREF(obj);
        return r;
    }
    case K_Subscript: {
        PyObject *obj, *key;
        if (subscript_operands(f, t, &obj, &key) < 0) {
            return -1;
        }
        int r = PyObject_DelItem(obj, key);
        Py_DECREF(obj);
        Py_DECREF(key);
        return r;
    }
    case K_Tuple:
    case K_List:
        for (Py_ssize_t i = 0; i < t->Seq.nelts; i++) {
            if (delete_target(f, t->Seq.elts[i]) < 0) {
                return -1;
            }
        }
        return 0;
    default:
        PyErr_SetString(PyExc_SystemError, "invalid delete target");
        return -1;
    }
}

/* -------------------------------------------------------------- operators */

/* Python's `a // b` (OP_FloorDiv) or `a % b` (OP_Mod) on long longs, b
 * neither 0 nor -1 with a == LLONG_MIN: C's truncated quotient and
 * remainder, moved to the floor. */
static ALWAYS_INLINE long long
ll_floordiv_or_mod(int op, long long a, long long b)
{
    long long q = a / b, m = a % b;
    if (m != 0 && ((m < 0) != (b < 0))) {
        q -= 1;
        m += b;
    }
    return op == OP_Mod ? m : q;
}

/* `a op b` on two long longs as int's own methods give it (Python's floor
 * division and modulo, its two's-complement bitwise operators, which agree
 * with C's on the values a long long holds): 1 with *res set, 0 when the
 * result does not fit (checked), for division by zero and for the
 * operators left to the number protocol (true division, powers, shifts). */
static ALWAYS_INLINE int
ll_binop(int op, long long a, long long b, long long *res)
{
    switch (op) {
    case OP_Add:
        return !__builtin_add_overflow(a, b, res);
    case OP_Sub:
        return !__builtin_sub_overflow(a, b, res);
    case OP_Mult:
        return !__builtin_mul_overflow(a, b, res);
    case OP_FloorDiv:
    case OP_Mod:
        if (b == 0 || (a == LLONG_MIN && b == -1)) {
            return 0; /* the ZeroDivisionError; 2**63 */
        }
        *res = ll_floordiv_or_mod(op, a, b);
        return 1;
    case OP_BitAnd:
        *res = a & b;
        return 1;
    case OP_BitOr:
        *res = a | b;
        return 1;
    case OP_BitXor:
        *res = a ^ b;
        return 1;
    default:
        return 0;
    }
}

/* The exact int `v` as a long long: 1 with *out set, or 0 (no exception)
 * when it does not fit.  Two digits are read directly, ints certainly past
 * a long long are refused without PyLong_AsLongLongAndOverflow's walk. */
static inline int
long_as_ll(PyObject *v, long long *out)
{
    if (compat_long_two_digits(v, out)) {
        return 1;
    }
    if (compat_long_beyond_ll(v)) {
        return 0;
    }
    int ovf;
    *out = PyLong_AsLongLongAndOverflow(v, &ovf);
    return ovf == 0;
}

static PyObject *binary_op_slow(Interp *in, int op, PyObject *l, PyObject *r,
                                int inplace);

/* binary_op for two exact ints, either of more than one digit: computed
 * in a long long (ll_binop) when both fit.  What int does for such
 * operands costs more than the operation (a 3-digit `x % m` is a long
 * division, x_divrem; every operator a call of the number protocol), and
 * 2**30 to 2**62 is where LCGs, hashes, timestamps and money in cents live. */
static NOINLINE PyObject *
binary_op_medium(Interp *in, int op, PyObject *l, PyObject *r, int inplace)
{
    long long a, b, res;
    if (long_as_ll(l, &a) && long_as_ll(r, &b) && ll_binop(op, a, b, &res)) {
        return PyLong_FromLongLong(res);
    }
    /* big ints (a Fibonacci number, a factorial), or a result past a long
       long: int's */
    return binary_op_slow(in, op, l, r, inplace);
}

/* `l op r` (new reference, or NULL with an exception).  Exact ints of one
 * digit and exact floats (and a float with such an int) are computed here,
 * ints up to a long long in binary_op_medium; every other case, and every
 * case these cannot answer without an error (a division by zero), goes to
 * binary_op_slow, which also produces every error message.  Each way out is
 * a tail call, so that the common case pays no frame of its own. */
PyObject *
binary_op(Interp *in, int op, PyObject *l, PyObject *r, int inplace)
{
    PyTypeObject *lt = Py_TYPE(l), *rt = Py_TYPE(r);
    if (lt == &PyLong_Type && rt == &PyLong_Type) {
        long long a, b;
        if (!compat_small_int(l, &a) || !compat_small_int(r, &b)) {
            return binary_op_medium(in, op, l, r, inplace);
        }
        /* one digit each: no result overflows (ll_binop's checks are not
           needed) */
        switch (op) {
        case OP_Add:
            return PyLong_FromLongLong(a + b);
        case OP_Sub:
            return PyLong_FromLongLong(a - b);
        case OP_Mult:
            return PyLong_FromLongLong(a * b);
        case OP_FloorDiv:
        case OP_Mod:
            if (b == 0) {
                break;
            }
            return PyLong_FromLongLong(ll_floordiv_or_mod(op, a, b));
        case OP_BitAnd:
            return PyLong_FromLongLong(a & b);
        case OP_BitOr:
            return PyLong_FromLongLong(a | b);
        case OP_BitXor:
            return PyLong_FromLongLong(a ^ b);
        case OP_Div:
            /* long_true_divide's own fast case: both exact as doubles
               (|a|, |b| < 2**30 < 2**53), so the quotient is correctly
               rounded */
            if (b == 0) {
                break;
            }
            return PyFloat_FromDouble((double)a / (double)b);
        default:
            break;
        }
        return binary_op_slow(in, op, l, r, inplace);
    }
    /* floats, and a float with a small int (float_add & co. convert the
       int with PyLong_AsDouble, exact below 2**53) */
    double a, b;
    long long k;
    if (lt == &PyFloat_Type && rt == &PyFloat_Type) {
        a = PyFloat_AS_DOUBLE(l);
        b = PyFloat_AS_DOUBLE(r);
    }
    else if (lt == &PyFloat_Type && rt == &PyLong_Type &&
             compat_small_int(r, &k)) {
        a = PyFloat_AS_DOUBLE(l);
        b = (double)k;
    }
    else if (lt == &PyLong_Type && rt == &PyFloat_Type &&
             compat_small_int(l, &k)) {
        a = (double)k;
        b = PyFloat_AS_DOUBLE(r);
    }
    else {
        return binary_op_slow(in, op, l, r, inplace);
    }
    switch (op) {
    case OP_Add:
        return PyFloat_FromDouble(a + b);
    case OP_Sub:
        return PyFloat_FromDouble(a - b);
    case OP_Mult:
        return PyFloat_FromDouble(a * b);
    case OP_Div:
        if (b == 0.0) {
            break;
        }
        return PyFloat_FromDouble(a / b);
    default:
        break;
    }
    return binary_op_slow(in, op, l, r, inplace);
}

/* binary_op past its fast cases. */
static NOINLINE PyObject *
binary_op_slow(Interp *in, int op, PyObject *l, PyObject *r, int inplace)
{
    if ((op == OP_Add || op == OP_Sub || op == OP_Mult) &&
        Py_TYPE(l) == &PyLong_Type && Py_TYPE(r) == &PyLong_Type &&
        !deadline_may_be_heavy(op, l, r) &&
        (op != OP_Mult || limits_product_within(in, l, r))) {
        /* two exact ints past binary_op_medium's long longs, under the clock's
           size (a Fibonacci number, a factorial): int's own slot, as the
           number protocol would call it, with what limits_check_binop
           would answer known (a sum or difference is never checked; a
           product certainly within the size limit) */
        PyNumberMethods *nm = PyLong_Type.tp_as_number;
        return (op == OP_Add   ? nm->nb_add
                : op == OP_Sub ? nm->nb_subtract
                               : nm->nb_multiply)(l, r);
    }
    if (op == OP_Pow) {
        PyTypeObject *lt = Py_TYPE(l), *rt = Py_TYPE(r);
        long long a, b;
        if (lt == &PyLong_Type && rt == &PyLong_Type &&
            compat_small_int(l, &a) && compat_small_int(r, &b) && b >= 0) {
            /* `i ** 2`, `10 ** 9`: int's own slot, as the number protocol
               would call it, when limits_check_binop would pass the power
               and the deadline would charge nothing for it */
            long long bits = compat_u64_bits(
                a < 0 ? 0ULL - (unsigned long long)a : (unsigned long long)a);
            if (limits_power_within(in, bits, b) &&
                deadline_power_light((double)bits, (double)b)) {
                return PyLong_Type.tp_as_number->nb_power(l, r, Py_None);
            }
        }
        else if ((lt == &PyFloat_Type &&
                  (rt == &PyFloat_Type || rt == &PyLong_Type)) ||
                 (lt == &PyLong_Type && rt == &PyFloat_Type)) {
            /* a float and a float or an int: float's slot, which the
               number protocol reaches for each of these pairs (int's
               declines a float); neither check below applies (they are
               about int results) */
            return PyFloat_Type.tp_as_number->nb_power(l, r, Py_None);
        }
    }
    if ((op == OP_Pow || op == OP_LShift || op == OP_Mult || op == OP_Add) &&
        limits_check_binop(in, op, l, r) < 0) {
        return NULL;
    }
    /* security (deadline.c): big-int time counts towards the clock */
    if (PyLong_Check(l) && PyLong_Check(r) &&
        deadline_may_be_heavy(op, l, r) &&
        deadline_charge_binop(in, op, l, r) < 0) {
        return NULL;
    }
    if (op == OP_Mod && (PyUnicode_Check(l) || PyBytes_Check(l)) &&
        policy_check_percent(in, l, r) < 0) {
        return NULL;
    }
    switch ((BinOpKind)op) {
    case OP_Add:
        return inplace ? PyNumber_InPlaceAdd(l, r) : PyNumber_Add(l, r);
    case OP_Sub:
        return inplace ? PyNumber_InPlaceSubtract(l, r)
                       : PyNumber_Subtract(l, r);
    case OP_Mult:
        return inplace ? PyNumber_InPlaceMultiply(l, r)
                       : PyNumber_Multiply(l, r);
    case OP_MatMult:
        return inplace ? PyNumber_InPlaceMatrixMultiply(l, r)
                       : PyNumber_MatrixMultiply(l, r);
    case OP_Div:
        return inplace ? PyNumber_InPlaceTrueDivide(l, r)
                       : PyNumber_TrueDivide(l, r);
    case OP_Mod:
        return inplace ? PyNumber_InPlaceRemainder(l, r)
                       : PyNumber_Remainder(l, r);
    case OP_Pow:
        return inplace ? PyNumber_InPlacePower(l, r, Py_None)
                       : PyNumber_Power(l, r, Py_None);
    case OP_LShift:
        return inplace ? PyNumber_InPlaceLshift(l, r) : PyNumber_Lshift(l, r);
    case OP_RShift:
        return inplace ? PyNumber_InPlaceRshift(l, r) : PyNumber_Rshift(l, r);
    case OP_BitOr:
        return inplace ? PyNumber_InPlaceOr(l, r) : PyNumber_Or(l, r);
    case OP_BitXor:
        return inplace ? PyNumber_InPlaceXor(l, r) : PyNumber_Xor(l, r);
    case OP_BitAnd:
        return inplace ? PyNumber_InPlaceAnd(l, r) : PyNumber_And(l, r);
    case OP_FloorDiv:
        return inplace ? PyNumber_InPlaceFloorDivide(l, r)
                       : PyNumber_FloorDivide(l, r);
    case OP__BIN_COUNT:
        break;
    }
    PyErr_SetString(PyExc_SystemError, "bad binary operator");
    return NULL;
}

/* Return the answer of an ordering or equality op (CMP_Eq .. CMP_GtE) on
 * two values of a C type with its own comparison operators. */
#define RETURN_ORDERED(op, x, y) \
    switch ((CmpOpKind)(op)) {   \
    case CMP_Eq:                 \
        return (x) == (y);       \
    case CMP_NotEq:              \
        return (x) != (y);       \
    case CMP_Lt:                 \
        return (x) < (y);        \
    case CMP_LtE:                \
        return (x) <= (y);       \
    case CMP_Gt:                 \
        return (x) > (y);        \
    default:                     \
        return (x) >= (y);       \
    }

/* fast_compare for two exact ints, either of more than one digit: compared
 * as long longs when both fit (what long_richcompare answers), else -1. */
static NOINLINE int
fast_compare_medium(int op, PyObject *l, PyObject *r)
{
    long long a, c;
    if (!long_as_ll(l, &a) || !long_as_ll(r, &c)) {
        return -1;
    }
    RETURN_ORDERED(op, a, c)
}

/* `l op r` for an ordering or equality op on two exact small ints or two
 * exact floats, without a call: 1 / 0, or -1 when it does not apply. */
static inline int
fast_compare(int op, PyObject *l, PyObject *r)
{
    double x, y;
    long long a, c;
    if (op > CMP_GtE) {
        return -1;
    }
    if (Py_TYPE(l) == &PyLong_Type && Py_TYPE(r) == &PyLong_Type &&
        compat_small_int(l, &a) && compat_small_int(r, &c)) {
        RETURN_ORDERED(op, a, c)
    }
    if (Py_TYPE(l) == &PyFloat_Type && Py_TYPE(r) == &PyFloat_Type) {
        x = PyFloat_AS_DOUBLE(l);
        y = PyFloat_AS_DOUBLE(r);
    }
    else if (Py_TYPE(l) == &PyFloat_Type && Py_TYPE(r) == &PyLong_Type &&
             compat_small_int(r, &c)) {
        /* float_richcompare's answer for an int exact as a double */
        x = PyFloat_AS_DOUBLE(l);
        y = (double)c;
    }
    else if (Py_TYPE(l) == &PyLong_Type && Py_TYPE(r) == &PyFloat_Type &&
             compat_small_int(l, &a)) {
        x = (double)a;
        y = PyFloat_AS_DOUBLE(r);
    }
    else if (Py_TYPE(l) == &PyLong_Type && Py_TYPE(r) == &PyLong_Type) {
        return fast_compare_medium(op, l, r);
    }
    else {
        return -1;
    }
    RETURN_ORDERED(op, x, y)
}

/* compare_op past fast_compare (which the caller asked already). */
static PyObject *
compare_op_generic(Interp *in, int op, PyObject *l, PyObject *r)
{
    int b;
    switch ((CmpOpKind)op) {
    case CMP_Eq:
        return PyObject_RichCompare(l, r, Py_EQ);
    case CMP_NotEq:
        return PyObject_RichCompare(l, r, Py_NE);
    case CMP_Lt:
        return PyObject_RichCompare(l, r, Py_LT);
    case CMP_LtE:
        return PyObject_RichCompare(l, r, Py_LE);
    case CMP_Gt:
        return PyObject_RichCompare(l, r, Py_GT);
    case CMP_GtE:
        return PyObject_RichCompare(l, r, Py_GE);
    case CMP_Is:
        return PyBool_FromLong(l == r);
    case CMP_IsNot:
        return PyBool_FromLong(l != r);
    case CMP_In:
    case CMP_NotIn:
        b = hostcall_contains(in, r, l); /* security: deadline.c */
        if (b < 0) {
            return NULL;
        }
        return PyBool_FromLong(op == CMP_In ? b : !b);
    }
    PyErr_SetString(PyExc_SystemError, "bad comparison operator");
    return NULL;
}

static PyObject *
compare_op(Interp *in, int op, PyObject *l, PyObject *r)
{
    int b = fast_compare(op, l, r);
    if (b >= 0) {
        return PyBool_FromLong(b);
    }
    return compare_op_generic(in, op, l, r);
}

static NOINLINE PyObject *
eval_compare(Frame *f, Node *e)
{
    PyObject *left = eval_operand(f, e->Compare.left);
    if (left == NULL) {
        return NULL;
    }
    if (e->Compare.ncomparators == 1) {
        /* the common case, without the chain's loop */
        PyObject *right = eval_operand(f, e->Compare.comparators[0]);
        if (right == NULL) {
            Py_DECREF(left);
            return NULL;
        }
        PyObject *res = compare_op(f->in, e->Compare.ops[0], left, right);
        Py_DECREF(left);
        Py_DECREF(right);
        return res;
    }
    for (Py_ssize_t i = 0; i < e->Compare.ncomparators; i++) {
        PyObject *right = eval_operand(f, e->Compare.comparators[i]);
        if (right == NULL) {
            Py_DECREF(left);
            return NULL;
        }
        PyObject *res = compare_op(f->in, e->Compare.ops[i], left, right);
        Py_DECREF(left);
        if (res == NULL || i == e->Compare.ncomparators - 1) {
            Py_DECREF(right);
            return res;
        }
        int t = PyObject_IsTrue(res);
        if (t <= 0) {
            Py_DECREF(right);
            if (t < 0) {
                Py_DECREF(res);
                return NULL;
            }
            return res;
        }
        Py_DECREF(res);
        left = right;
    }
    return left; /* unreachable for well-formed ast */
}

/* compare_truth past the small ints and floats (fast_compare, asked by
 * the caller, said -1). */
static NOINLINE int
compare_truth_slow(Interp *in, int op, PyObject *l, PyObject *r)
{
    int b;
    if (op == CMP_Is || op == CMP_IsNot) {
        return (l == r) == (op == CMP_Is);
    }
    if (op == CMP_In || op == CMP_NotIn) {
        b = hostcall_contains(in, r, l); /* security: deadline.c */
        return b < 0 ? -1 : (op == CMP_In ? b : !b);
    }
    PyObject *res = compare_op_generic(in, op, l, r);
    if (res == NULL) {
        return -1;
    }
    b = res == Py_True ? 1 : res == Py_False ? 0 : PyObject_IsTrue(res);
    Py_DECREF(res);
    return b;
}

/* compare_truth_slow for operands borrowed from where code it runs could
 * release them: references held meanwhile. */
static NOINLINE int
compare_truth_borrowed(Interp *in, int op, PyObject *l, PyObject *r)
{
    Py_INCREF(l);
    Py_INCREF(r);
    int b = compare_truth_slow(in, op, l, r);
    Py_DECREF(l);
    Py_DECREF(r);
    return b;
}

/* The truth of `l op r` (borrowed operands): 1 / 0, or -1 with an
 * exception.  What compare_op() then PyObject_IsTrue() of its result give,
 * without the bool object for exact small ints and floats, `is` and `in`.
 * Small, so that both of eval_cond's uses inline it. */
static inline int
compare_truth(Interp *in, int op, PyObject *l, PyObject *r)
{
    int b = fast_compare(op, l, r);
    return b >= 0 ? b : compare_truth_slow(in, op, l, r);
}

/* eval_cond past its comparison of two operands at hand. */
static NOINLINE int eval_cond_general(Frame *f, Node *e);

/* A comparison of two operands at hand (NF_AT_HAND): the comparison and
 * its operands charged at once, the operands borrowed unless code may run
 * (compare_truth_slow: references taken first). */
static NOINLINE int
eval_cond_at_hand(Frame *f, Node *e)
{
    PyObject *l = operand_at_hand(f, e->Compare.left);
    PyObject *r = operand_at_hand(f, e->Compare.comparators[0]);
    if (l == NULL || r == NULL) {
        return eval_cond_general(f, e); /* an unbound local: its error */
    }
    if (charge_more(f->in, 3) < 0) {
        return -1;
    }
    int b = fast_compare(e->Compare.ops[0], l, r);
    return b >= 0 ? b : compare_truth_borrowed(f->in, e->Compare.ops[0], l, r);
}

/* The truth of an expression in a test (if, while, the conditional
 * expression, assert, a comprehension's `if`): 1 / 0, or -1 with an
 * exception.  Operations are charged as eval_expr() would charge them.
 * As CPython's compiler does for a test (compiler_jump_if), `and` / `or`,
 * `not` and comparison chains are taken apart: the truth of each operand
 * and of each comparison's result is asked exactly once (eval_expr() then
 * PyObject_IsTrue() would ask it a second time of the operand that decides
 * `x or y` or `x and y`, or of a chain's failing comparison: visible to a
 * __bool__), and comparisons of small ints and floats make no bool.
 * Tail calls only, so that neither case pays for the other's registers. */
int
eval_cond(Frame *f, Node *e)
{
    if (e->kind == K_Compare && (e->flags & NF_AT_HAND)) {
        return eval_cond_at_hand(f, e);
    }
    return eval_cond_general(f, e);
}

static NOINLINE int
eval_cond_general(Frame *f, Node *e)
{
    if (e->kind == K_Compare && e->Compare.ncomparators == 1) {
        /* the common case, without the chain's loop */
        if (charge(f->in) < 0) {
            return -1;
        }
        PyObject *l = eval_operand(f, e->Compare.left);
        if (l == NULL) {
            return -1;
        }
        PyObject *r = eval_operand(f, e->Compare.comparators[0]);
        if (r == NULL) {
            Py_DECREF(l);
            return -1;
        }
        int b = compare_truth(f->in, e->Compare.ops[0], l, r);
        Py_DECREF(l);
        Py_DECREF(r);
        return b;
    }
    if (e->kind == K_Compare) {
        if (charge(f->in) < 0) {
            return -1;
        }
        PyObject *l = eval_operand(f, e->Compare.left);
        if (l == NULL) {
            return -1;
        }
        Py_ssize_t n = e->Compare.ncomparators;
        for (Py_ssize_t i = 0; i < n; i++) {
            PyObject *r = eval_operand(f, e->Compare.comparators[i]);
            if (r == NULL) {
                Py_DECREF(l);
                return -1;
            }
            int b = compare_truth(f->in, e->Compare.ops[i], l, r);
            Py_DECREF(l);
            if (b <= 0 || i == n - 1) {
                Py_DECREF(r);
                return b;
            }
            l = r;
        }
        Py_DECREF(l);
        return 1; /* unreachable: a comparison has comparators */
    }
    if (e->kind == K_BoolOp) {
        if (charge(f->in) < 0) {
            return -1;
        }
        int b = 0;
        for (Py_ssize_t i = 0; i < e->BoolOp.nvalues; i++) {
            b = eval_cond(f, e->BoolOp.values[i]);
            if (b < 0 || (e->op == BOOL_And ? !b : b)) {
                return b;
            }
        }
        return b;
    }
    if (e->kind == K_UnaryOp && e->op == UOP_Not) {
        if (charge(f->in) < 0) {
            return -1;
        }
        int b = eval_cond(f, e->UnaryOp.operand);
        return b < 0 ? -1 : !b;
    }
    PyObject *v = eval_expr(f, e);
    if (v == NULL) {
        return -1;
    }
    int b = v == Py_True ? 1 : v == Py_False ? 0 : PyObject_IsTrue(v);
    Py_DECREF(v);
    return b;
}

/* --------------------------------------------------------------- displays */

/* Extend list `l` with the items of iterable `it` (a starred element). */
static NOINLINE int
list_extend(Interp *in, PyObject *l, PyObject *it)
{
    PyObject *iter = hostcall_getiter(in, it); /* security: deadline.c */
    if (iter == NULL) {
        return -1;
    }
    PyObject *x;
    while ((x = PyIter_Next(iter)) != NULL) {
        int r = PyList_Append(l, x);
        Py_DECREF(x);
        if (r < 0) {
            Py_DECREF(iter);
            return -1;
        }
    }
    Py_DECREF(iter);
    return PyErr_Occurred() ? -1 : 0;
}

/* `*v` into a list or a set, `**v` into a dict: an element of a display or
 * (PEP 798, 3.15) of a comprehension, with CPython's messages.  0 / -1. */
int
display_unpack(Interp *in, PyObject *acc, PyObject *v)
{
    if (PyDict_Check(acc)) {
        return dict_merge_mapping(acc, v);
    }
    if (PyList_Check(acc)) {
        if (Py_TYPE(v)->tp_iter == NULL && !PySequence_Check(v)) {
            PyErr_Format(PyExc_TypeError,
                         "Value after * must be an iterable, not %.200s",
                         Py_TYPE(v)->tp_name);
            return -1;
        }
        if ((PyList_Check(v) || PyTuple_Check(v)) &&
            policy_check_result_bytes(
                in, 8.0 * ((double)PyList_GET_SIZE(acc) + (double)Py_SIZE(v)),
                "display") < 0) {
            return -1;
        }
        return list_extend(in, acc, v);
    }
    PyObject *it = hostcall_getiter(in, v); /* security */
    if (it == NULL) {
        return -1;
    }
    PyObject *x;
    int r = 0;
    while ((x = PyIter_Next(it)) != NULL) {
        r = PySet_Add(acc, x);
        Py_DECREF(x);
        if (r < 0) {
            break;
        }
    }
    if (PyErr_Occurred()) {
        r = -1;
    }
    Py_DECREF(it);
    return r;
}

static NOINLINE PyObject *
eval_sequence_list(Frame *f, Node *e)
{
    PyObject *l = PyList_New(0);
    if (l == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < e->Seq.nelts; i++) {
        Node *el = e->Seq.elts[i];
        if (el->kind == K_Starred) {
            PyObject *v = eval_expr(f, el->Starred.value);
            if (v == NULL || display_unpack(f->in, l, v) < 0) {
                Py_XDECREF(v);
                Py_DECREF(l);
                return NULL;
            }
            Py_DECREF(v);
        }
        else {
            PyObject *v = eval_expr(f, el);
            if (v == NULL || PyList_Append(l, v) < 0) {
                Py_XDECREF(v);
                Py_DECREF(l);
                return NULL;
            }
            Py_DECREF(v);
        }
    }
    return l;
}

static NOINLINE PyObject *
eval_list(Frame *f, Node *e)
{
    if (e->flags & NF_HAS_STAR) {
        return eval_sequence_list(f, e);
    }
    PyObject *l = PyList_New(e->Seq.nelts);
    if (l == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < e->Seq.nelts; i++) {
        PyObject *v = eval_operand(f, e->Seq.elts[i]);
        if (v == NULL) {
            Py_DECREF(l);
            return NULL;
        }
        PyList_SET_ITEM(l, i, v);
    }
    return l;
}

static NOINLINE PyObject *
eval_tuple(Frame *f, Node *e)
{
    if (e->flags & NF_HAS_STAR) {
        PyObject *l = eval_sequence_list(f, e);
        if (l == NULL) {
            return NULL;
        }
        PyObject *t = PyList_AsTuple(l);
        Py_DECREF(l);
        return t;
    }
    PyObject *t = PyTuple_New(e->Seq.nelts);
    if (t == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < e->Seq.nelts; i++) {
        PyObject *v = eval_operand(f, e->Seq.elts[i]);
        if (v == NULL) {
            Py_DECREF(t);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, v);
    }
    return t;
}

static NOINLINE PyObject *
eval_set(Frame *f, Node *e)
{
    PyObject *s = PySet_New(NULL);
    if (s == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < e->Seq.nelts; i++) {
        Node *el = e->Seq.elts[i];
        PyObject *v =
            eval_expr(f, el->kind == K_Starred ? el->Starred.value : el);
        if (v == NULL) {
            Py_DECREF(s);
            return NULL;
        }
        int r = el->kind == K_Starred ? display_unpack(f->in, s, v)
                                      : PySet_Add(s, v);
        Py_DECREF(v);
        if (r < 0) {
            Py_DECREF(s);
            return NULL;
        }
    }
    return s;
}

/* dict.update for `{**m}` and `f(**m)`, with CPython's message. */
int
dict_merge_mapping(PyObject *d, PyObject *m)
{
    if (PyDict_Update(d, m) < 0) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Format(PyExc_TypeError, "'%.200s' object is not a mapping",
                         Py_TYPE(m)->tp_name);
        }
        return -1;
    }
    return 0;
}

/* The most pairs CPython's compiler evaluates before it builds the dict
 * (BUILD_MAP n: n * 2 within STACK_USE_GUIDELINE, 30). */
#define DICT_PAIRS_ON_STACK 15

/* A dict from n evaluated pairs (kv[2i] the key, kv[2i + 1] the value,
 * borrowed), inserted in order: what BUILD_MAP does with the pairs on its
 * stack (_PyDict_FromItems, which also sizes the dict for them, is not
 * public API).  A new reference, or NULL with the insert's error (an
 * unhashable key). */
static PyObject *
dict_from_pairs(PyObject *const *kv, Py_ssize_t n)
{
    PyObject *d = PyDict_New();
    if (d == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (PyDict_SetItem(d, kv[2 * i], kv[2 * i + 1]) < 0) {
            Py_DECREF(d);
            return NULL;
        }
    }
    return d;
}

/* eval_dict's case of constant keys (NF_CONST_KEYS, so no `**`): each key
 * borrowed from the program and charged as its evaluation would be
 * (charge_constant), inserted with its value as it comes. */
static NOINLINE PyObject *
eval_dict_const_keys(Frame *f, Node *e)
{
    PyObject *d = PyDict_New();
    if (d == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < e->Dict.nvalues; i++) {
        Node *k = e->Dict.keys[i];
        if (charge_constant(f->in, k) < 0) {
            Py_DECREF(d);
            return NULL;
        }
        PyObject *v = eval_expr(f, e->Dict.values[i]);
        if (v == NULL || PyDict_SetItem(d, k->obj, v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(v);
    }
    return d;
}

/* A dict display in CPython's order.  Up to DICT_PAIRS_ON_STACK pairs and
 * no `**`, as CPython compiles it: every key and value evaluated, then the
 * dict made (BUILD_MAP: the keys hashed only then).  Otherwise each pair is
 * inserted as it is evaluated, and `**m` merged where it stands (CPython
 * evaluates a run of pairs before a `**`, or the last run of pairs of a
 * display longer than 15, whole before it inserts it).  When every key is
 * a constant (NF_CONST_KEYS: eval_dict_const_keys), hashing and inserting
 * it as it comes is not told apart from hashing it at the end (a constant's
 * hash runs no code and cannot fail, nor can comparing two), and costs
 * less. */
static NOINLINE PyObject *
eval_dict(Frame *f, Node *e)
{
    Py_ssize_t n = e->Dict.nvalues;
    Py_ssize_t i = 0;
    if (e->flags & NF_CONST_KEYS) {
        return eval_dict_const_keys(f, e);
    }
    if (n <= DICT_PAIRS_ON_STACK && !(e->flags & NF_HAS_STAR)) {
        PyObject *kv[2 * DICT_PAIRS_ON_STACK];
        Node **keys = e->Dict.keys, **values = e->Dict.values;
        PyObject **p = kv;
        for (; i < n; i++) {
            if ((*p = eval_expr(f, keys[i])) == NULL) {
                break;
            }
            p++;
            if ((*p = eval_expr(f, values[i])) == NULL) {
                break;
            }
            p++;
        }
        PyObject *d = i == n ? dict_from_pairs(kv, n) : NULL;
        while (p > kv) {
            p--;
            Py_DECREF(*p);
        }
        return d;
    }
    PyObject *d = PyDict_New();
    if (d == NULL) {
        return NULL;
    }
    for (; i < n; i++) {
        if (e->Dict.keys[i] == NULL) {
            PyObject *m = eval_expr(f, e->Dict.values[i]);
            if (m == NULL || dict_merge_mapping(d, m) < 0) {
                Py_XDECREF(m);
                Py_DECREF(d);
                return NULL;
            }
            Py_DECREF(m);
            continue;
        }
        PyObject *k = eval_expr(f, e->Dict.keys[i]);
        if (k == NULL) {
            Py_DECREF(d);
            return NULL;
        }
        PyObject *v = eval_expr(f, e->Dict.values[i]);
        if (v == NULL || PyDict_SetItem(d, k, v) < 0) {
            Py_DECREF(k);
            Py_XDECREF(v);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(k);
        Py_DECREF(v);
    }
    return d;
}

/* --------------------------------------------------------------- f-strings */

/* PEP 750 (3.14): `t"..."` is CPython's string.templatelib.Template made
 * from its parts, as BUILD_TEMPLATE makes it (consecutive strings joined,
 * '' between two interpolations); an interpolation keeps its value, its
 * expression's text, its conversion and its format spec (evaluated now, a
 * str), and formats nothing. */
static NOINLINE PyObject *
eval_interpolation(Frame *f, Node *e)
{
    ModState *st = in_st(f->in);
    if (st->interpolation_type == NULL) {
        PyErr_SetString(PyExc_SystemError, "template strings need 3.14");
        return NULL;
    }
    PyObject *v = eval_expr(f, e->Interpolation.value);
    if (v == NULL) {
        return NULL;
    }
    PyObject *conv = NULL, *spec = NULL, *res = NULL;
    if (e->op != 0) {
        char c = (char)e->op;
        conv = PyUnicode_FromStringAndSize(&c, 1);
    }
    else {
        conv = Py_NewRef(Py_None);
    }
    spec = e->Interpolation.format_spec
               ? eval_expr(f, e->Interpolation.format_spec)
               : PyUnicode_FromString("");
    if (conv != NULL && spec != NULL) {
        PyObject *args[4] = {v, e->obj, conv, spec};
        res = PyObject_Vectorcall(st->interpolation_type, args, 4, NULL);
    }
    Py_XDECREF(spec);
    Py_XDECREF(conv);
    Py_DECREF(v);
    return res;
}

static NOINLINE PyObject *
eval_template(Frame *f, Node *e)
{
    ModState *st = in_st(f->in);
    if (st->template_type == NULL) {
        PyErr_SetString(PyExc_SystemError, "template strings need 3.14");
        return NULL;
    }
    PyObject *parts = PyTuple_New(e->TemplateStr.nvalues);
    if (parts == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < e->TemplateStr.nvalues; i++) {
        PyObject *v = eval_expr(f, e->TemplateStr.values[i]);
        if (v == NULL) {
            Py_DECREF(parts);
            return NULL;
        }
        PyTuple_SET_ITEM(parts, i, v);
    }
    PyObject *res = PyObject_Call(st->template_type, parts, NULL);
    Py_DECREF(parts);
    return res;
}

static NOINLINE PyObject *
eval_formatted(Frame *f, Node *e)
{
    PyObject *v = eval_expr(f, e->FormattedValue.value);
    if (v == NULL) {
        return NULL;
    }
    PyObject *c = NULL;
    switch (e->op) {
    case 's':
        c = PyObject_Str(v);
        break;
    case 'r':
        c = PyObject_Repr(v);
        break;
    case 'a':
        c = PyObject_ASCII(v);
        break;
    default:
        c = v;
        Py_INCREF(c);
        break;
    }
    Py_DECREF(v);
    if (c == NULL) {
        return NULL;
    }
    PyObject *spec = NULL;
    if (e->FormattedValue.format_spec) {
        spec = eval_expr(f, e->FormattedValue.format_spec);
        if (spec == NULL) {
            Py_DECREF(c);
            return NULL;
        }
    }
    if (spec != NULL && policy_check_format_spec(f->in, spec) < 0) {
        Py_DECREF(c);
        Py_DECREF(spec);
        return NULL;
    }
    PyObject *r;
    if (spec == NULL && PyUnicode_CheckExact(c)) {
        r = c;
        Py_INCREF(r);
    }
    else {
        r = PyObject_Format(c, spec);
    }
    Py_DECREF(c);
    Py_XDECREF(spec);
    return r;
}

/* The parts of an f-string, joined as BUILD_STRING joins them
 * (_PyUnicode_JoinArray, without a list in between): a new exact str.  The
 * parts are str (constants and formatted values); anything else is the
 * TypeError str.join gives.  (One part is the f-string's value as it is:
 * CPython's compiler emits no BUILD_STRING for it, see eval_joined.) */
#define JOIN_SMALL 16

static PyObject *
join_strings(PyObject *const *parts, Py_ssize_t n)
{
    Py_ssize_t len = 0;
    Py_UCS4 maxchar = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = parts[i];
        if (!PyUnicode_Check(v)) {
            PyErr_Format(PyExc_TypeError,
                         "sequence item %zd: expected str instance, %.80s "
                         "found",
                         i, Py_TYPE(v)->tp_name);
            return NULL;
        }
        if (PyUnicode_READY(v) < 0) {
            return NULL;
        }
        Py_ssize_t l = PyUnicode_GET_LENGTH(v);
        if (l > PY_SSIZE_T_MAX - len) {
            PyErr_SetString(PyExc_OverflowError,
                            "join() result is too long for a Python string");
            return NULL;
        }
        len += l;
        Py_UCS4 m = PyUnicode_MAX_CHAR_VALUE(v);
        maxchar = m > maxchar ? m : maxchar;
    }
    PyObject *r = PyUnicode_New(len, maxchar);
    if (r == NULL) {
        return NULL;
    }
    /* a part of the result's kind is copied as bytes into the new string
       (what _PyUnicode_JoinArray does); one of a narrower kind is widened
       by PyUnicode_CopyCharacters */
    int kind = PyUnicode_KIND(r);
    char *data = PyUnicode_DATA(r);
    Py_ssize_t pos = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v = parts[i];
        Py_ssize_t l = PyUnicode_GET_LENGTH(v);
        if (l > 0 && (int)PyUnicode_KIND(v) == kind) {
            memcpy(data + pos * kind, PyUnicode_DATA(v), (size_t)l * kind);
        }
        else if (l > 0 && PyUnicode_CopyCharacters(r, pos, v, 0, l) < 0) {
            Py_DECREF(r);
            return NULL;
        }
        pos += l;
    }
    return r;
}

static NOINLINE PyObject *
eval_joined(Frame *f, Node *e)
{
    Py_ssize_t n = e->JoinedStr.nvalues;
    PyObject *small[JOIN_SMALL];
    PyObject **parts =
        n <= JOIN_SMALL ? small : PyMem_Malloc(n * sizeof(PyObject *));
    if (parts == NULL) {
        return PyErr_NoMemory();
    }
    PyObject *r = NULL;
    Py_ssize_t got = 0;
    for (; got < n; got++) {
        parts[got] = eval_expr(f, e->JoinedStr.values[got]);
        if (parts[got] == NULL) {
            goto done;
        }
    }
    /* f'{x}' is x formatted, a str subclass included, as CPython's
       compiler emits no BUILD_STRING for a single value */
    r = n == 1 ? Py_NewRef(parts[0]) : join_strings(parts, n);
done:
    for (Py_ssize_t i = 0; i < got; i++) {
        Py_DECREF(parts[i]);
    }
    if (parts != small) {
        PyMem_Free(parts);
    }
    return r;
}

/* ------------------------------------------------------------------ calls */

/* Zero-argument super(): super(__class__, <first argument>), as CPython's
 * super_init derives from the calling frame. */
static NOINLINE PyObject *
call_zero_arg_super(Frame *f, PyObject *superobj)
{
    Scope *s = f->scope;
    if (s->uses_class_free < 0 || f->fast == NULL) {
        PyErr_SetString(PyExc_RuntimeError,
                        "super(): __class__ cell not found");
        return NULL;
    }
    PyObject *cls = PyCell_GET(f->cells[s->uses_class_free]);
    if (cls == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "super(): empty __class__ cell");
        return NULL;
    }
    if (!PyType_Check(cls)) {
        PyErr_Format(PyExc_RuntimeError,
                     "super(): __class__ is not a type (%s)",
                     Py_TYPE(cls)->tp_name);
        return NULL;
    }
    if (s->argcount == 0 && !s->has_varargs) {
        PyErr_SetString(PyExc_RuntimeError, "super(): no arguments");
        return NULL;
    }
    PyObject *first = s->nlocals > 0 ? f->fast[0] : NULL;
    /* the first argument may live in a cell */
    for (int i = 0; i < s->ncells; i++) {
        if (s->cell2arg && s->cell2arg[i] == 0) {
            first = PyCell_GET(f->cells[i]);
        }
    }
    if (first == NULL) {
        PyErr_SetString(PyExc_RuntimeError, "super(): arg[0] deleted");
        return NULL;
    }
    if (s->argcount == 0) {
        /* def f(*args): super() uses args[0] */
        if (!PyTuple_Check(first) || PyTuple_GET_SIZE(first) == 0) {
            PyErr_SetString(PyExc_RuntimeError, "super(): no arguments");
            return NULL;
        }
        first = PyTuple_GET_ITEM(first, 0);
    }
    PyObject *args[2] = {cls, first};
    return PyObject_Vectorcall(superobj, args, 2, NULL);
}

/* Raise CPython's TypeError for a call argument: the function's description
 * as CPython writes it ("mod.f()"), a space, then `fmt` formatted with the
 * rest.  Always returns -1. */
static int
call_arg_error(PyObject *func, const char *fmt, ...)
{
    va_list va;
    va_start(va, fmt);
    PyObject *msg = PyUnicode_FromFormatV(fmt, va);
    va_end(va);
    PyObject *fs = msg ? compat_function_str(func) : NULL;
    if (fs != NULL) {
        PyErr_Format(PyExc_TypeError, "%U %U", fs, msg);
    }
    Py_XDECREF(fs);
    Py_XDECREF(msg);
    return -1;
}

/* Merge the mapping `m` of `f(**m)` into the keyword dict `kw` as CPython's
 * DICT_MERGE does: keys in the order the mapping gives them, a key seen
 * twice (also twice from one mapping's keys()) is an error, and the
 * errors are reported with CPython's messages (errors the mapping itself
 * raises pass unchanged, but an AttributeError).  0, or -1 with an
 * exception. */
static int
merge_call_kwargs(PyObject *func, PyObject *kw, PyObject *m)
{
    PyObject *keys = NULL, *iter = NULL, *key = NULL, *val = NULL;
    PyObject *dup = NULL; /* a key given twice */
    int fast = PyDict_Check(m) && Py_TYPE(m)->tp_iter == PyDict_Type.tp_iter;
    if (fast) {
        /* a snapshot: the mapping's own __getitem__ is not consulted */
        keys = PyDict_Items(m);
        if (keys == NULL) {
            goto fail;
        }
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(keys); i++) {
            PyObject *item = PyList_GET_ITEM(keys, i);
            PyObject *k = PyTuple_GET_ITEM(item, 0);
            int c = PyDict_Contains(kw, k);
            if (c != 0) {
                if (c > 0) {
                    dup = Py_NewRef(k);
                }
                goto fail;
            }
            if (PyDict_SetItem(kw, k, PyTuple_GET_ITEM(item, 1)) < 0) {
                goto fail;
            }
        }
        Py_DECREF(keys);
        return 0;
    }
    keys = PyMapping_Keys(m);
    if (keys == NULL) {
        goto fail;
    }
    iter = PyObject_GetIter(keys);
    if (iter == NULL) {
        goto fail;
    }
    while ((key = PyIter_Next(iter)) != NULL) {
        int c = PyDict_Contains(kw, key);
        if (c != 0) {
            if (c > 0) {
                dup = Py_NewRef(key);
            }
            goto fail;
        }
        val = PyObject_GetItem(m, key);
        if (val == NULL || PyDict_SetItem(kw, key, val) < 0) {
            goto fail;
        }
        Py_CLEAR(key);
        Py_CLEAR(val);
    }
    if (PyErr_Occurred()) {
        goto fail;
    }
    Py_DECREF(iter);
    Py_DECREF(keys);
    return 0;
fail:
    Py_XDECREF(key);
    Py_XDECREF(val);
    Py_XDECREF(iter);
    Py_XDECREF(keys);
    if (dup != NULL) {
        call_arg_error(func, "got multiple values for keyword argument '%S'",
                       dup);
        Py_DECREF(dup);
        return -1;
    }
#if PY_VERSION_HEX >= 0x030C0000 && PY_VERSION_HEX < 0x030F0000
    /* 3.12 to 3.14 format_kwargs_error: a KeyError(key) out of the merge,
       even one the mapping's __getitem__ raised, reads as a duplicate key
       (3.15 lets it through) */
    if (PyErr_ExceptionMatches(PyExc_KeyError)) {
        PyObject *t, *v, *tb;
        PyErr_Fetch(&t, &v, &tb);
        PyErr_NormalizeException(&t, &v, &tb);
        PyObject *args = v ? PyObject_GetAttrString(v, "args") : NULL;
        if (args != NULL && PyTuple_Check(args) && PyTuple_GET_SIZE(args) == 1) {
            call_arg_error(func,
                           "got multiple values for keyword argument '%S'",
                           PyTuple_GET_ITEM(args, 0));
            Py_DECREF(args);
            Py_XDECREF(t);
            Py_XDECREF(v);
            Py_XDECREF(tb);
            return -1;
        }
        Py_XDECREF(args);
        PyErr_Clear();
        PyErr_Restore(t, v, tb);
    }
#endif
    /* CPython's format_kwargs_error: any AttributeError means "not a
       mapping" */
    if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
#if PY_VERSION_HEX >= 0x030F0000
        /* 3.15 names no function */
        PyErr_Format(PyExc_TypeError,
                     "Value after ** must be a mapping, not %.200s",
                     Py_TYPE(m)->tp_name);
        return -1;
#else
        return call_arg_error(func,
                              "argument after ** must be a mapping, "
                              "not %.200s",
                              Py_TYPE(m)->tp_name);
#endif
    }
    return -1;
}

/* Evaluate call arguments with * and ** into a tuple and a dict, in
 * CPython's order and with its messages: `*x` among other positional
 * arguments is checked as it is unpacked ("Value after * ..."); a lone
 * `f(*x)` is checked after the keywords are built, with the function's
 * name; keyword duplicates are found while merging; non-string keys are left
 * to the callee ("keywords must be strings"), as in CPython. */
static NOINLINE int
eval_star_args(Frame *f, Node *e, PyObject *func, PyObject **pargs,
               PyObject **pkw)
{
    PyObject *l = NULL, *lone = NULL, *kw = NULL;
    if (e->Call.nargs == 1 && e->Call.args[0]->kind == K_Starred) {
        lone = eval_expr(f, e->Call.args[0]->Starred.value);
        if (lone == NULL) {
            return -1;
        }
    }
    else {
        l = PyList_New(0);
        if (l == NULL) {
            return -1;
        }
    }
    for (Py_ssize_t i = 0; l != NULL && i < e->Call.nargs; i++) {
        Node *a = e->Call.args[i];
        if (a->kind == K_Starred) {
            PyObject *v = eval_expr(f, a->Starred.value);
            if (v == NULL) {
                goto fail;
            }
            int r = list_extend(f->in, l, v);
            if (r < 0 && PyErr_ExceptionMatches(PyExc_TypeError) &&
                Py_TYPE(v)->tp_iter == NULL && !PySequence_Check(v)) {
                PyErr_Clear();
                PyErr_Format(PyExc_TypeError,
                             "Value after * must be an iterable, not %.200s",
                             Py_TYPE(v)->tp_name);
            }
            Py_DECREF(v);
            if (r < 0) {
                goto fail;
            }
        }
        else {
            PyObject *v = eval_expr(f, a);
            if (v == NULL || PyList_Append(l, v) < 0) {
                Py_XDECREF(v);
                goto fail;
            }
            Py_DECREF(v);
        }
    }
    if (e->Call.nkeywords) {
        kw = PyDict_New();
        if (kw == NULL) {
            goto fail;
        }
    }
    for (Py_ssize_t i = 0; i < e->Call.nkeywords; i++) {
        Node *k = e->Call.keywords[i];
        PyObject *v = eval_expr(f, k->keyword.value);
        if (v == NULL) {
            goto fail;
        }
        int r;
        if (k->obj == NULL) {
            r = merge_call_kwargs(func, kw, v);
        }
        else {
            r = PyDict_Contains(kw, k->obj);
            if (r > 0) {
                r = call_arg_error(
                    func, "got multiple values for keyword argument '%S'",
                    k->obj);
            }
            else if (r == 0) {
                r = PyDict_SetItem(kw, k->obj, v);
            }
        }
        Py_DECREF(v);
        if (r < 0) {
            goto fail;
        }
    }
    if (lone != NULL) {
        if (Py_TYPE(lone)->tp_iter == NULL && !PySequence_Check(lone)) {
#if PY_VERSION_HEX >= 0x030F0000
            /* 3.15 names no function */
            PyErr_Format(PyExc_TypeError,
                         "Value after * must be an iterable, not %.200s",
                         Py_TYPE(lone)->tp_name);
#else
            call_arg_error(func,
                           "argument after * must be an iterable, not %.200s",
                           Py_TYPE(lone)->tp_name);
#endif
            goto fail;
        }
        /* always a fresh tuple: the call policy may replace its items;
           security (deadline.c): an unbounded iterator is consumed through
           a budget iterator */
        PyObject *src = PyList_CheckExact(lone) || PyTuple_CheckExact(lone)
                            ? Py_NewRef(lone)
                            : hostcall_getiter(f->in, lone);
        l = src != NULL ? PySequence_List(src) : NULL;
        Py_XDECREF(src);
        Py_CLEAR(lone);
        if (l == NULL) {
            goto fail;
        }
    }
    *pargs = PyList_AsTuple(l);
    Py_CLEAR(l);
    if (*pargs == NULL) {
        goto fail;
    }
    *pkw = kw;
    return 0;
fail:
    Py_XDECREF(l);
    Py_XDECREF(lone);
    Py_XDECREF(kw);
    return -1;
}

/* `obj.name` about to be called (CPython's LOAD_METHOD): when `name` is a
 * plain method found on the type (an interpreted function, or a builtin
 * method the policy calls as is), return it unbound with a new reference to
 * the object in *self_arg, so the call needs no bound-method object.
 * Otherwise return the attribute's value as `obj.name` would, *self_arg
 * NULL.  The name passes the attribute choke point either way.  New
 * reference, or NULL with an exception. */

/* The attribute check of a node whose name is plain (NF_PLAIN_NAME): only
 * what the object decides (policy_check_attr_plain).  A module's verdict
 * (its status for the authorized imports, the full name for a parent-only
 * module) is remembered on the node for the rest of the budget window: the
 * authorized list does not change within one, and the program holds the
 * module so that its address cannot be reused.  0 / -1. */
static inline int
attr_check_plain(Frame *f, Node *attr, PyObject *obj)
{
    if (!PyModule_CheckExact(obj)) {
        return policy_check_attr_plain(f->in, obj, attr->obj);
    }
    Interp *in = f->in;
    if (attr->Attribute.mod_ok == obj &&
        attr->Attribute.mod_epoch == in_budget(in)->window_epoch) {
        return 0;
    }
    if (policy_check_attr_plain(in, obj, attr->obj) < 0) {
        return -1;
    }
    specialize_module_checked(f, attr, obj);
    return 0;
}

/* May the value cache of a module attribute (Attribute.mval) hold v: is
 * the attribute result's verdict on v (the substitutes, the value gate) a
 * function of v's identity and the budget window alone?  The host
 * callables and classes a program reads from its modules, and the plain
 * values; not modules (their name decides), dicts (their keys), nor
 * instances of other types (gadgets look at what they hold). */
static inline int
module_value_cacheable(Interp *in, PyObject *v)
{
    PyTypeObject *tp = Py_TYPE(v);
    return value_is_plain(v) || tp == &PyCFunction_Type ||
           tp == &PyMethod_Type || tp == &PyFunction_Type ||
           tp == &PyType_Type || tp == in_st(in)->FunctionType;
}

/* `obj.name` for a plain name on a module (exact type): the attribute
 * check as attr_check_plain, then the module's value for the name.  When
 * the check is remembered for this window and the module's dict still
 * holds the value this node let through before (Attribute.mval, held by
 * the program so that its address cannot be reused), that value is the
 * result: for an exact module and a name without an underscore,
 * PyObject_GetAttr finds it in the module's dict and runs no code, and the
 * attribute result gave it back unchanged.  New reference, or NULL with an
 * exception. */
static PyObject *
module_attr_load(Frame *f, Node *attr, PyObject *obj)
{
    Interp *in = f->in;
    if (attr_check_plain(f, attr, obj) < 0) {
        return NULL;
    }
    if (attr->Attribute.mod_ok != obj ||
        attr->Attribute.mod_epoch != in_budget(in)->window_epoch) {
        return policy_getattr_checked(in, obj, attr->obj);
    }
    /* mval passed in this window (not MVAL_STALE), and the module's dict
       is unchanged since (watched: the version is never 0) or, unwatched
       (version 0), still holds it */
    PyObject *d = PyModule_GetDict(obj);
    PyObject *mv = attr->Attribute.mval;
    uint64_t mver = attr->Attribute.mval_version;
    if (mv != NULL &&
        mver == compat_watched_version(COMPAT_WATCH_MODULES, d)) {
        return Py_NewRef(mv);
    }
    PyObject *raw = PyDict_GetItemWithError(d, attr->obj);
    if (raw != NULL && raw == mv && mver == 0) {
        return Py_NewRef(raw);
    }
    if (raw == NULL && PyErr_Occurred()) {
        return NULL;
    }
    PyObject *v = policy_getattr_checked(in, obj, attr->obj);
    /* the executor's own random method for the host's (ownstate.c): the
       same for this executor while random's dict is unchanged, so it may
       be remembered, but only where the dict's version says so (the
       unwatched check below compares with the dict's own value) */
    int own = v != NULL && v != raw && ownstate_is_own_random(in, v);
    if (v == NULL || (v != raw && !own) || !module_value_cacheable(in, v)) {
        return v;
    }
    /* the full path let the dict's value through as it is: remember it
       (again, when it is mval) */
    int watched = compat_dict_watch(in_st(in)->modules_watcher, d);
    if (watched < 0) {
        PyErr_Clear();
        return v;
    }
    if (own && (!watched ||
                compat_watched_version(COMPAT_WATCH_MODULES, d) == 0)) {
        return v;
    }
    specialize_module_value(
        f, attr, v,
        watched ? compat_watched_version(COMPAT_WATCH_MODULES, d) : 0);
    return v;
}

/* A builtin method this call site has called before (list.append): the
 * type cache says the type, at this version tag, has no instance dict,
 * reads attributes generically and gives this method descriptor for the
 * name; the call gate remembered the descriptor (hc_func: not dangerous);
 * and for a plain name the attribute check depends on the type alone
 * unless the object is a module or an internal object.  Everything
 * load_method would find again: call_function asks this first, inline. */
static inline int
builtin_method_cached(Node *call, Node *attr, PyObject *obj)
{
    const CompatTypeCache *tc = &attr->Attribute.tcache;
    PyTypeObject *tp = Py_TYPE(obj);
    return tc->value == call->Call.hc_func && tc->tp == tp && tc->tag != 0 &&
           tp->tp_version_tag == tc->tag && (attr->flags & NF_PLAIN_NAME) &&
           (attr->Attribute.mtype == tp ||
            !policy_attr_plain_asks_object(obj));
}

/* The callee of a method call `obj.name(...)` (Call node `call`) past
 * builtin_method_cached, for `obj` (owned: the evaluated object of the
 * call's attribute, charged with it): an unbound method with *self_arg set
 * to obj when the call may pass obj as its first argument (interpreted
 * functions and method descriptors), else the bound attribute (obj
 * released). */
static NOINLINE PyObject *
load_method(Frame *f, Node *call, PyObject *obj, PyObject **self_arg)
{
    Node *attr = call->Call.func;
    *self_arg = NULL;
    const CompatTypeCache *tc = &attr->Attribute.tcache;
    PyTypeObject *tp = Py_TYPE(obj);
    /* A method of the code's class found here before (mcode): the type at
       this tag reads attributes generically and gives this interpreted
       function for the name (provenance_get_method remembered it), and
       the attribute check depends on the type alone; what is left to ask
       is the instance's dict. */
    uint8_t learn = 0;
    if (attr->Attribute.mcode && tc->tp == tp && tc->tag != 0 &&
        compat_type_version(tp) == tc->tag && (attr->flags & NF_PLAIN_NAME) &&
        (attr->Attribute.mtype == tp || !policy_attr_plain_asks_object(obj)) &&
        provenance_method_unshadowed(obj, attr->obj, attr->Attribute.mabsent,
                                     &learn)) {
        if (learn != 0) {
            specialize_method_absent(attr, learn);
        }
        *self_arg = obj;
        return Py_NewRef(tc->value);
    }
    if ((attr->flags & NF_PLAIN_NAME) && tp == &PyModule_Type) {
        /* a module's function: the attribute load, bound as it is */
        PyObject *v = module_attr_load(f, attr, obj);
        Py_DECREF(obj);
        return v;
    }
    if ((attr->flags & NF_PLAIN_NAME
             ? attr_check_plain(f, attr, obj)
             : policy_check_attr_name(f->in, obj, attr->obj, 0)) < 0) {
        Py_DECREF(obj);
        return NULL;
    }
    /* the type alone decides the check for the next objects of this type
       at this site (trusted with tcache's type and tag only) */
    PyTypeObject *mtype =
        (attr->flags & NF_PLAIN_NAME) && !policy_attr_plain_asks_object(obj)
            ? tp
            : NULL;
    int unbound;
    PyObject *meth;
    /* the lookups fill a copy of the site's type cache, which the site
       then remembers (they may run code that uses this site meanwhile:
       each cache entry is whole, a type, its tag and what it gave) */
    CompatTypeCache learned = *tc;
    int mcode = provenance_get_method(obj, attr->obj, &meth, &unbound,
                                      &learned);
    if (!mcode) {
        meth = compat_get_method_cached(obj, attr->obj, &unbound, &learned);
    }
    specialize_method(attr, mtype, mcode, &learned);
    if (meth == NULL) {
        Py_DECREF(obj);
        return NULL;
    }
    if (unbound) {
        /* interpreted functions, and method descriptors: the host-call
           entry point checks an unbound descriptor call as the bound one
           (policy_prepare_call takes the object from the arguments) */
        if (Py_TYPE(meth) == in_st(f->in)->FunctionType ||
            Py_TYPE(meth) == &PyMethodDescr_Type) {
            *self_arg = obj;
            return meth;
        }
        /* bind it as the attribute load would */
        descrgetfunc get = Py_TYPE(meth)->tp_descr_get;
        PyObject *bound =
            get ? get(meth, obj, (PyObject *)Py_TYPE(obj)) : Py_NewRef(meth);
        Py_DECREF(meth);
        meth = bound;
        if (meth == NULL) {
            Py_DECREF(obj);
            return NULL;
        }
    }
    Py_DECREF(obj);
    if (gate_value(f->in, meth) < 0) {
        Py_DECREF(meth);
        return NULL;
    }
    return meth;
}

/* Evaluate a call's positional then keyword argument values into dst
 * (new references).  *done: how many were stored.  0, or -1 with an
 * exception. */
static inline int
eval_call_args(Frame *f, Node *e, PyObject **dst, Py_ssize_t *done)
{
    Py_ssize_t nargs = e->Call.nargs, nkw = e->Call.nkeywords;
    *done = 0;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        dst[i] = eval_operand(f, e->Call.args[i]);
        if (dst[i] == NULL) {
            return -1;
        }
        (*done)++;
    }
    for (Py_ssize_t i = 0; i < nkw; i++) {
        dst[nargs + i] = eval_expr(f, e->Call.keywords[i]->keyword.value);
        if (dst[nargs + i] == NULL) {
            return -1;
        }
        (*done)++;
    }
    return 0;
}

/* Drop the n argument references a call held in args (the order CPython
 * drops them in: COMPAT_CALLER_HOLDS_ARGS). */
static inline void
drop_call_args(PyObject **args, Py_ssize_t n)
{
#if COMPAT_CALLER_HOLDS_ARGS
    for (Py_ssize_t i = n - 1; i >= 0; i--) {
        Py_DECREF(args[i]);
    }
#else
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_DECREF(args[i]);
    }
#endif
}

/* `Cls(...)` for a class function_init_for_call accepted, its __init__
 * `init`.  New reference, or NULL with an exception. */
static NOINLINE PyObject *
call_class_init(Frame *f, Node *e, PyTypeObject *tp, FunctionObject *init)
{
    Py_ssize_t nargs = e->Call.nargs, nkw = e->Call.nkeywords,
               total = nargs + nkw;
    if (nkw == 0 && init->scope->simple_argc == nargs + 1) {
        return function_call_init_simple(f, init, tp, e->Call.args, nargs);
    }
    /* stack[0]: free slot (PY_VECTORCALL_ARGUMENTS_OFFSET); stack[1]: the
       object, made after the arguments; then the arguments */
    PyObject *small[8 + 2];
    PyObject **stack = total + 2 <= 10
                           ? small
                           : PyMem_Malloc((total + 2) * sizeof(PyObject *));
    if (stack == NULL) {
        return PyErr_NoMemory();
    }
    Py_ssize_t done;
    PyObject *res = NULL;
    if (eval_call_args(f, e, stack + 2, &done) == 0) {
        res =
            function_call_init(f->in, init, tp, stack + 1,
                               (size_t)nargs | PY_VECTORCALL_ARGUMENTS_OFFSET,
                               nkw ? e->obj : NULL);
    }
    drop_call_args(stack + 2, done);
    if (stack != small) {
        PyMem_Free(stack);
    }
    return res;
}

/* The most arguments a warm call site's lean path takes (call_method_warm,
 * call_host_warm). */
#define WARM_CALL_ARGS 4

/* `obj.name(args)` where load_method gave the method descriptor `descr`
 * that this site's call gate remembered (Call.hc_func: not dangerous; with
 * hc_plain, nothing for policy_prepare_call or the bridge either), unbound,
 * with `self` (owned) its object, and at most WARM_CALL_ARGS arguments:
 * call_function_with's steps for it without its tests (hostcall_gate would
 * answer HC_CHECKED, with HC_PLAIN when hc_plain), then the host-call entry
 * point (its lean form for a plain call without keywords).  `descr`
 * borrowed (the program holds every callable a site remembered), steals
 * self; new reference or NULL with an exception. */
static NOINLINE PyObject *
call_method_warm(Frame *f, Node *e, PyObject *descr, PyObject *self)
{
    uncharge(f->in); /* the attribute of a method call is not counted */
    Py_ssize_t nargs = e->Call.nargs, nkw = e->Call.nkeywords;
    /* stack[0]: free slot (PY_VECTORCALL_ARGUMENTS_OFFSET), stack[1]: the
       object, then the arguments */
    PyObject *stack[2 + WARM_CALL_ARGS];
    stack[1] = self;
    PyObject *res = NULL;
    Py_ssize_t done;
    if (eval_call_args(f, e, stack + 2, &done) == 0) {
        /* security (hostcall.c): the one host-call entry point */
        if (e->Call.hc_plain && nkw == 0) {
            res = hostcall_method_plain(f->in, descr, stack + 1, nargs + 1);
        }
        else {
            Py_INCREF(descr); /* the entry point may substitute it */
            res = hostcall_vectorcall(
                f->in, &descr, stack + 1,
                (size_t)(nargs + 1) | PY_VECTORCALL_ARGUMENTS_OFFSET,
                nkw ? e->obj : NULL,
                HC_CHECKED | HC_METHOD | (e->Call.hc_plain ? HC_PLAIN : 0));
            Py_DECREF(descr);
        }
    }
    drop_call_args(stack + 1, done + 1);
    return res;
}

/* call_host_warm's case of `isinstance(obj, cls)` and `len(obj)`
 * (NF_BUILTIN_CALL: the shapes CPython specializes, CALL_ISINSTANCE and
 * CALL_LEN) at a site whose gate remembered `func` as plain: the one or
 * two operands straight into the host-call entry point made for them,
 * without the general argument loop and the entry point's tests of flags
 * and keywords. */
static NOINLINE PyObject *
call_builtin_warm(Frame *f, Node *e, PyObject *func)
{
    uncharge(f->in); /* as call_host_warm: the callee is a name */
    PyObject *stack[3]; /* stack[0]: free (PY_VECTORCALL_ARGUMENTS_OFFSET) */
    PyObject *res = NULL;
    /* security (hostcall.c): the host-call entry point, each count of
       arguments apart (a constant count for it, no loop to drop them) */
    if ((stack[1] = eval_operand(f, e->Call.args[0])) == NULL) {
        /* nothing more */
    }
    else if (e->Call.nargs == 1) {
        res = hostcall_builtin_plain(f->in, &func, stack + 1, 1);
        drop_call_args(stack + 1, 1);
    }
    else if ((stack[2] = eval_operand(f, e->Call.args[1])) != NULL) {
        res = hostcall_builtin_plain(f->in, &func, stack + 1, 2);
        drop_call_args(stack + 1, 2);
    }
    else {
        drop_call_args(stack + 1, 1);
    }
    Py_DECREF(func);
    return res;
}

/* `f(args)` where `func` (owned) is the host callable this site's call
 * gate remembered (Call.hc_func: a builtin function, a static type, a
 * module's function; never an interpreted function, whose calls pass no
 * gate, nor `super`, nor `dir()` with no argument, which call_host_warm_ok
 * leaves to call_function_with), with at most WARM_CALL_ARGS arguments:
 * call_function_with's steps for it without its tests, then the host-call
 * entry point with the remembered verdict.  New reference or NULL with an
 * exception.  (Kept apart from call_method_warm: one function for both cost
 * a method call about 40 more instructions, measured with callgrind.) */
static NOINLINE PyObject *
call_host_warm(Frame *f, Node *e, PyObject *func)
{
    if ((e->flags & NF_BUILTIN_CALL) && e->Call.hc_plain) {
        return call_builtin_warm(f, e, func);
    }
    if (e->Call.func->kind == K_Name || e->Call.func->kind == K_Attribute) {
        uncharge(f->in); /* as call_function_with */
    }
    Py_ssize_t nargs = e->Call.nargs, nkw = e->Call.nkeywords;
    /* stack[0]: free slot (PY_VECTORCALL_ARGUMENTS_OFFSET), then the
       arguments */
    PyObject *stack[1 + WARM_CALL_ARGS];
    PyObject *res = NULL;
    Py_ssize_t done;
    if (eval_call_args(f, e, stack + 1, &done) == 0) {
        /* security (hostcall.c): the one host-call entry point */
        res = hostcall_vectorcall(
            f->in, &func, stack + 1,
            (size_t)nargs | PY_VECTORCALL_ARGUMENTS_OFFSET,
            nkw ? e->obj : NULL,
            HC_CHECKED | (e->Call.hc_plain ? HC_PLAIN : 0));
    }
    drop_call_args(stack + 1, done);
    Py_DECREF(func);
    return res;
}

/* A warm call site's lean path applies to this call of `func`. */
static inline int
call_site_warm(Node *e, PyObject *func)
{
    return func != NULL && func == e->Call.hc_func &&
           !(e->flags & NF_STAR_ARGS) &&
           e->Call.nargs + e->Call.nkeywords <= WARM_CALL_ARGS;
}

/* call_host_warm applies to this call of `func`. */
static inline int
call_host_warm_ok(Node *e, PyObject *func)
{
    return call_site_warm(e, func) && !(e->flags & NF_SUPER_CALL) &&
           (e->Call.nargs > 0 || !eval_is_guarded_dir(func));
}

static PyObject *call_function_with(Frame *f, Node *e, PyObject *func,
                                    PyObject *self_arg);

/* The call of an interpreted function `func` (owned; `self_arg` owned or
 * NULL), reached by a tail jump from call_callee: a call that takes
 * exactly its positional arguments goes straight to the new frame
 * (function_call_simple: no argument array, no binding), without
 * call_function_with's frame, which its other cases need (an argument
 * array, the call gate); any other call of it goes on to
 * call_function_with. */
static NOINLINE PyObject *
call_interpreted(Frame *f, Node *e, PyObject *func, PyObject *self_arg)
{
    FunctionObject *fn = (FunctionObject *)func;
    if ((e->flags & NF_STAR_ARGS) || e->Call.nkeywords != 0 ||
        fn->scope->simple_argc != e->Call.nargs + (self_arg != NULL) ||
        !function_is_direct(f->in, fn)) {
        return call_function_with(f, e, func, self_arg);
    }
    if (e->Call.func->kind == K_Name || e->Call.func->kind == K_Attribute) {
        /* as call_function_with: smolagents counts neither a callee name
           nor the attribute of a method call (only its object) */
        uncharge(f->in);
    }
    PyObject *res =
        function_call_simple(f, fn, self_arg, e->Call.args, e->Call.nargs);
    Py_DECREF(func);
    return res;
}

/* The call of `func` (owned), its callee resolved (`self_arg`: the object
 * of an unbound method call, owned, or NULL), past the warm host-call
 * paths: the one way into call_interpreted and call_function_with. */
static inline PyObject *
call_callee(Frame *f, Node *e, PyObject *func, PyObject *self_arg)
{
    if (Py_TYPE(func) == in_st(f->in)->FunctionType) {
        return call_interpreted(f, e, func, self_arg);
    }
    return call_function_with(f, e, func, self_arg);
}

/* A call: its callee (load_method for `obj.name(...)`), then the call.
 * Kept small, so that the warm host-call sites (call_method_warm,
 * call_host_warm) pay for no more of call_function_with than its test. */
PyObject *
call_function(Frame *f, Node *e)
{
    PyObject *func;
    PyObject *self_arg = NULL; /* owned: unbound method call on this object */
    if (e->Call.func->kind == K_Attribute && !(e->flags & NF_STAR_ARGS)) {
        Node *attr = e->Call.func;
        if (charge(f->in) < 0) { /* the attribute's own operation */
            return NULL;
        }
        PyObject *obj = eval_operand(f, attr->Attribute.value);
        if (obj == NULL) {
            return NULL;
        }
        if (e->Call.hc_func != NULL && builtin_method_cached(e, attr, obj) &&
            e->Call.nargs + e->Call.nkeywords <= WARM_CALL_ARGS) {
            /* call_site_warm: hc_func is the cached descriptor */
            return call_method_warm(f, e, e->Call.hc_func, obj);
        }
        func = load_method(f, e, obj, &self_arg);
        if (self_arg != NULL && call_site_warm(e, func)) {
            /* a builtin method this site's call gate passed before */
            PyObject *res = call_method_warm(f, e, func, self_arg);
            Py_DECREF(func);
            return res;
        }
    }
    else {
        func = eval_expr(f, e->Call.func);
    }
    if (func == NULL) {
        return NULL;
    }
    if (self_arg == NULL && call_host_warm_ok(e, func)) {
        /* a builtin, a static type or a module's function the call gate
           passed before */
        return call_host_warm(f, e, func);
    }
    return call_callee(f, e, func, self_arg);
}

/* The call `e` of `func` (owned), its callee evaluated already and not an
 * attribute (eval_for looks at a `range(...)` callee first): the rest of
 * what call_function does.  New reference or NULL with an exception. */
PyObject *
call_with_callee(Frame *f, Node *e, PyObject *func)
{
    if (call_host_warm_ok(e, func)) {
        return call_host_warm(f, e, func);
    }
    return call_callee(f, e, func, NULL);
}

/* The call gate of Call `e` for host callable `func`: the flags for
 * hostcall_vectorcall, or -1 when the call is refused.  A callable the site
 * remembered passes as it did; otherwise hostcall_gate decides, and the
 * site remembers what its verdict allows (specialize_call_gate). */
static NOINLINE int
call_gate_slow(Frame *f, Node *e, PyObject *func)
{
    int site = 0;
    if (e->Call.hc_fills < HC_MAX_FILLS) {
        site = HC_SITE_LEARNS;
        /* a module value the callee node holds (Attribute.mval) keeps
           nothing more alive when remembered here */
        if (e->Call.func->kind == K_Attribute &&
            e->Call.func->Attribute.mval == func) {
            site |= HC_SITE_HOLDS;
        }
    }
    int r = hostcall_gate(f->in, func, site);
    if (r < 0) {
        return -1;
    }
    if (r & HC_REMEMBER) {
        specialize_call_gate(e, f->program, func, r & HC_REMEMBER_PLAIN);
    }
    return r & HC_CHECKED;
}

static inline int
call_gate(Frame *f, Node *e, PyObject *func)
{
    if (e->Call.hc_func == func) {
        return e->Call.hc_plain ? HC_CHECKED | HC_PLAIN : HC_CHECKED;
    }
    return call_gate_slow(f, e, func);
}

/* The call of `func` (owned), with `self_arg` (owned, or NULL) first when
 * load_method gave an unbound method. */
static NOINLINE PyObject *
call_function_with(Frame *f, Node *e, PyObject *func, PyObject *self_arg)
{
    if (e->Call.func->kind == K_Name || e->Call.func->kind == K_Attribute) {
        /* smolagents counts neither a callee name nor the attribute of a
           method call (only its object) */
        uncharge(f->in);
    }
    /* (an interpreted function taking exactly its positional arguments
       never comes here: call_callee sends it to call_interpreted) */
    PyObject *res = NULL;
    FunctionObject *init;
    if (Py_IS_TYPE(func, &PyType_Type) && !(e->flags & NF_STAR_ARGS) &&
        function_init_for_call(f->in, e, (PyTypeObject *)func, &init)) {
        /* a class of the code's own, made as type_call would make it but
           without it: not a host call (object_new, then interpreted code) */
        res = call_class_init(f, e, (PyTypeObject *)func, init);
        Py_DECREF(func);
        return res;
    }
    if ((e->flags & NF_SUPER_CALL) && func == (PyObject *)&PySuper_Type) {
        res = call_zero_arg_super(f, func);
        Py_DECREF(func);
        return res;
    }
    if (e->Call.nargs == 0 && e->Call.nkeywords == 0 &&
        e->Call.func->kind == K_Name && !(e->flags & NF_STAR_ARGS) &&
        eval_is_guarded_dir(func)) {
        /* dir() lists the code's own names, never the host's frame */
        Py_DECREF(func);
        return eval_dir_frame(f);
    }
    /* interpreted functions (and methods bound to them) need no call gate,
       and their results were gated inside */
    int interpreted = hostcall_is_interpreted(f->in, func);
    int hcflags = 0;
    if (!interpreted && (hcflags = call_gate(f, e, func)) < 0) {
        Py_DECREF(func);
        Py_XDECREF(self_arg);
        return NULL;
    }
    if (e->flags & NF_STAR_ARGS) {
        PyObject *args = NULL, *kw = NULL;
        if (eval_star_args(f, e, func, &args, &kw) == 0) {
            if (interpreted) {
                in_eval(f->in)->direct_call = 1;
                res = PyObject_Call(func, args, kw);
                in_eval(f->in)->direct_call = 0;
            }
            else {
                /* security (hostcall.c): the one host-call entry point */
                res = hostcall_call(f->in, &func, args, kw, HC_CHECKED);
            }
            Py_DECREF(args);
            Py_XDECREF(kw);
        }
    }
    else {
        /* stack[0]: free slot (PY_VECTORCALL_ARGUMENTS_OFFSET); then the
           object of an unbound method call, if any; then the arguments */
        Py_ssize_t nargs = e->Call.nargs, nkw = e->Call.nkeywords,
                   total = nargs + nkw;
        Py_ssize_t base = self_arg != NULL ? 2 : 1;
        PyObject *small[8 + 2];
        PyObject **stack =
            total + base <= 10
                ? small
                : PyMem_Malloc((total + base) * sizeof(PyObject *));
        if (stack == NULL) {
            Py_DECREF(func);
            Py_XDECREF(self_arg);
            return PyErr_NoMemory();
        }
        if (self_arg != NULL) {
            stack[1] = self_arg; /* reference moved into the stack */
            self_arg = NULL;
        }
        Py_ssize_t done;
        int ok = eval_call_args(f, e, stack + base, &done) == 0;
        size_t nargsf =
            (size_t)(nargs + base - 1) | PY_VECTORCALL_ARGUMENTS_OFFSET;
        if (ok && interpreted) {
            res = function_call_direct(f->in, func, stack + 1, nargsf,
                                       nkw ? e->obj : NULL);
        }
        else if (ok) {
            /* security (hostcall.c): the one host-call entry point; may
               replace func and stack[1 ..].  Unbound method calls only
               happen for callables policy_prepare_call calls plain. */
            res = hostcall_vectorcall(f->in, &func, stack + 1, nargsf,
                                      nkw ? e->obj : NULL,
                                      hcflags |
                                          (base == 2 ? HC_METHOD : 0));
        }
        drop_call_args(stack + 1, base - 1 + done);
        if (stack != small) {
            PyMem_Free(stack);
        }
    }
    Py_DECREF(func);
    return res;
}

/* ------------------------------------------------------------- functions */

/* Build a function object for a FunctionDef/Lambda node: defaults, kw
 * defaults and annotations are evaluated now, in this frame. */
PyObject *
make_function(Frame *f, Node *def)
{
    Node *args = def->Function.args;
    Scope *s = def->Function.scope;
    PyObject *defaults = NULL, *kwdefaults = NULL, *ann = NULL,
             *closure = NULL, *fn = NULL;
    if (args->arguments.ndefaults) {
        defaults = PyTuple_New(args->arguments.ndefaults);
        if (defaults == NULL) {
            goto done;
        }
        for (Py_ssize_t i = 0; i < args->arguments.ndefaults; i++) {
            PyObject *v = eval_expr(f, args->arguments.defaults[i]);
            if (v == NULL) {
                goto done;
            }
            PyTuple_SET_ITEM(defaults, i, v);
        }
    }
    for (Py_ssize_t i = 0; i < args->arguments.nkw_defaults; i++) {
        if (args->arguments.kw_defaults[i] == NULL) {
            continue;
        }
        if (kwdefaults == NULL && (kwdefaults = PyDict_New()) == NULL) {
            goto done;
        }
        /* kw_defaults[i] belongs to the i-th keyword-only argument */
        Node *argn = args->arguments.args[s->argcount + s->has_varargs + i];
        PyObject *v = eval_expr(f, args->arguments.kw_defaults[i]);
        if (v == NULL || PyDict_SetItem(kwdefaults, argn->obj, v) < 0) {
            Py_XDECREF(v);
            goto done;
        }
        Py_DECREF(v);
    }
    if (def->kind == K_FunctionDef) {
        int any = def->Function.returns != NULL;
        for (Py_ssize_t i = 0; i < args->arguments.nargs && !any; i++) {
            any = args->arguments.args[i]->arg.annotation != NULL;
        }
        if (any) {
            ann = PyDict_New();
            if (ann == NULL) {
                goto done;
            }
            for (Py_ssize_t i = 0; i < args->arguments.nargs; i++) {
                if (args->arguments.args[i]->arg.annotation == NULL) {
                    continue;
                }
                PyObject *v =
                    eval_expr(f, args->arguments.args[i]->arg.annotation);
                if (v == NULL ||
                    PyDict_SetItem(ann, args->arguments.args[i]->obj, v) < 0) {
                    Py_XDECREF(v);
                    goto done;
                }
                Py_DECREF(v);
            }
            if (def->Function.returns) {
                PyObject *v = eval_expr(f, def->Function.returns);
                if (v == NULL || PyDict_SetItemString(ann, "return", v) < 0) {
                    Py_XDECREF(v);
                    goto done;
                }
                Py_DECREF(v);
            }
        }
    }
    if (s->nfree) {
        /* collect the cells of our free variables from this frame */
        closure = PyTuple_New(s->nfree);
        if (closure == NULL) {
            goto done;
        }
        Scope *ps = f->scope;
        for (int i = 0; i < s->nfree; i++) {
            PyObject *name = PyTuple_GET_ITEM(s->freevars, i);
            int slot = scope_cell_slot(ps, name);
            if (slot < 0 || f->cells == NULL) {
                PyErr_Format(PyExc_SystemError,
                             "no cell for free variable '%U'", name);
                goto done;
            }
            Py_INCREF(f->cells[slot]);
            PyTuple_SET_ITEM(closure, i, f->cells[slot]);
        }
    }
    fn = function_new(f, def, s, defaults, kwdefaults, ann, closure);
#if PY_VERSION_HEX >= 0x030E0000
    if (fn != NULL && def->kind == K_FunctionDef &&
        def->Function.annotate != NULL) {
        /* PEP 649: the annotation scope's function, made now in this frame
           (its closure); called when the annotations are read */
        PyObject *thunk = make_function(f, def->Function.annotate);
        if (thunk == NULL) {
            Py_CLEAR(fn);
            goto done;
        }
        ((FunctionObject *)fn)->ann_thunk = thunk;
    }
#endif
    if (fn != NULL && def->kind == K_FunctionDef &&
        def->Function.type_params != NULL) {
        /* PEP 695: the annotation scope's tuple of type parameters */
        PyObject *tp = eval_expr(f, def->Function.type_params);
        if (tp == NULL || !PyTuple_Check(tp)) {
            if (tp != NULL) {
                PyErr_SetString(PyExc_SystemError, "type parameters: no tuple");
            }
            Py_XDECREF(tp);
            Py_CLEAR(fn);
            goto done;
        }
        Py_XSETREF(((FunctionObject *)fn)->type_params, tp);
    }
done:
    Py_XDECREF(defaults);
    Py_XDECREF(kwdefaults);
    Py_XDECREF(ann);
    Py_XDECREF(closure);
    return fn;
}

/* ------------------------------------------------------------------- main */

/* Cases of eval_expr kept out of line (see NOINLINE in base.h). */

static NOINLINE PyObject *
eval_unary(Frame *f, Node *e)
{
    PyObject *v = eval_expr(f, e->UnaryOp.operand);
    if (v == NULL) {
        return NULL;
    }
    PyObject *res = NULL;
    switch ((UnaryOpKind)e->op) {
    case UOP_Invert:
        res = PyNumber_Invert(v);
        break;
    case UOP_Not: {
        int t = PyObject_IsTrue(v);
        res = t < 0 ? NULL : PyBool_FromLong(!t);
        break;
    }
    case UOP_UAdd:
        res = PyNumber_Positive(v);
        break;
    case UOP_USub:
        res = PyNumber_Negative(v);
        break;
    }
    Py_DECREF(v);
    return res;
}

static NOINLINE PyObject *
eval_boolop(Frame *f, Node *e)
{
    PyObject *v = NULL;
    for (Py_ssize_t i = 0; i < e->BoolOp.nvalues; i++) {
        Py_XDECREF(v);
        v = eval_expr(f, e->BoolOp.values[i]);
        if (v == NULL) {
            return NULL;
        }
        if (i == e->BoolOp.nvalues - 1) {
            break;
        }
        int t = PyObject_IsTrue(v);
        if (t < 0) {
            Py_DECREF(v);
            return NULL;
        }
        if ((e->op == BOOL_And && !t) || (e->op == BOOL_Or && t)) {
            break;
        }
    }
    return v;
}

static NOINLINE PyObject *
eval_ifexp(Frame *f, Node *e)
{
    int b = eval_cond(f, e->IfExp.test);
    if (b < 0) {
        return NULL;
    }
    return eval_expr(f, b ? e->IfExp.body : e->IfExp.orelse);
}

static NOINLINE PyObject *
eval_namedexpr(Frame *f, Node *e)
{
    PyObject *v = eval_expr(f, e->NamedExpr.value);
    if (v == NULL) {
        return NULL;
    }
    if (store_name(f, e->NamedExpr.target, v) < 0) {
        Py_DECREF(v);
        return NULL;
    }
    return v;
}

/* The value at the position the site learned for its itag (aidx - 1) in
 * obj's instance dict when its key is the node's name object itself: a new
 * reference, or NULL (no error). */
static inline PyObject *
instance_dict_at(Node *e, PyObject *obj)
{
    if (e->Attribute.atag != e->Attribute.itag) {
        return NULL; /* not learned for this type and tag */
    }
    if (COMPAT_INLINE_VALUES && e->Attribute.vidx != 0) {
        /* the name's slot in the values CPython keeps inline, as
           LOAD_ATTR_INSTANCE_VALUE reads it (3.13+: no test of vidx on
           the hot path before) */
        PyObject *v = compat_inline_get(obj, e->Attribute.vidx - 1);
        return Py_XNewRef(v);
    }
    if (e->Attribute.aidx == 0 || Py_TYPE(obj)->tp_dictoffset == 0) {
        return NULL; /* not learned; no dict */
    }
    /* an object read at a learned site is read again: its dict object is
       made here once if CPython has not made it (the values' own lookup,
       PyObject_GenericGetAttr, costs more per read than this one).  The
       managed dict is borrowed: PyDict_Next compares no key and runs no
       code, and obj (the caller's) holds it meanwhile. */
    PyObject *d = compat_managed_dict_known(Py_TYPE(obj))
                      ? compat_managed_dict(obj)
                      : NULL;
    PyObject *made = NULL;
    if (d == NULL) {
        if ((made = PyObject_GenericGetDict(obj, NULL)) == NULL) {
            PyErr_Clear();
            return NULL;
        }
        d = made;
    }
    Py_ssize_t pos = e->Attribute.aidx - 1;
    PyObject *k, *v;
    if (PyDict_Next(d, &pos, &k, &v) && k == e->obj) {
        Py_INCREF(v);
    }
    else {
        v = NULL;
    }
    Py_XDECREF(made); /* the object holds it */
    return v;
}

/* `obj.name` at a site whose itype / itag are obj's type at its tag: what
 * PyObject_GenericGetAttr gives, then the attribute result.  With aidx
 * (the type has no attribute `name`, specialize_instance_attr), the instance
 * dict's entry at that position when its key is the name itself: what the
 * generic lookup would find there, without the type lookup nor the hash
 * probe (CPython 3.11's LOAD_ATTR_INSTANCE_VALUE, through public API:
 * PyDict_Next from a position gives the live entry there or after it).
 * Learned only while the object's type and its tag are still the site's
 * after the lookup (a getter may have changed either).  New reference, or
 * NULL with an exception. */
static inline PyObject *
instance_attr_load(Frame *f, Node *e, PyObject *obj)
{
    PyObject *v = instance_dict_at(e, obj);
    if (v != NULL) {
        return policy_attr_result(f->in, v);
    }
    v = PyObject_GenericGetAttr(obj, e->obj);
    if (v == NULL) {
        return NULL;
    }
    if (e->Attribute.afills < AIDX_MAX_FILLS &&
        Py_TYPE(obj) == e->Attribute.itype &&
        compat_type_version(Py_TYPE(obj)) == e->Attribute.itag) {
        specialize_instance_attr(e, obj, v);
    }
    return policy_attr_result(f->in, v);
}

PyObject *
attr_load_for_update(Frame *f, Node *t, PyObject *obj)
{
    PyTypeObject *tp = Py_TYPE(obj);
    int warm = tp == t->Attribute.itype &&
               compat_type_version(tp) == t->Attribute.itag;
    if (warm) {
        PyObject *v = instance_dict_at(t, obj);
        if (v != NULL) {
            return policy_attr_result(f->in, v);
        }
    }
    if (policy_check_attr_plain(f->in, obj, t->obj) < 0) {
        return NULL;
    }
    PyObject *raw = PyObject_GetAttr(obj, t->obj);
    if (raw == NULL) {
        return NULL;
    }
    if (warm && t->Attribute.afills < AIDX_MAX_FILLS && Py_TYPE(obj) == tp &&
        provenance_getattr_is_generic(tp, t->obj) &&
        compat_type_version(tp) == t->Attribute.itag) {
        specialize_instance_attr(t, obj, raw);
    }
    return policy_attr_result(f->in, raw);
}

static NOINLINE PyObject *
eval_attribute(Frame *f, Node *e)
{
    PyObject *obj = eval_operand(f, e->Attribute.value);
    if (obj == NULL) {
        return NULL;
    }
    PyObject *v;
    if (e->flags & NF_PLAIN_NAME) {
        PyTypeObject *tp = Py_TYPE(obj);
        if (tp == e->Attribute.itype &&
            compat_type_version(tp) == e->Attribute.itag) {
            v = instance_attr_load(f, e, obj);
        }
        else if (tp == &PyModule_Type) {
            v = module_attr_load(f, e, obj);
        }
        else {
            AttrVerdict av = policy_getattr_verdict(obj, e->obj);
            specialize_attr_verdict(e, &av);
            v = attr_check_plain(f, e, obj) < 0
                    ? NULL
                    : policy_getattr_checked(f->in, obj, e->obj);
        }
    }
    else {
        v = policy_getattr(f->in, obj, e->obj);
    }
    Py_DECREF(obj);
    return v;
}

static NOINLINE PyObject *
eval_subscript(Frame *f, Node *e)
{
    PyObject *obj, *key;
    if (subscript_operands(f, e, &obj, &key) < 0) {
        return NULL;
    }
    PyObject *v = subscript_get(obj, key);
    Py_DECREF(obj);
    Py_DECREF(key);
    if (v != NULL && gate_value(f->in, v) < 0) {
        Py_CLEAR(v);
    }
    return v;
}

static NOINLINE PyObject *
eval_slice(Frame *f, Node *e)
{
    PyObject *lo = NULL, *hi = NULL, *st = NULL, *r = NULL;
    if (e->Slice.lower && (lo = eval_expr(f, e->Slice.lower)) == NULL) {
        return NULL;
    }
    if (e->Slice.upper && (hi = eval_expr(f, e->Slice.upper)) == NULL) {
        goto done;
    }
    if (e->Slice.step && (st = eval_expr(f, e->Slice.step)) == NULL) {
        goto done;
    }
    r = PySlice_New(lo, hi, st);
done:
    Py_XDECREF(lo);
    Py_XDECREF(hi);
    Py_XDECREF(st);
    return r;
}

static NOINLINE PyObject *
eval_comprehension(Frame *f, Node *e)
{
    /* the first iterable, in the enclosing scope; a generator expression
       is called with its iterator */
    Node *iter = e->Comp.generators[0]->comprehension.iter;
    LoopSource ls;
    if (e->Comp.generators[0]->flags & NF_ASYNC_FOR) {
        /* `async for` first: its __aiter__ (GET_AITER) in this scope */
        memset(&ls, 0, sizeof(ls));
        if ((ls.it = async_iter_begin(f, iter)) == NULL) {
            return NULL;
        }
    }
    else if ((e->kind == K_GeneratorExp ? loop_source_object(f, iter, &ls)
                                        : loop_source_init(f, iter, &ls)) <
             0) {
        return NULL;
    }
    PyObject *r = run_comprehension(f, e, &ls);
    loop_source_clear(&ls);
    return r;
}

static NOINLINE PyObject *
eval_yield(Frame *f, Node *e)
{
    PyObject *v;
    if (e->Yield.value) {
        v = eval_expr(f, e->Yield.value);
        if (v == NULL) {
            return NULL;
        }
    }
    else {
        v = Py_NewRef(Py_None);
    }
    return gen_yield(f, v); /* steals v */
}

static NOINLINE PyObject *
eval_yield_from(Frame *f, Node *e)
{
    PyObject *v = eval_expr(f, e->Yield.value);
    if (v == NULL) {
        return NULL;
    }
    PyObject *r = gen_yield_from(f, v);
    Py_DECREF(v);
    return r;
}

static NOINLINE PyObject *
eval_await(Frame *f, Node *e)
{
    PyObject *v = eval_expr(f, e->Yield.value);
    if (v == NULL) {
        return NULL;
    }
    PyObject *r = gen_await(f, v);
    Py_DECREF(v);
    return r;
}

/* An operand of binary_op whose operation runs no code of the program's
 * (exact int and float: their arithmetic, its errors and the size and time
 * checks of binary_op_slow are C), so that it may be borrowed from a slot
 * nothing else can rebind meanwhile. */
static inline int
binop_runs_no_code(PyObject *v)
{
    return Py_IS_TYPE(v, &PyLong_Type) || Py_IS_TYPE(v, &PyFloat_Type);
}

/* eval_binop past its borrowed case: the operands evaluated, new
 * references. */
static NOINLINE PyObject *
eval_binop_general(Frame *f, Node *e)
{
    PyObject *l = eval_operand(f, e->BinOp.left);
    if (l == NULL) {
        return NULL;
    }
    PyObject *r = eval_operand(f, e->BinOp.right);
    if (r == NULL) {
        Py_DECREF(l);
        return NULL;
    }
    PyObject *res = binary_op(f->in, e->op, l, r, 0);
    Py_DECREF(l);
    Py_DECREF(r);
    return res;
}

/* Both operands at hand (NF_AT_HAND): exact numbers are charged at once
 * and borrowed, binary_op running no code for them; the rest goes the
 * general way. */
static NOINLINE PyObject *
eval_binop_at_hand(Frame *f, Node *e)
{
    PyObject *l = operand_at_hand(f, e->BinOp.left);
    PyObject *r = operand_at_hand(f, e->BinOp.right);
    if (l == NULL || r == NULL || !binop_runs_no_code(l) ||
        !binop_runs_no_code(r)) {
        return eval_binop_general(f, e);
    }
    if (charge_more(f->in, 2) < 0) {
        return NULL;
    }
    return binary_op(f->in, e->op, l, r, 0);
}

/* Tail calls only, so that neither case pays for the other's registers. */
static PyObject *
eval_binop(Frame *f, Node *e)
{
    if (e->flags & NF_AT_HAND) {
        return eval_binop_at_hand(f, e);
    }
    return eval_binop_general(f, e);
}

static NOINLINE PyObject *
bad_expr_kind(Node *e)
{
    if (e->kind == K_Starred) {
        PyErr_SetString(PyExc_SyntaxError,
                        "can't use starred expression here");
        return NULL;
    }
    PyErr_Format(PyExc_SystemError, "eval_expr: unexpected node kind %d",
                 e->kind);
    return NULL;
}

/* ------------------------------------------------------------- dispatch */

static PyObject *
ev_constant(Frame *f, Node *e)
{
    if (e->Constant.extra_ops &&
        charge_more(f->in, e->Constant.extra_ops) < 0) {
        return NULL;
    }
    Py_INCREF(e->obj);
    return e->obj;
}

static PyObject *
ev_name(Frame *f, Node *e)
{
    if (e->scope_kind == NAME_FAST && f->fast[e->slot] != NULL) {
        Py_INCREF(f->fast[e->slot]);
        return f->fast[e->slot];
    }
    if (e->scope_kind == NAME_GLOBAL ||
        (e->scope_kind == NAME_NAME &&
         (f->locals == NULL || f->locals == f->globals))) {
        /* a function's global, a module-level name: load_name's cases,
           without its call and switch */
        return gcache_load(f, e);
    }
    if (e->scope_kind == NAME_OUTER && f->back->fast[e->slot] != NULL) {
        Py_INCREF(f->back->fast[e->slot]);
        return f->back->fast[e->slot];
    }
    return load_name(f, e);
}

static PyObject *
ev_bad(Frame *f, Node *e)
{
    return bad_expr_kind(e);
}

/* every kind that is not an expression (and the bytes past K__COUNT) goes to
   ev_bad; the range initializer comes first and the kinds override it */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
const ExprFn expr_table[256] = {
    [0 ... 255] = ev_bad,
    [K_Constant] = ev_constant,
    [K_Name] = ev_name,
    [K_BinOp] = eval_binop,
    [K_UnaryOp] = eval_unary,
    [K_BoolOp] = eval_boolop,
    [K_Compare] = eval_compare,
    [K_IfExp] = eval_ifexp,
    [K_NamedExpr] = eval_namedexpr,
    [K_Call] = call_function,
    [K_Attribute] = eval_attribute,
    [K_Subscript] = eval_subscript,
    [K_Slice] = eval_slice,
    [K_List] = eval_list,
    [K_Tuple] = eval_tuple,
    [K_Set] = eval_set,
    [K_Dict] = eval_dict,
    [K_JoinedStr] = eval_joined,
    [K_FormattedValue] = eval_formatted,
    [K_TemplateStr] = eval_template,
    [K_Interpolation] = eval_interpolation,
    [K_Lambda] = make_function,
    /* PEP 695: the definition an annotation scope returns (lower_generic) */
    [K_FunctionDef] = make_function,
    [K_ClassDef] = build_class,
    [K_ListComp] = eval_comprehension,
    [K_SetComp] = eval_comprehension,
    [K_DictComp] = eval_comprehension,
    [K_GeneratorExp] = eval_comprehension,
    [K_Yield] = eval_yield,
    [K_YieldFrom] = eval_yield_from,
    [K_Await] = eval_await,
    [K_AsyncFunctionDef] = make_function, /* never made (lower.c) */
};
#pragma GCC diagnostic pop

/* The budget check's slow path, kept out of eval_expr so that eval_expr
   needs no stack frame and every case is a tail jump. */
static NOINLINE PyObject *
eval_expr_tick(Frame *f, Node *e)
{
    if (limits_tick_slow(f->in) < 0) {
        return NULL;
    }
    return expr_table[e->kind](f, e);
}

PyObject *
eval_expr(Frame *f, Node *e)
{
    if (charge_due(f->in)) {
        return eval_expr_tick(f, e);
    }
    return expr_table[e->kind](f, e);
}

int
eval_expr_table_check(void)
{
    /* Starred is evaluated by the displays and calls that hold it */
#define EXPR(n, fields)                                                     \
    if (expr_table[K_##n] == ev_bad && K_##n != K_Starred) {                \
        PyErr_SetString(PyExc_SystemError,                                  \
                        "eval_expr: no handler for expression kind " #n);   \
        return -1;                                                          \
    }
#include "ir/nodes.def"
    return 0;
}

/* ------------------------------------------------------------------ dir() */

/* dir([obj]).  Without an argument, the evaluator answers with the names
 * of the calling scope (eval_dir_frame); reached any other way (e.g.
 * through functools.partial, called by host code) there is no scope of the
 * code to list, and CPython's dir() would list the host's frame. */
PyObject *
eval_builtin_dir(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    if (nargs > 1) {
        PyErr_Format(PyExc_TypeError,
                     "dir expected at most 1 argument, got %zd", nargs);
        return NULL;
    }
    if (nargs == 1) {
        return PyObject_Dir(args[0]);
    }
    return PyList_New(0);
}

int
eval_is_guarded_dir(PyObject *func)
{
    return Py_IS_TYPE(func, &PyCFunction_Type) &&
           PyCFunction_GET_FUNCTION(func) ==
               (PyCFunction)(void (*)(void))eval_builtin_dir;
}

PyObject *
eval_dir_frame(Frame *f)
{
    PyObject *names = NULL;
    if (f->locals != NULL) {
        names = PyMapping_Keys(f->locals);
    }
    else {
        Scope *sc = f->scope;
        names = PyList_New(0);
        for (int i = 0; names != NULL && i < sc->nlocals; i++) {
            if (f->fast[i] != NULL &&
                PyList_Append(names, PyTuple_GET_ITEM(sc->varnames, i)) < 0) {
                Py_CLEAR(names);
            }
        }
        for (int i = 0; names != NULL && i < sc->ncells + sc->nfree; i++) {
            PyObject *nm = i < sc->ncells
                               ? PyTuple_GET_ITEM(sc->cellvars, i)
                               : PyTuple_GET_ITEM(sc->freevars, i - sc->ncells);
            if (f->cells[i] != NULL && PyCell_GET(f->cells[i]) != NULL &&
                PySequence_Contains(names, nm) == 0 &&
                PyList_Append(names, nm) < 0) {
                Py_CLEAR(names);
            }
        }
    }
    if (names != NULL && PyList_Sort(names) < 0) {
        Py_CLEAR(names);
    }
    return names;
}
