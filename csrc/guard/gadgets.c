/* gadgets.c: host Python functions refused while a step runs (the table is
 * gadgets.def, one entry per function with its reason).
 *
 * While interpreted code runs on a thread (gadgets_arm), a frame whose
 * code object is in the table is refused when it starts or resumes (the
 * step's uncatchable policy error), however the function was reached:
 * called by the code, bound as a method, inherited by a subclass, wrapped in
 * functools.partial or in a function the code wrote, or called by another
 * host function.  Two ways to see frames start, one per process:
 *
 * - Monitoring mode (3.12+, when a sys.monitoring tool id is free at
 *   import): the table's code objects, and only they, get the local events
 *   PY_START and PY_RESUME of the tool this module claims
 *   ("smolagents_native gadgets"), as they enter the table.  Arming a step
 *   sets a thread-local pointer to its interpreter; the callback refuses
 *   only while one is set.  Arming costs no instrumentation: on 3.12+ each
 *   PyEval_SetProfile re-instruments every code object that runs afterwards
 *   (sys.monitoring's global version), which took a cached tiny step from
 *   about 2 to about 12 microseconds.  Host Python frames run at full
 *   speed (pure calls, below, are not needed).  A profiler of the host's is
 *   still taken off the thread for the step, as in profile mode (with none,
 *   nothing is touched); the host's tracer and monitoring tools keep
 *   running, as they do in profile mode.
 * - Profile mode (3.10, 3.11; 3.12+ when no tool id is free): a C profile
 *   function is installed on the thread for the step, the host's put back
 *   after it; CPython calls it when any Python frame starts.  Interpreted
 *   code itself runs in no Python frame, so only host Python code pays for
 *   the profile function.
 *
 * Process-wide state, on purpose: the table is about host code, which is
 * process-wide; it holds code objects alive, nothing else.
 */
#include "guard.h"
#include "tripwire.h"

#include <frameobject.h>
#include <string.h>

typedef struct {
    const char *module, *qualname, *arg, *reason;
    int whole_module; /* 1: every function of the module; 2: a C type */
    int soft_inside;  /* GADGET_SOFT_INSIDE: a catchable TypeError when
                         called by code of its own module */
    /* inprocess.def's WITHHELD_CALL: refused only while the process is the
       host's (inprocess_shared), and, with `arg`, only when that argument
       is a definition of the host's (not: when it is true) */
    const char *remedy;
} GadgetDef;

static const GadgetDef gadget_defs[] = {
#define GADGET(m, q, r) {m, q, NULL, r, 0, 0, NULL},
#define GADGET_SOFT_INSIDE(m, q, r) {m, q, NULL, r, 0, 1, NULL},
#define GADGET_IF(m, q, a, r) {m, q, a, r, 0, 0, NULL},
#define GADGET_MODULE(m, r) {m, NULL, NULL, r, 1, 0, NULL},
#define GADGET_TYPE(m, q, r) {m, q, NULL, r, 2, 0, NULL},
#define GADGET_CALLER(m, q, cm, cq, why)
#define GADGET_REVIEWED_SAFE(m, q, why)
#include "gadgets.def"
#undef GADGET
#undef GADGET_SOFT_INSIDE
#undef GADGET_IF
#undef GADGET_MODULE
#undef GADGET_TYPE
#undef GADGET_CALLER
#define IN_PROCESS(m, r)
#define OWN(m, r)
#define WITHHELD(m, n, r, fix)
#define WITHHELD_CALL(m, dm, q, a, r, fix) {dm, q, a, r, 0, 0, fix},
#include "inprocess.def"
#undef IN_PROCESS
#undef OWN
#undef WITHHELD
#undef WITHHELD_CALL
};

#define NGADGETS ((int)(sizeof(gadget_defs) / sizeof(gadget_defs[0])))

/* gadgets.def's GADGET_CALLER: reviewed direct callers of an entry */
typedef struct {
    const char *module, *qualname, *caller_module, *caller_qualname;
} CallerDef;

static const CallerDef caller_defs[] = {
#define GADGET(m, q, r)
#define GADGET_SOFT_INSIDE(m, q, r)
#define GADGET_IF(m, q, a, r)
#define GADGET_MODULE(m, r)
#define GADGET_TYPE(m, q, r)
#define GADGET_CALLER(m, q, cm, cq, why) {m, q, cm, cq},
#include "gadgets.def"
#undef GADGET
#undef GADGET_SOFT_INSIDE
#undef GADGET_IF
#undef GADGET_MODULE
#undef GADGET_TYPE
#undef GADGET_CALLER
#undef GADGET_REVIEWED_SAFE
};

#define NCALLERS ((int)(sizeof(caller_defs) / sizeof(caller_defs[0])))

/* pure.def: functions that may run with the profile off (see there) */
typedef struct {
    const char *module, *qualname;
    int c; /* PURE_C: a C function or C class method */
} PureDef;

/* What a resolved pure.def entry is, found from the object it names:
 * PK_FUNC: a Python function called plain (no self);
 * PK_METHOD: a Python function of class `need`, called on an instance
 *   whose type is exactly `need`;
 * PK_CLASS: a class, called to make an instance (type_call: its __new__
 *   and __init__ as the entry's review says);
 * PK_CFUNC: a C function or class method (matched on its PyMethodDef)
 *   bound to exactly `need`, its module or its class, that calls Python
 *   code of the standard library (datetime.strptime: _strptime). */
enum { PK_FUNC = 1, PK_METHOD, PK_CLASS, PK_CFUNC };

static const PureDef pure_defs[] = {
#define PURE(m, q, why) {m, q, 0},
#define PURE_C(m, q, why) {m, q, 1},
#include "pure.def"
#undef PURE
#undef PURE_C
};

#define NPURE ((int)(sizeof(pure_defs) / sizeof(pure_defs[0])))
#define PURE_SLOTS 256 /* a power of two, well above 2 * NPURE */

typedef struct {
    PyObject *code; /* owned through `keep` */
    int def;
} GEntry;

typedef struct {
    GEntry *tab; /* open addressing by code address, cap a power of two */
    size_t cap, used;
    PyObject *keep; /* list: the code objects of the table */
    unsigned char resolved[NGADGETS];
    int pending; /* entries not resolved yet */
    PyTypeObject *types[NGADGETS]; /* GADGET_TYPE entries (kept) */
    int type_defs[NGADGETS]; /* indices of the resolved GADGET_TYPE entries */
    int ntypes;              /* (every gated value is compared to them) */
    Py_ssize_t nmodules; /* len(sys.modules) at the last resolution */
    int monitor_tool;    /* monitoring mode: the sys.monitoring tool id; -1:
                         profile mode */
    PyObject *set_local_events; /* monitoring mode: sys.monitoring's (kept) */
    /* pure.def, resolved (pure_resolve): what a callee is matched on (the
       function or class object; for a C function, its PyMethodDef) and
       what its `self` must be, by kind (PK_*); objects kept in `keep` */
    const void *pure_key[NPURE];
    PyObject *pure_need[NPURE];
    unsigned char pure_kind[NPURE];
    unsigned char pure_resolved[NPURE];
    int pure_pending;
    unsigned char pure_slot[PURE_SLOTS]; /* see pure_find */
} Gadgets;

static Gadgets gad; /* process-wide, see the header comment */

/* guard.h: gadgets_maybe_pure's filter of C functions */
uint64_t gadgets_pure_cbloom;

/* Monitoring mode: the interpreter whose step runs on this thread (NULL:
 * none, or a tool call inside one), set by gadgets_arm. */
static HOT_TLS Interp *gadget_tls;

#if PY_VERSION_HEX >= 0x030C0000
/* sys.monitoring.events.PY_START | PY_RESUME (a generator of the table made
 * before the step and resumed in it is refused as it resumes, as the
 * profile's call event refuses it) */
#define GADGET_EVENTS ((1 << 0) | (1 << 1))

/* Give code object `co` (just entered into the table) the tool's local
 * events.  0 / -1. */
static int
monitor_code(PyObject *co)
{
    if (gad.monitor_tool < 0) {
        return 0;
    }
    PyObject *r = PyObject_CallFunction(gad.set_local_events, "iOi",
                                        gad.monitor_tool, co, GADGET_EVENTS);
    if (r != NULL) {
        Py_DECREF(r);
        return 0;
    }
    /* not instrumented (out of memory): profile mode from the next arming
       on, where the table, this entry included, is what the profile
       consults; a step armed in monitoring mode on this thread ends here */
    PyErr_Clear();
    gad.monitor_tool = -1;
    Interp *in = gadget_tls;
    if (in != NULL) {
        raise_interp_error(in,
                           "Forbidden by the sandbox: the gadget table "
                           "could not be instrumented (%s)",
                           "out of memory?");
        return -1;
    }
    return 0;
}
#else
static int
monitor_code(PyObject *co)
{
    (void)co;
    return 0;
}
#endif

static size_t
code_hash(const void *p)
{
    uintptr_t k = (uintptr_t)p;
    return (size_t)((k >> 4) ^ (k >> 16));
}

static int
gtab_grow(void)
{
    size_t cap = gad.cap ? gad.cap * 2 : 256;
    GEntry *tab = PyMem_Calloc(cap, sizeof(GEntry));
    if (tab == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (size_t i = 0; i < gad.cap; i++) {
        if (gad.tab[i].code != NULL) {
            size_t j = code_hash(gad.tab[i].code) & (cap - 1);
            while (tab[j].code != NULL) {
                j = (j + 1) & (cap - 1);
            }
            tab[j] = gad.tab[i];
        }
    }
    PyMem_Free(gad.tab);
    gad.tab = tab;
    gad.cap = cap;
    return 0;
}

/* The table entry of code object `co`, or -1.  Never raises. */
static int
gtab_get(PyObject *co)
{
    if (gad.cap == 0) {
        return -1;
    }
    for (size_t i = code_hash(co) & (gad.cap - 1);;
         i = (i + 1) & (gad.cap - 1)) {
        if (gad.tab[i].code == co) {
            return gad.tab[i].def;
        }
        if (gad.tab[i].code == NULL) {
            return -1;
        }
    }
}

/* Is `v`'s __module__ the str `modname`?  Never raises. */
static int
defined_in(PyObject *v, PyObject *modname)
{
    PyObject *m = PyObject_GetAttrString(v, "__module__");
    if (m == NULL) {
        PyErr_Clear();
        return 0;
    }
    int r = PyUnicode_Check(m) && PyUnicode_Compare(m, modname) == 0;
    Py_DECREF(m);
    PyErr_Clear();
    return r;
}

/* Add the code of function-like `f` (function, classmethod, staticmethod,
 * property, bound method) under entry `def`; with `only`, only functions
 * whose __module__ it is.  0 / -1. */
static int
gtab_add_callable_from(PyObject *f, int def, PyObject *only)
{
    if (f == NULL) {
        return 0;
    }
    if (Py_IS_TYPE(f, &PyClassMethod_Type) ||
        Py_IS_TYPE(f, &PyStaticMethod_Type) || PyMethod_Check(f)) {
        PyObject *fn = PyObject_GetAttrString(f, "__func__");
        if (fn == NULL) {
            PyErr_Clear();
            return 0;
        }
        int r = gtab_add_callable_from(fn, def, only);
        Py_DECREF(fn);
        return r;
    }
    if (PyObject_TypeCheck(f, &PyProperty_Type)) {
        static const char *const acc[] = {"fget", "fset", "fdel"};
        for (int i = 0; i < 3; i++) {
            PyObject *a = PyObject_GetAttrString(f, acc[i]);
            if (a == NULL) {
                PyErr_Clear();
                continue;
            }
            int r = gtab_add_callable_from(a, def, only);
            Py_DECREF(a);
            if (r < 0) {
                return -1;
            }
        }
        return 0;
    }
    if (!PyFunction_Check(f) || (only != NULL && !defined_in(f, only))) {
        return 0;
    }
    PyObject *co = PyFunction_GET_CODE(f);
    if (gtab_get(co) >= 0) {
        return 0;
    }
    if ((gad.used + 1) * 2 > gad.cap && gtab_grow() < 0) {
        return -1;
    }
    if (PyList_Append(gad.keep, co) < 0) {
        return -1;
    }
    size_t i = code_hash(co) & (gad.cap - 1);
    while (gad.tab[i].code != NULL) {
        i = (i + 1) & (gad.cap - 1);
    }
    gad.tab[i].code = co;
    gad.tab[i].def = def;
    gad.used++;
    /* in the table before its events: a failure leaves it refused in
       profile mode, which gadgets_resolve then falls back to */
    return monitor_code(co);
}

/* A named entry: the callable, wherever its function was defined. */
static int
gtab_add_callable(PyObject *f, int def)
{
    return gtab_add_callable_from(f, def, NULL);
}

/* Every function of module `mod` and of its classes.  0 / -1. */
static int
add_whole_module(PyObject *mod, int def)
{
    PyObject *name = PyModule_GetNameObject(mod);
    PyObject *d = PyModule_GetDict(mod);
    if (name == NULL || d == NULL) {
        Py_XDECREF(name);
        return -1;
    }
    PyObject *items = PyDict_Values(d); /* a snapshot */
    int r = items ? 0 : -1;
    for (Py_ssize_t i = 0; items && i < PyList_GET_SIZE(items) && r == 0;
         i++) {
        PyObject *v = PyList_GET_ITEM(items, i);
        if (PyFunction_Check(v) && defined_in(v, name)) {
            r = gtab_add_callable(v, def);
        }
        else if (PyType_Check(v) && defined_in(v, name)) {
            PyObject *cd = ((PyTypeObject *)v)->tp_dict;
            PyObject *members = cd ? PyDict_Values(cd) : NULL;
            for (Py_ssize_t j = 0;
                 members && j < PyList_GET_SIZE(members) && r == 0; j++) {
                /* only what the module defines: a class attribute may be
                   another module's function (pydoc's HTMLDoc.repr is a
                   bound reprlib.Repr.repr, which asyncio calls) */
                r = gtab_add_callable_from(PyList_GET_ITEM(members, j), def,
                                           name);
            }
            Py_XDECREF(members);
        }
    }
    Py_XDECREF(items);
    Py_DECREF(name);
    return r;
}

/* One dotted qualname below `mod`; the last part is read from the class
 * dict when its parent is a class (classmethod and property unwrapped).
 * 0 / -1 (a missing name is not an error: another Python version). */
static int
add_qualname(PyObject *mod, const char *qualname, int def)
{
    PyObject *cur = Py_NewRef(mod);
    const char *p = qualname;
    int r = 0;
    while (cur != NULL) {
        const char *dot = strchr(p, '.');
        size_t n = dot ? (size_t)(dot - p) : strlen(p);
        PyObject *part = PyUnicode_FromStringAndSize(p, (Py_ssize_t)n);
        if (part == NULL) {
            r = -1;
            break;
        }
        PyObject *nxt = NULL;
        if (PyType_Check(cur)) {
            nxt = PyDict_GetItemWithError(((PyTypeObject *)cur)->tp_dict,
                                          part);
            Py_XINCREF(nxt);
        }
        else if (PyObject_GetOptionalAttr(cur, part, &nxt) < 0) {
            nxt = NULL;
        }
        Py_DECREF(part);
        PyErr_Clear();
        Py_SETREF(cur, nxt);
        if (dot == NULL) {
            break;
        }
        p = dot + 1;
    }
    if (cur != NULL && r == 0) {
        r = gtab_add_callable(cur, def);
    }
    Py_XDECREF(cur);
    return r;
}

/* Resolve the entries whose module is loaded now.  0 / -1. */
static void pure_slot_add(int def);
_Static_assert(2 * NPURE < PURE_SLOTS && NPURE < 255,
               "pure.def outgrew its lookup table");

/* Resolve the pure.def entries whose module is loaded.  Never raises:
 * an entry that does not resolve to what its macro says (PURE: a Python
 * function or a class; PURE_C: a C function of the module or a C class
 * method) is left out. */
static void
pure_resolve(void)
{
    for (int i = 0; i < NPURE && gad.pure_pending > 0; i++) {
        if (gad.pure_resolved[i]) {
            continue;
        }
        PyObject *name = PyUnicode_FromString(pure_defs[i].module);
        PyObject *mod = name ? PyImport_GetModule(name) : NULL;
        Py_XDECREF(name);
        if (mod == NULL) {
            PyErr_Clear();
            continue; /* not loaded yet */
        }
        gad.pure_resolved[i] = 1;
        gad.pure_pending--;
        const char *q = pure_defs[i].qualname;
        const char *dot = strchr(q, '.');
        PyObject *owner = NULL, *fn = NULL;
        if (dot != NULL) {
            PyObject *cname =
                PyUnicode_FromStringAndSize(q, (Py_ssize_t)(dot - q));
            owner = cname ? PyObject_GetAttr(mod, cname) : NULL;
            Py_XDECREF(cname);
            if (owner != NULL && PyType_Check(owner) && pure_defs[i].c) {
                /* a C class method, bound to the class (a static type's
                   tp_dict is NULL from 3.12: not read) */
                fn = PyObject_GetAttrString(owner, dot + 1);
            }
            else if (owner != NULL && PyType_Check(owner) &&
                     ((PyTypeObject *)owner)->tp_dict != NULL) {
                /* the class's own function, not an inherited one */
                fn = PyDict_GetItemString(((PyTypeObject *)owner)->tp_dict,
                                          dot + 1);
                Py_XINCREF(fn);
            }
        }
        else {
            owner = Py_NewRef(mod);
            fn = PyObject_GetAttrString(mod, q);
        }
        PyErr_Clear();
        const void *key = NULL;
        int kind = 0;
        if (fn == NULL || owner == NULL) {
            /* not in this version of the module */
        }
        else if (pure_defs[i].c) {
            /* bound to its module, or to its class (a class method) */
            if (PyCFunction_Check(fn) && PyCFunction_GET_SELF(fn) == owner) {
                key = ((PyCFunctionObject *)fn)->m_ml;
                kind = PK_CFUNC;
            }
        }
        else if (PyFunction_Check(fn)) {
            key = fn;
            kind = dot != NULL ? PK_METHOD : PK_FUNC;
        }
        else if (dot == NULL && PyType_Check(fn)) {
            key = fn;
            kind = PK_CLASS;
        }
        if (kind != 0 && PyList_Append(gad.keep, fn) == 0 &&
            PyList_Append(gad.keep, owner) == 0) {
            gad.pure_key[i] = key;
            gad.pure_kind[i] = (unsigned char)kind;
            gad.pure_need[i] =
                kind == PK_METHOD || kind == PK_CFUNC ? owner : NULL;
            pure_slot_add(i);
            if (kind == PK_CFUNC) {
                gadgets_pure_cbloom |= gadgets_pure_cbit(key);
            }
        }
        PyErr_Clear();
        Py_XDECREF(fn);
        Py_XDECREF(owner);
        Py_DECREF(mod);
    }
}

static int
gadgets_resolve(void)
{
    if (gad.pending == 0 && gad.pure_pending == 0) {
        return 0;
    }
    /* nothing new imported since the last time: nothing new to resolve
       (each step starts here: keep it cheap) */
    /* sys.modules as sys has it: PyImport_GetModuleDict() is a fatal error
       once the interpreter has dropped it (a finalizer of the code's running
       at exit) */
    PyObject *mods = PySys_GetObject("modules"); /* borrowed */
    if (mods != NULL && PyDict_Check(mods) &&
        PyDict_GET_SIZE(mods) == gad.nmodules) {
        return 0;
    }
    gad.nmodules = mods != NULL && PyDict_Check(mods) ? PyDict_GET_SIZE(mods)
                                                      : -1;
    pure_resolve();
    for (int i = 0; i < NGADGETS; i++) {
        if (gad.resolved[i]) {
            continue;
        }
        PyObject *name = PyUnicode_FromString(gadget_defs[i].module);
        PyObject *mod = name ? PyImport_GetModule(name) : NULL;
        Py_XDECREF(name);
        if (mod == NULL) {
            if (PyErr_Occurred()) {
                gad.nmodules = -1; /* try again next time */
                return -1;
            }
            continue; /* not loaded: nothing can run it yet */
        }
        int r = 0;
        if (gadget_defs[i].whole_module == 2) {
            PyObject *t =
                PyObject_GetAttrString(mod, gadget_defs[i].qualname);
            if (t != NULL && PyType_Check(t) && PyList_Append(gad.keep, t) == 0) {
                gad.types[i] = (PyTypeObject *)t;
                gad.type_defs[gad.ntypes++] = i;
                gadgets_known_types = gad.ntypes;
            }
            Py_XDECREF(t);
            PyErr_Clear();
        }
        else if (gadget_defs[i].whole_module == 1) {
            r = add_whole_module(mod, i);
        }
        else {
            r = add_qualname(mod, gadget_defs[i].qualname, i);
        }
        Py_DECREF(mod);
        if (r < 0) {
            gad.nmodules = -1; /* try again next time */
            return -1;
        }
        gad.resolved[i] = 1;
        gad.pending--;
    }
    return 0;
}

int
gadgets_refresh(void)
{
    return gadgets_resolve();
}

/* Is the call's argument `arg` (a local of the starting frame) true? */
static int
frame_arg_true(PyFrameObject *frame, const char *arg)
{
#if PY_VERSION_HEX >= 0x030B0000
    PyObject *locals = PyFrame_GetLocals(frame);
#else
    PyObject *locals = PyObject_GetAttrString((PyObject *)frame, "f_locals");
#endif
    if (locals == NULL) {
        PyErr_Clear();
        return 1; /* cannot tell: refuse */
    }
    PyObject *v = PyMapping_GetItemString(locals, arg);
    Py_DECREF(locals);
    if (v == NULL) {
        PyErr_Clear();
        return 0;
    }
    int t = PyObject_IsTrue(v);
    Py_DECREF(v);
    if (t < 0) {
        PyErr_Clear();
        return 1;
    }
    return t;
}

PyObject *
frame_local(PyFrameObject *frame, const char *arg)
{
#if PY_VERSION_HEX >= 0x030B0000
    PyObject *locals = PyFrame_GetLocals(frame);
#else
    PyObject *locals = PyObject_GetAttrString((PyObject *)frame, "f_locals");
#endif
    if (locals == NULL) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *v = PyMapping_GetItemString(locals, arg);
    Py_DECREF(locals);
    if (v == NULL) {
        PyErr_Clear();
    }
    return v;
}

/* One step of a qualname walk: `part` in a module's or a class's own
 * dict (borrowed, or NULL).  Dict lookups with a str key only: no code of
 * the code's runs. */
static PyObject *
definition_part(PyObject *cur, PyObject *part)
{
    PyObject *d = NULL;
    if (PyModule_Check(cur)) {
        d = PyModule_GetDict(cur);
    }
    else if (PyType_Check(cur)) {
        d = ((PyTypeObject *)cur)->tp_dict;
    }
    if (d == NULL || !PyDict_Check(d)) {
        return NULL;
    }
    PyObject *v = PyDict_GetItemWithError(d, part);
    if (v == NULL) {
        PyErr_Clear();
    }
    return v;
}

/* Is `o` a definition of the host's: a class the code did not make, or a
 * function (or a wrapper that keeps __module__ and __qualname__ in its own
 * __dict__, as functools' caches do) found in a loaded module under its
 * __module__ and __qualname__?  Fresh functions host code makes for the
 * code (closures, `<locals>` in their qualname; functools.wraps' wrappers)
 * are not.  Reads struct fields and dicts only.  1 / 0, never raises. */
static int
host_definition(Interp *in, PyObject *o)
{
    if (PyType_Check(o)) {
        return !provenance_is_code_type((PyTypeObject *)o);
    }
    if (function_is_interpreted(o)) {
        return 0;
    }
    PyObject *mod = NULL, *qual = NULL, *d = NULL;
    if (PyFunction_Check(o)) {
        mod = ((PyFunctionObject *)o)->func_module;
        qual = ((PyFunctionObject *)o)->func_qualname;
    }
    else if (!provenance_is_code_type(Py_TYPE(o)) &&
             Py_TYPE(o)->tp_dictoffset != 0) {
        d = PyObject_GenericGetDict(o, NULL);
        if (d == NULL) {
            PyErr_Clear();
            return 0;
        }
        if (PyDict_Check(d)) {
            mod = PyDict_GetItemString(d, "__module__");
            qual = PyDict_GetItemString(d, "__qualname__");
        }
    }
    int r = 0;
    if (mod != NULL && qual != NULL && PyUnicode_CheckExact(mod) &&
        PyUnicode_CheckExact(qual) &&
        PyUnicode_FindChar(qual, '<', 0, PyUnicode_GET_LENGTH(qual), 1) < 0) {
        PyObject *mods = PySys_GetObject("modules"); /* borrowed */
        PyObject *cur = mods != NULL && PyDict_Check(mods)
                            ? PyDict_GetItemWithError(mods, mod)
                            : NULL;
        PyObject *dot = PyUnicode_FromString(".");
        PyObject *parts = dot ? PyUnicode_Split(qual, dot, -1) : NULL;
        Py_XDECREF(dot);
        for (Py_ssize_t i = 0; cur != NULL && parts != NULL &&
                               i < PyList_GET_SIZE(parts);
             i++) {
            cur = definition_part(cur, PyList_GET_ITEM(parts, i));
        }
        if (cur != NULL && cur != o &&
            (Py_IS_TYPE(cur, &PyClassMethod_Type) ||
             Py_IS_TYPE(cur, &PyStaticMethod_Type))) {
            PyObject *f = PyObject_GetAttrString(cur, "__func__");
            r = f == o;
            Py_XDECREF(f);
        }
        else {
            r = cur != NULL && cur == o;
        }
        Py_XDECREF(parts);
        PyErr_Clear();
    }
    Py_XDECREF(d);
    (void)in;
    return r;
}

/* Was the starting frame (running `co`) called by a Python frame of code
 * from the same source file, i.e. its own module's internal use?  1 / 0;
 * never fails (an error counts as 0). */
static int
called_from_own_module(PyFrameObject *frame, PyCodeObject *co)
{
    PyFrameObject *back = PyFrame_GetBack(frame);
    if (back == NULL) {
        return 0;
    }
    PyCodeObject *bco = PyFrame_GetCode(back);
    Py_DECREF(back);
    PyObject *a = PyObject_GetAttrString((PyObject *)bco, "co_filename");
    PyObject *b = PyObject_GetAttrString((PyObject *)co, "co_filename");
    Py_DECREF(bco);
    int r = a != NULL && b != NULL ? PyObject_RichCompareBool(a, b, Py_EQ)
                                   : -1;
    Py_XDECREF(a);
    Py_XDECREF(b);
    if (r < 0) {
        PyErr_Clear();
        return 0;
    }
    return r;
}

/* Is the starting frame of entry `g` called directly by one of its reviewed
 * callers (GADGET_CALLER): the calling frame's module (its globals'
 * __name__) and code qualname match?  1 / 0; never fails.  3.11+ (no entry
 * is needed before 3.15). */
static int
called_by_reviewed_caller(const GadgetDef *g, PyFrameObject *frame)
{
#if PY_VERSION_HEX >= 0x030B0000
    if (g->qualname == NULL) {
        return 0;
    }
    int any = 0;
    for (int i = 0; i < NCALLERS && !any; i++) {
        any = strcmp(caller_defs[i].module, g->module) == 0 &&
              strcmp(caller_defs[i].qualname, g->qualname) == 0;
    }
    if (!any) {
        return 0;
    }
    PyFrameObject *back = PyFrame_GetBack(frame);
    if (back == NULL) {
        return 0;
    }
    PyCodeObject *bco = PyFrame_GetCode(back);
    PyObject *globals = PyFrame_GetGlobals(back);
    Py_DECREF(back);
    PyObject *qual = PyObject_GetAttrString((PyObject *)bco, "co_qualname");
    Py_DECREF(bco);
    PyObject *mod = globals != NULL && PyDict_Check(globals)
                        ? PyDict_GetItemString(globals, "__name__")
                        : NULL; /* borrowed */
    int r = 0;
    const char *q = qual != NULL && PyUnicode_Check(qual)
                        ? PyUnicode_AsUTF8(qual) : NULL;
    const char *m = mod != NULL && PyUnicode_Check(mod)
                        ? PyUnicode_AsUTF8(mod) : NULL;
    for (int i = 0; q != NULL && m != NULL && i < NCALLERS && !r; i++) {
        const CallerDef *c = &caller_defs[i];
        r = strcmp(c->module, g->module) == 0 &&
            strcmp(c->qualname, g->qualname) == 0 &&
            strcmp(c->caller_module, m) == 0 &&
            strcmp(c->caller_qualname, q) == 0;
    }
    Py_XDECREF(qual);
    Py_XDECREF(globals);
    PyErr_Clear();
    return r;
#else
    (void)g;
    (void)frame;
    (void)caller_defs;
    return 0;
#endif
}

/* A frame of table entry `def` (code `co`) starts or resumes on a thread
 * where `in` runs a step: refuse it.  `frame` is that frame, or NULL when it
 * cannot be had (the call then counts as the function's own module's not,
 * and a conditional entry as met).  0 (let it run) / -1 with the error. */
static int
gadget_refuse(Interp *in, int def, PyFrameObject *frame, PyCodeObject *co)
{
    const GadgetDef *g = &gadget_defs[def];
    int inside =
        g->soft_inside && frame != NULL && called_from_own_module(frame, co);
    if (g->remedy != NULL) {
        /* withheld in process (inprocess.def): not in a worker, whose
           process is the code's own; with an argument, only on a
           definition of the host's */
        if (!inprocess_shared) {
            return 0;
        }
        if (g->arg != NULL && frame != NULL) {
            PyObject *v = frame_local(frame, g->arg);
            int host = v != NULL && host_definition(in, v);
            Py_XDECREF(v);
            if (!host) {
                return 0;
            }
        }
        if (provenance_in_import()) {
            return 0;
        }
        raise_interp_error(in,
                           "Forbidden call of %s.%s in process "
                           "(isolation='none'): %s%s. Instead: %s",
                           g->module, g->qualname,
                           g->arg != NULL ? "on a definition of the host's, "
                                            "it "
                                          : "it ",
                           g->reason, g->remedy);
        return -1;
    }
    if (g->arg != NULL && frame != NULL && !frame_arg_true(frame, g->arg)) {
        return 0;
    }
    if (frame != NULL && called_by_reviewed_caller(g, frame)) {
        return 0;
    }
    if (provenance_in_import()) {
        return 0; /* a module body runs it: host code being imported */
    }
    if (inside) {
        /* still refused, but as an error its module's own callers expect
           and handle (inspect.signature's "no signature" TypeError, which
           dataclasses catches): the step goes on */
        PyErr_Format(PyExc_TypeError, "Forbidden call of %s.%s: %s",
                     g->module, g->qualname, g->reason);
        return -1;
    }
    raise_interp_error(in, "Forbidden call of %s%s%s: %s", g->module,
                       g->qualname ? "." : "",
                       g->qualname ? g->qualname : "", g->reason);
    return -1;
}

/* Profile mode: the thread's profile function while a step runs. */
static int
gadgets_profile(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg)
{
    (void)arg;
    if (what != PyTrace_CALL) {
        return 0;
    }
    PyCodeObject *co = PyFrame_GetCode(frame);
    int def = gtab_get((PyObject *)co);
    int r = def < 0 ? 0
                    : gadget_refuse(interp_of(obj), def,
                                    frame, co);
    Py_DECREF(co);
    return r;
}

#if PY_VERSION_HEX >= 0x030C0000
/* Monitoring mode: the tool's PY_START / PY_RESUME callback, (code,
 * instruction_offset).  Only the table's code objects have the events. */
static PyObject *
gadgets_monitor(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    (void)self;
    Interp *in = gadget_tls;
    if (in == NULL || nargs < 1 || !PyCode_Check(args[0])) {
        Py_RETURN_NONE; /* no step on this thread: the host's own call */
    }
    int def = gtab_get(args[0]);
    if (def < 0) {
        Py_RETURN_NONE;
    }
    /* the frame that starts is the thread's current one (borrowed) */
    PyFrameObject *frame = PyEval_GetFrame();
    PyCodeObject *fco = frame != NULL ? PyFrame_GetCode(frame) : NULL;
    if (fco != (PyCodeObject *)args[0]) {
        frame = NULL;
    }
    Py_XDECREF(fco);
    if (gadget_refuse(in, def, frame, (PyCodeObject *)args[0]) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyMethodDef gadgets_monitor_def = {
    "smolagents_native_gadgets", (PyCFunction)(void (*)(void))gadgets_monitor,
    METH_FASTCALL, NULL};

/* Claim a sys.monitoring tool id and register the callback: monitoring
 * mode.  Leaves profile mode (monitor_tool -1) when sys.monitoring has no
 * free id (a host's debugger, coverage, profiler and optimizer take 0, 1,
 * 2 and 5; this module takes 4, else 3).  0 / -1. */
static int
monitor_setup(void)
{
    gad.monitor_tool = -1;
    PyObject *mon = PySys_GetObject("monitoring"); /* borrowed */
    if (mon == NULL) {
        return 0;
    }
    static const int candidates[] = {4, 3};
    int tool = -1;
    for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
        PyObject *r =
            PyObject_CallMethod(mon, "use_tool_id", "is", candidates[i],
                                "smolagents_native gadgets");
        if (r != NULL) {
            Py_DECREF(r);
            tool = candidates[i];
            break;
        }
        if (!PyErr_ExceptionMatches(PyExc_ValueError)) {
            return -1;
        }
        PyErr_Clear(); /* taken */
    }
    if (tool < 0) {
        return 0;
    }
    PyObject *cb = PyCFunction_New(&gadgets_monitor_def, NULL);
    PyObject *sle = PyObject_GetAttrString(mon, "set_local_events");
    int ok = cb != NULL && sle != NULL && PyList_Append(gad.keep, cb) == 0 &&
             PyList_Append(gad.keep, sle) == 0;
    for (int ev = 0; ok && ev < 2; ev++) { /* PY_START, PY_RESUME */
        PyObject *r = PyObject_CallMethod(mon, "register_callback", "iiO",
                                          tool, 1 << ev, cb);
        ok = r != NULL;
        Py_XDECREF(r);
    }
    Py_XDECREF(cb);
    if (!ok) {
        Py_XDECREF(sle);
        PyObject *exc, *val, *tb;
        PyErr_Fetch(&exc, &val, &tb);
        PyObject *r = PyObject_CallMethod(mon, "free_tool_id", "i", tool);
        Py_XDECREF(r);
        PyErr_Restore(exc, val, tb);
        return -1;
    }
    gad.set_local_events = sle; /* the reference `keep` holds */
    Py_DECREF(sle);
    gad.monitor_tool = tool;
    return 0;
}
#endif

int
gadgets_monitoring_tool(void)
{
    return gad.monitor_tool;
}

void
gadgets_arm(Interp *in, GadgetSave *save)
{
    PyThreadState *ts = PyThreadState_Get();
    save->armed = 0;
    if (tripwire_kernel_bounded) {
        return; /* a process-mode worker: the kernel bounds library code */
    }
    /* may run with an exception pending (a generator closed by the
       collector): keep it */
    PyObject *exc, *val, *tb;
    PyErr_Fetch(&exc, &val, &tb);
    if (gadgets_resolve() < 0) {
        PyErr_Clear();
    }
    if (gad.monitor_tool >= 0) {
        /* monitoring mode: the table's code objects carry the events.  A
           profiler of the host's is off for the step, as in profile mode
           (host code that runs during a step is the code's, for the
           tripwire too); with none, nothing is re-instrumented. */
        save->prev = gadget_tls;
        gadget_tls = in;
        save->armed = 2;
        save->func = compat_profile_func(ts);
        save->obj = NULL;
        if (save->func != NULL) {
            save->obj = Py_XNewRef(compat_profile_obj(ts));
            Interp *tw = tripwire_suspend();
            PyEval_SetProfile(NULL, NULL);
            tripwire_restore(tw);
            PyErr_Clear();
        }
        PyErr_Restore(exc, val, tb);
        return;
    }
    save->func = compat_profile_func(ts);
    save->obj = Py_XNewRef(compat_profile_obj(ts));
    /* our own sys.setprofile audit event is not the code's doing */
    Interp *tw = tripwire_suspend();
    PyEval_SetProfile(gadgets_profile, in_guard(in)->owner);
    tripwire_restore(tw);
    save->armed = compat_profile_func(ts) == gadgets_profile;
    if (!save->armed) {
        Py_CLEAR(save->obj);
    }
    PyErr_Clear();
    PyErr_Restore(exc, val, tb);
}

void
gadgets_disarm(GadgetSave *save)
{
    if (!save->armed) {
        return;
    }
    if (save->armed == 2) {
        gadget_tls = save->prev;
        save->armed = 0;
        if (save->func == NULL) {
            return;
        }
    }
    PyObject *exc, *val, *tb;
    PyErr_Fetch(&exc, &val, &tb);
    Interp *tw = tripwire_suspend();
    PyEval_SetProfile(save->func, save->obj);
    tripwire_restore(tw);
    PyErr_Clear();
    PyErr_Restore(exc, val, tb);
    Py_CLEAR(save->obj);
    save->armed = 0;
}

/* Around a call into host code that is not acting for the code (a tool):
 * take the profile function off the thread if it is ours, and put it back. */
void
gadgets_suspend(GadgetSave *save)
{
    if (gadget_tls != NULL) {
        save->prev = gadget_tls;
        gadget_tls = NULL;
        save->armed = 2;
        return;
    }
    PyThreadState *ts = PyThreadState_Get();
    save->armed = compat_profile_func(ts) == gadgets_profile;
    save->obj = NULL;
    if (save->armed) {
        save->func = compat_profile_func(ts);
        save->obj = Py_XNewRef(compat_profile_obj(ts));
        PyObject *exc, *val, *tb;
        PyErr_Fetch(&exc, &val, &tb);
        PyEval_SetProfile(NULL, NULL); /* the caller suspended the tripwire */
        PyErr_Restore(exc, val, tb);
    }
}

void
gadgets_resume(GadgetSave *save)
{
    if (save->armed == 2) {
        gadget_tls = save->prev;
        save->armed = 0;
        return;
    }
    if (save->armed) {
        PyObject *exc, *val, *tb;
        PyErr_Fetch(&exc, &val, &tb);
        PyEval_SetProfile(save->func, save->obj);
        PyErr_Restore(exc, val, tb);
        Py_CLEAR(save->obj);
        save->armed = 0;
    }
}

int
gadgets_init(void)
{
    if (gad.keep != NULL) {
        return 0;
    }
    gad.keep = PyList_New(0);
    if (gad.keep == NULL) {
        return -1;
    }
    gad.pending = NGADGETS;
    gad.pure_pending = NPURE;
    gad.nmodules = -1;
    gad.monitor_tool = -1;
    if (gtab_grow() < 0) {
        return -1;
    }
#if PY_VERSION_HEX >= 0x030C0000
    if (monitor_setup() < 0) {
        return -1;
    }
#endif
    return gadgets_resolve();
}

/* Check one name held by a GADGET_TYPE instance: each dotted part. */
static int
check_held_name(Interp *in, PyObject *s, const GadgetDef *g)
{
    PyObject *dot = PyUnicode_FromString(".");
    PyObject *parts = dot ? PyUnicode_Split(s, dot, -1) : NULL;
    Py_XDECREF(dot);
    if (parts == NULL) {
        return -1;
    }
    int r = 0;
    for (Py_ssize_t i = 0; r == 0 && i < PyList_GET_SIZE(parts); i++) {
        PyObject *p = PyList_GET_ITEM(parts, i);
        if (PyUnicode_GET_LENGTH(p) > 0 && PyUnicode_READ_CHAR(p, 0) == '_') {
            raise_interp_error(in, "Forbidden value: %s.%s for the name %R (%s)",
                               g->module, g->qualname, s, g->reason);
            r = -1;
        }
        else {
            r = policy_check_attr_name(in, NULL, p, 0);
            if (r == 0) {
                r = inprocess_check_held_name(in, p);
            }
        }
    }
    Py_DECREF(parts);
    return r;
}

/* Check the str items of tuple `args` (and of a partial's args). */
static int
check_held_args(Interp *in, PyObject *args, const GadgetDef *g)
{
    if (args == NULL || !PyTuple_Check(args)) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(args); i++) {
        PyObject *a = PyTuple_GET_ITEM(args, i);
        if (PyUnicode_Check(a) && check_held_name(in, a, g) < 0) {
            return -1;
        }
    }
    return 0;
}

int
gadgets_is_type(PyTypeObject *tp)
{
    for (int k = 0; k < gad.ntypes; k++) {
        if (gad.types[gad.type_defs[k]] == tp) {
            return 1;
        }
    }
    return 0;
}

int gadgets_known_types; /* gad.ntypes, read by policy_check_value */

int
gadgets_check_value(Interp *in, PyObject *v)
{
    PyTypeObject *tp = Py_TYPE(v);
    for (int k = 0; k < gad.ntypes; k++) {
        int i = gad.type_defs[k];
        if (gad.types[i] != tp) {
            continue;
        }
        const GadgetDef *g = &gadget_defs[i];
        /* the names it holds, as its __reduce__ says: (cls, args) or
           (partial(cls, name, ...), args) */
        PyObject *red = PyObject_CallMethod(v, "__reduce__", NULL);
        if (red == NULL) {
            return -1;
        }
        int r = 0;
        if (PyTuple_Check(red) && PyTuple_GET_SIZE(red) >= 2) {
            PyObject *fn = PyTuple_GET_ITEM(red, 0);
            r = check_held_args(in, PyTuple_GET_ITEM(red, 1), g);
            if (r == 0 && !PyType_Check(fn)) {
                PyObject *pa = PyObject_GetAttrString(fn, "args");
                if (pa == NULL) {
                    PyErr_Clear();
                }
                r = check_held_args(in, pa, g);
                Py_XDECREF(pa);
            }
        }
        Py_DECREF(red);
        return r;
    }
    return 0;
}

/* ------------------------------------------------------------ pure calls */

/* An exact scalar whose operations run no code of the code's choosing. */
static inline int
inert_scalar(PyObject *o)
{
    PyTypeObject *t = Py_TYPE(o);
    return t == &PyLong_Type || t == &PyFloat_Type || t == &PyUnicode_Type ||
           t == &PyBool_Type || t == &PyBytes_Type || o == Py_None;
}

#define PURE_MAX_ITEMS 100000
#define PURE_MAX_DEPTH 32

static int inert_nested(PyObject *o, int depth, Py_ssize_t *budget);

/* The items of a list or tuple `o` (any subclass) are inert at `depth`
 * (inert_nested). */
static int
inert_seq_items(PyObject *o, int depth, Py_ssize_t *budget)
{
    Py_ssize_t n = PySequence_Fast_GET_SIZE(o);
    if ((*budget -= n) < 0) {
        return 0;
    }
    PyObject **items = PySequence_Fast_ITEMS(o);
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!inert_scalar(items[i]) &&
            !inert_nested(items[i], depth + 1, budget)) {
            return 0;
        }
    }
    return 1;
}

/* The keys (inert scalars) and values of a dict `o` (any subclass) are
 * inert at `depth` (inert_nested). */
static int
inert_dict_items(PyObject *o, int depth, Py_ssize_t *budget)
{
    if ((*budget -= PyDict_GET_SIZE(o)) < 0) {
        return 0;
    }
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (PyDict_Next(o, &pos, &key, &value)) {
        if (!inert_scalar(key) ||
            (!inert_scalar(value) && !inert_nested(value, depth + 1, budget))) {
            return 0;
        }
    }
    return 1;
}

/* A range, or an exact list, tuple or dict whose items (a dict's keys:
 * inert scalars; its values) are inert in turn: JSON-like data, nested at
 * most PURE_MAX_DEPTH deep (a list that holds itself never ends the
 * descent otherwise), with at most PURE_MAX_ITEMS items in all (*budget).
 * Only type tests run: no code, so nothing changes under the walk. */
static int
inert_nested(PyObject *o, int depth, Py_ssize_t *budget)
{
    if (inert_scalar(o) || PyRange_Check(o)) {
        return 1;
    }
    if (depth >= PURE_MAX_DEPTH) {
        return 0;
    }
    if (PyList_CheckExact(o) || PyTuple_CheckExact(o)) {
        return inert_seq_items(o, depth, budget);
    }
    if (PyDict_CheckExact(o)) {
        return inert_dict_items(o, depth, budget);
    }
    return 0;
}

/* Out of line: the scalar test comes first, inline, in inert(). */
static NOINLINE int
inert_container(PyObject *o)
{
    Py_ssize_t budget = PURE_MAX_ITEMS;
    return inert_nested(o, 0, &budget);
}

static inline int
inert(PyObject *o)
{
    return inert_scalar(o) || inert_container(o);
}

/* 1 when every attribute an instance holds is inert, and every item of an
 * instance that is a dict or a list: a method reads them (Random.gauss
 * computes with self.gauss_next, which setstate() sets to whatever the
 * code passes; Counter.most_common sorts the counts), so they count as
 * arguments. */
static int
inert_instance(ModState *st, PyObject *self)
{
    /* an instance of a listed dict or list subclass (Counter) holds items
       its methods read as they read arguments */
    Py_ssize_t budget = PURE_MAX_ITEMS;
    if ((PyDict_Check(self) && !inert_dict_items(self, 0, &budget)) ||
        (PyList_Check(self) && !inert_seq_items(self, 0, &budget))) {
        return 0;
    }
    PyObject *d = PyObject_GenericGetDict(self, NULL);
    if (d == NULL) {
        PyErr_Clear();
        return 0;
    }
    int ok = PyDict_CheckExact(d);
#if COMPAT_HAS_DICT_TAG
    uint64_t tag = ok ? compat_dict_state_tag(d) : 0;
    if (tag != 0) {
        for (int i = 0; i < 4; i++) {
            if (st->inert_dict_tags[i] == tag) {
                Py_DECREF(d);
                return 1;
            }
        }
    }
#endif
    int scalars = 1;
    Py_ssize_t pos = 0;
    PyObject *key, *value;
    while (ok && PyDict_Next(d, &pos, &key, &value)) {
        ok = inert(value);
        scalars = scalars && inert_scalar(value);
    }
#if COMPAT_HAS_DICT_TAG
    if (ok && scalars && tag != 0) {
        st->inert_dict_tags[st->inert_dict_next++ & 3] = tag;
    }
#endif
    Py_DECREF(d);
    return ok;
}

/* The entry of a resolved pure function, or -1: open addressing by
 * address in gad.pure_slot (index + 1, 0 for empty). */
static int
pure_find(const void *key)
{
    size_t mask = PURE_SLOTS - 1;
    for (size_t i = code_hash(key) & mask;; i = (i + 1) & mask) {
        int k = gad.pure_slot[i];
        if (k == 0) {
            return -1;
        }
        if (gad.pure_key[k - 1] == key) {
            return k - 1;
        }
    }
}

static void
pure_slot_add(int def)
{
    size_t mask = PURE_SLOTS - 1;
    size_t i = code_hash(gad.pure_key[def]) & mask;
    while (gad.pure_slot[i] != 0) {
        i = (i + 1) & mask;
    }
    gad.pure_slot[i] = def + 1;
}

int
gadgets_pure_call(Interp *in, PyObject *func, PyObject *self,
                  PyObject *const *args, Py_ssize_t n)
{
    /* what the callee is matched on (pure_find), and the self it is bound
       to: the instance of a method (a bound method, or `self` the caller
       gives for an unbound call), the module or class of a C function */
    if (gad.monitor_tool >= 0) {
        return 0; /* monitoring mode: host frames run at full speed armed */
    }
    const void *key = func;
    PyTypeObject *ft = Py_TYPE(func);
    if (ft == &PyMethod_Type) {
        if (self != NULL) {
            return 0;
        }
        self = PyMethod_GET_SELF(func);
        key = func = PyMethod_GET_FUNCTION(func);
        ft = Py_TYPE(func);
    }
    if (ft == &PyCFunction_Type || ft == &PyCMethod_Type) {
        if (self != NULL) {
            return 0;
        }
        self = PyCFunction_GET_SELF(func);
        key = ((PyCFunctionObject *)func)->m_ml;
    }
    else if (ft != &PyFunction_Type &&
             !(PyType_Check(func) && (((PyTypeObject *)func)->tp_flags &
                                      Py_TPFLAGS_HEAPTYPE))) {
        /* a method descriptor, a C object, a static type (int(x): the
           class entries are Python classes) */
        return 0;
    }
    /* the entries of the modules loaded when the step was armed or the
       code last imported (gadgets_refresh): one imported by host code
       since is found from the next one on */
    int found = pure_find(key);
    if (found < 0 || provenance_foreign_special_methods()) {
        /* a special method of a class of the code's that is not its own
           function could run in the callee's frames (provenance.c) */
        return 0;
    }
    if (gadget_tls != NULL) {
        return 0;
    }
    PyThreadState *ts = in_budget(in)->run_ts;
    if (ts->c_profilefunc != gadgets_profile) {
        return 0; /* nothing to pause (a tool call, or not armed) */
    }
    if (in_guard(in)->pure_ok < 0) {
        /* a signal handler, or a weak reference's callback (one of the
           code's objects freed by a host cache's eviction), the code chose
           could run in the callee's frames: only when the code can reach
           neither `signal` nor `weakref` */
        static const char *const hooks[] = {"signal", "weakref", "_weakref"};
        int auth = 0;
        for (size_t i = 0; i < sizeof(hooks) / sizeof(hooks[0]) && !auth; i++) {
            PyObject *name = PyUnicode_FromString(hooks[i]);
            auth = name ? policy_import_authorized(in, name) : 1;
            Py_XDECREF(name);
        }
        PyErr_Clear();
        in_guard(in)->pure_ok = auth == 0;
    }
    if (!in_guard(in)->pure_ok) {
        return 0;
    }
    PyObject *need = gad.pure_need[found];
    switch (gad.pure_kind[found]) {
    case PK_FUNC:
    case PK_CLASS:
        if (self != NULL) {
            return 0;
        }
        break;
    case PK_METHOD:
        /* an instance of exactly the class: not a subclass of the code's */
        if (self == NULL || (PyObject *)Py_TYPE(self) != need) {
            return 0;
        }
        break;
    default: /* PK_CFUNC: bound to exactly its module or class */
        if (self != need) {
            return 0;
        }
        self = NULL; /* the module or class: no state of the code's */
        break;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (!inert(args[i])) {
            return 0;
        }
    }
    if (self != NULL && !inert_instance(in_st(in), self)) {
        return 0;
    }
    return 1;
}

/* From 3.11, PyThreadState_EnterTracing is the cheap way to turn the
 * profile off for a while (what CPython does around its own trace and
 * profile calls): no profile events and no tracing path until
 * PyThreadState_LeaveTracing, and no sys.setprofile audit event twice per
 * call.  3.10 has no such call: the profile is removed and put back. */
#if PY_VERSION_HEX >= 0x030B0000
#define PAUSE_BY_TRACING 1
#else
#define PAUSE_BY_TRACING 0
#endif

void
gadgets_pause(Interp *in, GadgetPause *p)
{
    p->gc_was_enabled = PyGC_Disable();
#if PAUSE_BY_TRACING
    PyThreadState_EnterTracing(in_budget(in)->run_ts); /* a host call of the step */
#else
    Interp *tw = tripwire_suspend(); /* our own sys.setprofile event */
    gadgets_suspend(&p->prof);
    tripwire_restore(tw);
#endif
    in_guard(in)->gadgets_paused++;
}

void
gadgets_unpause(Interp *in, GadgetPause *p)
{
    in_guard(in)->gadgets_paused--;
#if PAUSE_BY_TRACING
    PyThreadState_LeaveTracing(in_budget(in)->run_ts);
#else
    Interp *tw = tripwire_suspend();
    gadgets_resume(&p->prof);
    tripwire_restore(tw);
#endif
    if (p->gc_was_enabled) {
        PyGC_Enable();
    }
}

void
gadgets_reenter(Interp *in, GadgetSave *save, int *paused)
{
    *paused = in_guard(in)->gadgets_paused;
    in_guard(in)->gadgets_paused = 0;
#if PAUSE_BY_TRACING
    /* undo the pauses (the profile function is still ours) */
    for (int i = 0; i < *paused; i++) {
        PyThreadState_LeaveTracing(PyThreadState_Get());
    }
#endif
    gadgets_arm(in, save);
}

void
gadgets_reenter_done(Interp *in, GadgetSave *save, int paused)
{
    gadgets_disarm(save);
#if PAUSE_BY_TRACING
    for (int i = 0; i < paused; i++) {
        PyThreadState_EnterTracing(PyThreadState_Get());
    }
#endif
    in_guard(in)->gadgets_paused = paused;
}
