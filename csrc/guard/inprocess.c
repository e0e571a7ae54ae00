/* inprocess.c: the in-process table (inprocess.def) in C (docs/security.md,
 * "Modules in process").
 *
 * - WITHHELD entries: a module attribute refused while the process is the
 *   host's, by name, wherever the code names it: the attribute choke point
 *   (policy_check_attr_object: `m.name`, getattr, from-import, format
 *   fields, match class patterns), the names attrgetter / methodcaller hold
 *   (gadgets.c), and `from m import *`, which leaves it out.  Those are all
 *   the ways code turns a name into a module attribute (the gadget table
 *   covers the host functions that would do it for the code).
 * - WITHHELD_CALL entries are gadget entries (gadgets.c includes the file).
 * - `_core.IN_PROCESS`: the whole table as data, which the Python mode
 *   choice (_mode.py, through the generated _inprocess.py) must
 *   equal (tests/engine/test_inprocess_table.py).
 *
 * Process-wide state, on purpose: whether the process is the host's
 * (`inprocess_shared`) is a property of the process.  A process-mode worker
 * says once, before it builds its executor, that it is not
 * (`_core.worker_process()`): its process is the code's own, and the
 * withheld names stand down there.  Nothing here holds Python objects.
 */
#include "guard.h"

#include <string.h>

int inprocess_shared = 1;

typedef struct {
    const char *module, *name, *why, *remedy;
} WithheldDef;

static const WithheldDef withheld_defs[] = {
#define IN_PROCESS(m, r)
#define OWN(m, r)
#define WITHHELD_CALL(m, dm, q, a, r, fix)
#define WITHHELD(m, n, r, fix) {m, #n, r, fix},
#include "inprocess.def"
#undef IN_PROCESS
#undef OWN
#undef WITHHELD_CALL
#undef WITHHELD
};

#define NWITHHELD ((int)(sizeof(withheld_defs) / sizeof(withheld_defs[0])))

/* The UTF-8 of an exact str, or NULL (no error) for anything else. */
static const char *
utf8_of(PyObject *s, Py_ssize_t *n)
{
    if (s == NULL || !PyUnicode_CheckExact(s)) {
        return NULL;
    }
    const char *u = PyUnicode_AsUTF8AndSize(s, n);
    if (u == NULL) {
        PyErr_Clear();
    }
    return u;
}

/* The entry withholding attribute `name` of the module called `modname`
 * (NULL: of any module), or -1.  Never raises. */
static int
withheld_index(PyObject *modname, PyObject *name)
{
    Py_ssize_t nn, mn = 0;
    const char *n = utf8_of(name, &nn);
    if (n == NULL || nn == 0) {
        return -1;
    }
    const char *m = modname != NULL ? utf8_of(modname, &mn) : NULL;
    if (modname != NULL && m == NULL) {
        return -1;
    }
    for (int i = 0; i < NWITHHELD; i++) {
        const WithheldDef *w = &withheld_defs[i];
        if (w->name[0] == n[0] && strlen(w->name) == (size_t)nn &&
            memcmp(w->name, n, (size_t)nn) == 0 &&
            (m == NULL || (strlen(w->module) == (size_t)mn &&
                           memcmp(w->module, m, (size_t)mn) == 0))) {
            return i;
        }
    }
    return -1;
}

static int
refuse(Interp *in, int i)
{
    const WithheldDef *w = &withheld_defs[i];
    raise_interp_error(in,
                       "Forbidden in process (isolation='none'): %s.%s %s. "
                       "Instead: %s",
                       w->module, w->name, w->why, w->remedy);
    return -1;
}

int
inprocess_withheld(PyObject *modname, PyObject *name)
{
    return inprocess_shared && withheld_index(modname, name) >= 0;
}

int
inprocess_check_module_attr(Interp *in, PyObject *modname, PyObject *name)
{
    if (!inprocess_shared) {
        return 0;
    }
    int i = withheld_index(modname, name);
    return i < 0 ? 0 : refuse(in, i);
}

int
inprocess_check_held_name(Interp *in, PyObject *name)
{
    if (!inprocess_shared) {
        return 0;
    }
    int i = withheld_index(NULL, name);
    return i < 0 ? 0 : refuse(in, i);
}

/* ------------------------------------------------------------ the table */

/* A str, or None for NULL.  New reference. */
static PyObject *
str_or_none(const char *s)
{
    if (s == NULL) {
        Py_RETURN_NONE;
    }
    return PyUnicode_FromString(s);
}

/* Append `item` (stolen) to the list of `module`'s entries of kind `slot`
 * in `rows` (module -> [why, withheld, calls, own]).  0 / -1. */
static int
add_item(PyObject *rows, const char *module, int slot, PyObject *item)
{
    if (item == NULL) {
        return -1;
    }
    PyObject *row = PyDict_GetItemString(rows, module); /* borrowed */
    if (row == NULL) {
        Py_DECREF(item);
        PyErr_Format(PyExc_SystemError,
                     "inprocess.def: %s has entries before its IN_PROCESS",
                     module);
        return -1;
    }
    int r = PyList_Append(PyList_GET_ITEM(row, slot), item);
    Py_DECREF(item);
    return r;
}

/* `_core.IN_PROCESS`: a tuple of (module, why, withheld, calls, own), in
 * the file's order: withheld a tuple of (name, why, remedy), calls of
 * (defining module, qualname, argument or None, why, remedy), own of str. */
static PyObject *
inprocess_table(void)
{
    PyObject *order = PyList_New(0);
    PyObject *rows = PyDict_New();
    PyObject *out = NULL;
    if (order == NULL || rows == NULL) {
        goto done;
    }
#define WITHHELD(m, n, r, fix) \
    if (add_item(rows, m, 1, Py_BuildValue("(sss)", #n, r, fix)) < 0) { \
        goto done;                                                       \
    }
#define WITHHELD_CALL(m, dm, q, a, r, fix)                                   \
    if (add_item(rows, m, 2,                                                \
                 Py_BuildValue("(ssNss)", dm, q, str_or_none(a), r, fix)) < \
        0) {                                                                \
        goto done;                                                          \
    }
#define OWN(m, r)                                                 \
    if (add_item(rows, m, 3, PyUnicode_FromString(r)) < 0) {      \
        goto done;                                                \
    }
#define IN_PROCESS(m, r)                                                    \
    {                                                                       \
        PyObject *row = Py_BuildValue("[s[][][]]", r);                      \
        PyObject *key = PyUnicode_FromString(m);                            \
        int bad = row == NULL || key == NULL ||                             \
                  PyDict_SetItem(rows, key, row) < 0 ||                     \
                  PyList_Append(order, key) < 0;                            \
        Py_XDECREF(row);                                                    \
        Py_XDECREF(key);                                                    \
        if (bad) {                                                          \
            goto done;                                                      \
        }                                                                   \
    }
#include "inprocess.def"
#undef IN_PROCESS
#undef OWN
#undef WITHHELD_CALL
#undef WITHHELD
    out = PyTuple_New(PyList_GET_SIZE(order));
    if (out == NULL) {
        goto done;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(order); i++) {
        PyObject *key = PyList_GET_ITEM(order, i);
        PyObject *row = PyDict_GetItem(rows, key);
        PyObject *t[3];
        for (int k = 0; k < 3; k++) {
            t[k] = PyList_AsTuple(PyList_GET_ITEM(row, k + 1));
        }
        PyObject *entry =
            t[0] && t[1] && t[2]
                ? PyTuple_Pack(5, key, PyList_GET_ITEM(row, 0), t[0], t[1],
                               t[2])
                : NULL;
        for (int k = 0; k < 3; k++) {
            Py_XDECREF(t[k]);
        }
        if (entry == NULL) {
            Py_CLEAR(out);
            goto done;
        }
        PyTuple_SET_ITEM(out, i, entry);
    }
done:
    Py_XDECREF(order);
    Py_XDECREF(rows);
    return out;
}

/* worker_process(): this process is a process-mode worker: what the whole
 * process shares is the code's own; the withheld names stand down, for
 * good.  Called by the worker before it builds its executor. */
static PyObject *
inprocess_worker_process(PyObject *module, PyObject *unused)
{
    inprocess_shared = 0;
    Py_RETURN_NONE;
}

static PyObject *
inprocess_is_shared(PyObject *module, PyObject *unused)
{
    return PyBool_FromLong(inprocess_shared);
}

static PyMethodDef inprocess_methods[] = {
    {"worker_process", inprocess_worker_process, METH_NOARGS,
     "worker_process(): this process is a process-mode worker; the "
     "in-process table's withheld names stand down (for good)."},
    {"process_is_shared", inprocess_is_shared, METH_NOARGS,
     "process_is_shared(): whether the in-process table's withheld names "
     "apply (False in a process-mode worker)."},
    {NULL, NULL, 0, NULL},
};

int
inprocess_add_to_module(PyObject *m)
{
    if (PyModule_AddFunctions(m, inprocess_methods) < 0) {
        return -1;
    }
    PyObject *t = inprocess_table();
    if (t == NULL) {
        return -1;
    }
    if (PyModule_AddObject(m, "IN_PROCESS", t) < 0) {
        Py_DECREF(t);
        return -1;
    }
    return 0;
}
