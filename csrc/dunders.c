/* dunders.c: the reviewed allowlist of dunder attributes the code may read
 * beyond the always-allowed ones (docs/security.md, "Dunder attributes agents
 * read").
 *
 * Every entry says on which objects it may be read and why that leads
 * nowhere new: what it returns, and that everything reachable from that value
 * goes through the same attribute choke point (tests/security/
 * test_dunder_allowlist.py attacks each one).  Writes and deletes of dunders
 * stay refused (policy_check_attr_name); a name not listed stays refused.
 */
#include "interp.h"

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
    /* why (kept next to the entry; docs/security.md says the same):
       see the comment on each line */
} DunderRule;

static const DunderRule rules[] = {
    /* exception chaining: an exception, None or a bool; exceptions are
       values the code can already catch; __traceback__ stays refused */
    {"__cause__", ON_EXCEPTION},
    {"__context__", ON_EXCEPTION},
    {"__suppress_context__", ON_EXCEPTION},
    /* a list of the notes (strings added with add_note) */
    {"__notes__", ON_EXCEPTION},
    /* the class hierarchy: tuples of classes (`type(x)` already hands out
       classes); __subclasses__ stays refused, host classes stay read-only
       and their `_private` attributes refused */
    {"__mro__", ON_CLASS},
    {"__bases__", ON_CLASS},
    {"__base__", ON_CLASS},
    /* the namespace of the code's own classes (a read-only mappingproxy) and
       instances (the dict of what the code stored; protocol names planted
       there are ignored: provenance.c guards the instances' lookups);
       never a module's, a host class's or a host object's dict */
    {"__dict__", ON_CODE_OWN},
    /* annotations the code wrote itself */
    {"__annotations__", ON_CODE_FUNC},
    /* PEP 695 (3.12+): the type parameters of the code's own generic
       functions and classes, a tuple of the TypeVar, ParamSpec and
       TypeVarTuple objects CPython made for the names the code wrote (their
       lazily evaluated bounds, constraints and defaults are the code's own
       interpreted functions, and __bound__ & co. stay refused); a class's
       is a namespace entry, so at worst what its body stored there */
    {"__type_params__", ON_CODE_DEF},
    /* the bases of the code's own class as its `class` statement wrote them
       (with Generic[...] for a generic class): objects the code held */
    {"__orig_bases__", ON_CODE_OWN},
    /* what functools.wraps stored on the code's own function: an object the
       code passed to wraps, so held already */
    {"__wrapped__", ON_CODE_FUNC},
    /* a module's published version (usually a str): plain data */
    {"__version__", ON_MODULE},
    /* names of attributes (str, or tuples / dicts of str): plain data */
    {"__slots__", ON_ANY},
    {"__match_args__", ON_ANY},
    /* 3.13+: a class's first line (an int) and the attribute names its
       methods assign on self (a tuple of str): plain data */
    {"__firstlineno__", ON_ANY},
    {"__static_attributes__", ON_ANY},
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
             (i >= 2 && annotate_check(in->st, v));
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
            return Py_TYPE(obj) == in->st->FunctionType ||
                   (PyType_Check(obj) && code_own(obj) &&
                    class_annotations_ours(in, (PyTypeObject *)obj));
#else
            return Py_TYPE(obj) == in->st->FunctionType ||
                   (PyType_Check(obj) && code_own(obj));
#endif
        case ON_CODE_DEF:
            return Py_TYPE(obj) == in->st->FunctionType ||
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
