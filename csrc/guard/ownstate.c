/* ownstate.c: process-wide state that is the executor's own (inprocess.def's
 * OWN entries; docs/security.md, "Modules in process").
 *
 * - random: the module functions (random.random, seed, shuffle...) are bound
 *   methods of the module's hidden generator (`random._inst`), the host's.
 *   An attribute read that yields one (a method of a Python function:
 *   random.seed; of a C function: random.random; policy.c's substitute:
 *   `random.seed`, getattr, from-import) gives the code the same method of a random.Random
 *   of the executor's own instead, made at first use (seeded from the
 *   system by Random()).  The host's generator is never reached, never
 *   reseeded.  The methods given are remembered by their function, so a
 *   loop that reads random.randint costs a pointer comparison or two.
 * - decimal: the current context is per thread (a context variable), and a
 *   step runs on the host's thread.  While the code runs (a step, a hook),
 *   the current context is the executor's own: installed when the window
 *   starts, the host's put back when it ends (whatever ended it: an abort
 *   skips localcontext's __exit__), and the host's again around every tool
 *   call (a tool is the host's code; the code's callbacks from the tool get
 *   the executor's again: interp_rearm).  What the code sets (prec,
 *   setcontext) persists from step to step.  Only once the code has
 *   imported decimal (the only way to reach a context: no module of the
 *   in-process table holds the decimal module, tests/security/
 *   test_inprocess_state.py): a step of any other executor switches
 *   nothing.
 *
 * Errors here never replace the step's own: the pending exception is kept
 * around every call, and a failure to switch back is reported as
 * unraisable (nothing is left half done: the host's context is put back or
 * the failure is said).
 */
#include "guard.h"

#include <string.h>

/* sys.modules[name], new reference, or NULL (no error). */
static PyObject *
loaded_module(const char *name)
{
    PyObject *mods = PySys_GetObject("modules"); /* borrowed */
    if (mods == NULL || !PyDict_Check(mods)) {
        return NULL;
    }
    PyObject *m = PyDict_GetItemString(mods, name); /* borrowed */
    if (m == NULL || !PyModule_Check(m)) {
        return NULL;
    }
    return Py_NewRef(m);
}

/* ---------------------------------------------------------------- random */

static void
random_cache_clear(Interp *in)
{
    for (int i = 0; i < OWN_RANDOM_CACHE; i++) {
        in_guard(in)->random_cache[i].key = NULL;
        Py_CLEAR(in_guard(in)->random_cache[i].func);
        Py_CLEAR(in_guard(in)->random_cache[i].own);
    }
}

void
ownstate_clear(Interp *in)
{
    Py_CLEAR(in_guard(in)->own_random);
    Py_CLEAR(in_guard(in)->own_decimal);
    Py_CLEAR(in_guard(in)->host_decimal);
    Py_CLEAR(in_guard(in)->host_random);
    Py_CLEAR(in_guard(in)->host_agen_firstiter);
    Py_CLEAR(in_guard(in)->host_agen_finalizer);
    in_guard(in)->agen_hooks_saved = 0;
    random_cache_clear(in);
}

int
ownstate_is_own_random(Interp *in, PyObject *v)
{
    for (int i = 0; i < OWN_RANDOM_CACHE && in_guard(in)->random_cache[i].key; i++) {
        if (in_guard(in)->random_cache[i].own == v) {
            return 1;
        }
    }
    return 0;
}

PyObject *
ownstate_random_method(Interp *in, PyObject *v)
{
    /* random.seed is a method of a Python function, random.random a
       method of _random.Random's (in C) */
    PyObject *self;
    const void *key;
    if (PyMethod_Check(v)) {
        self = PyMethod_GET_SELF(v);
        key = PyMethod_GET_FUNCTION(v);
    }
    else if (PyCFunction_Check(v)) {
        self = PyCFunction_GET_SELF(v);
        key = ((PyCFunctionObject *)v)->m_ml;
    }
    else {
        return NULL;
    }
    if (self == NULL) {
        return NULL;
    }
    /* the host's generator seen before: a method given before */
    if (self == in_guard(in)->host_random) {
        for (int i = 0; i < OWN_RANDOM_CACHE && in_guard(in)->random_cache[i].key; i++) {
            if (in_guard(in)->random_cache[i].key == key) {
                return Py_NewRef(in_guard(in)->random_cache[i].own);
            }
        }
    }
    /* then what costs nothing: the generator's class is random.Random
       (every bound method of a C object comes here) */
    else if (strcmp(Py_TYPE(self)->tp_name, "Random") != 0) {
        return NULL;
    }
    PyObject *mod = loaded_module("random");
    if (mod == NULL) {
        return NULL;
    }
    PyObject *inst = PyDict_GetItemString(PyModule_GetDict(mod), "_inst");
    if (inst == NULL || inst != self) {
        Py_DECREF(mod);
        return NULL;
    }
    if (in_guard(in)->host_random != inst) { /* the host made a new one: forget */
        random_cache_clear(in);
        Py_XSETREF(in_guard(in)->host_random, Py_NewRef(inst));
    }
    PyObject *out = NULL;
    if (in_guard(in)->own_random == NULL) {
        in_guard(in)->own_random = PyObject_CallMethod(mod, "Random", NULL);
    }
    if (in_guard(in)->own_random != NULL) {
        PyObject *name = PyObject_GetAttrString(v, "__name__");
        if (name != NULL) {
            out = PyObject_GetAttr(in_guard(in)->own_random, name);
            Py_DECREF(name);
        }
    }
    Py_DECREF(mod);
    if (out == NULL && !PyErr_Occurred()) {
        PyErr_SetString(PyExc_SystemError,
                        "random: no method of the executor's generator");
    }
    if (out != NULL) { /* remembered (while there is room) */
        for (int i = 0; i < OWN_RANDOM_CACHE; i++) {
            if (in_guard(in)->random_cache[i].key == NULL) {
                in_guard(in)->random_cache[i].key = key;
                in_guard(in)->random_cache[i].func =
                    PyMethod_Check(v) ? Py_NewRef(PyMethod_GET_FUNCTION(v)) : NULL;
                in_guard(in)->random_cache[i].own = Py_NewRef(out);
                break;
            }
        }
    }
    return out;
}

/* --------------------------------------------------------------- decimal */

/* decimal.getcontext() (new reference) then decimal.setcontext(to); NULL
 * with an error, or with none when decimal is not loaded. */
static PyObject *
decimal_switch(PyObject *to)
{
    PyObject *mod = loaded_module("decimal");
    if (mod == NULL) {
        return NULL;
    }
    PyObject *prev = PyObject_CallMethod(mod, "getcontext", NULL);
    if (prev != NULL && to != NULL) {
        PyObject *r = PyObject_CallMethod(mod, "setcontext", "O", to);
        if (r == NULL) {
            Py_CLEAR(prev);
        }
        Py_XDECREF(r);
    }
    Py_DECREF(mod);
    return prev;
}

/* A new decimal.Context() (new reference), NULL with an error, or with
 * none when decimal is not loaded. */
static PyObject *
decimal_new_context(void)
{
    PyObject *mod = loaded_module("decimal");
    if (mod == NULL) {
        return NULL;
    }
    PyObject *c = PyObject_CallMethod(mod, "Context", NULL);
    Py_DECREF(mod);
    return c;
}

static int
enter_window(Interp *in)
{
    if (in_guard(in)->own_decimal == NULL) {
        return 0; /* the code has not imported decimal: nothing to do */
    }
    in_guard(in)->host_decimal = decimal_switch(in_guard(in)->own_decimal);
    if (in_guard(in)->host_decimal == NULL) {
        return PyErr_Occurred() ? -1 : 0;
    }
    return 0;
}

/* The thread's async generator hooks (sys.set_asyncgen_hooks: an event
 * loop installs its own while it runs, and restores the previous ones in a
 * `finally` that code subclassing the loop can skip): kept at the window's
 * start, put back at its end when they changed, so that no hook of the
 * code's outlives its window to be handed the host's (or another
 * executor's) asynchronous generators. */
static void
agen_hooks_save(Interp *in)
{
    if (in_guard(in)->agen_hooks_saved) {
        return;
    }
    PyThreadState *ts = PyThreadState_Get();
    in_guard(in)->host_agen_firstiter = Py_XNewRef(ts->async_gen_firstiter);
    in_guard(in)->host_agen_finalizer = Py_XNewRef(ts->async_gen_finalizer);
    in_guard(in)->agen_hooks_saved = 1;
}

static void
agen_hooks_restore(Interp *in)
{
    if (!in_guard(in)->agen_hooks_saved) {
        return;
    }
    PyThreadState *ts = PyThreadState_Get();
    PyObject *first = in_guard(in)->host_agen_firstiter, *fin = in_guard(in)->host_agen_finalizer;
    in_guard(in)->host_agen_firstiter = in_guard(in)->host_agen_finalizer = NULL;
    in_guard(in)->agen_hooks_saved = 0;
    if (ts->async_gen_firstiter != first) {
        Py_XSETREF(ts->async_gen_firstiter, first); /* takes the reference */
    }
    else {
        Py_XDECREF(first);
    }
    if (ts->async_gen_finalizer != fin) {
        Py_XSETREF(ts->async_gen_finalizer, fin);
    }
    else {
        Py_XDECREF(fin);
    }
}

int
ownstate_enter(Interp *in)
{
    agen_hooks_save(in);
    if (in_guard(in)->host_decimal != NULL) {
        return 0; /* the window's already */
    }
    /* a window may start with an exception pending (a generator resumed
       by host code with one to throw in, GeneratorExit when collected):
       it is the window's to raise, not ours to lose */
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    int r = enter_window(in);
    if (t == NULL) {
        return r;
    }
    if (r < 0) {
        PyErr_WriteUnraisable(NULL);
    }
    PyErr_Restore(t, v, tb);
    return 0;
}

int
ownstate_decimal_imported(Interp *in)
{
    if (in_guard(in)->own_decimal == NULL) {
        in_guard(in)->own_decimal = decimal_new_context();
        if (in_guard(in)->own_decimal == NULL) {
            return PyErr_Occurred() ? -1 : 0;
        }
    }
    return in_budget(in)->running ? ownstate_enter(in) : 0;
}

void
ownstate_leave(Interp *in)
{
    agen_hooks_restore(in);
    if (in_guard(in)->host_decimal == NULL) {
        return;
    }
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    PyObject *host = in_guard(in)->host_decimal;
    in_guard(in)->host_decimal = NULL;
    /* what the code left current is its own from now on */
    PyObject *cur = decimal_switch(host);
    if (cur != NULL) {
        Py_XSETREF(in_guard(in)->own_decimal, cur);
    }
    else if (PyErr_Occurred()) {
        PyErr_WriteUnraisable(host);
    }
    Py_DECREF(host);
    PyErr_Restore(t, v, tb);
}

PyObject *
ownstate_switch(Interp *in, int to_own)
{
    if (in == NULL || in_guard(in)->host_decimal == NULL) {
        return NULL;
    }
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    PyObject *prev = decimal_switch(to_own ? in_guard(in)->own_decimal
                                           : in_guard(in)->host_decimal);
    if (prev == NULL && PyErr_Occurred()) {
        PyErr_WriteUnraisable(NULL);
    }
    PyErr_Restore(t, v, tb);
    return prev;
}

void
ownstate_switch_back(Interp *in, int was_own, PyObject *prev)
{
    if (prev == NULL) {
        return;
    }
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    PyObject *cur = decimal_switch(prev);
    if (cur == NULL && PyErr_Occurred()) {
        PyErr_WriteUnraisable(NULL);
    }
    if (cur != NULL && was_own) {
        /* the code ran meanwhile (a callback): what it set is its own */
        Py_XSETREF(in_guard(in)->own_decimal, cur);
        cur = NULL;
    }
    else if (cur != NULL && !was_own) {
        /* the tool ran: the code's context is `prev`, kept as its own */
        Py_XSETREF(in_guard(in)->own_decimal, Py_NewRef(prev));
    }
    Py_XDECREF(cur);
    Py_DECREF(prev);
    PyErr_Restore(t, v, tb);
}
