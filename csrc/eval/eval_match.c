/* eval_match.c: the patterns of the `match` statement (PEP 634).
 *
 * The oracle is what CPython 3.11 compiles a pattern to, not only PEP 634's
 * prose, so the order of observable operations (len(), __getitem__,
 * iteration, `get`, attribute reads, __eq__, evaluation of value and class
 * expressions) is the one CPython's bytecode performs:
 *
 * - Sequence: the type flag Py_TPFLAGS_SEQUENCE; len() unless the pattern is
 *   `[*x]` or `[*_]`; nothing more when every sub-pattern is a wildcard.
 *   When the star is `*_`, items are read lazily by index (`len()` is read
 *   again for each item after the star).  Otherwise the subject is unpacked
 *   first (like UNPACK_SEQUENCE / UNPACK_EX: iteration for anything but an
 *   exact list or tuple), then each sub-pattern is matched in order.
 * - Mapping: Py_TPFLAGS_MAPPING; len() when there are keys; all keys are
 *   evaluated, then looked up with `subject.get(key, sentinel)`; then the
 *   value sub-patterns; then `**rest` is built (dict copy minus the keys).
 * - Class: the class expression; isinstance(); every attribute is read
 *   (positional ones named by __match_args__, then keywords) before any
 *   sub-pattern is matched.
 * - Value: `subject == value`, then truth (no identity shortcut).
 *
 * Captures are not stored while matching: they are appended to `binds` (a
 * list) as 2-tuples (capsule of the Name store Node, value), and stored by
 * match_store_binds() only when the whole pattern of a case matched, in the
 * order CPython stores them (for `|`, the order of the first alternative).
 *
 * Values taken out of the subject (items, `get` results, star lists, the
 * `**rest` dict) pass the policy's value gate; attribute reads go through the
 * attribute choke point.  Each pattern node visited charges one operation.
 */
#include "eval.h"

/* Types whose single positional sub-pattern matches the subject itself
 * (bool, bytearray, bytes, dict, float, frozenset, int, list, set, str,
 * tuple).  Defined by CPython's object.h since 3.10. */
#ifndef _Py_TPFLAGS_MATCH_SELF
#define _Py_TPFLAGS_MATCH_SELF (1UL << 22)
#endif

#define NODE_CAPSULE "smolagents_native.node"

/* Small arrays of attributes live on the C stack up to this size. */
#define SMALL_ATTRS 8

/* --------------------------------------------------------------- helpers */

/* `_`: a MatchAs with neither sub-pattern nor name. */
static int
is_wildcard(const Node *p)
{
    return p->kind == K_MatchAs && p->MatchAs.pattern == NULL &&
           p->MatchAs.target == NULL;
}

/* Append the capture (target, value) to `binds`.  Returns 0 / -1.  Does not
 * steal `value`. */
static int
add_bind(PyObject *binds, Node *target, PyObject *value)
{
    PyObject *cap = PyCapsule_New(target, NODE_CAPSULE, NULL);
    if (cap == NULL) {
        return -1;
    }
    PyObject *pair = PyTuple_Pack(2, cap, value);
    Py_DECREF(cap);
    if (pair == NULL) {
        return -1;
    }
    int r = PyList_Append(binds, pair);
    Py_DECREF(pair);
    return r;
}

/* The Name store Node of a bind tuple (borrowed, lives in the Program), or
 * NULL with an exception set. */
static Node *
bind_target(PyObject *pair)
{
    if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2) {
        PyErr_SetString(PyExc_SystemError, "malformed match binding");
        return NULL;
    }
    return (Node *)PyCapsule_GetPointer(PyTuple_GET_ITEM(pair, 0),
                                        NODE_CAPSULE);
}

/* Item `idx` of `subject` as BINARY_SUBSCR with an int reads it.  Returns a
 * new reference or NULL. */
static PyObject *
get_index(PyObject *subject, Py_ssize_t idx)
{
    if (PyList_CheckExact(subject) && idx >= 0 &&
        idx < PyList_GET_SIZE(subject)) {
        return Py_NewRef(PyList_GET_ITEM(subject, idx));
    }
    if (PyTuple_CheckExact(subject) && idx >= 0 &&
        idx < PyTuple_GET_SIZE(subject)) {
        return Py_NewRef(PyTuple_GET_ITEM(subject, idx));
    }
    PyObject *key = PyLong_FromSsize_t(idx);
    if (key == NULL) {
        return NULL;
    }
    PyObject *v = PyObject_GetItem(subject, key);
    Py_DECREF(key);
    return v;
}

/* ------------------------------------------------------------- sequences */

/* Unpack `subject` into `n` items like CPython's UNPACK_SEQUENCE (star < 0)
 * or UNPACK_EX (the item at `star` is a new list of the middle elements).
 * Exact lists and tuples are read directly (the same result as iterating
 * them); anything else is iterated, with CPython's errors when the length
 * reported by len() was wrong.  Returns a new tuple or NULL. */
static PyObject *
unpack_subject(PyObject *subject, Py_ssize_t n, Py_ssize_t star)
{
    PyObject *items = NULL, *it = NULL, *rest = NULL, *w;
    Py_ssize_t before = star < 0 ? n : star;
    Py_ssize_t after = star < 0 ? 0 : n - star - 1;
    Py_ssize_t i, size;

    if (PyTuple_CheckExact(subject) || PyList_CheckExact(subject)) {
        size = PySequence_Fast_GET_SIZE(subject);
        if (star < 0 && size == n) {
            if (PyTuple_CheckExact(subject)) {
                return Py_NewRef(subject);
            }
            return PyList_AsTuple(subject);
        }
        if (star >= 0 && size >= before + after) {
            PyObject **src = PySequence_Fast_ITEMS(subject);
            items = PyTuple_New(n);
            if (items == NULL) {
                return NULL;
            }
            for (i = 0; i < before; i++) {
                PyTuple_SET_ITEM(items, i, Py_NewRef(src[i]));
            }
            rest = PyList_New(size - before - after);
            if (rest == NULL) {
                goto fail;
            }
            for (i = before; i < size - after; i++) {
                PyList_SET_ITEM(rest, i - before, Py_NewRef(src[i]));
            }
            PyTuple_SET_ITEM(items, star, rest);
            rest = NULL;
            for (i = 0; i < after; i++) {
                PyTuple_SET_ITEM(items, star + 1 + i,
                                 Py_NewRef(src[size - after + i]));
            }
            return items;
        }
        /* A length that changed under us: iterate, for CPython's errors. */
    }

    it = PyObject_GetIter(subject);
    if (it == NULL) {
        if (PyErr_ExceptionMatches(PyExc_TypeError) &&
            Py_TYPE(subject)->tp_iter == NULL && !PySequence_Check(subject)) {
            PyErr_Format(PyExc_TypeError,
                         "cannot unpack non-iterable %.200s object",
                         Py_TYPE(subject)->tp_name);
        }
        return NULL;
    }
    items = PyTuple_New(n);
    if (items == NULL) {
        goto fail;
    }
    for (i = 0; i < before; i++) {
        w = PyIter_Next(it);
        if (w == NULL) {
            if (!PyErr_Occurred()) {
                if (star < 0) {
                    PyErr_Format(PyExc_ValueError,
                                 "not enough values to unpack "
                                 "(expected %zd, got %zd)",
                                 before, i);
                }
                else {
                    PyErr_Format(PyExc_ValueError,
                                 "not enough values to unpack "
                                 "(expected at least %zd, got %zd)",
                                 before + after, i);
                }
            }
            goto fail;
        }
        PyTuple_SET_ITEM(items, i, w);
    }
    if (star < 0) {
        w = PyIter_Next(it);
        if (w != NULL) {
            Py_DECREF(w);
            PyErr_Format(PyExc_ValueError,
                         "too many values to unpack (expected %zd)", before);
            goto fail;
        }
        if (PyErr_Occurred()) {
            goto fail;
        }
        Py_DECREF(it);
        return items;
    }
    rest = PySequence_List(it);
    if (rest == NULL) {
        goto fail;
    }
    size = PyList_GET_SIZE(rest);
    if (size < after) {
        PyErr_Format(PyExc_ValueError,
                     "not enough values to unpack "
                     "(expected at least %zd, got %zd)",
                     before + after, before + size);
        goto fail;
    }
    for (i = 0; i < after; i++) {
        PyTuple_SET_ITEM(items, star + 1 + i,
                         Py_NewRef(PyList_GET_ITEM(rest, size - after + i)));
    }
    if (PyList_SetSlice(rest, size - after, size, NULL) < 0) {
        goto fail;
    }
    PyTuple_SET_ITEM(items, star, rest);
    Py_DECREF(it);
    return items;

fail:
    Py_XDECREF(rest);
    Py_XDECREF(items);
    Py_XDECREF(it);
    return NULL;
}

/* `[*_]`-style patterns: items read lazily by index.  Returns 1 / 0 / -1. */
static int
match_sequence_subscr(Frame *f, Node *p, PyObject *subject, Py_ssize_t star,
                      PyObject *binds)
{
    Py_ssize_t n = p->Patterns.npatterns;
    for (Py_ssize_t i = 0; i < n; i++) {
        Node *sub = p->Patterns.patterns[i];
        Py_ssize_t idx = i;
        if (i == star || is_wildcard(sub)) {
            continue;
        }
        if (i > star) {
            /* The subject may not support negative indexing: CPython reads
             * len() again for every item after the star. */
            Py_ssize_t len = PyObject_Size(subject);
            if (len < 0) {
                return -1;
            }
            idx = len - (n - i);
        }
        PyObject *item = get_index(subject, idx);
        if (item == NULL) {
            return -1;
        }
        if (policy_check_value(f->in, item) < 0) {
            Py_DECREF(item);
            return -1;
        }
        int r = match_pattern(f, sub, item, binds);
        Py_DECREF(item);
        if (r != 1) {
            return r;
        }
    }
    return 1;
}

/* Unpack first, then match every sub-pattern.  Returns 1 / 0 / -1. */
static int
match_sequence_unpack(Frame *f, Node *p, PyObject *subject, Py_ssize_t star,
                      PyObject *binds)
{
    Py_ssize_t n = p->Patterns.npatterns, i;
    int res = -1;
    PyObject *items = unpack_subject(subject, n, star);
    if (items == NULL) {
        return -1;
    }
    for (i = 0; i < n; i++) {
        PyObject *item = PyTuple_GET_ITEM(items, i);
        if (i == star) {
            for (Py_ssize_t j = 0; j < PyList_GET_SIZE(item); j++) {
                if (policy_check_value(f->in, PyList_GET_ITEM(item, j)) < 0) {
                    goto done;
                }
            }
        }
        else if (policy_check_value(f->in, item) < 0) {
            goto done;
        }
    }
    for (i = 0; i < n; i++) {
        Node *sub = p->Patterns.patterns[i];
        if (is_wildcard(sub)) {
            continue;
        }
        int r = match_pattern(f, sub, PyTuple_GET_ITEM(items, i), binds);
        if (r != 1) {
            res = r;
            goto done;
        }
    }
    res = 1;
done:
    Py_DECREF(items);
    return res;
}

/* Returns 1 / 0 / -1. */
static int
match_sequence(Frame *f, Node *p, PyObject *subject, PyObject *binds)
{
    Py_ssize_t n = p->Patterns.npatterns, star = -1;
    int only_wildcard = 1, star_wildcard = 0;

    for (Py_ssize_t i = 0; i < n; i++) {
        Node *sub = p->Patterns.patterns[i];
        if (sub->kind == K_MatchStar) {
            if (star >= 0) {
                /* CPython's compiler rejects this; ast.parse does not. */
                PyErr_SetString(PyExc_SyntaxError,
                                "multiple starred names in sequence pattern");
                return -1;
            }
            star = i;
            star_wildcard = sub->MatchStar.target == NULL;
            only_wildcard &= star_wildcard;
        }
        else {
            only_wildcard &= is_wildcard(sub);
        }
    }
    if (!PyType_HasFeature(Py_TYPE(subject), Py_TPFLAGS_SEQUENCE)) {
        return 0;
    }
    if (star < 0 || n > 1) {
        Py_ssize_t len = PyObject_Size(subject);
        if (len < 0) {
            return -1;
        }
        if (star < 0 ? len != n : len < n - 1) {
            return 0;
        }
    }
    if (only_wildcard) {
        return 1;
    }
    if (star_wildcard) {
        return match_sequence_subscr(f, p, subject, star, binds);
    }
    return match_sequence_unpack(f, p, subject, star, binds);
}

/* -------------------------------------------------------------- mappings */

/* `**rest`: a dict copy of the subject without `keys`.  Returns a new
 * reference or NULL. */
static PyObject *
mapping_rest(Interp *in, PyObject *subject, PyObject *keys)
{
    PyObject *rest = PyDict_New();
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    if (rest == NULL) {
        return NULL;
    }
    if (PyDict_Update(rest, subject) < 0) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Format(PyExc_TypeError, "'%.200s' object is not a mapping",
                         Py_TYPE(subject)->tp_name);
        }
        goto fail;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(keys); i++) {
        if (PyObject_DelItem(rest, PyTuple_GET_ITEM(keys, i)) < 0) {
            goto fail;
        }
    }
    /* `rest` is private: the gate cannot see it change under PyDict_Next. */
    while (PyDict_Next(rest, &pos, &k, &v)) {
        if (policy_check_value(in, k) < 0 || policy_check_value(in, v) < 0) {
            goto fail;
        }
    }
    return rest;
fail:
    Py_DECREF(rest);
    return NULL;
}

/* Returns 1 / 0 / -1. */
static int
match_mapping(Frame *f, Node *p, PyObject *subject, PyObject *binds)
{
    Interp *in = f->in;
    Py_ssize_t nk = p->MatchMapping.nkeys, i;
    PyObject *keys = NULL, *values = NULL, *get = NULL, *seen = NULL;
    PyObject *dummy = NULL, *rest = NULL;
    int res = -1;

    if (p->MatchMapping.npatterns != nk) {
        PyErr_SetString(PyExc_SystemError, "malformed mapping pattern");
        return -1;
    }
    if (!PyType_HasFeature(Py_TYPE(subject), Py_TPFLAGS_MAPPING)) {
        return 0;
    }
    if (nk == 0 && p->MatchMapping.rest == NULL) {
        return 1;
    }
    if (nk > 0) {
        Py_ssize_t len = PyObject_Size(subject);
        if (len < 0) {
            return -1;
        }
        if (len < nk) {
            return 0;
        }
    }
    keys = PyTuple_New(nk);
    if (keys == NULL) {
        return -1;
    }
    for (i = 0; i < nk; i++) {
        PyObject *k = eval_expr(f, p->MatchMapping.keys[i]);
        if (k == NULL) {
            goto done;
        }
        PyTuple_SET_ITEM(keys, i, k);
    }
    if (nk > 0) {
        /* CPython: subject.get(key, dummy) for each key, in order; `get` is
         * protocol, read without the attribute policy. */
        get = PyObject_GetAttr(subject, in_st(in)->str_get);
        if (get == NULL) {
            goto done;
        }
        seen = PySet_New(NULL);
        if (seen == NULL) {
            goto done;
        }
        dummy = PyObject_CallNoArgs((PyObject *)&PyBaseObject_Type);
        if (dummy == NULL) {
            goto done;
        }
        values = PyTuple_New(nk);
        if (values == NULL) {
            goto done;
        }
        for (i = 0; i < nk; i++) {
            PyObject *key = PyTuple_GET_ITEM(keys, i);
            int dup = PySet_Contains(seen, key);
            if (dup < 0) {
                goto done;
            }
            if (dup) {
                PyErr_Format(PyExc_ValueError,
                             "mapping pattern checks duplicate key (%R)", key);
                goto done;
            }
            if (PySet_Add(seen, key) < 0) {
                goto done;
            }
            PyObject *args[2] = {key, dummy};
            PyObject *v = PyObject_Vectorcall(get, args, 2, NULL);
            if (v == NULL) {
                goto done;
            }
            if (v == dummy) {
                Py_DECREF(v);
                res = 0;
                goto done;
            }
            PyTuple_SET_ITEM(values, i, v);
            if (policy_check_value(in, v) < 0) {
                goto done;
            }
        }
        for (i = 0; i < nk; i++) {
            Node *sub = p->MatchMapping.patterns[i];
            if (is_wildcard(sub)) {
                continue;
            }
            int r = match_pattern(f, sub, PyTuple_GET_ITEM(values, i), binds);
            if (r != 1) {
                res = r;
                goto done;
            }
        }
    }
    if (p->MatchMapping.rest != NULL) {
        rest = mapping_rest(in, subject, keys);
        if (rest == NULL || add_bind(binds, p->MatchMapping.rest, rest) < 0) {
            goto done;
        }
    }
    res = 1;
done:
    Py_XDECREF(rest);
    Py_XDECREF(values);
    Py_XDECREF(dummy);
    Py_XDECREF(seen);
    Py_XDECREF(get);
    Py_DECREF(keys);
    return res;
}

/* --------------------------------------------------------------- classes */

/* Read attribute `name` of `subject` for a class pattern; `names[0..k)` are
 * the attributes already read (NULL entries are skipped) and `names[k]`
 * becomes `name`.  Stores a new reference in *out.  Returns 1 found, 0
 * missing (no match), -1 error. */
static int
class_attr(Interp *in, PyTypeObject *cls, PyObject *subject, PyObject *name,
           PyObject **names, Py_ssize_t k, PyObject **out)
{
    for (Py_ssize_t j = 0; j < k; j++) {
        /* Both are exact str: the comparison runs no Python code. */
        if (names[j] != NULL &&
            (names[j] == name || PyUnicode_Compare(names[j], name) == 0)) {
            PyErr_Format(PyExc_TypeError,
                         "%s() got multiple sub-patterns for attribute %R",
                         cls->tp_name, name);
            return -1;
        }
    }
    names[k] = name;
    *out = policy_getattr(in, subject, name);
    if (*out == NULL) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
            return 0;
        }
        return -1;
    }
    return 1;
}

/* Returns 1 / 0 / -1. */
static int
match_class(Frame *f, Node *p, PyObject *subject, PyObject *binds)
{
    Interp *in = f->in;
    Py_ssize_t nargs = p->MatchClass.npatterns,
               nkw = p->MatchClass.nkwd_patterns, nattrs = nargs + nkw, i;
    PyObject *cls = NULL, *match_args = NULL;
    PyObject *small_attrs[SMALL_ATTRS] = {NULL};
    PyObject *small_names[SMALL_ATTRS] = {NULL};
    PyObject **attrs = small_attrs; /* owned references */
    PyObject **names = small_names; /* borrowed from match_args or p->obj */
    PyTypeObject *tp;
    int res = -1, r;

    if (p->obj == NULL || !PyTuple_Check(p->obj) ||
        PyTuple_GET_SIZE(p->obj) != nkw) {
        PyErr_SetString(PyExc_SystemError, "malformed class pattern");
        return -1;
    }
    cls = eval_expr(f, p->MatchClass.cls);
    if (cls == NULL) {
        return -1;
    }
    if (!PyType_Check(cls)) {
        PyErr_SetString(PyExc_TypeError, COMPAT_MSG_MATCH_CLASS);
        goto done;
    }
    tp = (PyTypeObject *)cls;
    r = PyObject_IsInstance(subject, cls);
    if (r <= 0) {
        res = r;
        goto done;
    }
    if (nattrs > SMALL_ATTRS) {
        attrs = PyMem_Calloc((size_t)nattrs, sizeof(PyObject *));
        names = PyMem_Calloc((size_t)nattrs, sizeof(PyObject *));
        if (attrs == NULL || names == NULL) {
            PyErr_NoMemory();
            goto done;
        }
    }
    if (nargs > 0) {
        int match_self = 0;
        Py_ssize_t allowed;
        /* Protocol, read from the class without the attribute policy. */
        match_args = PyObject_GetAttr(cls, in_st(in)->str_match_args);
        if (match_args != NULL) {
            if (!PyTuple_CheckExact(match_args)) {
                PyErr_Format(PyExc_TypeError,
                             "%s.__match_args__ must be a tuple (got %s)",
                             tp->tp_name, Py_TYPE(match_args)->tp_name);
                goto done;
            }
            allowed = PyTuple_GET_SIZE(match_args);
        }
        else if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
            /* Only acknowledged when the class has no __match_args__. */
            match_self = PyType_HasFeature(tp, _Py_TPFLAGS_MATCH_SELF);
            allowed = match_self ? 1 : 0;
        }
        else {
            goto done;
        }
        if (allowed < nargs) {
            PyErr_Format(PyExc_TypeError,
                         "%s() accepts %zd positional sub-pattern%s "
                         "(%zd given)",
                         tp->tp_name, allowed, allowed == 1 ? "" : "s", nargs);
            goto done;
        }
        if (match_self) {
            attrs[0] = Py_NewRef(subject);
        }
        else {
            for (i = 0; i < nargs; i++) {
                PyObject *name = PyTuple_GET_ITEM(match_args, i);
                if (!PyUnicode_CheckExact(name)) {
                    PyErr_Format(PyExc_TypeError,
                                 "__match_args__ elements must be strings "
                                 "(got %s)",
                                 Py_TYPE(name)->tp_name);
                    goto done;
                }
                r = class_attr(in, tp, subject, name, names, i, &attrs[i]);
                if (r <= 0) {
                    res = r;
                    goto done;
                }
            }
        }
    }
    for (i = 0; i < nkw; i++) {
        PyObject *name = PyTuple_GET_ITEM(p->obj, i);
        r = class_attr(in, tp, subject, name, names, nargs + i,
                       &attrs[nargs + i]);
        if (r <= 0) {
            res = r;
            goto done;
        }
    }
    for (i = 0; i < nattrs; i++) {
        Node *sub = i < nargs ? p->MatchClass.patterns[i]
                              : p->MatchClass.kwd_patterns[i - nargs];
        if (is_wildcard(sub)) {
            continue;
        }
        r = match_pattern(f, sub, attrs[i], binds);
        if (r != 1) {
            res = r;
            goto done;
        }
    }
    res = 1;
done:
    if (attrs != NULL) {
        for (i = 0; i < nattrs; i++) {
            Py_XDECREF(attrs[i]);
        }
    }
    if (attrs != small_attrs) {
        PyMem_Free(attrs);
    }
    if (names != small_names) {
        PyMem_Free(names);
    }
    Py_XDECREF(match_args);
    Py_DECREF(cls);
    return res;
}

/* ------------------------------------------------------------ or-patterns */

/* Append to `names` (a list) the names `p` captures, in the order CPython
 * stores them (for `|`, the order of the first alternative).  Returns 0 /
 * -1. */
static int
capture_names(Interp *in, Node *p, PyObject *names)
{
    Py_ssize_t i;
    if (limits_check_stack(in) < 0) {
        return -1;
    }
    switch ((NodeKind)p->kind) {
    case K_MatchValue:
    case K_MatchSingleton:
        return 0;
    case K_MatchSequence:
        for (i = 0; i < p->Patterns.npatterns; i++) {
            if (capture_names(in, p->Patterns.patterns[i], names) < 0) {
                return -1;
            }
        }
        return 0;
    case K_MatchMapping:
        for (i = 0; i < p->MatchMapping.npatterns; i++) {
            if (capture_names(in, p->MatchMapping.patterns[i], names) < 0) {
                return -1;
            }
        }
        return p->MatchMapping.rest
                   ? PyList_Append(names, p->MatchMapping.rest->obj)
                   : 0;
    case K_MatchClass:
        for (i = 0; i < p->MatchClass.npatterns; i++) {
            if (capture_names(in, p->MatchClass.patterns[i], names) < 0) {
                return -1;
            }
        }
        for (i = 0; i < p->MatchClass.nkwd_patterns; i++) {
            if (capture_names(in, p->MatchClass.kwd_patterns[i], names) < 0) {
                return -1;
            }
        }
        return 0;
    case K_MatchStar:
        return p->MatchStar.target
                   ? PyList_Append(names, p->MatchStar.target->obj)
                   : 0;
    case K_MatchAs:
        if (p->MatchAs.pattern != NULL &&
            capture_names(in, p->MatchAs.pattern, names) < 0) {
            return -1;
        }
        return p->MatchAs.target ? PyList_Append(names, p->MatchAs.target->obj)
                                 : 0;
    case K_MatchOr:
        return p->Patterns.npatterns > 0
                   ? capture_names(in, p->Patterns.patterns[0], names)
                   : 0;
#define STMT(n, f) case K_##n:
#define EXPR(n, f) case K_##n:
#define AUX(n, f) case K_##n:
#include "ir/nodes.def"
    case K__COUNT:
        break;
    }
    PyErr_Format(PyExc_SystemError, "node kind %d is not a pattern",
                 (int)p->kind);
    return -1;
}

/* Put the binds of a later alternative (`alt`, a list) in the order of the
 * first alternative's names, as CPython stores them.  If the names differ
 * (a program CPython's compiler rejects), the order is left as is.  Returns
 * 0 / -1. */
static int
reorder_binds(Interp *in, Node *first, PyObject *alt)
{
    Py_ssize_t n = PyList_GET_SIZE(alt), i, j;
    PyObject *names = NULL, *pool = NULL, *out = NULL;
    int res = -1;

    names = PyList_New(0);
    if (names == NULL || capture_names(in, first, names) < 0) {
        goto done;
    }
    if (PyList_GET_SIZE(names) != n) {
        res = 0;
        goto done;
    }
    pool = PyList_GetSlice(alt, 0, n);
    out = PyList_New(n);
    if (pool == NULL || out == NULL) {
        goto done;
    }
    for (i = 0; i < n; i++) {
        PyObject *name = PyList_GET_ITEM(names, i);
        for (j = 0; j < n; j++) {
            PyObject *pair = PyList_GET_ITEM(pool, j);
            if (pair == Py_None) {
                continue;
            }
            Node *t = bind_target(pair);
            if (t == NULL) {
                goto done;
            }
            if (t->obj == name || PyUnicode_Compare(t->obj, name) == 0) {
                PyList_SET_ITEM(out, i, Py_NewRef(pair));
                if (PyList_SetItem(pool, j, Py_NewRef(Py_None)) < 0) {
                    goto done;
                }
                break;
            }
        }
        if (j == n) {
            res = 0;
            goto done;
        }
    }
    res = PyList_SetSlice(alt, 0, n, out);
done:
    Py_XDECREF(out);
    Py_XDECREF(pool);
    Py_XDECREF(names);
    return res;
}

/* Try each alternative in order; only the captures of the one that matched
 * count.  Returns 1 / 0 / -1. */
static int
match_or(Frame *f, Node *p, PyObject *subject, PyObject *binds)
{
    for (Py_ssize_t i = 0; i < p->Patterns.npatterns; i++) {
        PyObject *alt = PyList_New(0);
        if (alt == NULL) {
            return -1;
        }
        int r = match_pattern(f, p->Patterns.patterns[i], subject, alt);
        if (r == 1) {
            Py_ssize_t n = PyList_GET_SIZE(alt);
            if ((i > 0 && n > 1 &&
                 reorder_binds(f->in, p->Patterns.patterns[0], alt) < 0) ||
                PyList_SetSlice(binds, PyList_GET_SIZE(binds),
                                PyList_GET_SIZE(binds), alt) < 0) {
                r = -1;
            }
        }
        Py_DECREF(alt);
        if (r != 0) {
            return r;
        }
    }
    return 0;
}

/* ------------------------------------------------------------------ main */

/* Returns 1 / 0 / -1. */
static int
match_value(Frame *f, Node *p, PyObject *subject)
{
    PyObject *v = eval_expr(f, p->MatchValue.value);
    if (v == NULL) {
        return -1;
    }
    /* COMPARE_OP then a truth test: no identity shortcut (nan != nan). */
    PyObject *eq = PyObject_RichCompare(subject, v, Py_EQ);
    Py_DECREF(v);
    if (eq == NULL) {
        return -1;
    }
    int r = PyObject_IsTrue(eq);
    Py_DECREF(eq);
    return r;
}

/* Match `subject` (borrowed) against pattern `p`.  Returns 1 on match, 0 on
 * no match, -1 with an exception set.  Captures are appended to `binds`. */
int
match_pattern(Frame *f, Node *p, PyObject *subject, PyObject *binds)
{
    if (limits_check_stack(f->in) < 0 || charge(f->in) < 0) {
        return -1;
    }
    switch ((NodeKind)p->kind) {
    case K_MatchValue:
        return match_value(f, p, subject);
    case K_MatchSingleton:
        return subject == p->obj;
    case K_MatchSequence:
        return match_sequence(f, p, subject, binds);
    case K_MatchMapping:
        return match_mapping(f, p, subject, binds);
    case K_MatchClass:
        return match_class(f, p, subject, binds);
    case K_MatchStar:
        /* Reached only from match_sequence_unpack, with the star's list. */
        if (p->MatchStar.target != NULL &&
            add_bind(binds, p->MatchStar.target, subject) < 0) {
            return -1;
        }
        return 1;
    case K_MatchAs:
        if (p->MatchAs.pattern != NULL) {
            int r = match_pattern(f, p->MatchAs.pattern, subject, binds);
            if (r != 1) {
                return r;
            }
        }
        if (p->MatchAs.target != NULL &&
            add_bind(binds, p->MatchAs.target, subject) < 0) {
            return -1;
        }
        return 1;
    case K_MatchOr:
        return match_or(f, p, subject, binds);
#define STMT(n, f) case K_##n:
#define EXPR(n, f) case K_##n:
#define AUX(n, f) case K_##n:
#include "ir/nodes.def"
    case K__COUNT:
        break;
    }
    PyErr_Format(PyExc_SystemError, "node kind %d is not a pattern",
                 (int)p->kind);
    return -1;
}

/* Store the captures collected by match_pattern, in order.  Returns 0 / -1. */
int
match_store_binds(Frame *f, PyObject *binds)
{
    if (!PyList_Check(binds)) {
        PyErr_SetString(PyExc_SystemError, "match bindings must be a list");
        return -1;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(binds); i++) {
        PyObject *pair = Py_NewRef(PyList_GET_ITEM(binds, i));
        Node *t = bind_target(pair);
        int r = t == NULL ? -1 : store_name(f, t, PyTuple_GET_ITEM(pair, 1));
        Py_DECREF(pair);
        if (r < 0) {
            return -1;
        }
    }
    return 0;
}
