/* provenance.c: which classes the code made, and what they may define
 * (docs/security.md, "Host objects" and "Protocols").
 *
 * 1. Classes the code made are recorded when they are created, not guessed
 *    from __module__: CPython's `type.__new__` (the tp_new slot of `type`,
 *    which class statements, 3-argument type(), namedtuple, the functional
 *    Enum API, make_dataclass, types.new_class... all reach) is wrapped once
 *    per process; while a step runs on a thread (provenance_arm), every
 *    class created on that thread is recorded as the code's.  The policy
 *    (policy_check_attr_name) asks provenance_is_code_type(): objects and
 *    classes that are not the code's are read-only and their `_private`
 *    attributes are refused.
 * 2. A class the code made may not define the protocols that hand host code
 *    raw memory or a reconstruction recipe (__array_interface__,
 *    __reduce__...: protocol_names below), however the class is built; and
 *    its instances never answer those names through __getattr__ or the
 *    instance dict (the type's tp_getattro is guarded).
 * 3. id() gives a keyed permutation of the address (stable per object and
 *    consistent with `is`, but not an address).
 *
 * Process-wide state, on purpose: `type` itself is process-wide, so the
 * record of which classes the code made is too (one table, holding weak
 * references only; a dead entry is never taken for a live one).
 */
#include "guard.h"
#include "tripwire.h"

#include <frameobject.h>
#include <string.h>

typedef struct {
    PyTypeObject *tp;    /* key (may be dead: check wr) */
    PyObject *wr;        /* weak reference to tp; owned */
    getattrofunc orig;   /* tp's tp_getattro before the guard */
} ProvEntry;

typedef struct {
    ProvEntry *tab; /* open addressing, cap a power of two */
    size_t cap, used;
    PyObject *protocol_names; /* frozenset */
    uint64_t idkey[4];
    newfunc orig_type_new;
} Provenance;

static Provenance prov; /* process-wide, see the header comment */
static HOT_TLS Interp *prov_tls_interp;

/* Classes under construction on this thread (type.__new__ running while a
 * step runs): their __init_subclass__ and __set_name__ hooks run before
 * type.__new__ returns, on a class not recorded yet.  Borrowed arguments of
 * the running calls. */
#define PROV_BUILDING_MAX 16
typedef struct {
    PyObject *name, *bases, *ns;
} Building;
static _Thread_local Building prov_building[PROV_BUILDING_MAX];
static HOT_TLS int prov_nbuilding;
/* The host's Python frame that started the outermost step (borrowed: it
 * outlives the step). */
static HOT_TLS PyFrameObject *prov_boundary;

/* Is frame `f` (of code `co`) importlib's `_call_with_frames_removed`
 * running `_imp`'s loader of a C extension or built-in module (its create
 * or exec step)?  The module's initialization is C, with no `<module>`
 * frame of its own (the `_decimal` that registers Decimal with
 * numbers.Number).  `_call_with_frames_removed` is private to importlib:
 * the code cannot call it itself. */
static int
extension_init_frame(PyFrameObject *f, PyCodeObject *co)
{
    if (PyUnicode_CompareWithASCIIString(co->co_name,
                                         "_call_with_frames_removed") != 0 ||
        PyUnicode_CompareWithASCIIString(
            co->co_filename, "<frozen importlib._bootstrap>") != 0) {
        return 0;
    }
    PyObject *fn = frame_local(f, "f");
    if (fn == NULL) {
        return 0;
    }
    int r = 0;
    if (PyCFunction_Check(fn)) {
        PyObject *self = PyCFunction_GET_SELF(fn);
        const char *mod = self != NULL && PyModule_Check(self)
                              ? PyModule_GetName(self)
                              : NULL;
        const char *name = ((PyCFunctionObject *)fn)->m_ml->ml_name;
        if (mod == NULL) {
            PyErr_Clear();
        }
        else if (strcmp(mod, "_imp") == 0) {
            r = strcmp(name, "create_dynamic") == 0 ||
                strcmp(name, "exec_dynamic") == 0 ||
                strcmp(name, "create_builtin") == 0 ||
                strcmp(name, "exec_builtin") == 0;
        }
    }
    Py_DECREF(fn);
    return r;
}

int
provenance_in_import(void)
{
    /* Python frames above the step's boundary are host code acting for the
       step; a module body among them is an import (the code's own `import`
       or a library's lazy one): what it defines is the host's */
    PyFrameObject *f = PyEval_GetFrame();
    Py_XINCREF(f);
    int r = 0;
    Interp *in = prov_tls_interp;
    while (f != NULL && f != prov_boundary) {
        PyCodeObject *co = PyFrame_GetCode(f);
        if (in != NULL && (PyObject *)co == in_guard(in)->entry_code) {
            Py_DECREF(co); /* the step's entry frame (tripwire.c) */
            break;
        }
        r = PyUnicode_CompareWithASCIIString(co->co_name, "<module>") == 0 ||
            extension_init_frame(f, co);
        Py_DECREF(co);
        if (r) {
            break;
        }
        PyFrameObject *back = PyFrame_GetBack(f);
        Py_DECREF(f);
        f = back;
    }
    Py_XDECREF(f);
    return r;
}

/* Special attributes a class of the code may not define: host code (numpy,
 * pickle, copy) reads them from the object and acts on what they say. */
static const char *const protocol_names[] = {
    "__array_interface__",      /* numpy: raw address of the data */
    "__array_struct__",         /* numpy: capsule with a raw pointer */
    "__cuda_array_interface__", /* numba/cupy: raw device address */
    "__dlpack__",               /* capsule with a raw pointer */
    "__dlpack_device__",
    "__buffer__", /* PEP 688: the object's buffer, for memoryview & co */
    "__release_buffer__",
    "__reduce__",    /* copy/pickle: (callable, args) the host calls */
    "__reduce_ex__", /* same */
    "__getnewargs__",
    "__getnewargs_ex__",
    "__getstate__", /* copy: a state pasted into the new object's __dict__,
                       dunder keys included */
    "__setstate__",
#if PY_VERSION_HEX >= 0x030E0000
    "__annotate__", /* PEP 649: host code (annotationlib, dataclasses,
                       typing, type's __annotations__ getter) calls it */
    "__annotate_func__", /* where `type` keeps it: only the interpreter's
                            own annotate object (annotate.c) */
#endif
    NULL,
};

/* ------------------------------------------------------------- the table */

static size_t
ptr_hash(const void *p)
{
    uintptr_t k = (uintptr_t)p;
    return (size_t)((k >> 4) ^ (k >> 17) ^ (k >> 29));
}

/* Is entry e's class still the one it names?  Never raises. */
static int
entry_live(ProvEntry *e)
{
#if PY_VERSION_HEX >= 0x030D0000
    PyObject *o = NULL;
    if (PyWeakref_GetRef(e->wr, &o) < 0) {
        PyErr_Clear();
        return 0;
    }
    int r = o == (PyObject *)e->tp;
    Py_XDECREF(o);
    return r;
#else
    return PyWeakref_GET_OBJECT(e->wr) == (PyObject *)e->tp;
#endif
}

/* The live entry of tp, or NULL.  Never raises. */
static ProvEntry *
prov_find(PyTypeObject *tp)
{
    if (prov.cap == 0) {
        return NULL;
    }
    size_t mask = prov.cap - 1;
    for (size_t i = ptr_hash(tp) & mask, n = 0; n < prov.cap;
         i = (i + 1) & mask, n++) {
        ProvEntry *e = &prov.tab[i];
        if (e->tp == NULL) {
            return NULL;
        }
        if (e->tp == tp && entry_live(e)) {
            return e;
        }
    }
    return NULL;
}

/* Rehash the live entries into a table of at least twice their number.
 * 0 / -1 (MemoryError). */
static int
prov_grow(void)
{
    size_t live = 0;
    for (size_t i = 0; i < prov.cap; i++) {
        if (prov.tab[i].tp != NULL && entry_live(&prov.tab[i])) {
            live++;
        }
    }
    size_t cap = 64;
    while (cap < 4 * (live + 1)) {
        cap *= 2;
    }
    ProvEntry *tab = PyMem_Calloc(cap, sizeof(ProvEntry));
    if (tab == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < prov.cap; i++) {
        ProvEntry *e = &prov.tab[i];
        if (e->tp == NULL) {
            continue;
        }
        if (!entry_live(e)) {
            Py_CLEAR(e->wr);
            continue;
        }
        size_t j = ptr_hash(e->tp) & (cap - 1);
        while (tab[j].tp != NULL) {
            j = (j + 1) & (cap - 1);
        }
        tab[j] = *e;
    }
    PyMem_Free(prov.tab);
    prov.tab = tab;
    prov.cap = cap;
    prov.used = live;
    return 0;
}

/* Record tp (alive) as the code's.  Returns its entry, or NULL with an
 * exception. */
static ProvEntry *
prov_insert(PyTypeObject *tp)
{
    ProvEntry *e = prov_find(tp);
    if (e != NULL) {
        return e;
    }
    if ((prov.used + 1) * 2 > prov.cap && prov_grow() < 0) {
        return NULL;
    }
    PyObject *wr = PyWeakref_NewRef((PyObject *)tp, NULL);
    if (wr == NULL) {
        return NULL;
    }
    size_t mask = prov.cap - 1;
    size_t i = ptr_hash(tp) & mask;
    while (prov.tab[i].tp != NULL && entry_live(&prov.tab[i])) {
        i = (i + 1) & mask;
    }
    e = &prov.tab[i];
    if (e->tp == NULL) {
        prov.used++;
    }
    e->tp = tp;
    Py_XSETREF(e->wr, wr);
    e->orig = NULL;
    return e;
}

/* ---------------------------------------------------------- protocols */

static int
is_protocol_name(PyObject *name)
{
    if (!PyUnicode_Check(name) || PyUnicode_GET_LENGTH(name) < 8 ||
        PyUnicode_READ_CHAR(name, 0) != '_' ||
        PyUnicode_READ_CHAR(name, 1) != '_') {
        return 0;
    }
    int r = PySet_Contains(prov.protocol_names, name);
    if (r < 0) {
        PyErr_Clear();
        return 1;
    }
    return r;
}

/* The original slot under the guard: of tp, or of the nearest recorded
 * base (a subclass made by host code outside a step inherits the guard).
 * Every attribute read on an instance of the code's classes asks: the
 * answer is cached by the type's version tag (it depends only on tp and
 * its bases, which get a new tag when they change; tags are not reused). */
#define PROV_GA_CACHE 64
static struct {
    PyTypeObject *tp; /* identity only */
    unsigned int tag;
    getattrofunc orig;
} prov_ga_cache[PROV_GA_CACHE];

static getattrofunc
prov_orig_getattro(PyTypeObject *tp)
{
    unsigned int tag = compat_type_version(tp);
    size_t i = ptr_hash(tp) & (PROV_GA_CACHE - 1);
    if (tag != 0 && prov_ga_cache[i].tp == tp && prov_ga_cache[i].tag == tag) {
        return prov_ga_cache[i].orig;
    }
    getattrofunc orig = PyObject_GenericGetAttr;
    for (PyTypeObject *t = tp; t != NULL; t = t->tp_base) {
        ProvEntry *e = prov_find(t);
        if (e != NULL && e->orig != NULL) {
            orig = e->orig;
            break;
        }
    }
    if (tag != 0) {
        prov_ga_cache[i].tp = tp;
        prov_ga_cache[i].tag = tag;
        prov_ga_cache[i].orig = orig;
    }
    return orig;
}

/* tp_getattro of the code's classes: a protocol name the class itself does
 * not provide (a host base may) is absent, whatever __getattr__,
 * __getattribute__ or the instance dict would say. */
static PyObject *
prov_getattro(PyObject *o, PyObject *name)
{
    PyTypeObject *tp = Py_TYPE(o);
    if (is_protocol_name(name)) {
        PyObject *found = compat_type_lookup(tp, name);
        if (found == NULL && PyErr_Occurred()) {
            return NULL;
        }
        Py_XDECREF(found);
        if (found == NULL) {
            PyErr_Format(PyExc_AttributeError,
                         "'%.100s' object has no attribute '%U'",
                         tp->tp_name, name);
            return NULL;
        }
        /* what the class provides (object's __reduce_ex__, a host base's
           method), never what the code's __getattribute__ says */
        return PyObject_GenericGetAttr(o, name);
    }
    return prov_orig_getattro(tp)(o, name);
}

int
provenance_getattr_is_generic(PyTypeObject *tp, PyObject *name)
{
    if (tp->tp_getattro == PyObject_GenericGetAttr) {
        return 1;
    }
    return tp->tp_getattro == prov_getattro &&
           prov_orig_getattro(tp) == PyObject_GenericGetAttr &&
           !is_protocol_name(name);
}

int
provenance_method_unshadowed(PyObject *obj, PyObject *name, uint8_t absent,
                             uint8_t *learn)
{
    if (Py_TYPE(obj)->tp_dictoffset == 0) {
        return 0; /* no instance dict (__slots__): no error to make */
    }
#if COMPAT_INLINE_VALUES
    /* attributes CPython keeps in the inline slots: their names are read
       without making the instance a dict object (which would also send
       every later store of its attributes, ours and CPython's, through
       the dict) */
    int has = compat_inline_has_name(obj, name, absent, learn);
    if (has >= 0) {
        return !has;
    }
#endif
    PyObject *d = PyObject_GenericGetDict(obj, NULL);
    if (d == NULL) {
        PyErr_Clear();
        return 0;
    }
    PyObject *shadow = PyDict_GetItemWithError(d, name);
    Py_DECREF(d); /* the object holds it */
    if (shadow == NULL && !PyErr_Occurred()) {
        return 1;
    }
    PyErr_Clear();
    return 0;
}

int
provenance_get_method(PyObject *obj, PyObject *name, PyObject **res,
                      int *unbound, CompatTypeCache *cache)
{
    PyTypeObject *tp = Py_TYPE(obj);
    if (tp->tp_getattro != prov_getattro) {
        return 0;
    }
    getattrofunc orig = prov_orig_getattro(tp);
    if (orig != PyObject_GenericGetAttr) {
        return 0; /* __getattribute__ / __getattr__ of the class's own */
    }
    /* the interpreted function the type's MRO gives for `name`, as found
       before while the type's version tag is unchanged (the name is the
       node's: not a protocol name, or the entry would not exist) */
    unsigned int tag = compat_type_version(tp);
    PyObject *func;
    if (cache != NULL && tag != 0 && cache->tp == tp && cache->tag == tag) {
        func = Py_NewRef(cache->value);
    }
    else {
        if (!PyUnicode_CheckExact(name) || is_protocol_name(name)) {
            return 0;
        }
        func = compat_type_lookup(tp, name);
        if (func == NULL) {
            if (PyErr_Occurred()) {
                PyErr_Clear();
            }
            return 0;
        }
        if (!function_is_interpreted(func)) {
            Py_DECREF(func);
            return 0;
        }
        /* remembered only if the lookup changed nothing (a key's __eq__
           could have run) */
        if (cache != NULL && tag != 0 && compat_type_version(tp) == tag) {
            cache->tp = tp;
            cache->tag = tag;
            cache->value = func; /* borrowed, see CompatTypeCache */
        }
    }
    /* An interpreted function is a non-data descriptor: the generic lookup
       gives the instance dict's entry for the name when there is one, else
       the function bound to obj.  No entry: the function, unbound (what
       function_get_method's lookup would find, without the type lookup it
       repeats).  An object without a dict, or with the name in it, takes
       that lookup. */
    if (provenance_method_unshadowed(obj, name, 0, NULL)) {
        *res = func; /* the reference moves to the caller */
        *unbound = 1;
        return 1;
    }
    *res = function_get_method(obj, name, func, orig, unbound);
    Py_DECREF(func);
    return 1;
}

/* ------------------------------------------- special methods of the host's */

/* Live classes of the code that bind a special method (a `__dunder__` name
 * of their namespace) to a callable that is not the code's own function:
 * a partial, a bound method, a host function or builtin.  Host code calls
 * such a binding when it meets the class or its instances where the code
 * left them: the ABC checks walk every live subclass of the standard
 * library's ABCs (`__subclasshook__`, a metaclass's `__subclasscheck__`),
 * host caches compare the keys the code's calls put there (`__eq__` of a
 * str subclass in _strptime's regex cache), a cache eviction frees them
 * (`__del__`).  The code's own functions turn the gadget profile back on
 * when entered; such a binding would not: while one lives, no host call is
 * a pure call (gadgets.c).  Counted by weak references whose callback
 * (below) counts a class's death. */
static Py_ssize_t prov_foreign_live;
static PyObject *prov_foreign_refs; /* list of those weak references */

static PyObject *
foreign_class_died(PyObject *self, PyObject *wr)
{
    (void)self;
    prov_foreign_live--;
    Py_ssize_t n = prov_foreign_refs ? PyList_GET_SIZE(prov_foreign_refs) : 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        if (PyList_GET_ITEM(prov_foreign_refs, i) == wr) {
            PySequence_DelItem(prov_foreign_refs, i); /* identity: no hash */
            break;
        }
    }
    PyErr_Clear();
    Py_RETURN_NONE;
}

static PyMethodDef foreign_class_died_def = {
    "foreign_special_method_class_died", foreign_class_died, METH_O, NULL};

int
provenance_foreign_special_methods(void)
{
    return prov_foreign_live > 0;
}

/* What a class of the code may bind a special method to without counting
 * (the allowed kinds, not a list of hazards): the code's own function, a
 * classmethod or staticmethod of one (type.__new__ wraps __new__,
 * __init_subclass__ and __class_getitem__ so), None and any other object
 * that is neither callable nor a descriptor (data: __module__, __slots__,
 * __hash__ = None; not an object of the code's with a __get__ or a
 * __call__, whose result host code would use as the method), the
 * __dict__ / __weakref__ descriptors type.__new__ makes for the class, and
 * the interpreter's annotate object.  A class that defines __get__,
 * __getattribute__ or __getattr__ counts whatever it binds them to: its
 * own function's result is what host code calls as the method it looked
 * up (a descriptor's partial; a metaclass's answer for __subclasshook__),
 * and the profile is paused again once that function returns. */
static int
special_binding_is_code(Interp *in, PyTypeObject *tp, PyObject *v)
{
    PyTypeObject *vt = Py_TYPE(v);
    if (vt == in_st(in)->FunctionType || v == Py_None) {
        return 1;
    }
    if (vt == &PyClassMethod_Type || vt == &PyStaticMethod_Type) {
        PyObject *f = PyObject_GetAttrString(v, "__func__");
        int ok = f != NULL && Py_TYPE(f) == in_st(in)->FunctionType;
        Py_XDECREF(f);
        PyErr_Clear();
        return ok;
    }
    if ((vt == &PyGetSetDescr_Type || vt == &PyMemberDescr_Type) &&
        PyDescr_TYPE(v) == tp) {
        return 1;
    }
    if (annotate_check(in_st(in), v)) {
        return 1;
    }
    return !PyCallable_Check(v) && vt->tp_descr_get == NULL;
}

/* Count tp while it lives when its namespace binds a special method to
 * anything special_binding_is_code does not accept.  0 / -1. */
static int
note_foreign_special_methods(Interp *in, PyTypeObject *tp)
{
    PyObject *d = tp->tp_dict, *k, *v;
    Py_ssize_t pos = 0;
    int foreign = 0;
    while (!foreign && d != NULL && PyDict_Next(d, &pos, &k, &v)) {
        Py_ssize_t n = PyUnicode_GET_LENGTH(k); /* exact str: checked */
        if (n < 5 || PyUnicode_READ_CHAR(k, 0) != '_' ||
            PyUnicode_READ_CHAR(k, 1) != '_' ||
            PyUnicode_READ_CHAR(k, n - 1) != '_' ||
            PyUnicode_READ_CHAR(k, n - 2) != '_') {
            continue;
        }
        foreign = PyUnicode_CompareWithASCIIString(k, "__get__") == 0 ||
                  PyUnicode_CompareWithASCIIString(k, "__getattribute__") == 0 ||
                  PyUnicode_CompareWithASCIIString(k, "__getattr__") == 0 ||
                  !special_binding_is_code(in, tp, v);
    }
    if (!foreign) {
        return 0;
    }
    if (prov_foreign_refs == NULL &&
        (prov_foreign_refs = PyList_New(0)) == NULL) {
        return -1;
    }
    PyObject *cb = PyCFunction_New(&foreign_class_died_def, NULL);
    PyObject *wr = cb ? PyWeakref_NewRef((PyObject *)tp, cb) : NULL;
    Py_XDECREF(cb);
    if (wr == NULL || PyList_Append(prov_foreign_refs, wr) < 0) {
        Py_XDECREF(wr);
        return -1;
    }
    Py_DECREF(wr);
    prov_foreign_live++;
    return 0;
}

/* Refuse a class of the code whose namespace defines a protocol.  Values
 * that are host Python functions are what the standard library puts there
 * itself (enum's unpicklable marker, dataclass slots' __getstate__,
 * namedtuple's __getnewargs__); the code's own functions are
 * FunctionType, never PyFunction.  0 / -1 (abort). */
static int
check_protocols(Interp *in, PyTypeObject *tp)
{
    PyObject *d = tp->tp_dict;
    if (d == NULL) {
        return 0;
    }
    /* walk the entries (no lookup: a str subclass key could answer a
       lookup with an __eq__ of its own) */
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(d, &pos, &k, &v)) {
        if (!PyUnicode_CheckExact(k)) {
            raise_interp_error(
                in,
                "Forbidden class definition: class %s has a namespace key "
                "that is not a plain str",
                tp->tp_name);
            return -1;
        }
        if (is_protocol_name(k) && !PyFunction_Check(v) &&
            !annotate_check(in_st(in), v)) {
            raise_interp_error(
                in,
                "Forbidden class definition: class %s defines %U, a "
                "protocol that gives host code raw memory or a "
                "reconstruction recipe",
                tp->tp_name, k);
            return -1;
        }
    }
    return 0;
}

int
provenance_adopt(Interp *in, PyTypeObject *tp)
{
    if (!(tp->tp_flags & Py_TPFLAGS_HEAPTYPE)) {
        return 0;
    }
    if (check_protocols(in, tp) < 0) {
        return -1;
    }
    ProvEntry *e = prov_insert(tp);
    if (e != NULL && note_foreign_special_methods(in, tp) < 0) {
        return -1;
    }
    if (e == NULL) {
        return -1;
    }
    if (tp->tp_getattro != prov_getattro) {
        e->orig = tp->tp_getattro;
        tp->tp_getattro = prov_getattro;
        /* a new version tag: nothing cached by tag (the evaluator's
           attribute caches) outlives the slot's change */
        PyType_Modified(tp);
    }
    return 0;
}

/* type.__new__ while a step runs on this thread: the new class is the
 * code's (3 arguments: the 1-argument form returns an existing type). */
static PyObject *
prov_type_new(PyTypeObject *meta, PyObject *args, PyObject *kwds)
{
    int pushed = 0;
    Interp *in = prov_tls_interp;
    if (in != NULL && tripwire_foreign(in)) {
        in = NULL; /* a subinterpreter's class: none of the step's */
    }
    if (in != NULL && PyTuple_Check(args) &&
        PyTuple_GET_SIZE(args) == 3 && prov_nbuilding < PROV_BUILDING_MAX &&
        PyUnicode_Check(PyTuple_GET_ITEM(args, 0)) &&
        PyTuple_Check(PyTuple_GET_ITEM(args, 1)) &&
        PyDict_Check(PyTuple_GET_ITEM(args, 2))) {
        Building *b = &prov_building[prov_nbuilding++];
        b->name = PyTuple_GET_ITEM(args, 0);
        b->bases = PyTuple_GET_ITEM(args, 1);
        b->ns = PyTuple_GET_ITEM(args, 2);
        pushed = 1;
    }
    PyObject *t = prov.orig_type_new(meta, args, kwds);
    if (pushed) {
        prov_nbuilding--;
    }
    if (t != NULL && in != NULL && PyType_Check(t) && PyTuple_Check(args) &&
        PyTuple_GET_SIZE(args) == 3 && !provenance_in_import() &&
        provenance_adopt(in, (PyTypeObject *)t) < 0) {
        Py_CLEAR(t);
    }
    return t;
}

/* ---------------------------------------------------------------- queries */

/* Is tp the class a type.__new__ running on this thread is building?  Its
 * name is the very str passed, and its bases the very tuple passed (the
 * code made it: a host class's __bases__ is not readable) or, with no
 * bases, its namespace holds the very values passed.  Never raises. */
static int
is_building(PyTypeObject *tp)
{
    if (!(tp->tp_flags & Py_TPFLAGS_HEAPTYPE)) {
        return 0;
    }
    for (int i = prov_nbuilding - 1; i >= 0; i--) {
        Building *b = &prov_building[i];
        if (((PyHeapTypeObject *)tp)->ht_name != b->name) {
            continue;
        }
        if (PyTuple_GET_SIZE(b->bases) > 0) {
            if (tp->tp_bases == b->bases) {
                return 1;
            }
            continue;
        }
        if (tp->tp_base != &PyBaseObject_Type || tp->tp_dict == NULL) {
            continue;
        }
        PyObject *k, *v;
        Py_ssize_t pos = 0;
        int same = 1;
        while (same && PyDict_Next(b->ns, &pos, &k, &v)) {
            if (PyUnicode_Check(k) &&
                (PyUnicode_CompareWithASCIIString(k, "__qualname__") == 0 ||
                 PyUnicode_CompareWithASCIIString(k, "__classcell__") == 0)) {
                continue;
            }
            PyObject *w = PyDict_GetItemWithError(tp->tp_dict, k);
            if (w == NULL) {
                PyErr_Clear();
            }
            same = w == v;
        }
        if (same) {
            return 1;
        }
    }
    return 0;
}

int
provenance_is_code_type(PyTypeObject *tp)
{
    return prov_find(tp) != NULL ||
           (prov_nbuilding > 0 && is_building(tp));
}

Interp *
provenance_arm(Interp *in)
{
    Interp *prev = prov_tls_interp;
    if (prev == NULL) {
        prov_boundary = PyEval_GetFrame();
    }
    prov_tls_interp = in;
    return prev;
}

PyFrameObject *
provenance_reenter(void)
{
    PyFrameObject *prev = prov_boundary;
    PyFrameObject *now = PyEval_GetFrame(); /* borrowed: it outlives us */
    if (now != NULL) {
        prov_boundary = now;
    }
    return prev;
}

void
provenance_reenter_done(PyFrameObject *prev)
{
    prov_boundary = prev;
}

void
provenance_disarm(Interp *prev)
{
    prov_tls_interp = prev;
    if (prev == NULL) {
        prov_boundary = NULL;
    }
}

/* ---------------------------------------------------------------- id() */

static uint32_t
id_round(uint32_t x, uint64_t k)
{
    uint64_t h = (((uint64_t)x << 32) | x) ^ k;
    h ^= h >> 33;
    h *= 0xff51afd7ed558ccdULL;
    h ^= h >> 33;
    h *= 0xc4ceb9fe1a85ec53ULL;
    h ^= h >> 33;
    return (uint32_t)h;
}

PyObject *
provenance_id(PyObject *obj)
{
    /* a 4-round Feistel network keyed by a per-process secret: a
       permutation of 64-bit values, so distinct live objects get distinct
       numbers, and the same object always the same */
    uint64_t v = (uint64_t)(uintptr_t)obj;
    uint32_t l = (uint32_t)(v >> 32), r = (uint32_t)v;
    for (int i = 0; i < 4; i++) {
        uint32_t t = l ^ id_round(r, prov.idkey[i]);
        l = r;
        r = t;
    }
    return PyLong_FromUnsignedLongLong(((uint64_t)l << 32) | r);
}

/* ---------------------------------------------------------------- setup */

/* The tp_dealloc of every class made by a class statement (CPython's
 * subtype_dealloc, not exported): a heap type with another one was made by
 * a C extension from a spec.  Read once at init. */
static destructor class_statement_dealloc;

static int
read_class_statement_dealloc(void)
{
    PyObject *t = PyObject_CallFunction((PyObject *)&PyType_Type, "s()N",
                                        "_smolagents_probe", PyDict_New());
    if (t == NULL) {
        return -1;
    }
    class_statement_dealloc = ((PyTypeObject *)t)->tp_dealloc;
    Py_DECREF(t);
    return 0;
}

/* Is `tp` defined in C: a static type, or a heap type a C extension made
 * from a spec (3.12+ made many static types such: _decimal.Context in
 * 3.13)?  Its instances' attributes are its C descriptors. */
static int
type_defined_in_c(PyTypeObject *tp)
{
    return !(tp->tp_flags & Py_TPFLAGS_HEAPTYPE) ||
           (class_statement_dealloc != NULL &&
            tp->tp_dealloc != class_statement_dealloc);
}

int
provenance_init(void)
{
    if (prov.orig_type_new != NULL) {
        return 0; /* already installed (another module instance) */
    }
    if (read_class_statement_dealloc() < 0) {
        return -1;
    }
    PyObject *names = PyFrozenSet_New(NULL);
    if (names == NULL) {
        return -1;
    }
    for (int i = 0; protocol_names[i]; i++) {
        PyObject *s = PyUnicode_InternFromString(protocol_names[i]);
        if (s == NULL || PySet_Add(names, s) < 0) {
            Py_XDECREF(s);
            Py_DECREF(names);
            return -1;
        }
        Py_DECREF(s);
    }
    PyObject *os = PyImport_ImportModule("os");
    PyObject *rnd = os ? PyObject_CallMethod(os, "urandom", "i", 32) : NULL;
    Py_XDECREF(os);
    if (rnd == NULL || !PyBytes_Check(rnd) || PyBytes_GET_SIZE(rnd) != 32) {
        Py_XDECREF(rnd);
        Py_DECREF(names);
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_RuntimeError, "os.urandom failed");
        }
        return -1;
    }
    memcpy(prov.idkey, PyBytes_AS_STRING(rnd), sizeof(prov.idkey));
    Py_DECREF(rnd);
    prov.protocol_names = names;
    if (prov_grow() < 0) {
        return -1;
    }
    prov.orig_type_new = PyType_Type.tp_new;
    PyType_Type.tp_new = prov_type_new;
    return 0;
}

/* ------------------------------------------------------- host objects */

/* Attributes spelled with an underscore that are public API of objects the
 * code did not create (reads only). */
static const char *const underscore_public[] = {
    "_asdict",         /* namedtuple: the fields as a dict (a new dict) */
    "_replace",        /* namedtuple: a new tuple with fields replaced */
    "_fields",         /* namedtuple: tuple of field names (strs) */
    "_make",           /* namedtuple: classmethod building a new tuple */
    "_field_defaults", /* namedtuple: dict of defaults (a copy per class,
                          but read-only here: writes to objects the code
                          did not create are refused, and a dict's items
                          are not attributes) */
    NULL,
};

/* Is the object the code's: a class it made, an instance of one, one of
 * the interpreter's own functions or generators, or a super() proxy whose
 * class is the code's?  1 / 0; never raises. */
static int
code_owned(Interp *in, PyObject *obj)
{
    if (PyType_Check(obj)) {
        return provenance_is_code_type((PyTypeObject *)obj);
    }
    PyTypeObject *tp = Py_TYPE(obj);
    if (tp == in_st(in)->FunctionType || tp == in_st(in)->GeneratorType ||
        tp == in_st(in)->CoroutineType || tp == in_st(in)->AsyncGenType) {
        return 1;
    }
    if (tp == &PySuper_Type) {
        PyObject *sc = PyObject_GetAttrString(obj, "__self_class__");
        if (sc == NULL) {
            PyErr_Clear();
            return 0;
        }
        int r = PyType_Check(sc) &&
                provenance_is_code_type((PyTypeObject *)sc);
        Py_DECREF(sc);
        return r;
    }
    return provenance_is_code_type(tp);
}

static int
underscore_is_public(PyObject *name)
{
    for (int i = 0; underscore_public[i]; i++) {
        if (PyUnicode_CompareWithASCIIString(name, underscore_public[i]) ==
            0) {
            return 1;
        }
    }
    return 0;
}

int
provenance_check_attr(Interp *in, PyObject *obj, PyObject *name, int store)
{
    if (tripwire_kernel_bounded) {
        /* a process-mode worker: library objects are the worker's own, not
           the host's (nothing there is shared with the host) */
        return 0;
    }
    Py_ssize_t n = PyUnicode_GET_LENGTH(name);
    int priv = n > 0 && PyUnicode_READ_CHAR(name, 0) == '_' &&
               !(n >= 4 && PyUnicode_READ_CHAR(name, 1) == '_' &&
                 PyUnicode_READ_CHAR(name, n - 1) == '_' &&
                 PyUnicode_READ_CHAR(name, n - 2) == '_');
    if (!priv && !store) {
        return 0;
    }
    if (code_owned(in, obj)) {
        return 0;
    }
    PyTypeObject *tp = Py_TYPE(obj);
    int is_class = PyType_Check(obj);
    if (priv && (store || !underscore_is_public(name))) {
        raise_interp_error(
            in, "Forbidden access to private attribute %U of %s %s, which %s",
            name, is_class ? "class" : "an object of type",
            is_class ? ((PyTypeObject *)obj)->tp_name : tp->tp_name,
            is_class ? "was not defined by the code"
                     : "was not created by the code");
        return -1;
    }
    if (!store) {
        return 0;
    }
    if (is_class) {
        if (!(((PyTypeObject *)obj)->tp_flags & Py_TPFLAGS_HEAPTYPE)) {
            return 0; /* a static type: CPython refuses, as it does */
        }
    }
    else if (type_defined_in_c(tp) && !PyFunction_Check(obj)) {
        /* instances of types defined in C (SimpleNamespace, exceptions,
           partial objects, decimal contexts): attribute writes change only
           that object, through its type's C descriptors.  Whether CPython
           made the type static or from a spec (3.13's _decimal) changes
           nothing here: the same verdict on every version */
        return 0;
    }
    raise_interp_error(
        in, "Forbidden %s of attribute %U of %s %s, which %s",
        store > 0 ? "assignment" : "deletion", name,
        is_class ? "class" : "an object of type",
        is_class ? ((PyTypeObject *)obj)->tp_name : tp->tp_name,
        is_class ? "was not defined by the code"
                 : "was not created by the code");
    return -1;
}

int
provenance_super_init_subclass(PyObject *obj, PyObject *name)
{
    /* `super().__init_subclass__(**kw)` in a class's __init_subclass__:
       the next class's hook, bound to the class being created (a class the
       code made); it is what the class statement calls anyway.  Only on a
       super() proxy, only this name: the dunder allowlist is unchanged. */
    return obj != NULL && Py_IS_TYPE(obj, &PySuper_Type) &&
           PyUnicode_CompareWithASCIIString(name, "__init_subclass__") == 0;
}
