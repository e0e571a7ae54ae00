/* shim.c: helpers of the Python shim's per-step path (_engine.py).
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
 *
 *   same_tools(tools, snapshot) -> bool
 *       Whether a tools mapping still holds what `snapshot` recorded, a list
 *       [object, token, entries] made by the shim (_engine.py,
 *       _tools_snapshot): the same dict object with the same entries_token
 *       has not been modified; otherwise, for a dict, same_entries(tools,
 *       entries), after which the snapshot takes this object and a fresh
 *       token (so that the next step takes the short way again); anything
 *       else is compared with `==`.  A False only means the tools are given
 *       to the core again.  The short way costs some 150 instructions.
 *
 *   entries_token(d) -> int | None
 *       A number such that, for one dict object kept alive by the caller,
 *       an equal number from a later call means nothing was inserted,
 *       replaced, deleted or cleared in between (a different number means
 *       nothing: it may change without a change of `d`).  The shim keeps
 *       it with its snapshot, so that a step whose tools are the same dict,
 *       unchanged, skips same_entries (some 7,000 instructions for the 52
 *       base tools; the token costs about 100).  Up to 3.11 it is the
 *       dict's PEP 509 version tag, unique across all dicts; from 3.12 `d`
 *       is watched by the module's tool-dict watcher and the number is that
 *       watcher's epoch (compat.h).  None when no promise can be made: `d`
 *       is not an exact dict, or no watcher slot was free.
 */
#include "module.h"

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

static PyObject *
entries_token(PyObject *m, PyObject *d)
{
    ModState *st = (ModState *)PyModule_GetState(m);
    int watched = compat_dict_watch(st->tools_watcher, d);
    if (watched < 0) {
        return NULL;
    }
    if (watched == 0) {
        Py_RETURN_NONE;
    }
    return PyLong_FromUnsignedLongLong(
        compat_watched_version(COMPAT_WATCH_TOOLS, d));
}

static PyObject *
same_tools(PyObject *m, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2 || !PyList_CheckExact(args[1]) ||
        PyList_GET_SIZE(args[1]) != 3 ||
        !PyDict_CheckExact(PyList_GET_ITEM(args[1], 2))) {
        PyErr_SetString(PyExc_TypeError,
                        "same_tools(tools, snapshot) needs a snapshot "
                        "[object, token, dict]");
        return NULL;
    }
    PyObject *tools = args[0], *snap = args[1];
    PyObject *token = PyList_GET_ITEM(snap, 1);
    PyObject *entries = PyList_GET_ITEM(snap, 2);
    if (!PyDict_CheckExact(tools)) {
        /* the mapping's __eq__ may run anything: hold what it compares */
        Py_INCREF(entries);
        int eq = PyObject_RichCompareBool(tools, entries, Py_EQ);
        Py_DECREF(entries);
        if (eq < 0) {
            return NULL;
        }
        return PyBool_FromLong(eq);
    }
    if (tools == PyList_GET_ITEM(snap, 0) && PyLong_CheckExact(token)) {
        PyObject *now = entries_token(m, tools);
        if (now == NULL) {
            return NULL;
        }
        /* both are exact ints made by entries_token: compare values */
        int eq = PyObject_RichCompareBool(now, token, Py_EQ);
        Py_DECREF(now);
        if (eq != 0) {
            return eq < 0 ? NULL : Py_NewRef(Py_True);
        }
    }
    PyObject *pair[2] = {tools, entries};
    PyObject *same = same_entries(m, pair, 2);
    if (same != Py_True) {
        return same;
    }
    /* the same entries: remember this object and its present token.  No
       code ran since same_entries compared them. */
    PyObject *now = entries_token(m, tools);
    if (now == NULL) {
        Py_DECREF(same);
        return NULL;
    }
    /* the old object and token are released last: a dict freed here may
       run a tool's __del__, which must find the snapshot whole */
    PyObject *old_obj = PyList_GET_ITEM(snap, 0);
    PyObject *old_token = PyList_GET_ITEM(snap, 1);
    PyList_SET_ITEM(snap, 0, Py_NewRef(tools));
    PyList_SET_ITEM(snap, 1, now);
    Py_DECREF(old_obj);
    Py_DECREF(old_token);
    return same;
}

static PyMethodDef shim_methods[] = {
    {"same_entries", (PyCFunction)(void (*)(void))same_entries, METH_FASTCALL,
     "same_entries(a, b) -> bool: the dicts hold the same keys bound to the "
     "same objects, in the same order."},
    {"same_tools", (PyCFunction)(void (*)(void))same_tools, METH_FASTCALL,
     "same_tools(tools, snapshot) -> bool: `tools` holds what the snapshot "
     "[object, token, entries] recorded; the snapshot is refreshed."},
    {"entries_token", (PyCFunction)entries_token, METH_O,
     "entries_token(d) -> int | None: equal numbers from two calls on one "
     "live dict mean it was not modified in between; None: no promise."},
    {NULL, NULL, 0, NULL},
};

int
shim_add_functions(PyObject *m)
{
    return PyModule_AddFunctions(m, shim_methods);
}
