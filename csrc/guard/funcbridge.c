/* funcbridge.c: interpreted functions where CPython's C code insists on a
 * real Python function.
 *
 * Interpreted functions are our own type (function.c), so C code that checks
 * `PyFunction_Check` refuses them.  The one place where ordinary code meets
 * that is `BaseExceptionGroup.split()` / `.subgroup()`, whose predicate must
 * be a `types.FunctionType`.  For those calls the predicate is replaced by a
 * real function, `lambda e: p(e)`, whose only global is the interpreted
 * predicate: the group calls it, it calls ours, which runs under the same
 * policy and budgets as any interpreted function called by host code.  The
 * replacement never becomes a value of the code (the group does not hand its
 * matcher out).
 */
#include "guard.h"

#if PY_VERSION_HEX >= 0x030B0000
/* The C function behind a builtin method descriptor of BaseExceptionGroup
 * (`split`, `subgroup`), or NULL with an exception. */
static PyCFunction
group_method(const char *name)
{
    PyObject *d = PyObject_GetAttrString(PyExc_BaseExceptionGroup, name);
    PyCFunction fn = NULL;
    if (d == NULL) {
        return NULL;
    }
    if (Py_TYPE(d) == &PyMethodDescr_Type) {
        fn = ((PyMethodDescrObject *)d)->d_method->ml_meth;
    }
    else {
        PyErr_Format(PyExc_SystemError,
                     "BaseExceptionGroup.%s is not a method descriptor", name);
    }
    Py_DECREF(d);
    return fn;
}

#endif

int
funcbridge_init_state(ModState *st)
{
#if PY_VERSION_HEX < 0x030B0000
    /* 3.10 has no exception groups: nothing to bridge */
    st->eg_split = st->eg_subgroup = NULL;
    return 0;
#else
    PyObject *globals = NULL, *code = NULL, *res = NULL, *fn;
    int rc = -1;
    st->eg_split = group_method("split");
    st->eg_subgroup = st->eg_split ? group_method("subgroup") : NULL;
    if (st->eg_subgroup == NULL) {
        goto done;
    }
    globals = PyDict_New();
    PyObject *nobuiltins = PyDict_New();
    if (globals == NULL || nobuiltins == NULL ||
        PyDict_SetItemString(globals, "__builtins__", nobuiltins) < 0) {
        Py_XDECREF(nobuiltins);
        goto done;
    }
    Py_DECREF(nobuiltins);
    res = PyRun_String("def match(e):\n    return p(e)\n", Py_file_input,
                       globals, globals);
    fn = res ? PyDict_GetItemString(globals, "match") : NULL; /* borrowed */
    if (fn == NULL || !PyFunction_Check(fn)) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_SystemError, "funcbridge: no matcher");
        }
        goto done;
    }
    code = PyFunction_GetCode(fn); /* borrowed */
    st->matcher_code = Py_NewRef(code);
    rc = 0;
done:
    Py_XDECREF(res);
    Py_XDECREF(globals);
    return rc;
#endif
}

/* A real function calling the interpreted `pred`.  New reference or NULL. */
static PyObject *
bridge(PyObject *code, PyObject *pred)
{
    PyObject *g = PyDict_New(), *b = PyDict_New(), *fn = NULL;
    if (g != NULL && b != NULL &&
        PyDict_SetItemString(g, "__builtins__", b) == 0 &&
        PyDict_SetItemString(g, "p", pred) == 0) {
        fn = PyFunction_New(code, g);
    }
    Py_XDECREF(g);
    Py_XDECREF(b);
    return fn;
}

/* The C function of a builtin function or method descriptor `func` when it
 * is one funcbridge_adapt_call adapts (ExceptionGroup split / subgroup),
 * else NULL; *at: where its predicate is among the arguments. */
static PyCFunction
adapted_method(ModState *st, PyObject *func, Py_ssize_t *at)
{
    PyCFunction meth = NULL;
    *at = 0;
    if (Py_TYPE(func) == &PyCFunction_Type) {
        /* bound: eg.split(pred) */
        meth = PyCFunction_GET_FUNCTION(func);
    }
    else if (Py_TYPE(func) == &PyMethodDescr_Type) {
        /* unbound: BaseExceptionGroup.split(eg, pred) */
        meth = ((PyMethodDescrObject *)func)->d_method->ml_meth;
        *at = 1;
    }
    if (meth == NULL || st->eg_split == NULL ||
        (meth != st->eg_split && meth != st->eg_subgroup)) {
        return NULL;
    }
    return meth;
}

int
funcbridge_may_adapt(Interp *in, PyObject *func)
{
    Py_ssize_t at;
    return adapted_method(in_st(in), func, &at) != NULL;
}

int
funcbridge_adapt_call(Interp *in, PyObject *func, PyObject **args,
                      Py_ssize_t nargs)
{
    ModState *st = in_st(in);
    Py_ssize_t at;
    if (adapted_method(st, func, &at) == NULL || nargs <= at ||
        Py_TYPE(args[at]) != st->FunctionType) {
        return 0;
    }
    PyObject *fn = bridge(st->matcher_code, args[at]);
    if (fn == NULL) {
        return -1;
    }
    Py_SETREF(args[at], fn);
    return 0;
}
