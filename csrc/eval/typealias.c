/* typealias.c: the `type` statement (PEP 695, CPython 3.12+), and the type
 * parameters of generic functions and classes (lower.c's lower_generic runs
 * the same node with a helper that returns the parameters instead of an
 * alias, stored into the annotation scope's names).
 *
 * lower.c (lower_type_alias) turns `type Name[params] = value` into a
 * helper that CPython compiles from generated source,
 *
 *     def _mk(thunks):
 *         type Name[params] = thunks[0](params...)
 *         return Name
 *
 * and into interpreted functions (thunks) for the value and for each bound,
 * constraint and default of the type parameters.  Running the statement
 * evaluates the thunks to function objects in the current scope, runs the
 * helper and binds the resulting typing.TypeAliasType to Name.  CPython's
 * own objects then evaluate the thunks lazily, on first access to
 * __value__, __bound__, __constraints__ or __default__, exactly as for
 * compiled code; inside the sandbox those dunders are not readable (the
 * attribute policy), so the lazy value runs when the host or an allowed
 * typing function asks for it, under the interpreter's budgets like any
 * interpreted function.
 */
#include "eval.h"

Status
eval_type_alias(Frame *f, Node *s)
{
    PyObject *thunks = NULL, *g = NULL, *b = NULL, *r = NULL, *mk = NULL;
    PyObject *alias = NULL;
    Status st = ST_ERROR;
    thunks = PyTuple_New(s->TypeAlias.nthunks);
    if (thunks == NULL) {
        goto done;
    }
    for (Py_ssize_t i = 0; i < s->TypeAlias.nthunks; i++) {
        PyObject *fn = eval_expr(f, s->TypeAlias.thunks[i]);
        if (fn == NULL) {
            goto done;
        }
        PyTuple_SET_ITEM(thunks, i, fn);
    }
    /* the helper's globals: the module name (the alias's __module__, as
       CPython takes it from the defining frame) and, of the builtins, only
       __build_class__ (lower.c's TP_CLASS: `class Name[params]: pass`) and
       __import__ (CPython imports typing to make Generic[*Ts]; the helper's
       source, generated from identifiers, names neither) */
    g = PyDict_New();
    b = PyDict_New();
    PyObject *bmod = b ? PyImport_ImportModule("builtins") : NULL;
    if (g == NULL || bmod == NULL) {
        goto done;
    }
    static const char *const keep[] = {"__build_class__", "__import__"};
    for (size_t i = 0; i < sizeof keep / sizeof keep[0]; i++) {
        PyObject *v = PyObject_GetAttrString(bmod, keep[i]);
        int r = v ? PyDict_SetItemString(b, keep[i], v) : -1;
        Py_XDECREF(v);
        if (r < 0) {
            Py_DECREF(bmod);
            goto done;
        }
    }
    Py_DECREF(bmod);
    if (PyDict_SetItemString(g, "__builtins__", b) < 0) {
        goto done;
    }
    if (PyDict_Check(f->globals)) {
        PyObject *modname =
            PyDict_GetItemWithError(f->globals, in_st(f->in)->str_name);
        if (modname == NULL && PyErr_Occurred()) {
            goto done;
        }
        if (modname != NULL &&
            PyDict_SetItem(g, in_st(f->in)->str_name, modname) < 0) {
            goto done;
        }
    }
    r = PyEval_EvalCode(s->obj, g, g);
    if (r == NULL) {
        goto done;
    }
    mk = PyDict_GetItemString(g, "_mk");
    if (mk == NULL) {
        PyErr_SetString(PyExc_SystemError, "type alias helper missing");
        goto done;
    }
    Py_INCREF(mk);
    alias = PyObject_CallOneArg(mk, thunks);
    if (alias == NULL || store_target(f, s->TypeAlias.target, alias) < 0) {
        goto done;
    }
    st = ST_OK;
done:
    Py_XDECREF(alias);
    Py_XDECREF(mk);
    Py_XDECREF(r);
    Py_XDECREF(b);
    Py_XDECREF(g);
    Py_XDECREF(thunks);
    return st;
}
