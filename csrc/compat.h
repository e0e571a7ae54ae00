/* compat.h: differences between CPython versions, in one place. */
#ifndef SMOLAGENTS_NATIVE_COMPAT_H
#define SMOLAGENTS_NATIVE_COMPAT_H

#include <Python.h>
#include <stdint.h>

#if PY_VERSION_HEX < 0x030A0000
#error "smolagents_native needs CPython 3.10 or newer"
#endif

/* Exported by libpython but declared in cpython/object.h only for 3.11+. */
PyAPI_FUNC(PyTypeObject *)
    _PyType_CalculateMetaclass(PyTypeObject *, PyObject *);

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

/* Value of an int that fits in one digit ("compact"); 1 when it does.
 * CPython 3.11's layout: ob_size is the signed digit count. */
static inline int
compat_small_int(PyObject *v, long long *out)
{
#if PY_VERSION_HEX >= 0x030B0000 && PY_VERSION_HEX < 0x030C0000
    Py_ssize_t size = Py_SIZE(v);
    if (size >= -1 && size <= 1) {
        *out = (long long)size * (long long)((PyLongObject *)v)->ob_digit[0];
        return 1;
    }
    return 0;
#else
    int overflow = 0;
    long long x = PyLong_AsLongLongAndOverflow(v, &overflow);
    if (overflow || (x == -1 && PyErr_Occurred())) {
        PyErr_Clear();
        return 0;
    }
    if (x > (1LL << 30) || x < -(1LL << 30)) {
        return 0;
    }
    *out = x;
    return 1;
#endif
}

/* A dict's version tag: changes whenever the dict is modified (PEP 509;
 * present through CPython 3.13).  0 means "no caching". */
static inline uint64_t
compat_dict_version(PyObject *d)
{
#if PY_VERSION_HEX < 0x030C0000
    return PyDict_CheckExact(d) ? ((PyDictObject *)d)->ma_version_tag : 0;
#else
    return 0;
#endif
}

#endif
