/* lazyimport.c: `lazy import m` and `lazy from m import n` (PEP 810, CPython
 * 3.15).
 *
 * What CPython does: the statement (module level only; the compiler refuses
 * it in functions, classes and try blocks) binds the name to a `lazy_import`
 * object; the first load of the name through the module's globals (a
 * global or module-level name, from any function of the module) imports the
 * module then and rebinds the name to the result; reading the globals dict
 * itself (globals(), vars(), the host's state) shows the lazy object.
 * `lazy from m import n` binds at once when m is already imported.
 *
 * Here: the statement binds a `lazy_import` object of ours (the statement's
 * node and which of its names), and the interpreter's two global lookups
 * (globalcache.c's gcache_load_slow and eval_expr.c's global_lookup_slow)
 * resolve it when they find one in the globals: the import runs then, as
 * the eager statement would run it (eval_stmt.c's import_binding: the same
 * policy, so an import the policy refuses is refused at the first use, as
 * the import then happens), under the executor whose code loads the name.
 * The global-name cache never holds a lazy object: storing one empties the
 * cache (gcache_forget), and a resolution rebinds the name with a plain dict
 * store, a change the cache sees.  The object has no attribute or method of
 * its own (only its repr): it leads nowhere.
 */
#include "eval.h"

typedef struct {
    PyObject_HEAD PyObject *program; /* ProgramObject keeping `stmt` alive */
    Node *stmt;                      /* the Import / ImportFrom statement */
    Py_ssize_t index;                /* which of its names */
} LazyImportObject;

static void
lazyimport_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    Py_XDECREF(((LazyImportObject *)self)->program);
    PyObject_Free(self);
    Py_DECREF(tp);
}

static PyObject *
lazyimport_repr(PyObject *self)
{
    LazyImportObject *li = (LazyImportObject *)self;
    Node *s = li->stmt;
    if (s->kind == K_Import) {
        return PyUnicode_FromFormat("<lazy_import '%U'>",
                                    s->Import.names[li->index]->obj);
    }
    return PyUnicode_FromFormat("<lazy_import '%U.%U'>", s->obj,
                                s->ImportFrom.names[li->index]->obj);
}

static PyType_Slot lazyimport_slots[] = {
    {Py_tp_dealloc, lazyimport_dealloc},
    {Py_tp_repr, lazyimport_repr},
    {0, NULL},
};

PyType_Spec LazyImport_spec = {
    .name = "smolagents_native._core.lazy_import",
    .basicsize = sizeof(LazyImportObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_IMMUTABLETYPE |
             Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = lazyimport_slots,
};

PyObject *
lazyimport_new(Frame *f, Node *stmt, Py_ssize_t index)
{
    LazyImportObject *li =
        PyObject_New(LazyImportObject, in_st(f->in)->LazyImportType);
    if (li == NULL) {
        return NULL;
    }
    li->program = Py_NewRef(f->program);
    li->stmt = stmt;
    li->index = index;
    return (PyObject *)li;
}

PyObject *
lazyimport_resolve(Frame *f, PyObject *name, PyObject *lazy)
{
    LazyImportObject *li = (LazyImportObject *)Py_NewRef(lazy);
    PyObject *v = import_binding(f, li->stmt, li->index);
    if (v != NULL) {
        /* rebind the name, unless the import's own code rebound it */
        PyObject *cur = PyDict_GetItemWithError(f->globals, name);
        if ((cur == lazy && PyDict_SetItem(f->globals, name, v) < 0) ||
            (cur == NULL && PyErr_Occurred())) {
            Py_CLEAR(v);
        }
    }
    Py_DECREF(lazy);
    return v;
}
