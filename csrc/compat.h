/* compat.h: differences between CPython versions, in one place. */
#ifndef SMOLAGENTS_NATIVE_COMPAT_H
#define SMOLAGENTS_NATIVE_COMPAT_H

#include <Python.h>

#if PY_VERSION_HEX < 0x030A0000
#error "smolagents_native needs CPython 3.10 or newer"
#endif

/* Exported by libpython but declared in cpython/object.h only for 3.11+. */
PyAPI_FUNC(PyTypeObject *) _PyType_CalculateMetaclass(PyTypeObject *,
                                                       PyObject *);

#if PY_VERSION_HEX < 0x030B0000
/* 3.10 has no public handled-exception API; emulate with exc_info. */
static inline PyObject *
compat_get_handled(void)
{
    PyObject *t, *v, *tb;
    PyErr_GetExcInfo(&t, &v, &tb);
    Py_XDECREF(t);
    Py_XDECREF(tb);
    if (v == Py_None) {
        Py_DECREF(v);
        return NULL;
    }
    return v;
}
static inline void
compat_set_handled(PyObject *exc)
{
    if (exc == NULL || exc == Py_None) {
        PyErr_SetExcInfo(NULL, NULL, NULL);
        return;
    }
    Py_INCREF(Py_TYPE(exc));
    Py_INCREF(exc);
    PyErr_SetExcInfo((PyObject *)Py_TYPE(exc), exc,
                     PyException_GetTraceback(exc));
}
#else
/* Returns a new reference or NULL (no exception set) when none. */
static inline PyObject *
compat_get_handled(void)
{
    PyObject *v = PyErr_GetHandledException();
    if (v == Py_None) {
        Py_DECREF(v);
        return NULL;
    }
    return v;
}
static inline void
compat_set_handled(PyObject *exc)
{
    PyErr_SetHandledException(exc);
}
#endif

#endif
