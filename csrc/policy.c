/* policy.c: what interpreted code may reach.
 *
 * 1. Imports: the authorized list with smolagents' rules ("pkg.*", "*").
 * 2. One attribute choke point (policy_check_attr_name): every attribute
 *    read, write and delete made by interpreted code passes here, with the
 *    exact name (a str subclass is copied to an exact str first).
 * 3. Value gates (policy_check_value): modules that are not authorized,
 *    frames, tracebacks, code objects and the dangerous builtins never enter
 *    the interpreter as values.
 * 4. Call gate (policy_check_call): dangerous callables are refused when
 *    called, however they were reached.
 *
 * Refusals raise the interpreter error and abort the step (uncatchable).
 * docs/security.md lists the guarantees; tests/security/ attacks them.
 */
#include "interp.h"

#include <string.h>

/* Dunder names interpreted code may read: harmless metadata, and __init__
 * so that super().__init__(...) works.  Everything else with leading and
 * trailing double underscores is refused. */
static const char *const dunder_allow[] = {
    "__init__", "__name__", "__qualname__", "__doc__", "__class__",
    "__module__", NULL,
};

/* Attributes that lead to interpreter internals without underscores. */
static const char *const internal_names[] = {
    "gi_frame", "gi_code", "gi_yieldfrom", "gi_running", "gi_suspended",
    "cr_frame", "cr_code", "cr_await", "cr_origin", "cr_running",
    "ag_frame", "ag_code", "ag_await", "ag_running",
    "f_back", "f_globals", "f_locals", "f_builtins", "f_code", "f_trace",
    "tb_frame", "tb_next", "tb_lasti", "tb_lineno",
    "mro", "func_globals", "func_code", NULL,
};

static int
is_dunder(PyObject *name)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(name);
    return n >= 4 && PyUnicode_READ_CHAR(name, 0) == '_' &&
           PyUnicode_READ_CHAR(name, 1) == '_' &&
           PyUnicode_READ_CHAR(name, n - 1) == '_' &&
           PyUnicode_READ_CHAR(name, n - 2) == '_';
}

static int
in_list(PyObject *name, const char *const *list)
{
    const char *s = PyUnicode_AsUTF8(name);
    if (s == NULL) {
        PyErr_Clear();
        return 0;
    }
    for (int i = 0; list[i]; i++) {
        if (strcmp(s, list[i]) == 0) {
            return 1;
        }
    }
    return 0;
}

int
policy_check_attr_name(Interp *in, PyObject *obj, PyObject *name, int store)
{
    if (!PyUnicode_CheckExact(name)) {
        PyErr_SetString(PyExc_TypeError, "attribute name must be string");
        return -1;
    }
    if (is_dunder(name)) {
        if (store || !in_list(name, dunder_allow)) {
            raise_interp_error(in, "Forbidden access to dunder attribute: %U",
                               name);
            return -1;
        }
        return 0;
    }
    if (PyUnicode_GET_LENGTH(name) > 3 && PyUnicode_READ_CHAR(name, 0) == 'c' &&
        PyUnicode_READ_CHAR(name, 1) == 'o' && PyUnicode_READ_CHAR(name, 2) == '_') {
        raise_interp_error(in, "Forbidden access to internal attribute: %U", name);
        return -1;
    }
    if (in_list(name, internal_names)) {
        raise_interp_error(in, "Forbidden access to internal attribute: %U", name);
        return -1;
    }
    if (PyModule_Check(obj) && PyUnicode_GET_LENGTH(name) > 0 &&
        PyUnicode_READ_CHAR(name, 0) == '_') {
        raise_interp_error(in, "Forbidden access to private module attribute: %U",
                           name);
        return -1;
    }
    return 0;
}

PyObject *
policy_getattr(Interp *in, PyObject *obj, PyObject *name)
{
    if (policy_check_attr_name(in, obj, name, 0) < 0) {
        return NULL;
    }
    PyObject *v = PyObject_GetAttr(obj, name);
    if (v != NULL && policy_check_value(in, v) < 0) {
        Py_CLEAR(v);
    }
    return v;
}

int
policy_setattr(Interp *in, PyObject *obj, PyObject *name, PyObject *value)
{
    if (policy_check_attr_name(in, obj, name, 1) < 0) {
        return -1;
    }
    if (PyModule_Check(obj)) {
        /* no monkey-patching of modules shared with the host */
        raise_interp_error(in, "Forbidden assignment to module attribute: %U",
                           name);
        return -1;
    }
    return PyObject_SetAttr(obj, name, value);
}

int
policy_delattr(Interp *in, PyObject *obj, PyObject *name)
{
    if (policy_check_attr_name(in, obj, name, 1) < 0) {
        return -1;
    }
    if (PyModule_Check(obj)) {
        raise_interp_error(in, "Forbidden deletion of module attribute: %U", name);
        return -1;
    }
    return PyObject_DelAttr(obj, name);
}

/* ---------------------------------------------------------------- imports */

/* 1 if `modname` is authorized by the list, 0 if not. */
static int
import_authorized(PyObject *authorized, PyObject *modname)
{
    Py_ssize_t n = PyList_GET_SIZE(authorized);
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = PyList_GET_ITEM(authorized, i);
        if (!PyUnicode_Check(a)) {
            continue;
        }
        if (PyUnicode_CompareWithASCIIString(a, "*") == 0) {
            return 1;
        }
        if (PyUnicode_Compare(a, modname) == 0) {
            return 1;
        }
        Py_ssize_t la = PyUnicode_GET_LENGTH(a);
        if (la >= 2 && PyUnicode_READ_CHAR(a, la - 1) == '*' &&
            PyUnicode_READ_CHAR(a, la - 2) == '.') {
            /* "pkg.*": pkg itself and every submodule */
            PyObject *prefix = PyUnicode_Substring(a, 0, la - 2);
            if (prefix == NULL) {
                PyErr_Clear();
                continue;
            }
            Py_ssize_t lp = la - 2;
            int ok = PyUnicode_Compare(prefix, modname) == 0 ||
                     (PyUnicode_GET_LENGTH(modname) > lp &&
                      PyUnicode_Tailmatch(modname, prefix, 0, lp, -1) == 1 &&
                      PyUnicode_READ_CHAR(modname, lp) == '.');
            Py_DECREF(prefix);
            if (ok) {
                return 1;
            }
        }
    }
    return 0;
}

int
policy_check_import(Interp *in, PyObject *modname)
{
    if (in->authorized && import_authorized(in->authorized, modname)) {
        return 0;
    }
    PyObject *lst = in->authorized ? PyObject_Repr(in->authorized) : NULL;
    if (lst == NULL) {
        PyErr_Clear();
        lst = PyUnicode_FromString("[]");
        if (lst == NULL) {
            return -1;
        }
    }
    raise_interp_error(in, "Import of %U is not allowed. Authorized imports are: %U",
                       modname, lst);
    Py_DECREF(lst);
    return -1;
}

PyObject *
policy_import(Frame *f, PyObject *name, PyObject *fromlist, int level)
{
    Interp *in = f->in;
    if (level > 0) {
        PyErr_SetString(PyExc_ImportError,
                        "attempted relative import with no known parent package");
        return NULL;
    }
    if (policy_check_import(in, name) < 0) {
        return NULL;
    }
    PyObject *mod = PyImport_ImportModuleLevelObject(name, NULL, NULL, fromlist, 0);
    if (mod == NULL) {
        return NULL;
    }
    return mod;
}

/* ------------------------------------------------------------ value gates */

int
policy_check_call(Interp *in, PyObject *callable)
{
    ModState *st = in->st;
    if (PyCFunction_Check(callable) || Py_TYPE(callable) == &PyType_Type) {
        for (int i = 0; i < st->ndangerous; i++) {
            if (st->dangerous[i] == callable) {
                PyObject *nm = PyObject_GetAttrString(callable, "__qualname__");
                if (nm == NULL) {
                    PyErr_Clear();
                    nm = PyUnicode_FromString("?");
                }
                raise_interp_error(in, "Forbidden function evaluation: '%U' is "
                                       "not among the explicitly allowed tools "
                                       "or defined/imported in the preceding "
                                       "code",
                                   nm);
                Py_XDECREF(nm);
                return -1;
            }
        }
    }
    return 0;
}

int
policy_check_value(Interp *in, PyObject *v)
{
    PyTypeObject *tp = Py_TYPE(v);
    if (tp == &PyFrame_Type || tp == &PyTraceBack_Type || tp == &PyCode_Type) {
        raise_interp_error(in, "Forbidden access to internal object of type %s",
                           tp->tp_name);
        return -1;
    }
    if (PyModule_Check(v)) {
        PyObject *name = PyModule_GetNameObject(v);
        if (name == NULL) {
            PyErr_Clear();
            raise_interp_error(in, "Forbidden access to a module");
            return -1;
        }
        int ok = in->authorized && import_authorized(in->authorized, name);
        if (!ok) {
            raise_interp_error(in, "Forbidden access to module: %U", name);
        }
        Py_DECREF(name);
        return ok ? 0 : -1;
    }
    if (PyCFunction_Check(v)) {
        ModState *st = in->st;
        for (int i = 0; i < st->ndangerous; i++) {
            if (st->dangerous[i] == v) {
                return policy_check_call(in, v);
            }
        }
    }
    return 0;
}

/* ---------------------------------------------------------------- builtins */

/* The builtins interpreted code sees, minus what reaches outside.  The
 * guarded replacements (print, getattr, ...) are added per interpreter by
 * module.c. */
PyObject *
policy_build_safe_builtins(PyObject *module, ModState *st)
{
    static const char *const removed[] = {
        "eval", "exec", "compile", "open", "input", "breakpoint", "globals",
        "locals", "vars", "help", "exit", "quit", "copyright", "credits",
        "license", "__import__", "__build_class__", "__loader__", "__spec__",
        "__package__", "__doc__", "__debug__", "getattr", "setattr", "hasattr",
        "delattr", "print", "memoryview", NULL,
    };
    PyObject *b = PyImport_ImportModule("builtins");
    if (b == NULL) {
        return NULL;
    }
    PyObject *d = PyModule_GetDict(b);
    PyObject *out = PyDict_Copy(d);
    if (out == NULL) {
        Py_DECREF(b);
        return NULL;
    }
    for (int i = 0; removed[i]; i++) {
        PyObject *v = PyDict_GetItemString(out, removed[i]);
        if (v != NULL && st->ndangerous < (int)(sizeof(st->dangerous) / sizeof(PyObject *)) &&
            strcmp(removed[i], "print") != 0 && strcmp(removed[i], "getattr") != 0 &&
            strcmp(removed[i], "setattr") != 0 && strcmp(removed[i], "hasattr") != 0 &&
            strcmp(removed[i], "delattr") != 0 && strcmp(removed[i], "__doc__") != 0 &&
            strcmp(removed[i], "__package__") != 0 && strcmp(removed[i], "__spec__") != 0 &&
            strcmp(removed[i], "__loader__") != 0 && strcmp(removed[i], "__debug__") != 0 &&
            strcmp(removed[i], "memoryview") != 0) {
            Py_INCREF(v);
            st->dangerous[st->ndangerous++] = v;
        }
        if (PyDict_DelItemString(out, removed[i]) < 0) {
            PyErr_Clear();
        }
    }
    /* host functions that run commands, refused even when os is authorized */
    static const char *const modfuncs[][2] = {
        {"os", "system"}, {"os", "popen"}, {"posix", "system"},
        {"os", "execv"}, {"os", "execve"}, {"os", "fork"}, {"os", "spawnv"},
        {"os", "kill"}, {"os", "_exit"}, {NULL, NULL},
    };
    for (int i = 0; modfuncs[i][0]; i++) {
        PyObject *m = PyImport_ImportModule(modfuncs[i][0]);
        if (m == NULL) {
            PyErr_Clear();
            continue;
        }
        PyObject *fn = PyObject_GetAttrString(m, modfuncs[i][1]);
        Py_DECREF(m);
        if (fn == NULL) {
            PyErr_Clear();
            continue;
        }
        if (st->ndangerous < (int)(sizeof(st->dangerous) / sizeof(PyObject *))) {
            st->dangerous[st->ndangerous++] = fn;
        }
        else {
            Py_DECREF(fn);
        }
    }
    if (PyDict_SetItemString(out, "__name__", st->str_main) < 0) {
        Py_DECREF(out);
        Py_DECREF(b);
        return NULL;
    }
    Py_DECREF(b);
    return out;
}
