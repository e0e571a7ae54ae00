/* bigstack.h: the part of bigstack.c's host-call path that every host call
 * runs, inline in its callers (hostcall.c): the test for a generator
 * resumed from the step's big stack (then the call is made there, out of
 * line) and the call itself.  Kept in bigstack.c before, it cost each host
 * call a C call of its own. */
#ifndef SMOLAGENTS_NATIVE_BIGSTACK_H
#define SMOLAGENTS_NATIVE_BIGSTACK_H

#include "budget.h"

struct BigStack {
    char *map;
    size_t map_size;
    char *low, *high;
    uintptr_t *canary;
    int busy; /* number of bigstack_switch() calls in progress */
    /* lowest stack pointer of a frame on this stack suspended in a switch
       to a generator body (NULL: none); see bigstack_note_switch_out() */
    char *resume_sp;
    /* 3.14+: how much of a stack CPython is told about (compat.h), the size
       of the thread's own stack: CPython's checks on C recursion stop host
       code where they would on that thread (a RecursionError for repr() of
       200,000 nested lists, as CPython gives), while the rest of the big
       stack still holds what recurses unchecked */
    size_t cpython_size;
};

/* 3.14+: the part of the stack [lo, hi) CPython is told about (compat.h):
 * its top `cpython_size` bytes (bigstack.c). */
#if COMPAT_STACK_PROTECTION
void bigstack_protect_enter(PyThreadState *ts, char *lo, char *hi,
                            CompatStack *saved);
#else
static inline void
bigstack_protect_enter(PyThreadState *ts, char *lo, char *hi,
                       CompatStack *saved)
{
    compat_stack_enter(ts, lo, hi, saved); /* nothing to do */
}
#endif

/* The calling thread's stack record (NULL: none yet), a mirror of its
 * pthread key's value (bigstack.c). */
extern HOT_TLS BigStack *bigstack_tls;

/* The C function `meth` of a builtin with calling convention `flags`
 * (its ml_flags), called with `self` and the `nargs` arguments at `args`
 * when the convention is METH_O with one argument, METH_NOARGS with none or
 * METH_FASTCALL without keywords, as CPython's specialized calls make it
 * (3.11's PRECALL_BUILTIN_O / _FAST and PRECALL_NO_KW_METHOD_DESCRIPTOR_*,
 * 3.12's CALL_BUILTIN_* / CALL_METHOD_DESCRIPTOR_*), without the
 * vectorcall dispatch and under the same recursion guard.  Any other
 * convention or count, whose errors CPython words, is left to
 * PyObject_Vectorcall.  1 with *res the result (NULL on error), 0 when not
 * taken. */
static ALWAYS_INLINE int
builtin_form_call(int flags, PyCFunction meth, PyObject *self,
                  PyObject *const *args, Py_ssize_t nargs, PyObject **res,
                  PyThreadState *ts)
{
    int form = flags & (METH_VARARGS | METH_FASTCALL | METH_NOARGS | METH_O |
                        METH_KEYWORDS | METH_METHOD);
    if (!((form == METH_O && nargs == 1) ||
          (form == METH_NOARGS && nargs == 0) || form == METH_FASTCALL)) {
        return 0;
    }
    if (compat_recursion_enter(ts) < 0) {
        *res = NULL;
        return 1;
    }
    switch (form) {
    case METH_O:
        *res = meth(self, args[0]);
        break;
    case METH_NOARGS:
        *res = meth(self, NULL);
        break;
    default:
        *res = ((_PyCFunctionFast)(void (*)(void))meth)(self, args, nargs);
        break;
    }
    compat_recursion_leave(ts);
    return 1;
}

/* An unbound method descriptor called with its object first (its type
 * checked as method_vectorcall_* checks it): builtin_form_call on the
 * rest. */
static ALWAYS_INLINE int
method_descr_call(PyObject *func, PyObject *const *args, Py_ssize_t nargs,
                  PyObject **res, PyThreadState *ts)
{
    PyMethodDescrObject *d = (PyMethodDescrObject *)func;
    if (nargs < 1 || !PyObject_TypeCheck(args[0], PyDescr_TYPE(d))) {
        return 0;
    }
    PyMethodDef *ml = d->d_method;
    return builtin_form_call(ml->ml_flags, ml->ml_meth, args[0], args + 1,
                             nargs - 1, res, ts);
}

/* A builtin function or a builtin bound method (PyCFunction_Type exactly:
 * `len`, `isinstance`, `random.random`): builtin_form_call with its self. */
static ALWAYS_INLINE int
cfunction_call(PyObject *func, PyObject *const *args, Py_ssize_t nargs,
               PyObject **res, PyThreadState *ts)
{
    return builtin_form_call(PyCFunction_GET_FLAGS(func),
                             PyCFunction_GET_FUNCTION(func),
                             PyCFunction_GET_SELF(func), args, nargs, res, ts);
}

/* The call itself.  `str(x)` is made as CPython's specialized call makes
 * it (3.11's PRECALL_NO_KW_STR_1, 3.12's CALL_STR_1): PyObject_Str, with no
 * argument tuple (str has no vectorcall of its own on 3.11). */
static ALWAYS_INLINE PyObject *
host_vectorcall(PyObject *func, PyObject *const *args, size_t nargsf,
                PyObject *kwnames, PyThreadState *ts)
{
    if (kwnames == NULL) {
        PyObject *res;
        PyTypeObject *ft = Py_TYPE(func);
        if (ft == &PyCFunction_Type &&
            cfunction_call(func, args, PyVectorcall_NARGS(nargsf), &res, ts)) {
            return res;
        }
        if (ft == &PyMethodDescr_Type &&
            method_descr_call(func, args, PyVectorcall_NARGS(nargsf), &res,
                              ts)) {
            return res;
        }
        if (func == (PyObject *)&PyUnicode_Type &&
            PyVectorcall_NARGS(nargsf) == 1) {
            return PyObject_Str(args[0]);
        }
    }
    return PyObject_Vectorcall(func, args, nargsf, kwnames);
}

/* bigstack_vectorcall when a generator was resumed from the thread's big
 * stack (bigstack.c). */
PyObject *bigstack_vectorcall_slow(Interp *in, PyObject *func,
                                   PyObject *const *args, size_t nargsf,
                                   PyObject *kwnames);

/* The host call itself: on a generator's own stack it is made on the big
 * stack instead (bigstack_vectorcall_slow). */
static inline PyObject *
bigstack_vectorcall(Interp *in, PyObject *func, PyObject *const *args,
                    size_t nargsf, PyObject *kwnames)
{
    BigStack *bs = bigstack_tls;
    if (bs == NULL || bs->resume_sp == NULL) {
        /* no generator resumed from the big stack: not on a generator's
           stack (the common case, kept lean) */
        return host_vectorcall(func, args, nargsf, kwnames, in_budget(in)->run_ts);
    }
    return bigstack_vectorcall_slow(in, func, args, nargsf, kwnames);
}

#endif
