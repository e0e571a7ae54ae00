/* annotate.c: deferred annotations (PEP 649 / 749, CPython 3.14+).
 *
 * What CPython 3.14 does: the annotations of a function, and those of a
 * class body's annotated names, are not evaluated when the `def` or the
 * body runs; the compiler makes an `__annotate__(format)` function (in an
 * annotation scope, which inside a class body sees the class's names through
 * `__classdict__`) that evaluates them on demand; `__annotations__` calls it
 * with VALUE once and caches the dict; annotationlib derives FORWARDREF (a
 * name not defined yet becomes a `ForwardRef`) and STRING (the source text)
 * by running that function again with fake globals.
 *
 * Here: lower.c's lower_annotate makes the annotation scope, a function of
 * one parameter `.index` whose body is `if .index == i: return <annotation
 * i>` for each annotation (so that each is evaluated on its own), with the
 * annotations' names (ann_keys) and their ast expressions (ann_sources) in
 * its Scope.  A function keeps that function (FunctionObject.ann_thunk) and
 * its `__annotate__` is an `annotate` object made from it; a class body
 * stores one as `__annotate_func__` in its namespace, which is where
 * CPython's `type` looks for it.  Called with a format:
 *
 *   VALUE (1) and VALUE_WITH_FAKE_GLOBALS (2): {name: annotation}, each
 *     evaluated now, as interpreted code under the policy and the budgets of
 *     the executor that defined it (an error, NameError included, passes);
 *   FORWARDREF (3): the same, except that an annotation whose evaluation
 *     raises NameError becomes annotationlib.ForwardRef(<its source text>)
 *     (CPython makes the ForwardRef for the undefined name only, inside
 *     what can be evaluated: `list[Undefined]` is `list[ForwardRef(...)]`
 *     there, `ForwardRef('list[Undefined]')` here);
 *   STRING (4): {name: source text} (ast.unparse; a string constant is its
 *     value), nothing evaluated;
 *   any other: NotImplementedError, as CPython's generated functions.
 *
 * The object has no attribute of its own; the code never reads
 * `__annotate__` or `__annotate_func__` (dunders off the allowlist), host
 * code (annotationlib, dataclasses, typing) does.
 */
#include "eval.h"

typedef struct {
    PyObject_HEAD PyObject *thunk; /* FunctionObject of the annotation scope */
    PyObject *owner;               /* the function or class, or NULL */
    PyObject *done; /* class: set of the indices whose statement ran */
    int is_class;                  /* a class body's annotations */
} AnnotateObject;

PyObject *
annotate_new(ModState *st, PyObject *thunk, int is_class)
{
    if (Py_TYPE(thunk) != st->FunctionType ||
        ((FunctionObject *)thunk)->scope->ann_keys == NULL) {
        PyErr_SetString(PyExc_SystemError, "annotate: not an annotation scope");
        return NULL;
    }
    AnnotateObject *a = PyObject_GC_New(AnnotateObject, st->AnnotateType);
    if (a == NULL) {
        return NULL;
    }
    a->thunk = Py_NewRef(thunk);
    a->owner = NULL;
    a->done = NULL;
    a->is_class = is_class;
    PyObject_GC_Track(a);
    return (PyObject *)a;
}

/* The function or class whose annotations these are (ForwardRef's owner,
 * for its later evaluation). */
void
annotate_set_owner(PyObject *annotate, PyObject *owner)
{
    Py_XSETREF(((AnnotateObject *)annotate)->owner, Py_NewRef(owner));
}

void
annotate_set_done(PyObject *annotate, PyObject *done)
{
    AnnotateObject *a = (AnnotateObject *)annotate;
    Py_XSETREF(a->done, done ? Py_NewRef(done) : PySet_New(NULL));
    if (a->done == NULL) {
        PyErr_Clear(); /* then all of them */
    }
}

static Scope *
annotate_scope(AnnotateObject *a)
{
    return ((FunctionObject *)a->thunk)->scope;
}

/* Annotation i, evaluated now (new ref). */
static PyObject *
annotate_one(AnnotateObject *a, Py_ssize_t i)
{
    PyObject *idx = PyLong_FromSsize_t(i);
    if (idx == NULL) {
        return NULL;
    }
    PyObject *v = PyObject_CallOneArg(a->thunk, idx);
    Py_DECREF(idx);
    return v;
}

/* The source text of annotation i (new ref): a string constant is its
 * value (as annotationlib's STRING format gives it), anything else
 * ast.unparse's text. */
static PyObject *
annotate_source(AnnotateObject *a, Py_ssize_t i)
{
    PyObject *src = PyTuple_GET_ITEM(annotate_scope(a)->ann_sources, i);
    if (strcmp(Py_TYPE(src)->tp_name, "Constant") == 0) {
        PyObject *c = PyObject_GetAttrString(src, "value");
        if (c == NULL || PyUnicode_Check(c)) {
            return c;
        }
        Py_DECREF(c);
    }
    PyObject *ast = PyImport_ImportModule("ast");
    if (ast == NULL) {
        return NULL;
    }
    PyObject *r = PyObject_CallMethod(ast, "unparse", "O", src);
    Py_DECREF(ast);
    return r;
}

static PyObject *
annotate_forwardref(AnnotateObject *a, Py_ssize_t i)
{
    PyObject *text = annotate_source(a, i);
    if (text == NULL) {
        return NULL;
    }
    PyObject *mod = PyImport_ImportModule("annotationlib");
    PyObject *cls = mod ? PyObject_GetAttrString(mod, "ForwardRef") : NULL;
    PyObject *args = cls ? PyTuple_Pack(1, text) : NULL;
    PyObject *kw = args ? Py_BuildValue("{sOsO}", "is_class",
                                        a->is_class ? Py_True : Py_False,
                                        "owner",
                                        a->owner ? a->owner : Py_None)
                        : NULL;
    PyObject *r = kw ? PyObject_Call(cls, args, kw) : NULL;
    Py_XDECREF(kw);
    Py_XDECREF(args);
    Py_XDECREF(cls);
    Py_XDECREF(mod);
    Py_DECREF(text);
    return r;
}

static PyObject *
annotate_call(PyObject *self, PyObject *args, PyObject *kwargs)
{
    AnnotateObject *a = (AnnotateObject *)self;
    PyObject *format;
    if (!PyArg_UnpackTuple(args, "__annotate__", 1, 1, &format)) {
        return NULL;
    }
    if (kwargs != NULL && PyDict_GET_SIZE(kwargs)) {
        PyErr_SetString(PyExc_TypeError,
                        "__annotate__() takes no keyword arguments");
        return NULL;
    }
    /* an int or an int subclass (annotationlib.Format is an IntEnum) */
    long fmt = PyLong_Check(format) ? PyLong_AsLong(format) : -1;
    if (fmt == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (fmt < 1 || fmt > 4) {
        PyErr_SetNone(PyExc_NotImplementedError);
        return NULL;
    }
    PyObject *keys = annotate_scope(a)->ann_keys;
    Py_ssize_t n = PyTuple_GET_SIZE(keys);
    PyObject *d = PyDict_New();
    if (d == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *v;
        if (a->done != NULL) {
            PyObject *k = PyLong_FromSsize_t(i);
            int ran = k ? PySet_Contains(a->done, k) : -1;
            Py_XDECREF(k);
            if (ran < 0) {
                Py_DECREF(d);
                return NULL;
            }
            if (!ran) {
                continue;
            }
        }
        if (fmt == 4) {
            v = annotate_source(a, i);
        }
        else {
            v = annotate_one(a, i);
            if (v == NULL && fmt == 3 &&
                PyErr_ExceptionMatches(PyExc_NameError)) {
                /* only a NameError: a limit or a refusal of the policy is
                   an InterpreterError, which passes */
                PyErr_Clear();
                v = annotate_forwardref(a, i);
            }
        }
        if (v == NULL || PyDict_SetItem(d, PyTuple_GET_ITEM(keys, i), v) < 0) {
            Py_XDECREF(v);
            Py_DECREF(d);
            return NULL;
        }
        Py_DECREF(v);
    }
    return d;
}

static PyObject *
annotate_repr(PyObject *self)
{
    AnnotateObject *a = (AnnotateObject *)self;
    return PyUnicode_FromFormat("<annotate of %U at %p>",
                                ((FunctionObject *)a->thunk)->qualname, self);
}

static int
annotate_traverse(PyObject *self, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(((AnnotateObject *)self)->thunk);
    Py_VISIT(((AnnotateObject *)self)->owner);
    Py_VISIT(((AnnotateObject *)self)->done);
    return 0;
}

static int
annotate_clear(PyObject *self)
{
    Py_CLEAR(((AnnotateObject *)self)->thunk);
    Py_CLEAR(((AnnotateObject *)self)->owner);
    Py_CLEAR(((AnnotateObject *)self)->done);
    return 0;
}

static void
annotate_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    Py_CLEAR(((AnnotateObject *)self)->thunk);
    Py_CLEAR(((AnnotateObject *)self)->owner);
    Py_CLEAR(((AnnotateObject *)self)->done);
    PyObject_GC_Del(self);
    Py_DECREF(tp);
}

static PyType_Slot annotate_slots[] = {
    {Py_tp_dealloc, annotate_dealloc},
    {Py_tp_repr, annotate_repr},
    {Py_tp_call, annotate_call},
    {Py_tp_traverse, annotate_traverse},
    {Py_tp_clear, annotate_clear},
    {0, NULL},
};

PyType_Spec Annotate_spec = {
    .name = "smolagents_native._core.annotate",
    .basicsize = sizeof(AnnotateObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC |
             Py_TPFLAGS_DISALLOW_INSTANTIATION | Py_TPFLAGS_IMMUTABLETYPE,
    .slots = annotate_slots,
};
