/* shim.c: helpers of the Python shim's per-step path (executor.py).
 *
 *   same_entries(a, b) -> bool
 *       True when the dicts `a` and `b` hold the same keys bound to the
 *       same objects (identity), in the same order.  The executor compares
 *       its tools with the snapshot it last gave the core before every step.
 *       Dict equality would call each value's __eq__ and miss a tool
 *       replaced in place by an object that compares equal to it; identity
 *       misses nothing.  Anything else (another order, a value replaced by
 *       an equal one, a key that is equal but not the same object) answers
 *       False: the caller then gives the tools to the core again, which is
 *       only slower.  (It costs about what `==` did: some 50 instructions an
 *       entry.)  Raises TypeError unless both are dicts.
 */
#include "interp.h"

static PyObject *
same_entries(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyDict_Check(args[0]) || !PyDict_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "same_entries(a, b) needs two dicts");
        return NULL;
    }
    PyObject *a = args[0], *b = args[1];
    if (PyDict_GET_SIZE(a) != PyDict_GET_SIZE(b)) {
        Py_RETURN_FALSE;
    }
    Py_ssize_t pa = 0, pb = 0;
    PyObject *ka, *va, *kb, *vb;
    /* PyDict_Next runs no code: nothing can change either dict meanwhile */
    while (PyDict_Next(a, &pa, &ka, &va)) {
        if (!PyDict_Next(b, &pb, &kb, &vb) || ka != kb || va != vb) {
            Py_RETURN_FALSE;
        }
    }
    Py_RETURN_TRUE;
}

static PyMethodDef shim_methods[] = {
    {"same_entries", (PyCFunction)(void (*)(void))same_entries, METH_FASTCALL,
     "same_entries(a, b) -> bool: the dicts hold the same keys bound to the "
     "same objects, in the same order."},
    {NULL, NULL, 0, NULL},
};

int
shim_add_functions(PyObject *m)
{
    return PyModule_AddFunctions(m, shim_methods);
}
