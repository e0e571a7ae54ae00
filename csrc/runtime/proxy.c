/* proxy.c: opaque tools (docs/security.md, "Opaque tools").
 *
 * The code never holds a tool, an additional function or a custom tool
 * itself: it holds a ToolProxy, a call-only object.  Calling the proxy calls
 * the host callable with the same positional and keyword arguments (a final
 * answer's exception passes through unchanged).  The only readable attributes
 * are copies, made when the proxy is built, of `name`, `description`,
 * `inputs`, `output_type`, `__name__` and `__doc__`; the callable, its class
 * and its methods (`from_code`, `save`, `forward`, `__call__`...) are never
 * reachable.  The proxy type cannot be instantiated, subclassed or mutated
 * and has no methods of its own, so `type(proxy)` leads nowhere.
 *
 * Around the real call the tripwire is suspended (tools are the host's code,
 * tripwire.c), and a tool that returns after the step's deadline ends the
 * step with the timeout error (issue 12, point 5).
 */
#include "runtime.h"

#include <structmember.h>

typedef struct {
    PyObject_HEAD vectorcallfunc vectorcall;
    PyObject *target; /* the host callable */
    PyObject *attrs;  /* dict: readable name -> copied value */
} ProxyObject;

static const char *const readable_names[] = {
    "name", "description", "inputs", "output_type", "__name__", "__doc__",
};

/* Returns a new reference: the result of the host call, or NULL. */
static PyObject *
proxy_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                 PyObject *kwnames)
{
    ProxyObject *p = (ProxyObject *)self;
    PyObject *target = Py_NewRef(p->target);
    /* a tool is the host's code, not acting for the code: the window of
       this thread suspended (window.c: no tripwire, no gadget refusals, its
       classes are not the code's, its allocations do not count against the
       step's memory budget, the host's decimal context); interpreted code
       the tool enters (a __str__ of the code's object, a finalizer run by
       the collector meanwhile) rejoins it (interp_rearm) */
    WindowSave ws;
    Interp *in = window_suspend(&ws);
    PyObject *res = PyObject_Vectorcall(target, args, nargsf, kwnames);
    window_resume(in, &ws);
    Py_DECREF(target);
    if (in != NULL && in_budget(in)->abort != ABORT_NONE) {
        /* the code refused inside the tool (its callback), and the tool
           caught the error: the step ends all the same */
        Py_XDECREF(res);
        PyErr_Clear();
        limits_reraise_abort(in);
        return NULL;
    }
    if (in != NULL && in_budget(in)->deadline > 0 && in_budget(in)->abort == ABORT_NONE &&
        limits_now() >= in_budget(in)->deadline) {
        /* the tool outlived the deadline: the step ends now */
        Py_XDECREF(res);
        PyErr_Clear();
        limits_abort(in, ABORT_TIMEOUT,
                     "Code execution exceeded the maximum execution time "
                     "(during a tool call)");
        return NULL;
    }
    return res;
}

static PyObject *
proxy_getattro(PyObject *self, PyObject *name)
{
    ProxyObject *p = (ProxyObject *)self;
    if (PyUnicode_CheckExact(name)) {
        PyObject *v = PyDict_GetItemWithError(p->attrs, name);
        if (v != NULL) {
            return Py_NewRef(v);
        }
        if (PyErr_Occurred()) {
            return NULL;
        }
    }
    PyErr_Format(PyExc_AttributeError,
                 "tool proxy has no readable attribute %R (readable: name, "
                 "description, inputs, output_type, __name__, __doc__)",
                 name);
    return NULL;
}

static int
proxy_setattro(PyObject *self, PyObject *name, PyObject *value)
{
    PyErr_Format(PyExc_AttributeError, "tool proxy attributes are read-only");
    return -1;
}

static PyObject *
proxy_repr(PyObject *self)
{
    ProxyObject *p = (ProxyObject *)self;
    PyObject *nm = PyDict_GetItemString(p->attrs, "name"); /* borrowed */
    if (nm == NULL || !PyUnicode_Check(nm)) {
        nm = PyDict_GetItemString(p->attrs, "__name__");
    }
    if (nm != NULL && PyUnicode_Check(nm)) {
        return PyUnicode_FromFormat("<tool %R>", nm);
    }
    return PyUnicode_FromString("<tool>");
}

static int
proxy_traverse(PyObject *self, visitproc visit, void *arg)
{
    ProxyObject *p = (ProxyObject *)self;
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(p->target);
    Py_VISIT(p->attrs);
    return 0;
}

static int
proxy_clear(PyObject *self)
{
    ProxyObject *p = (ProxyObject *)self;
    Py_CLEAR(p->target);
    Py_CLEAR(p->attrs);
    return 0;
}

static void
proxy_dealloc(PyObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    proxy_clear(self);
    tp->tp_free(self);
    Py_DECREF(tp);
}

static PyMemberDef proxy_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(ProxyObject, vectorcall),
     READONLY},
    {NULL},
};

static PyType_Slot proxy_slots[] = {
    {Py_tp_members, proxy_members},
    {Py_tp_call, PyVectorcall_Call},
    {Py_tp_getattro, proxy_getattro},
    {Py_tp_setattro, proxy_setattro},
    {Py_tp_repr, proxy_repr},
    {Py_tp_traverse, proxy_traverse},
    {Py_tp_clear, proxy_clear},
    {Py_tp_dealloc, proxy_dealloc},
    {Py_tp_doc, "A call-only stand-in for a host tool."},
    {0, NULL},
};

PyType_Spec Proxy_spec = {
    .name = "smolagents_native._core.ToolProxy",
    .basicsize = sizeof(ProxyObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC |
             Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_IMMUTABLETYPE |
             Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = proxy_slots,
};

/* Does `v` reach the code as it is?  Builtin functions of modules and
 * builtin (static) types hold no host Python code; everything else that is
 * callable is proxied. */
static int
needs_proxy(ModState *st, PyObject *v)
{
    if (!PyCallable_Check(v) || Py_IS_TYPE(v, st->ProxyType)) {
        return 0;
    }
    if (PyCFunction_Check(v)) {
        PyObject *self = PyCFunction_GET_SELF(v);
        return !(self == NULL || PyModule_Check(self));
    }
    if (PyType_Check(v)) {
        return (((PyTypeObject *)v)->tp_flags & Py_TPFLAGS_HEAPTYPE) != 0;
    }
    return 1;
}

/* Copy of an attribute value for the code: str, None, numbers as they are,
 * anything else through copy.deepcopy (a tool's `inputs` dict).  New ref,
 * or NULL with no error when the value cannot be copied (left out). */
static PyObject *
copy_value(PyObject *v)
{
    if (v == Py_None || PyUnicode_CheckExact(v) || PyLong_CheckExact(v) ||
        PyFloat_CheckExact(v) || PyBool_Check(v)) {
        return Py_NewRef(v);
    }
    PyObject *copy = PyImport_ImportModule("copy");
    if (copy == NULL) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *r = PyObject_CallMethod(copy, "deepcopy", "O", v);
    Py_DECREF(copy);
    if (r == NULL) {
        PyErr_Clear();
    }
    return r;
}

PyObject *
proxy_wrap(ModState *st, PyObject *v)
{
    if (!needs_proxy(st, v)) {
        return Py_NewRef(v);
    }
    ProxyObject *p = NULL;
    PyObject *attrs = PyDict_New();
    if (attrs == NULL) {
        goto error;
    }
    for (size_t i = 0; i < sizeof(readable_names) / sizeof(*readable_names);
         i++) {
        PyObject *a = PyObject_GetAttrString(v, readable_names[i]);
        if (a == NULL) {
            PyErr_Clear(); /* missing, or a property that fails */
            continue;
        }
        PyObject *c = copy_value(a);
        Py_DECREF(a);
        if (c == NULL) {
            continue;
        }
        int r = PyDict_SetItemString(attrs, readable_names[i], c);
        Py_DECREF(c);
        if (r < 0) {
            goto error;
        }
    }
    p = PyObject_GC_New(ProxyObject, st->ProxyType);
    if (p == NULL) {
        goto error;
    }
    p->vectorcall = proxy_vectorcall;
    p->target = Py_NewRef(v);
    p->attrs = attrs;
    PyObject_GC_Track(p);
    return (PyObject *)p;
error:
    Py_XDECREF(attrs);
    return NULL;
}

int
proxy_is_proxy(ModState *st, PyObject *v)
{
    return Py_IS_TYPE(v, st->ProxyType);
}
