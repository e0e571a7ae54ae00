/* dunders.c: the reviewed allowlist of dunder attributes the code may read
 * beyond the always-allowed ones (docs/security.md, "Dunder attributes agents
 * read"): dunders.def, one entry per name with on which objects it may be
 * read and why that leads nowhere new (what it returns; everything reachable
 * from that value goes through the same attribute choke point).  Writes and
 * deletes of dunders stay refused (policy_check_attr_name); a name not listed
 * stays refused.
 */
#include "guard.h"

typedef enum {
    ON_EXCEPTION, /* an exception instance */
    ON_CLASS,     /* any class */
    ON_CODE_OWN,  /* a class the code made, or an instance of one */
    ON_CODE_FUNC, /* a function the code defined, or a class the code made
                     (3.14+: functions only, see below) */
    ON_CODE_DEF,  /* a function the code defined, or a class the code made */
    ON_MODULE,    /* a module (the choke point has already refused
                     unauthorized ones) */
    ON_ANY,       /* any object */
} Where;

typedef struct {
    const char *name;
    Where where;
} DunderRule;

/* dunders.def: each entry with where it may be read and why (the reasons are
 * the table of docs/security.md, generated from the same file) */
static const DunderRule rules[] = {
#define DUNDER(name, where, on, why) {#name, where},
#include "dunders.def"
#undef DUNDER
};

/* 1 when the object is the code's own class or an instance of one. */
static int
code_own(PyObject *obj)
{
    if (PyType_Check(obj)) {
        return provenance_is_code_type((PyTypeObject *)obj);
    }
    return provenance_is_code_type(Py_TYPE(obj));
}

#if PY_VERSION_HEX >= 0x030E0000
/* What type's __annotations__ getter (3.14) reads from the class's own dict
 * (__annotations__, __annotations_cache__, then __annotate__ or
 * __annotate_func__, each through its __get__ if it has one): absent, a
 * plain dict, None, or an annotate object of the interpreter's (annotate.c),
 * so that reading the annotations runs only the code's own annotations.
 * Never raises. */
static int
class_annotations_ours(Interp *in, PyTypeObject *tp)
{
    static const char *const keys[] = {"__annotations__",
                                       "__annotations_cache__",
                                       "__annotate__", "__annotate_func__"};
    PyObject *d = PyType_GetDict(tp);
    int ok = d != NULL && PyDict_CheckExact(d);
    for (size_t i = 0; ok && i < sizeof(keys) / sizeof(keys[0]); i++) {
        PyObject *v = PyDict_GetItemString(d, keys[i]); /* borrowed */
        ok = v == NULL || v == Py_None || PyDict_CheckExact(v) ||
             (i >= 2 && annotate_check(in_st(in), v));
    }
    Py_XDECREF(d);
    PyErr_Clear();
    return ok;
}
#endif

int
dunder_read_allowed(Interp *in, PyObject *obj, PyObject *name)
{
    if (obj == NULL) {
        return 0; /* every entry depends on the object */
    }
    for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++) {
        if (PyUnicode_CompareWithASCIIString(name, rules[i].name) != 0) {
            continue;
        }
        switch (rules[i].where) {
        case ON_EXCEPTION:
            return PyExceptionInstance_Check(obj);
        case ON_CLASS:
            return PyType_Check(obj);
        case ON_CODE_OWN:
            return code_own(obj);
        case ON_CODE_FUNC:
#if PY_VERSION_HEX >= 0x030E0000
            /* 3.14: a class's __annotations__ is type's getter, which calls
               an __annotate__ it finds in the class (PEP 649): a class of
               the code's whose own dict gives it nothing but plain dicts
               and the interpreter's annotate objects (docs/security.md) */
            return Py_TYPE(obj) == in_st(in)->FunctionType ||
                   (PyType_Check(obj) && code_own(obj) &&
                    class_annotations_ours(in, (PyTypeObject *)obj));
#else
            return Py_TYPE(obj) == in_st(in)->FunctionType ||
                   (PyType_Check(obj) && code_own(obj));
#endif
        case ON_CODE_DEF:
            return Py_TYPE(obj) == in_st(in)->FunctionType ||
                   (PyType_Check(obj) && code_own(obj));
        case ON_MODULE:
            return PyModule_Check(obj);
        case ON_ANY:
            return 1;
        }
        return 0;
    }
    return 0;
}
