/* compat.c: behaviours the interpreter needs from CPython, rebuilt on the
 * public C API so that the extension builds and runs on every supported
 * version (the private functions they replace moved or disappeared in 3.13
 * and 3.14; see compat.h). */
#include "compat.h"

#include <limits.h>

/* Borrowed for < 3.12 (tp_dict), new reference from 3.12 (PyType_GetDict:
 * static builtin types keep their dict elsewhere); release with
 * type_dict_release. */
static inline PyObject *
type_dict_get(PyTypeObject *tp)
{
#if PY_VERSION_HEX >= 0x030C0000
    return PyType_GetDict(tp);
#else
    return tp->tp_dict;
#endif
}

static inline void
type_dict_release(PyObject *d)
{
#if PY_VERSION_HEX >= 0x030C0000
    Py_XDECREF(d);
#else
    (void)d;
#endif
}

#if PY_VERSION_HEX < 0x030C0000
unsigned int
compat_type_assign_version(PyTypeObject *tp)
{
    /* Only _PyType_Lookup assigns a tag on these versions (when it caches
       a lookup), and the public way to it is type_getattro: reading
       `tp.__init_subclass__` looks the name up in the metatype (`type`:
       object's classmethod descriptor, not a data descriptor, so the
       read goes on), then in tp's MRO through _PyType_Lookup.  Made only
       when the read can run no code: the metatype is exactly `type`, no
       exception is pending, and what tp's MRO holds for the name, looked
       up first without the cache, is object's builtin descriptor, whose
       __get__ binds it (a class of the code's own that defines
       __init_subclass__, and its subclasses, keep no tag: no caching).
       Such a type is remembered with its MRO (NOTAG_SLOTS, in turn), so
       that each cache check on it does not repeat the lookup: only the
       caching is lost when a remembered address comes back as another
       type with the same MRO object, never a verdict. */
    static PyObject *probe;
    enum { NOTAG_SLOTS = 8 };
    static struct {
        PyTypeObject *tp; /* identity only */
        PyObject *mro;    /* identity only */
    } notag[NOTAG_SLOTS];
    static unsigned int notag_next;
    if (Py_TYPE(tp) != &PyType_Type ||
        !PyType_HasFeature(tp, Py_TPFLAGS_READY) || PyErr_Occurred()) {
        return 0;
    }
    for (int i = 0; i < NOTAG_SLOTS; i++) {
        if (notag[i].tp == tp && notag[i].mro == tp->tp_mro) {
            return 0;
        }
    }
    if (probe == NULL) {
        probe = PyUnicode_InternFromString("__init_subclass__");
        if (probe == NULL) {
            PyErr_Clear();
            return 0;
        }
    }
    PyObject *found = compat_type_lookup(tp, probe);
    if (found == NULL || !Py_IS_TYPE(found, &PyClassMethodDescr_Type)) {
        Py_XDECREF(found);
        PyErr_Clear();
        notag[notag_next].tp = tp;
        notag[notag_next].mro = tp->tp_mro;
        notag_next = (notag_next + 1) % NOTAG_SLOTS;
        return 0;
    }
    Py_DECREF(found);
    PyObject *bound = PyObject_GetAttr((PyObject *)tp, probe);
    if (bound == NULL) {
        PyErr_Clear();
        return 0;
    }
    Py_DECREF(bound);
    if (!PyType_HasFeature(tp, Py_TPFLAGS_VALID_VERSION_TAG)) {
        return 0;
    }
    return tp->tp_version_tag;
}
#endif

PyObject *
compat_type_lookup(PyTypeObject *tp, PyObject *name)
{
    PyObject *mro = tp->tp_mro;
    if (mro == NULL || !PyTuple_Check(mro)) {
        /* not ready yet: the type itself only */
        PyObject *d = type_dict_get(tp);
        PyObject *res = d ? PyDict_GetItemWithError(d, name) : NULL;
        Py_XINCREF(res);
        type_dict_release(d);
        return res;
    }
    Py_INCREF(mro); /* a class's __bases__ assignment may replace it */
    PyObject *res = NULL;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(mro); i++) {
        PyObject *base = PyTuple_GET_ITEM(mro, i);
        if (!PyType_Check(base)) {
            continue;
        }
        PyObject *d = type_dict_get((PyTypeObject *)base);
        if (d == NULL) {
            continue;
        }
        res = PyDict_GetItemWithError(d, name);
        Py_XINCREF(res);
        type_dict_release(d);
        if (res != NULL || PyErr_Occurred()) {
            break;
        }
    }
    Py_DECREF(mro);
    return res;
}

/* Can instances of tp hold attributes of their own that would shadow a
 * method of the type? */
int
compat_type_has_instance_dict(PyTypeObject *tp)
{
#if PY_VERSION_HEX >= 0x030C0000
    if (PyType_HasFeature(tp, Py_TPFLAGS_MANAGED_DICT)) {
        return 1;
    }
#endif
    return tp->tp_dictoffset != 0;
}

int compat_managed_dict_layout = 0;

#if PY_VERSION_HEX >= 0x030B0000
/* A class of its own for a layout check at module exec: a new reference,
 * or NULL with an exception. */
static PyObject *
probe_class(const char *name)
{
    PyObject *ns = PyDict_New();
    PyObject *cls = ns == NULL ? NULL
                               : PyObject_CallFunction((PyObject *)&PyType_Type,
                                                       "s()O", name, ns);
    Py_XDECREF(ns);
    return cls;
}

/* What a layout check found: `ok`; 0 after an error other than a
 * MemoryError (a layout other than the one we know: not used), which is
 * cleared; -1 after a MemoryError. */
static int
probe_result(int ok)
{
    if (PyErr_Occurred()) {
        if (PyErr_ExceptionMatches(PyExc_MemoryError)) {
            return -1;
        }
        PyErr_Clear();
        return 0;
    }
    return ok;
}
#endif

int
compat_managed_dict_check(void)
{
    compat_managed_dict_layout = 0;
#if PY_VERSION_HEX >= 0x030B0000
    PyObject *cls = probe_class("_layout_probe");
    PyObject *obj = cls == NULL ? NULL : PyObject_CallNoArgs(cls);
    PyObject *name = PyUnicode_InternFromString("probe");
    PyObject *dict = NULL;
    int ok = obj != NULL && name != NULL &&
             PyType_HasFeature(Py_TYPE(obj), Py_TPFLAGS_MANAGED_DICT) &&
             compat_managed_dict(obj) == NULL &&
             PyObject_GenericSetAttr(obj, name, Py_None) == 0 &&
             compat_managed_dict(obj) == NULL &&
             (dict = PyObject_GenericGetDict(obj, NULL)) != NULL &&
             compat_managed_dict(obj) == dict && PyDict_GET_SIZE(dict) == 1;
    Py_XDECREF(dict);
    Py_XDECREF(name);
    Py_XDECREF(obj);
    Py_XDECREF(cls);
    if ((ok = probe_result(ok)) < 0) {
        return -1;
    }
    compat_managed_dict_layout = ok;
#endif
    return 0;
}

int compat_inline_values_layout = 0;

uint32_t
compat_inline_find(PyObject *obj, PyObject *value)
{
    CompatInlineValues *v = compat_inline_values(obj);
    if (v == NULL) {
        return 0;
    }
    uint32_t found = 0;
    for (uint32_t i = 0; i < v->capacity; i++) {
        if (v->values[i] == value) {
            if (found != 0) {
                return 0; /* several: not the name's alone */
            }
            found = i + 1;
        }
    }
    return found;
}

uint32_t
compat_inline_slot_of(PyObject *obj, PyObject *name, PyObject *value)
{
    if (compat_inline_values(obj) == NULL) {
        return 0;
    }
    PyObject *got = PyObject_GenericGetAttr(obj, name);
    if (got == NULL) {
        PyErr_Clear();
        return 0;
    }
    /* the read's last act was taking the name's value from its slot; no
       code has run since */
    uint32_t slot = got == value ? compat_inline_find(obj, value) : 0;
    Py_DECREF(got); /* obj's slot holds it still */
    return slot;
}

int compat_shared_keys_layout = 0;

#if COMPAT_SHARED_KEYS
/* An entry of CPython's shared keys (PyDictUnicodeEntry), after the
 * 1 << dk_log2_index_bytes bytes of indices */
typedef struct {
    PyObject *me_key;
    PyObject *me_value;
} CompatUnicodeEntry;
#define COMPAT_DICT_KEYS_SPLIT 2
#endif

int
compat_inline_has_name_scan(PyObject *obj, PyObject *name, uint8_t *learn)
{
#if COMPAT_SHARED_KEYS
    PyTypeObject *tp = Py_TYPE(obj);
    CompatInlineValues *v;
    if (!compat_shared_keys_layout || !PyUnicode_CheckExact(name) ||
        !PyType_HasFeature(tp, Py_TPFLAGS_HEAPTYPE) ||
        (v = compat_inline_values(obj)) == NULL ||
        compat_managed_dict(obj) != NULL) {
        return -1;
    }
    CompatDictKeys *dk =
        (CompatDictKeys *)((PyHeapTypeObject *)tp)->ht_cached_keys;
    if (dk == NULL || dk->dk_kind != COMPAT_DICT_KEYS_SPLIT) {
        return -1;
    }
    const CompatUnicodeEntry *e =
        (const CompatUnicodeEntry *)(dk->dk_indices +
                                     ((size_t)1 << dk->dk_log2_index_bytes));
    /* shared keys are exact str (a dict given another key stops sharing),
       their hashes known (dict keys); an equal key that is another object
       (a name built at run time and stored through the dict) compares
       equal: the hashes first, when both are known */
    Py_hash_t hash = ((PyASCIIObject *)name)->hash;
    Py_ssize_t i, n = dk->dk_nentries;
    for (i = 0; i < n; i++) {
        PyObject *k = e[i].me_key;
        if (k == name) {
            break;
        }
        if (k == NULL || !PyUnicode_CheckExact(k)) {
            continue;
        }
        Py_hash_t hk = ((PyASCIIObject *)k)->hash;
        if (hk != -1 && hash != -1 && hk != hash) {
            continue;
        }
        if (PyUnicode_Compare(k, name) == 0) {
            break;
        }
    }
    if (i == n) {
        if (learn != NULL && n < 255) {
            *learn = (uint8_t)(n + 1);
        }
        return 0;
    }
    return i < v->capacity && v->values[i] != NULL;
#else
    (void)obj;
    (void)name;
    (void)learn;
    return -1;
#endif
}

#if PY_VERSION_HEX >= 0x030D0000
/* The keys of obj's dict in order are exactly (k0, k1) (k1 NULL: k0 alone) */
static int
inline_probe_order(PyObject *obj, PyObject *k0, PyObject *k1)
{
    PyObject *d = PyObject_GenericGetDict(obj, NULL);
    if (d == NULL) {
        return 0;
    }
    PyObject *keys = PyDict_Keys(d);
    Py_DECREF(d);
    if (keys == NULL) {
        return 0;
    }
    Py_ssize_t n = k1 == NULL ? 1 : 2;
    int ok = PyList_GET_SIZE(keys) == n && PyList_GET_ITEM(keys, 0) == k0 &&
             (n == 1 || PyList_GET_ITEM(keys, 1) == k1);
    Py_DECREF(keys);
    return ok;
}

#if COMPAT_SHARED_KEYS
/* The shared-keys part of the probe: obj has probe_a and probe_b in its
 * slots 0 and 1.  1 when compat_inline_has_name answers as getattr does,
 * on obj and on a new instance of its class. */
static int
shared_keys_probe(PyObject *obj, PyObject *na, PyObject *nb)
{
    PyObject *nc = PyUnicode_InternFromString("probe_c");
    /* equal to na, another object (not interned) */
    PyObject *na2 = PyUnicode_FromStringAndSize("probe_a!", 7);
    PyObject *obj3 = PyObject_CallNoArgs((PyObject *)Py_TYPE(obj));
    int ok = 0;
    uint8_t absent = 0;
    compat_shared_keys_layout = 1; /* for the accessor, while probing */
    if (nc != NULL && na2 != NULL && obj3 != NULL && na2 != na &&
        compat_inline_has_name(obj, na, 0, NULL) == 1 &&
        compat_inline_has_name(obj, nb, 0, NULL) == 1 &&
        compat_inline_has_name(obj, na2, 0, NULL) == 1 &&
        compat_inline_has_name(obj, nc, 0, NULL) == 0 &&
        compat_inline_has_name(obj3, na, 0, NULL) == 0 &&
        PyObject_GenericSetAttr(obj3, nb, Py_None) == 0 &&
        compat_inline_has_name(obj3, nb, 0, NULL) == 1 &&
        compat_inline_has_name(obj3, na, 0, NULL) == 0 &&
        PyObject_DelAttr(obj3, nb) == 0 &&
        compat_inline_has_name(obj3, nb, 0, NULL) == 0 &&
        /* a site's memory: not among the 2 keys, then a third key, the
           name, added (by another instance) and given to obj3 */
        compat_inline_has_name(obj3, nc, 0, &absent) == 0 && absent == 3 &&
        compat_inline_has_name(obj3, nc, absent, NULL) == 0 &&
        PyObject_GenericSetAttr(obj, nc, Py_None) == 0 &&
        compat_inline_has_name(obj3, nc, absent, NULL) == 0 &&
        PyObject_GenericSetAttr(obj3, nc, Py_None) == 0 &&
        compat_inline_has_name(obj3, nc, absent, NULL) == 1 &&
        PyObject_DelAttr(obj, nc) == 0 &&
        compat_managed_dict(obj3) == NULL && compat_managed_dict(obj) == NULL) {
        ok = 1;
    }
    if (PyErr_Occurred()) {
        /* the keys are then not read (a MemoryError included: the rest of
           the probe goes on without an exception set) */
        PyErr_Clear();
        ok = 0;
    }
    compat_shared_keys_layout = 0;
    Py_XDECREF(obj3);
    Py_XDECREF(nc);
    Py_XDECREF(na2);
    return ok;
}
#else
static int
shared_keys_probe(PyObject *obj, PyObject *na, PyObject *nb)
{
    (void)obj;
    (void)na;
    (void)nb;
    return 0;
}
#endif

/* The probe of compat_inline_values_check, on instances of a class of its
 * own: 1 when CPython keeps their attributes where and as
 * CompatInlineValues says; *keys_ok: shared_keys_probe's answer. */
static int
inline_values_probe(PyObject *cls, PyObject *a, PyObject *b, int *keys_ok)
{
    PyObject *na = PyUnicode_InternFromString("probe_a");
    PyObject *nb = PyUnicode_InternFromString("probe_b");
    PyObject *obj = NULL, *obj2 = NULL, *dict = NULL, *got = NULL;
    PyObject *empty = NULL;
    int ok = 0;
    if (na == NULL || nb == NULL || (obj = PyObject_CallNoArgs(cls)) == NULL ||
        (obj2 = PyObject_CallNoArgs(cls)) == NULL ||
        !PyType_HasFeature(Py_TYPE(obj), Py_TPFLAGS_INLINE_VALUES) ||
        compat_managed_dict(obj) != NULL ||
        PyObject_GenericSetAttr(obj, na, a) < 0 ||
        PyObject_GenericSetAttr(obj, nb, b) < 0) {
        goto done;
    }
    compat_inline_values_layout = 1; /* for the accessors, while probing */
    CompatInlineValues *v = compat_inline_values(obj);
    uint8_t *order = v == NULL ? NULL : (uint8_t *)&v->values[v->capacity];
    if (v == NULL || v->capacity < 2 || v->size != 2 || order[0] != 0 ||
        order[1] != 1 || v->values[0] != a || v->values[1] != b ||
        compat_inline_find(obj, b) != 2 || compat_inline_get(obj, 0) != a) {
        goto done;
    }
    /* a slot written in place is what getattr gives */
    if (!compat_inline_store(obj, 0, b) ||
        (got = PyObject_GetAttr(obj, na)) != b) {
        goto done;
    }
    Py_CLEAR(got);
    if (!compat_inline_store(obj, 0, a) || compat_inline_find(obj, b) != 2 ||
        v->size != 2) {
        goto done;
    }
    *keys_ok = shared_keys_probe(obj, na, nb);
    /* an empty slot written comes last in the instance's order: obj2 gets
       b then a, through the slots of the keys obj made */
    CompatInlineValues *v2 = compat_inline_values(obj2);
    if (v2 == NULL || compat_managed_dict(obj2) != NULL || v2->size != 0 ||
        !compat_inline_store(obj2, 1, b) || !compat_inline_store(obj2, 0, a) ||
        v2->size != 2 || (got = PyObject_GetAttr(obj2, na)) != a ||
        !inline_probe_order(obj2, nb, na)) {
        goto done;
    }
    Py_CLEAR(got);
    /* a deleted attribute empties its slot and leaves the order */
    if (PyObject_DelAttr(obj, na) < 0 || compat_inline_get(obj, 0) != NULL ||
        compat_inline_get(obj, 1) != b || v->size != 1 || order[0] != 1 ||
        !compat_inline_store(obj, 0, a) || v->size != 2 ||
        compat_inline_get(obj, 0) != a) {
        goto done;
    }
    /* the dict object CPython makes reads the same slots (the order: b,
       then a added back) */
    if (!inline_probe_order(obj, nb, na) ||
        (dict = PyObject_GenericGetDict(obj, NULL)) == NULL ||
        compat_managed_dict(obj) != dict || compat_inline_values(obj) != v ||
        PyDict_GetItemWithError(dict, na) != a) {
        goto done;
    }
#if PY_VERSION_HEX >= 0x030E0000
    if (compat_inline_store(obj, 0, b) &&
        PyDict_GetItemWithError(dict, na) != b) {
        goto done;
    }
    if (PyDict_GetItemWithError(dict, na) == b &&
        !compat_inline_store(obj, 0, a)) {
        goto done;
    }
#else
    if (compat_inline_store(obj, 0, b)) {
        goto done; /* never with a dict object on 3.13 */
    }
#endif
    if (PyDict_GetItemWithError(dict, na) != a) {
        goto done;
    }
    /* a __dict__ replaced: no longer valid */
    if ((empty = PyDict_New()) == NULL ||
        PyObject_SetAttrString(obj, "__dict__", empty) < 0 ||
        compat_inline_values(obj) != NULL || compat_inline_find(obj, b) != 0 ||
        compat_inline_store(obj, 0, a)) {
        goto done;
    }
    ok = 1;
done:
    compat_inline_values_layout = 0;
    Py_XDECREF(empty);
    Py_XDECREF(got);
    Py_XDECREF(dict);
    Py_XDECREF(obj2);
    Py_XDECREF(obj);
    Py_XDECREF(na);
    Py_XDECREF(nb);
    return ok;
}
#endif

int
compat_inline_values_check(void)
{
    compat_inline_values_layout = 0;
    compat_shared_keys_layout = 0;
#if PY_VERSION_HEX >= 0x030D0000
    if (!compat_managed_dict_layout) {
        return 0;
    }
    PyObject *cls = probe_class("_inline_probe");
    PyObject *a = PyList_New(0), *b = PyList_New(0);
    int keys_ok = 0;
    int ok = cls != NULL && a != NULL && b != NULL &&
             inline_values_probe(cls, a, b, &keys_ok);
    Py_XDECREF(a);
    Py_XDECREF(b);
    Py_XDECREF(cls);
    if ((ok = probe_result(ok)) < 0) {
        return -1;
    }
    compat_inline_values_layout = ok;
    compat_shared_keys_layout = ok && keys_ok;
#endif
    return 0;
}

PyObject *
compat_get_method_cached(PyObject *obj, PyObject *name, int *unbound,
                         CompatTypeCache *cache)
{
    PyTypeObject *tp = Py_TYPE(obj);
    if (cache != NULL && tp->tp_getattro == PyObject_GenericGetAttr &&
        !compat_type_has_instance_dict(tp) && PyUnicode_CheckExact(name)) {
        unsigned int tag = compat_type_version(tp);
        if (tag != 0 && cache->tp == tp && cache->tag == tag) {
            *unbound = 1;
            return Py_NewRef(cache->value);
        }
        PyObject *descr = compat_type_lookup(tp, name);
        if (descr == NULL && PyErr_Occurred()) {
            return NULL;
        }
        if (descr != NULL &&
            PyType_HasFeature(Py_TYPE(descr), Py_TPFLAGS_METHOD_DESCRIPTOR)) {
            /* the lookup ran no code: the tag read before still holds */
            if (tag != 0) {
                cache->tp = tp;
                cache->tag = tag;
                cache->value = descr; /* borrowed, see CompatTypeCache */
            }
            *unbound = 1;
            return descr;
        }
        Py_XDECREF(descr);
    }
    return compat_get_method(obj, name, unbound);
}

PyObject *
compat_get_method(PyObject *obj, PyObject *name, int *unbound)
{
    PyTypeObject *tp = Py_TYPE(obj);
    *unbound = 0;
    /* The fast path of CPython's method call, for objects whose attribute
       lookup is the generic one and that have no instance dict: a method
       found on the type is returned unbound.  Everything else is the
       ordinary attribute load; a bound method of a plain function is
       unpacked so that the caller can still call it without binding. */
    if (tp->tp_getattro == PyObject_GenericGetAttr &&
        !compat_type_has_instance_dict(tp) && PyUnicode_CheckExact(name)) {
        PyObject *descr = compat_type_lookup(tp, name);
        if (descr == NULL && PyErr_Occurred()) {
            return NULL;
        }
        if (descr != NULL &&
            PyType_HasFeature(Py_TYPE(descr), Py_TPFLAGS_METHOD_DESCRIPTOR)) {
            *unbound = 1;
            return descr;
        }
        Py_XDECREF(descr);
    }
    PyObject *res = PyObject_GetAttr(obj, name);
    if (res != NULL && PyMethod_Check(res) && PyMethod_GET_SELF(res) == obj &&
        PyType_HasFeature(Py_TYPE(PyMethod_GET_FUNCTION(res)),
                          Py_TPFLAGS_METHOD_DESCRIPTOR)) {
        PyObject *fn = Py_NewRef(PyMethod_GET_FUNCTION(res));
        Py_DECREF(res);
        *unbound = 1;
        return fn;
    }
    return res;
}

PyObject *
compat_function_str(PyObject *func)
{
    PyObject *qualname = NULL, *module = NULL, *res = NULL;
    int r = PyObject_GetOptionalAttrString(func, "__qualname__", &qualname);
    if (r < 0) {
        return NULL;
    }
    if (r == 0) {
        return PyObject_Str(func);
    }
    if (PyObject_GetOptionalAttrString(func, "__module__", &module) < 0) {
        goto done;
    }
    if (module != NULL && PyUnicode_Check(module) &&
        !PyUnicode_EqualToUTF8(module, "builtins")) {
        res = PyUnicode_FromFormat("%S.%S()", module, qualname);
    }
    else {
        res = PyUnicode_FromFormat("%S()", qualname);
    }
done:
    Py_XDECREF(module);
    Py_DECREF(qualname);
    return res;
}

PyTypeObject *
compat_calculate_metaclass(PyTypeObject *meta, PyObject *bases)
{
    /* the winner is a subclass of every base's metaclass */
    PyTypeObject *winner = meta;
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(bases); i++) {
        PyTypeObject *t = Py_TYPE(PyTuple_GET_ITEM(bases, i));
        if (PyType_IsSubtype(winner, t)) {
            continue;
        }
        if (PyType_IsSubtype(t, winner)) {
            winner = t;
            continue;
        }
        PyErr_SetString(PyExc_TypeError,
                        "metaclass conflict: the metaclass of a derived class "
                        "must be a (non-strict) subclass of the metaclasses "
                        "of all its bases");
        return NULL;
    }
    return winner;
}

size_t
compat_long_num_bits(PyObject *v)
{
    /* from the digit count and the top digit, with no call and no
       allocation, at any size (the layouts of cpython/longintrepr.h; a
       normalized int's top digit is never 0).  Hot: the int-size limits ask
       this of every big int an operation makes. */
    PyLongObject *lo = (PyLongObject *)v;
    Py_ssize_t nd = compat_long_ndigits(v);
#if PY_VERSION_HEX >= 0x030C0000
    const digit *dg = lo->long_value.ob_digit;
#else
    const digit *dg = lo->ob_digit;
#endif
    if (nd == 0) {
        return 0;
    }
    if (dg[nd - 1] != 0) {
        return (size_t)(nd - 1) * PyLong_SHIFT +
               (size_t)compat_u64_bits((unsigned long long)dg[nd - 1]);
    }
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (x == -1 && PyErr_Occurred()) {
        return (size_t)-1;
    }
    if (!overflow) {
        unsigned long long m =
            x < 0 ? 0ULL - (unsigned long long)x : (unsigned long long)x;
        return (size_t)compat_u64_bits(m);
    }
    /* not normalized (never for an int CPython made): int.bit_length() */
    PyObject *r = PyObject_CallMethod(v, "bit_length", NULL);
    if (r == NULL) {
        return (size_t)-1;
    }
    size_t n = PyLong_AsSize_t(r);
    Py_DECREF(r);
    return n;
}

int
compat_long_to_le_bytes(PyObject *v, unsigned char *buf, size_t n)
{
    if (n > (size_t)PY_SSIZE_T_MAX) {
        PyErr_SetString(PyExc_OverflowError, "int too large to convert");
        return -1;
    }
#if PY_VERSION_HEX >= 0x030D0000
    Py_ssize_t need = PyLong_AsNativeBytes(v, buf, (Py_ssize_t)n,
                                           Py_ASNATIVEBYTES_LITTLE_ENDIAN);
    if (need < 0) {
        return -1;
    }
    if ((size_t)need > n) {
        PyErr_SetString(PyExc_OverflowError, "int too large to convert");
        return -1;
    }
    return 0;
#else
    int rc = -1;
    PyObject *meth = NULL, *args = NULL, *kwargs = NULL, *res = NULL;
    meth = PyObject_GetAttrString((PyObject *)&PyLong_Type, "to_bytes");
    if (meth == NULL) {
        goto done;
    }
    args = Py_BuildValue("(Ons)", v, (Py_ssize_t)n, "little");
    kwargs = Py_BuildValue("{sO}", "signed", Py_True);
    if (args == NULL || kwargs == NULL) {
        goto done;
    }
    res = PyObject_Call(meth, args, kwargs);
    if (res == NULL) {
        goto done;
    }
    if (!PyBytes_Check(res) || (size_t)PyBytes_GET_SIZE(res) != n) {
        PyErr_SetString(PyExc_SystemError, "int.to_bytes gave another size");
        goto done;
    }
    memcpy(buf, PyBytes_AS_STRING(res), n);
    rc = 0;
done:
    Py_XDECREF(meth);
    Py_XDECREF(args);
    Py_XDECREF(kwargs);
    Py_XDECREF(res);
    return rc;
#endif
}

PyObject *
compat_long_from_le_bytes(const unsigned char *buf, size_t n)
{
    if (n > (size_t)PY_SSIZE_T_MAX) {
        PyErr_SetString(PyExc_OverflowError, "too many bytes for an int");
        return NULL;
    }
#if PY_VERSION_HEX >= 0x030D0000
    return PyLong_FromNativeBytes(buf, n, Py_ASNATIVEBYTES_LITTLE_ENDIAN);
#else
    PyObject *meth = NULL, *view = NULL, *args = NULL, *kwargs = NULL;
    PyObject *res = NULL;
    meth = PyObject_GetAttrString((PyObject *)&PyLong_Type, "from_bytes");
    /* a read-only view of the caller's bytes: no copy */
    view = PyMemoryView_FromMemory((char *)buf, (Py_ssize_t)n, PyBUF_READ);
    if (meth == NULL || view == NULL) {
        goto done;
    }
    args = Py_BuildValue("(Os)", view, "little");
    kwargs = Py_BuildValue("{sO}", "signed", Py_True);
    if (args == NULL || kwargs == NULL) {
        goto done;
    }
    res = PyObject_Call(meth, args, kwargs);
done:
    Py_XDECREF(meth);
    Py_XDECREF(view);
    Py_XDECREF(args);
    Py_XDECREF(kwargs);
    return res;
#endif
}

void
compat_async_with_protocol_error(PyObject *mgr, int missing_exit)
{
    const char *method = missing_exit ? "__aexit__" : "__aenter__";
#if PY_VERSION_HEX < 0x030B0000
    /* 3.10's BEFORE_ASYNC_WITH: a plain AttributeError naming the method */
    PyErr_SetString(PyExc_AttributeError, method);
#elif PY_VERSION_HEX >= 0x030E0000
    int suggest = 0;
    PyObject *en = PyUnicode_InternFromString("__enter__");
    PyObject *ex = PyUnicode_InternFromString("__exit__");
    if (en != NULL && ex != NULL) {
        PyObject *a = compat_type_lookup(Py_TYPE(mgr), en);
        PyObject *b = compat_type_lookup(Py_TYPE(mgr), ex);
        suggest = a != NULL && b != NULL;
        Py_XDECREF(a);
        Py_XDECREF(b);
    }
    Py_XDECREF(en);
    Py_XDECREF(ex);
    PyErr_Clear();
    if (suggest) {
        PyErr_Format(PyExc_TypeError,
                     "'%T' object does not support the asynchronous context "
                     "manager protocol (missed %s method) but it supports the "
                     "context manager protocol. Did you mean to use 'with'?",
                     mgr, method);
    }
    else {
        PyErr_Format(PyExc_TypeError,
                     "'%T' object does not support the asynchronous context "
                     "manager protocol (missed %s method)",
                     mgr, method);
    }
#else
    PyErr_Format(PyExc_TypeError,
                 missing_exit ? "'%.100s' object does not support the "
                                "asynchronous context manager protocol "
                                "(missed %s method)"
                              : "'%.100s' object does not support the "
                                "asynchronous context manager protocol",
                 Py_TYPE(mgr)->tp_name, method);
#endif
}

void
compat_with_protocol_error(PyObject *mgr, int missing_exit)
{
#if PY_VERSION_HEX < 0x030B0000
    /* 3.10's SETUP_WITH: a plain AttributeError naming the method */
    PyErr_SetString(PyExc_AttributeError,
                    missing_exit ? "__exit__" : "__enter__");
#elif PY_VERSION_HEX >= 0x030E0000
    /* 3.14's LOAD_SPECIAL: the method named, the fully qualified type name
       (%T), and a hint when the type has the asynchronous protocol */
    int suggest = 0;
    PyObject *an = PyUnicode_InternFromString("__aenter__");
    PyObject *ax = PyUnicode_InternFromString("__aexit__");
    if (an != NULL && ax != NULL) {
        PyObject *a = compat_type_lookup(Py_TYPE(mgr), an);
        PyObject *b = compat_type_lookup(Py_TYPE(mgr), ax);
        suggest = a != NULL && b != NULL;
        Py_XDECREF(a);
        Py_XDECREF(b);
    }
    Py_XDECREF(an);
    Py_XDECREF(ax);
    PyErr_Clear();
    const char *method = missing_exit ? "__exit__" : "__enter__";
    if (suggest) {
        PyErr_Format(PyExc_TypeError,
                     "'%T' object does not support the context manager "
                     "protocol (missed %s method) but it supports the "
                     "asynchronous context manager protocol. Did you mean "
                     "to use 'async with'?",
                     mgr, method);
    }
    else {
        PyErr_Format(PyExc_TypeError,
                     "'%T' object does not support the context manager "
                     "protocol (missed %s method)",
                     mgr, method);
    }
#else
    PyErr_Format(PyExc_TypeError,
                 missing_exit ? "'%.200s' object does not support the context "
                                "manager protocol (missed __exit__ method)"
                              : "'%.200s' object does not support the context "
                                "manager protocol",
                 Py_TYPE(mgr)->tp_name);
#endif
}
