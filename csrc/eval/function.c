/* function.c: interpreted functions, argument binding, frames for function
 * and comprehension scopes, and class creation.
 *
 * An interpreted function is a GC-aware heap type with vectorcall, so host
 * code (sorted(key=f), map(f, ...)) calls it as cheaply as a builtin.  It
 * holds a strong reference to the Program (which owns the IR) and to the
 * Interpreter (policy and budgets), so calling it after the step that made
 * it still runs under the same rules.
 *
 * Generators run on their own C stack: see generator.c.
 */
#include "eval.h"

#include <stddef.h>
#include <string.h>
#include "structmember.h"

PyObject *generator_new(FunctionObject *fn, Frame *fr);

/* ------------------------------------------------------------- frames */

/* Slot in a frame of scope `ps` (its cells array) of the cell or free
 * variable `name`, or -1.  Used to build closures: a nested scope's free
 * variable is the enclosing frame's cell of the same name. */
int
scope_cell_slot(Scope *ps, PyObject *name)
{
    for (int j = 0; j < ps->ncells; j++) {
        if (PyUnicode_Compare(PyTuple_GET_ITEM(ps->cellvars, j), name) == 0) {
            return j;
        }
    }
    for (int j = 0; j < ps->nfree; j++) {
        if (PyUnicode_Compare(PyTuple_GET_ITEM(ps->freevars, j), name) == 0) {
            return ps->ncells + j;
        }
    }
    return -1;
}

void
frame_clear(Frame *fr)
{
    Scope *s = fr->scope;
#if COMPAT_LOCALS_CLEARED_LAST_FIRST
    /* CPython's order: cells and free variables (after the locals in its
       frame), then the locals, each last one first */
    if (fr->cells && (s->ncells || s->nfree)) {
        for (int i = s->ncells + s->nfree - 1; i >= 0; i--) {
            Py_CLEAR(fr->cells[i]);
        }
    }
    if (fr->fast) {
        for (int i = s->nlocals - 1; i >= 0; i--) {
            Py_CLEAR(fr->fast[i]);
        }
    }
#else
    if (fr->fast) {
        for (int i = 0; i < s->nlocals; i++) {
            Py_CLEAR(fr->fast[i]);
        }
    }
    if (fr->cells && (s->ncells || s->nfree)) {
        for (int i = 0; i < s->ncells + s->nfree; i++) {
            Py_CLEAR(fr->cells[i]);
        }
    }
#endif
    Py_CLEAR(fr->retval);
    Py_CLEAR(fr->last_value);
}

/* Create the cells of a function frame: own cells (initialised from the
 * parameter they shadow) then the closure's cells.  0 / -1. */
static int
frame_init_cells(Frame *fr, PyObject *closure)
{
    Scope *s = fr->scope;
    for (int i = 0; i < s->ncells; i++) {
        PyObject *init = NULL;
        int arg = s->cell2arg ? s->cell2arg[i] : -1;
        if (arg >= 0) {
            init = fr->fast[arg];
        }
        fr->cells[i] = PyCell_New(init);
        if (fr->cells[i] == NULL) {
            return -1;
        }
        if (arg >= 0) {
            /* the parameter lives in its cell from now on */
            Py_CLEAR(fr->fast[arg]);
        }
    }
    for (int i = 0; i < s->nfree; i++) {
        PyObject *c = closure ? PyTuple_GET_ITEM(closure, i) : NULL;
        if (c == NULL) {
            PyErr_SetString(PyExc_SystemError, "missing closure cell");
            return -1;
        }
        Py_INCREF(c);
        fr->cells[s->ncells + i] = c;
    }
    return 0;
}

/* --------------------------------------------------------- arg binding */

static PyObject *
quoted_names_list(PyObject *names)
{
    /* 'a'  |  'a' and 'b'  |  'a', 'b', and 'c' */
    Py_ssize_t n = PyList_GET_SIZE(names);
    PyObject *reprs = PyList_New(n);
    if (reprs == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *r = PyObject_Repr(PyList_GET_ITEM(names, i));
        if (r == NULL) {
            Py_DECREF(reprs);
            return NULL;
        }
        PyList_SET_ITEM(reprs, i, r);
    }
    PyObject *res = NULL;
    if (n == 1) {
        res = PyList_GET_ITEM(reprs, 0);
        Py_INCREF(res);
    }
    else if (n == 2) {
        res = PyUnicode_FromFormat("%U and %U", PyList_GET_ITEM(reprs, 0),
                                   PyList_GET_ITEM(reprs, 1));
    }
    else {
        PyObject *head = PyList_GetSlice(reprs, 0, n - 1);
        PyObject *sep = PyUnicode_FromString(", ");
        PyObject *joined = (head && sep) ? PyUnicode_Join(sep, head) : NULL;
        if (joined) {
            res = PyUnicode_FromFormat("%U, and %U", joined,
                                       PyList_GET_ITEM(reprs, n - 1));
        }
        Py_XDECREF(head);
        Py_XDECREF(sep);
        Py_XDECREF(joined);
    }
    Py_DECREF(reprs);
    return res;
}

static void
missing_args_error(FunctionObject *fn, PyObject *names, const char *kind)
{
    PyObject *s = quoted_names_list(names);
    if (s == NULL) {
        return;
    }
    Py_ssize_t n = PyList_GET_SIZE(names);
    PyErr_Format(PyExc_TypeError,
                 "%U() missing %zd required %s argument%s: %U", fn->qualname,
                 n, kind, n == 1 ? "" : "s", s);
    Py_DECREF(s);
}

static void
too_many_positional(FunctionObject *fn, Frame *fr, Py_ssize_t given)
{
    Scope *s = fn->scope;
    Py_ssize_t kwonly_given = 0;
    int base = s->argcount + s->has_varargs;
    for (int i = 0; i < s->kwonlyargcount; i++) {
        if (fr->fast[base + i] != NULL) {
            kwonly_given++;
        }
    }
    Py_ssize_t defcount = fn->defaults ? PyTuple_GET_SIZE(fn->defaults) : 0;
    PyObject *sig;
    int plural;
    if (defcount) {
        plural = 1;
        sig = PyUnicode_FromFormat("from %zd to %d", s->argcount - defcount,
                                   s->argcount);
    }
    else {
        plural = s->argcount != 1;
        sig = PyUnicode_FromFormat("%d", s->argcount);
    }
    PyObject *kwsig =
        kwonly_given
            ? PyUnicode_FromFormat(
                  " positional argument%s (and %zd keyword-only argument%s)",
                  given != 1 ? "s" : "", kwonly_given,
                  kwonly_given != 1 ? "s" : "")
            : PyUnicode_FromString("");
    if (sig && kwsig) {
        PyErr_Format(PyExc_TypeError,
                     "%U() takes %U positional argument%s but %zd%U %s given",
                     fn->qualname, sig, plural ? "s" : "", given, kwsig,
                     given == 1 && !kwonly_given ? "was" : "were");
    }
    Py_XDECREF(sig);
    Py_XDECREF(kwsig);
}

/* bind_arguments past its common case: defaults, keywords, `*args`,
 * `**kwargs`, and every error, with CPython's order of checks and
 * messages.  0 / -1. */
static NOINLINE int
bind_arguments_general(FunctionObject *fn, Frame *fr, PyObject *const *args,
                       size_t nargsf, PyObject *kwnames)
{
    Scope *s = fn->scope;
    PyObject **fast = fr->fast;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    Py_ssize_t argcount = s->argcount;
    int vararg_slot = s->has_varargs ? (int)argcount : -1;
    int kwonly_start = (int)argcount + s->has_varargs;
    int kwarg_slot = s->has_varkw ? kwonly_start + s->kwonlyargcount : -1;
    PyObject *kwdict = NULL;
    if (kwarg_slot >= 0) {
        kwdict = PyDict_New();
        if (kwdict == NULL) {
            return -1;
        }
        fast[kwarg_slot] = kwdict;
    }
    Py_ssize_t n = nargs < argcount ? nargs : argcount;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_INCREF(args[i]);
        fast[i] = args[i];
    }
    if (vararg_slot >= 0) {
        PyObject *t = PyTuple_New(nargs > argcount ? nargs - argcount : 0);
        if (t == NULL) {
            return -1;
        }
        for (Py_ssize_t i = argcount; i < nargs; i++) {
            Py_INCREF(args[i]);
            PyTuple_SET_ITEM(t, i - argcount, args[i]);
        }
        fast[vararg_slot] = t;
    }
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t k = 0; k < nkw; k++) {
        PyObject *key = PyTuple_GET_ITEM(kwnames, k);
        PyObject *val = args[nargs + k];
        int j, found = -1;
        /* positional-or-keyword and keyword-only names (not posonly) */
        for (j = s->posonlyargcount; j < argcount; j++) {
            PyObject *nm = PyTuple_GET_ITEM(s->varnames, j);
            if (nm == key || PyUnicode_Compare(nm, key) == 0) {
                found = j;
                break;
            }
        }
        for (j = kwonly_start;
             found < 0 && j < kwonly_start + s->kwonlyargcount; j++) {
            PyObject *nm = PyTuple_GET_ITEM(s->varnames, j);
            if (nm == key || PyUnicode_Compare(nm, key) == 0) {
                found = j;
            }
        }
        if (found < 0) {
            if (kwdict != NULL) {
                if (PyDict_SetItem(kwdict, key, val) < 0) {
                    return -1;
                }
                continue;
            }
            /* positional-only passed as keyword? */
            PyObject *posonly = PyList_New(0);
            if (posonly == NULL) {
                return -1;
            }
            for (Py_ssize_t kk = 0; kk < nkw; kk++) {
                PyObject *key2 = PyTuple_GET_ITEM(kwnames, kk);
                for (j = 0; j < s->posonlyargcount; j++) {
                    if (PyUnicode_Compare(PyTuple_GET_ITEM(s->varnames, j),
                                          key2) == 0) {
                        if (PyList_Append(posonly, key2) < 0) {
                            Py_DECREF(posonly);
                            return -1;
                        }
                    }
                }
            }
            if (PyList_GET_SIZE(posonly)) {
                PyObject *sep = PyUnicode_FromString(", ");
                PyObject *joined = sep ? PyUnicode_Join(sep, posonly) : NULL;
                if (joined) {
                    PyErr_Format(
                        PyExc_TypeError,
                        "%U() got some positional-only arguments passed "
                        "as keyword arguments: '%U'",
                        fn->qualname, joined);
                }
                Py_XDECREF(sep);
                Py_XDECREF(joined);
            }
            else {
                PyErr_Format(PyExc_TypeError,
                             "%U() got an unexpected keyword argument '%S'",
                             fn->qualname, key);
            }
            Py_DECREF(posonly);
            return -1;
        }
        if (fast[found] != NULL) {
            PyErr_Format(PyExc_TypeError,
                         "%U() got multiple values for argument '%S'",
                         fn->qualname, key);
            return -1;
        }
        Py_INCREF(val);
        fast[found] = val;
    }
    if (nargs > argcount && vararg_slot < 0) {
        too_many_positional(fn, fr, nargs);
        return -1;
    }
    if (nargs < argcount) {
        Py_ssize_t defcount =
            fn->defaults ? PyTuple_GET_SIZE(fn->defaults) : 0;
        Py_ssize_t m = argcount - defcount;
        PyObject *missing = NULL;
        for (Py_ssize_t i = nargs; i < m; i++) {
            if (fast[i] == NULL) {
                if (missing == NULL && (missing = PyList_New(0)) == NULL) {
                    return -1;
                }
                if (PyList_Append(missing, PyTuple_GET_ITEM(s->varnames, i)) <
                    0) {
                    Py_DECREF(missing);
                    return -1;
                }
            }
        }
        if (missing) {
            missing_args_error(fn, missing, "positional");
            Py_DECREF(missing);
            return -1;
        }
        for (Py_ssize_t i = (nargs > m ? nargs : m); i < argcount; i++) {
            if (fast[i] == NULL) {
                PyObject *d = PyTuple_GET_ITEM(fn->defaults, i - m);
                Py_INCREF(d);
                fast[i] = d;
            }
        }
    }
    if (s->kwonlyargcount) {
        PyObject *missing = NULL;
        for (int i = kwonly_start; i < kwonly_start + s->kwonlyargcount; i++) {
            if (fast[i] != NULL) {
                continue;
            }
            PyObject *nm = PyTuple_GET_ITEM(s->varnames, i);
            PyObject *d = fn->kwdefaults
                              ? PyDict_GetItemWithError(fn->kwdefaults, nm)
                              : NULL;
            if (d != NULL) {
                Py_INCREF(d);
                fast[i] = d;
                continue;
            }
            if (PyErr_Occurred()) {
                Py_XDECREF(missing);
                return -1;
            }
            if (missing == NULL && (missing = PyList_New(0)) == NULL) {
                return -1;
            }
            if (PyList_Append(missing, nm) < 0) {
                Py_DECREF(missing);
                return -1;
            }
        }
        if (missing) {
            missing_args_error(fn, missing, "keyword-only");
            Py_DECREF(missing);
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------------- calling */

/* Run a function scope's body in `fr`.  Returns a new reference or NULL. */
static PyObject *
run_frame(Frame *fr)
{
    Status st = eval_body(fr, fr->scope->body, fr->scope->nbody);
    PyObject *res = NULL;
    switch (st) {
    case ST_OK:
        res = Py_None;
        Py_INCREF(res);
        break;
    case ST_RETURN:
        res = fr->retval;
        fr->retval = NULL;
        break;
    case ST_ERROR:
        break;
    case ST_BREAK:
    case ST_CONTINUE:
        PyErr_SetString(PyExc_SystemError, "break/continue outside loop");
        break;
    }
    return res;
}

/* A frame for a call of `fn` by code that `in` runs, its locals (then cells)
 * in `slots`. */
static inline void
frame_init_call(Frame *fr, Interp *in, FunctionObject *fn, PyObject **slots)
{
    *fr = (Frame){0};
    fr->in = in;
    fr->scope = fn->scope;
    fr->globals = fn->globals;
    fr->builtins = fn->builtins;
    fr->fast = slots;
    fr->cells = slots + fn->scope->nlocals;
    fr->program = fn->program;
}

/* run_frame behind the recursion bounds: the interpreter's depth, CPython's
 * recursion counter and the C stack.  New reference, or NULL. */
static inline PyObject *
run_frame_bounded(Interp *in, Frame *fr)
{
    PyObject *res = NULL;
    if (++in_budget(in)->depth > in_budget(in)->max_depth) {
        PyErr_SetString(PyExc_RecursionError,
                        "maximum recursion depth exceeded");
    }
    else if (compat_recursion_enter(in_budget(in)->run_ts) == 0) {
        if (limits_check_stack(in) == 0) {
            res = run_frame(fr);
        }
        compat_recursion_leave(in_budget(in)->run_ts);
    }
    in_budget(in)->depth--;
    return res;
}

/* Bind arguments into fr->fast (already zeroed, scope->nlocals entries).
 * The common case, exactly the positional arguments, inline (a key
 * function that sorted() calls per item); the rest in
 * bind_arguments_general.  0 / -1. */
static inline int
bind_arguments(FunctionObject *fn, Frame *fr, PyObject *const *args,
               size_t nargsf, PyObject *kwnames)
{
    Scope *s = fn->scope;
    Py_ssize_t nargs = PyVectorcall_NARGS(nargsf);
    if (kwnames == NULL && nargs == s->argcount && !s->has_varargs &&
        !s->has_varkw && s->kwonlyargcount == 0) {
        for (Py_ssize_t i = 0; i < nargs; i++) {
            fr->fast[i] = Py_NewRef(args[i]);
        }
        return 0;
    }
    return bind_arguments_general(fn, fr, args, nargsf, kwnames);
}

/* Run an interpreted function while its interpreter's step runs (the
 * arguments already gated): a frame on the C stack, the arguments bound,
 * the body.  New reference, or NULL with an exception. */
static inline PyObject *
function_run(FunctionObject *fn, Interp *in, PyObject *const *args,
             size_t nargsf, PyObject *kwnames)
{
    Scope *s = fn->scope;
    PyObject *res = NULL;
    PyObject *small[FRAME_SMALL_SLOTS];
    int nslots = s->nlocals + s->ncells + s->nfree;
    PyObject **slots = small;
    if (nslots > FRAME_SMALL_SLOTS || s->is_generator) {
        slots = PyMem_Calloc(nslots ? nslots : 1, sizeof(PyObject *));
        if (slots == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
    }
    else {
        memset(small, 0, nslots * sizeof(PyObject *));
    }
    Frame fr;
    frame_init_call(&fr, in, fn, slots);
    if (bind_arguments(fn, &fr, args, nargsf, kwnames) < 0 ||
        ((s->ncells || s->nfree) && frame_init_cells(&fr, fn->closure) < 0)) {
        frame_clear(&fr);
        if (slots != small) {
            PyMem_Free(slots);
        }
        return NULL;
    }
    if (s->is_generator) {
        /* the generator takes ownership of the slots */
        PyObject *gen = generator_new(fn, &fr);
        if (gen == NULL) {
            frame_clear(&fr);
            PyMem_Free(slots);
        }
        return gen;
    }
    res = run_frame_bounded(in, &fr);
    frame_clear(&fr);
    if (slots != small) {
        PyMem_Free(slots);
    }
    return res;
}

static PyObject *function_vectorcall(PyObject *self, PyObject *const *args,
                                     size_t nargsf, PyObject *kwnames);

/* A call of an interpreted function by host code while no step runs (a
 * hook: __repr__, __eq__, a callback...), on the interpreter's big stack. */
typedef struct {
    PyObject *self;
    PyObject *const *args;
    size_t nargsf;
    PyObject *kwnames;
    PyObject *res;
} HookCall;

static void
hook_call_on_big_stack(void *arg)
{
    HookCall *hc = (HookCall *)arg;
    hc->res = function_vectorcall(hc->self, hc->args, hc->nargsf, hc->kwnames);
}

/* Is this call of `fn` a finalizer's: CPython's slot_tp_finalize calling
 * the __del__ of an object's type with the object alone?  (The name alone
 * would let the code pass a thread target it names __del__ for one.)
 * Asked only of a call from another thread (interp_wrong_thread). */
static int
function_is_finalizer_call(FunctionObject *fn, PyObject *const *args,
                           size_t nargsf, PyObject *kwnames)
{
    ModState *st = in_st(interp_of(fn->interp));
    if (PyVectorcall_NARGS(nargsf) != 1 || kwnames != NULL ||
        Py_TYPE(args[0])->tp_finalize == NULL) {
        return 0;
    }
    PyObject *del = compat_type_lookup(Py_TYPE(args[0]), st->str_del);
    if (del == NULL) {
        PyErr_Clear();
        return 0;
    }
    int is = del == (PyObject *)fn;
    Py_DECREF(del);
    return is;
}

static PyObject *
function_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                    PyObject *kwnames)
{
    FunctionObject *fn = (FunctionObject *)self;
    Interp *in = interp_of(fn->interp);
    PyObject *res = NULL;
    InterpSave save;
    /* arguments from host code (sorted's key, a hook called later...) pass
       the value gate like everything else that enters */
    int from_host = !in_eval(in)->direct_call;
    in_eval(in)->direct_call = 0;
    if (from_host &&
        (interp_closing(in) < 0 ||
         (in_budget(in)->running && in_runtime(in)->run_thread != (unsigned long)pthread_self() &&
          interp_wrong_thread(in, function_is_finalizer_call(
                                      fn, args, nargsf, kwnames)) < 0))) {
        return NULL;
    }
    if (from_host) {
        Py_ssize_t total = PyVectorcall_NARGS(nargsf) +
                           (kwnames ? PyTuple_GET_SIZE(kwnames) : 0);
        for (Py_ssize_t i = 0; i < total; i++) {
            if (gate_value(in, args[i]) < 0) {
                return NULL;
            }
        }
    }
    if (in_budget(in)->running && interp_needs_rearm(in)) {
        /* entered from a pure host call or a tool: the step's checks on
           again while interpreted code runs (interp_rearm) */
        InterpRearm r;
        interp_rearm(in, &r);
        in_eval(in)->direct_call = 1; /* already gated */
        res = function_vectorcall(self, args, nargsf, kwnames);
        in_eval(in)->direct_call = 0;
        interp_rearm_done(in, &r);
        return res;
    }
    if (!in_budget(in)->running) {
        if (interp_enter(in, &save) < 0) {
            return NULL;
        }
        HookCall hc = {self, args, nargsf, kwnames, NULL};
        in_eval(in)->direct_call = 1; /* already gated */
        if (bigstack_run(in, hook_call_on_big_stack, &hc) < 0) {
            in_eval(in)->direct_call = 0;
            hc.res = NULL;
        }
        return interp_leave(in, &save, hc.res);
    }
    if (from_host) {
        /* a callback of host code during the step (a key function, a
           finalizer): the calling host frame bounds provenance_in_import */
        PyFrameObject *b = provenance_reenter();
        res = function_run(fn, in, args, nargsf, kwnames);
        provenance_reenter_done(b);
        return res;
    }
    return function_run(fn, in, args, nargsf, kwnames);
}

PyObject *
function_call_direct(Interp *in, PyObject *func, PyObject *const *args,
                     size_t nargsf, PyObject *kwnames)
{
    FunctionObject *fn = (FunctionObject *)func;
    if (Py_TYPE(func) == in_st(in)->FunctionType && function_is_direct(in, fn)) {
        return function_run(fn, in, args, nargsf, kwnames);
    }
    in_eval(in)->direct_call = 1;
    PyObject *res = PyObject_Vectorcall(func, args, nargsf, kwnames);
    in_eval(in)->direct_call = 0;
    return res;
}

/* The result of a class instantiation whose __init__ returned `res` (NULL
 * with an exception, or a new reference): the new object `obj` (stolen)
 * when __init__ returned None, as type_call / slot_tp_init give it. */
static PyObject *
init_result(PyObject *obj, PyObject *res)
{
    if (res == NULL) {
        Py_DECREF(obj);
        return NULL;
    }
    if (res != Py_None) {
        PyErr_Format(PyExc_TypeError,
                     "__init__() should return None, not '%.200s'",
                     Py_TYPE(res)->tp_name);
        Py_DECREF(res);
        Py_DECREF(obj);
        return NULL;
    }
    Py_DECREF(res);
    return obj;
}

/* function_call_simple, and with new_tp the instantiation of new_tp whose
 * __init__ is fn: the arguments are evaluated first, then the object is
 * made (new_tp's tp_new, object_new, with no arguments: what type_call
 * makes first) and takes the frame's first slot. */
static ALWAYS_INLINE PyObject *
call_simple(Frame *f, FunctionObject *fn, PyObject *self_arg,
            PyTypeObject *new_tp, Node **args, Py_ssize_t nargs)
{
    Interp *in = f->in;
    Scope *s = fn->scope;
    PyObject *slots[FRAME_SMALL_SLOTS];
    int k = 0;
    if (self_arg != NULL || new_tp != NULL) {
        slots[k++] = self_arg;
    }
    for (Py_ssize_t i = 0; i < nargs; i++) {
        PyObject *v = eval_operand(f, args[i]);
        if (v == NULL) {
            while (k > 0) {
                Py_XDECREF(slots[--k]);
            }
            return NULL;
        }
        slots[k++] = v;
    }
    PyObject *obj = NULL;
    if (new_tp != NULL) {
        obj = new_tp->tp_new(new_tp, in_st(in)->empty_tuple, NULL);
        if (obj == NULL) {
            while (k > 1) {
                Py_DECREF(slots[--k]);
            }
            return NULL;
        }
        slots[0] = Py_NewRef(obj);
    }
    for (int i = k; i < s->nlocals; i++) {
        slots[i] = NULL;
    }
    /* a closure's free variables: its cells, after the locals (what
       frame_init_cells gives them; simple_argc excludes cells of its own).
       Its own loop rather than a call of frame_init_cells before
       run_frame_bounded: sharing it cost 20 instructions per call of a
       closure (callgrind, 3.11) */
    int nslots = s->nlocals + s->nfree;
    for (int i = 0; i < s->nfree; i++) {
        PyObject *closure = fn->closure;
        if (closure == NULL || PyTuple_GET_SIZE(closure) <= i) {
            PyErr_SetString(PyExc_SystemError, "missing closure cell");
            for (int j = 0; j < s->nlocals + i; j++) {
                Py_XDECREF(slots[j]);
            }
            Py_XDECREF(obj);
            return NULL;
        }
        slots[s->nlocals + i] = Py_NewRef(PyTuple_GET_ITEM(closure, i));
    }
#if COMPAT_CALLER_HOLDS_ARGS
    PyObject *held[FRAME_SMALL_SLOTS];
    for (int i = 0; i < k; i++) {
        held[i] = Py_NewRef(slots[i]);
    }
#endif
    Frame fr;
    frame_init_call(&fr, in, fn, slots);
    PyObject *res = run_frame_bounded(in, &fr);
#if COMPAT_LOCALS_CLEARED_LAST_FIRST
    for (int i = nslots - 1; i >= 0; i--) {
        Py_CLEAR(slots[i]);
    }
#else
    for (int i = 0; i < nslots; i++) {
        Py_CLEAR(slots[i]);
    }
#endif
    Py_CLEAR(fr.retval);
#if COMPAT_CALLER_HOLDS_ARGS
    while (k > 0) {
        Py_DECREF(held[--k]);
    }
#endif
    return new_tp != NULL ? init_result(obj, res) : res;
}

PyObject *
function_call_simple(Frame *f, FunctionObject *fn, PyObject *self_arg,
                     Node **args, Py_ssize_t nargs)
{
    return call_simple(f, fn, self_arg, NULL, args, nargs);
}

PyObject *
function_call_init_simple(Frame *f, FunctionObject *init, PyTypeObject *tp,
                          Node **args, Py_ssize_t nargs)
{
    return call_simple(f, init, NULL, tp, args, nargs);
}

PyObject *
function_call_init(Interp *in, FunctionObject *init, PyTypeObject *tp,
                   PyObject **args, size_t nargsf, PyObject *kwnames)
{
    PyObject *obj = tp->tp_new(tp, in_st(in)->empty_tuple, NULL);
    if (obj == NULL) {
        return NULL;
    }
    args[0] = obj; /* the caller's free slot: the object goes first */
    PyObject *res = function_call_direct(in, (PyObject *)init, args,
                                         (PyVectorcall_NARGS(nargsf) + 1) |
                                             PY_VECTORCALL_ARGUMENTS_OFFSET,
                                         kwnames);
    return init_result(obj, res);
}

int
function_init_for_call(Interp *in, Node *e, PyTypeObject *tp,
                       FunctionObject **pinit)
{
    const CompatTypeCache *ic = &e->Call.icache;
    unsigned int tag = compat_type_version(tp);
    if (tag != 0 && ic->tp == tp && ic->tag == tag) {
        *pinit = (FunctionObject *)ic->value;
        return function_is_direct(in, *pinit);
    }
    /* made as type_call would make it: object_new (no __new__ of anyone's,
       so nothing to ask of the arguments), PyType_GenericAlloc, not
       abstract, and an __init__ of the code's own; a callable the call
       policy has nothing to say about (by identity) */
    if (tag == 0 || tp->tp_new != PyBaseObject_Type.tp_new ||
        tp->tp_alloc != PyType_GenericAlloc ||
        PyType_HasFeature(tp, Py_TPFLAGS_IS_ABSTRACT) ||
        policy_callable_is_dangerous(in, (PyObject *)tp) ||
        !policy_call_is_plain(in, (PyObject *)tp)) {
        return 0;
    }
    PyObject *init = compat_type_lookup(tp, in_st(in)->str_init);
    if (init == NULL) {
        PyErr_Clear();
        return 0;
    }
    int ok = Py_IS_TYPE(init, in_st(in)->FunctionType) &&
             compat_type_version(tp) == tag;
    Py_DECREF(init); /* the type's MRO holds it while the tag holds */
    if (!ok) {
        return 0;
    }
    CompatTypeCache learned = {tp, tag, init};
    specialize_call_init(e, &learned);
    *pinit = (FunctionObject *)init;
    return function_is_direct(in, *pinit);
}

/* Run a comprehension: a scope whose only parameter `.0` is the iterator of
 * the first `for` (`src`: its items).  List/set/dict comprehensions run
 * eagerly here, taking the items from `src`, a count in C or not;
 * generator expressions become generators, called with src's iterator. */
static int comp_loop(Frame *cf, Node *e, Py_ssize_t gi, PyObject *acc,
                     LoopSource *first);

PyObject *
run_comprehension(Frame *f, Node *e, LoopSource *src)
{
    Scope *s = e->Comp.scope;
    PyObject *closure = NULL;
    PyObject *res = NULL;
    if (s->nfree) {
        closure = PyTuple_New(s->nfree);
        if (closure == NULL) {
            return NULL;
        }
        Scope *ps = f->scope;
        for (int i = 0; i < s->nfree; i++) {
            PyObject *name = PyTuple_GET_ITEM(s->freevars, i);
            int slot = scope_cell_slot(ps, name);
            if (slot < 0 || f->cells == NULL) {
                Py_DECREF(closure);
                PyErr_Format(PyExc_SystemError, "no cell for '%U'", name);
                return NULL;
            }
            Py_INCREF(f->cells[slot]);
            PyTuple_SET_ITEM(closure, i, f->cells[slot]);
        }
    }
    if (s->is_generator) {
        /* generator expression: a generator function called with .0 */
        PyObject *fn = function_new(f, e, s, NULL, NULL, NULL, closure);
        Py_XDECREF(closure);
        if (fn == NULL) {
            return NULL;
        }
        res = PyObject_CallOneArg(fn, src->it);
        Py_DECREF(fn);
        return res;
    }
    int nslots = s->nlocals + s->ncells + s->nfree;
    PyObject *small[FRAME_SMALL_SLOTS];
    PyObject **slots = small;
    if (nslots > FRAME_SMALL_SLOTS) {
        slots = PyMem_Calloc(nslots, sizeof(PyObject *));
        if (slots == NULL) {
            Py_XDECREF(closure);
            return PyErr_NoMemory();
        }
    }
    else {
        memset(small, 0, sizeof(small));
    }
    Frame cf = {0};
    cf.in = f->in;
    cf.scope = s;
    cf.globals = f->globals;
    cf.builtins = f->builtins;
    cf.fast = slots;
    cf.cells = slots + s->nlocals;
    cf.back = f;
    cf.program = f->program;
    if (s->is_coroutine) {
        /* an asynchronous comprehension: its awaits suspend the coroutine
           that runs it, on whose stack it runs */
        cf.gen = f->gen;
    }
    /* `.0`: the first clause's iterator; when the clause counts in C, an
       exhausted range iterator (one per module) in its place, so that the
       slot is bound as in CPython for its two readers: dir(), which lists
       it, and super() with no arguments, whose first argument it is (not
       None, which would make an unbound super; a range_iterator, which
       3.13's TypeError names) */
    cf.fast[0] =
        Py_NewRef(src->it != NULL ? src->it : in_st(f->in)->empty_range_iter);
    if (frame_init_cells(&cf, closure) < 0) {
        goto done;
    }
    PyObject *acc = e->kind == K_ListComp  ? PyList_New(0)
                    : e->kind == K_SetComp ? PySet_New(NULL)
                                           : PyDict_New();
    if (acc == NULL) {
        goto done;
    }
    if (limits_check_stack(f->in) < 0 || comp_loop(&cf, e, 0, acc, src) < 0) {
        Py_DECREF(acc);
        goto done;
    }
    res = acc;
done:
    frame_clear(&cf);
    if (slots != small) {
        PyMem_Free(slots);
    }
    Py_XDECREF(closure);
    return res;
}

/* The element of a generator expression run as a body (an asynchronous
 * one, generator.c): yielded (each item of it for `(*x for ...)`), the
 * value sent in dropped.  0 / -1. */
static int
comp_yield(Frame *cf, Node *e)
{
    PyObject *v = eval_expr(cf, e->Comp.elt);
    if (v == NULL) {
        return -1;
    }
    if (!(e->flags & NF_HAS_STAR)) {
        PyObject *sent = gen_yield(cf, v); /* steals v */
        Py_XDECREF(sent);
        return sent != NULL ? 0 : -1;
    }
    PyObject *it = PyObject_GetIter(v);
    Py_DECREF(v);
    if (it == NULL) {
        return -1;
    }
    PyObject *x;
    int rc = 0;
    while (rc == 0 && (x = PyIter_Next(it)) != NULL) {
        /* each item charged and checked as a loop's */
        PyObject *sent = NULL;
        if (charge(cf->in) < 0 || policy_check_value(cf->in, x) < 0) {
            Py_DECREF(x);
        }
        else {
            sent = gen_yield(cf, x); /* steals x */
        }
        rc = sent != NULL ? 0 : -1;
        Py_XDECREF(sent);
    }
    Py_DECREF(it);
    return rc < 0 || PyErr_Occurred() ? -1 : 0;
}

/* One `for` clause of a comprehension (gi-th), recursing for the next. */
static int
comp_loop(Frame *cf, Node *e, Py_ssize_t gi, PyObject *acc, LoopSource *first)
{
    Node *g = e->Comp.generators[gi];
    LoopSource own, *ls = first;
    int is_async = (g->flags & NF_ASYNC_FOR) != 0;
    if (gi > 0) {
        if (is_async) {
            /* `async for` (an asynchronous comprehension): the iterable's
               __aiter__, each item awaited in the running coroutine */
            memset(&own, 0, sizeof(own));
            if ((own.it = async_iter_begin(cf, g->comprehension.iter)) ==
                NULL) {
                return -1;
            }
        }
        else if (loop_source_init(cf, g->comprehension.iter, &own) < 0) {
            return -1;
        }
        ls = &own;
    }
    int rc = 0;
    PyObject *item;
    /* no charge per iteration: the element (and the conditions, or the
       next loop's iterable) are the operations, as smolagents counts them;
       nor for a range's items (loop_iter_next) */
    for (;;) {
        if (is_async) {
            int got = async_iter_next(cf, ls->it, &item);
            if (got <= 0) {
                rc = got;
                break;
            }
        }
        else {
            item = loop_source_next(ls);
            if (item == NULL) {
                if (PyErr_Occurred()) {
                    rc = -1;
                }
                break;
            }
        }
        if ((!is_async && loop_source_gate(cf->in, ls, item) < 0) ||
            store_target(cf, g->comprehension.target, item) < 0) {
            Py_DECREF(item);
            rc = -1;
            break;
        }
        Py_DECREF(item);
        int keep = 1;
        for (Py_ssize_t k = 0; k < g->comprehension.nifs && keep; k++) {
            keep = eval_cond(cf, g->comprehension.ifs[k]);
            if (keep < 0) {
                rc = -1;
                break;
            }
        }
        if (rc < 0) {
            break;
        }
        if (!keep) {
            continue;
        }
        if (gi + 1 < e->Comp.ngenerators) {
            if (comp_loop(cf, e, gi + 1, acc, NULL) < 0) {
                rc = -1;
                break;
            }
            continue;
        }
        if (acc == NULL) {
            /* an asynchronous generator expression's body, on its own
               stack (generator_run_body): each element yielded */
            if (comp_yield(cf, e) < 0) {
                rc = -1;
                break;
            }
        }
        else if (e->flags & NF_HAS_STAR) {
            /* PEP 798 (3.15): `[*x for ...]`, `{*x ...}`, `{**m ...}` */
            PyObject *v = eval_expr(cf, e->Comp.elt);
            int r = v ? display_unpack(cf->in, acc, v) : -1;
            Py_XDECREF(v);
            if (r < 0) {
                rc = -1;
                break;
            }
        }
        else if (e->kind == K_DictComp) {
            PyObject *k = eval_expr(cf, e->Comp.elt);
            if (k == NULL) {
                rc = -1;
                break;
            }
            PyObject *v = eval_expr(cf, e->Comp.value);
            if (v == NULL || PyDict_SetItem(acc, k, v) < 0) {
                Py_DECREF(k);
                Py_XDECREF(v);
                rc = -1;
                break;
            }
            Py_DECREF(k);
            Py_DECREF(v);
        }
        else {
            PyObject *v = eval_expr(cf, e->Comp.elt);
            if (v == NULL) {
                rc = -1;
                break;
            }
            int r = e->kind == K_ListComp ? PyList_Append(acc, v)
                                          : PySet_Add(acc, v);
            Py_DECREF(v);
            if (r < 0) {
                rc = -1;
                break;
            }
        }
    }
    if (ls == &own) {
        loop_source_clear(&own);
    }
    return rc;
}

/* Body of a generator function (generator.c runs it on the generator's C
 * stack; generator expressions are stepped by generator.c itself).  New
 * reference (the return value) or NULL. */
PyObject *
generator_run_body(Frame *fr, Node *def)
{
    if (def->kind == K_GeneratorExp) {
        /* an asynchronous generator expression: its loops, each element
           yielded; `.0` is the first clause's iterator (an asynchronous one
           for `async for`) */
        LoopSource src;
        memset(&src, 0, sizeof(src));
        src.it = Py_NewRef(fr->fast[0]);
        if (!(def->Comp.generators[0]->flags & NF_ASYNC_FOR)) {
            src.next = Py_TYPE(src.it)->tp_iternext;
            if (src.next == NULL) {
                PyErr_Format(PyExc_TypeError, "'%.200s' object is not an iterator",
                             Py_TYPE(src.it)->tp_name);
                Py_DECREF(src.it);
                return NULL;
            }
        }
        int rc = limits_check_stack(fr->in) < 0
                     ? -1
                     : comp_loop(fr, def, 0, NULL, &src);
        loop_source_clear(&src);
        return rc < 0 ? NULL : Py_NewRef(Py_None);
    }
    return run_frame(fr);
}

/* ------------------------------------------------------- function object */

PyObject *
function_new(Frame *f, Node *def, Scope *scope, PyObject *defaults,
             PyObject *kwdefaults, PyObject *annotations, PyObject *closure)
{
    Interp *in = f->in;
    /* as PyFunction_New: the globals' __name__ at definition, else None */
    PyObject *module = PyDict_GetItemWithError(f->globals, in_st(in)->str_name);
    if (module == NULL && PyErr_Occurred()) {
        return NULL;
    }
    module = Py_NewRef(module ? module : Py_None);
    FunctionObject *fn = PyObject_GC_New(FunctionObject, in_st(in)->FunctionType);
    if (fn == NULL) {
        Py_DECREF(module);
        return NULL;
    }
    fn->vectorcall = function_vectorcall;
    fn->program = f->program;
    Py_XINCREF(fn->program);
    fn->scope = scope;
    fn->def = def;
    fn->interp = in_guard(in)->owner;
    Py_INCREF(fn->interp);
    fn->globals = f->globals;
    Py_INCREF(fn->globals);
    fn->builtins = f->builtins;
    Py_INCREF(fn->builtins);
    fn->defaults = defaults;
    Py_XINCREF(defaults);
    fn->kwdefaults = kwdefaults;
    Py_XINCREF(kwdefaults);
    fn->closure = closure;
    Py_XINCREF(closure);
    fn->name = scope->name;
    Py_INCREF(fn->name);
    fn->qualname = scope->qualname;
    Py_INCREF(fn->qualname);
    fn->doc = scope->docstring ? scope->docstring : Py_None;
    Py_INCREF(fn->doc);
    fn->module = module; /* reference moved */
    fn->annotations = annotations;
    Py_XINCREF(annotations);
    fn->type_params = NULL;
    fn->annotate = NULL;
    fn->ann_thunk = NULL;
    fn->dict = NULL;
    fn->weakreflist = NULL;
    PyObject_GC_Track(fn);
    return (PyObject *)fn;
}

static int
function_traverse(FunctionObject *fn, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(fn));
    Py_VISIT(fn->program);
    Py_VISIT(fn->interp);
    Py_VISIT(fn->globals);
    Py_VISIT(fn->builtins);
    Py_VISIT(fn->defaults);
    Py_VISIT(fn->kwdefaults);
    Py_VISIT(fn->closure);
    Py_VISIT(fn->name);
    Py_VISIT(fn->qualname);
    Py_VISIT(fn->doc);
    Py_VISIT(fn->module);
    Py_VISIT(fn->annotations);
    Py_VISIT(fn->type_params);
    Py_VISIT(fn->annotate);
    Py_VISIT(fn->ann_thunk);
    Py_VISIT(fn->dict);
    return 0;
}

static int
function_clear(FunctionObject *fn)
{
    Py_CLEAR(fn->globals);
    Py_CLEAR(fn->builtins);
    Py_CLEAR(fn->defaults);
    Py_CLEAR(fn->kwdefaults);
    Py_CLEAR(fn->closure);
    Py_CLEAR(fn->doc);
    Py_CLEAR(fn->annotations);
    Py_CLEAR(fn->type_params);
    Py_CLEAR(fn->annotate);
    Py_CLEAR(fn->ann_thunk);
    Py_CLEAR(fn->dict);
    return 0;
}

static void
function_dealloc(FunctionObject *fn)
{
    PyTypeObject *tp = Py_TYPE(fn);
    PyObject_GC_UnTrack(fn);
    if (fn->weakreflist != NULL) {
        PyObject_ClearWeakRefs((PyObject *)fn);
    }
    function_clear(fn);
    Py_CLEAR(fn->name);
    Py_CLEAR(fn->qualname);
    Py_CLEAR(fn->module);
    Py_CLEAR(fn->interp);
    Py_CLEAR(fn->program);
    tp->tp_free(fn);
    Py_DECREF(tp);
}

static PyObject *
function_repr(FunctionObject *fn)
{
    return PyUnicode_FromFormat("<function %U at %p>", fn->qualname, fn);
}

static PyObject *
function_get_dict(FunctionObject *fn, void *closure)
{
    if (fn->dict == NULL && (fn->dict = PyDict_New()) == NULL) {
        return NULL;
    }
    Py_INCREF(fn->dict);
    return fn->dict;
}

static PyObject *
function_get_name(FunctionObject *fn, void *c)
{
    Py_INCREF(fn->name);
    return fn->name;
}

static int
function_set_name(FunctionObject *fn, PyObject *v, void *c)
{
    if (v == NULL || !PyUnicode_Check(v)) {
        PyErr_SetString(PyExc_TypeError,
                        "__name__ must be set to a string object");
        return -1;
    }
    Py_INCREF(v);
    Py_XSETREF(fn->name, v);
    return 0;
}

static PyObject *
function_get_qualname(FunctionObject *fn, void *c)
{
    Py_INCREF(fn->qualname);
    return fn->qualname;
}

static int
function_set_qualname(FunctionObject *fn, PyObject *v, void *c)
{
    if (v == NULL || !PyUnicode_Check(v)) {
        PyErr_SetString(PyExc_TypeError,
                        "__qualname__ must be set to a string object");
        return -1;
    }
    Py_INCREF(v);
    Py_XSETREF(fn->qualname, v);
    return 0;
}

static PyObject *
function_get_doc(FunctionObject *fn, void *c)
{
    PyObject *d = fn->doc ? fn->doc : Py_None;
    Py_INCREF(d);
    return d;
}

static int
function_set_doc(FunctionObject *fn, PyObject *v, void *c)
{
    Py_XINCREF(v);
    Py_XSETREF(fn->doc, v);
    return 0;
}

static PyObject *
function_get_module(FunctionObject *fn, void *c)
{
    Py_INCREF(fn->module);
    return fn->module;
}

static int
function_set_module(FunctionObject *fn, PyObject *v, void *c)
{
    if (v == NULL) {
        v = Py_None;
    }
    Py_INCREF(v);
    Py_XSETREF(fn->module, v);
    return 0;
}

#if PY_VERSION_HEX >= 0x030E0000
/* PEP 649 / 749 (3.14): a function's annotations are deferred (annotate.c):
 * __annotate__ is an `annotate` object made from the annotation scope's
 * function (ann_thunk) on first read and kept, None when the function has
 * no annotations; __annotations__ calls it with VALUE on first read and
 * keeps the dict (an error, a NameError included, passes and nothing is
 * kept), as CPython.  Host code may set either (functools.wraps copies
 * __annotate__): setting __annotations__ makes __annotate__ None; setting
 * __annotate__ forgets the annotations.  __annotations__ calls only an
 * `annotate` object of ours (another function's annotations, under its
 * executor); any other callable is not called from here (it would run
 * host code with no gate: the annotations are then empty).  The code
 * itself cannot read __annotate__ (a dunder off the allowlist,
 * docs/security.md).  Annotations host code stored as a dict are given
 * back by a builtin __annotate__ for the VALUE and FORWARDREF formats. */
static PyObject *
function_annotate_call(PyObject *self, PyObject *format)
{
    FunctionObject *fn = (FunctionObject *)self;
    long f = PyLong_Check(format) ? PyLong_AsLong(format) : -1;
    if (f == -1 && PyErr_Occurred()) {
        return NULL;
    }
    if (f != 1 && f != 3) {
        PyErr_SetNone(PyExc_NotImplementedError);
        return NULL;
    }
    if (fn->annotations == NULL) {
        return PyDict_New();
    }
    if (!PyDict_Check(fn->annotations)) {
        PyErr_Format(PyExc_TypeError, "__annotations__ of %R is not a dict",
                     self);
        return NULL;
    }
    return PyDict_Copy(fn->annotations);
}

static PyMethodDef function_annotate_def = {
    "__annotate__", function_annotate_call, METH_O,
    "__annotate__(format) -> dict: the function's annotations (VALUE and "
    "FORWARDREF formats)"};

static PyObject *
function_get_annotate(FunctionObject *fn, void *c)
{
    if (fn->annotate != NULL) {
        return Py_NewRef(fn->annotate);
    }
    if (fn->ann_thunk != NULL) {
        ModState *st = in_st(interp_of(fn->interp));
        fn->annotate = annotate_new(st, fn->ann_thunk, 0);
        if (fn->annotate != NULL) {
            annotate_set_owner(fn->annotate, (PyObject *)fn);
        }
        return Py_XNewRef(fn->annotate);
    }
    if (fn->annotations == NULL ||
        (PyDict_Check(fn->annotations) && PyDict_GET_SIZE(fn->annotations) == 0)) {
        Py_RETURN_NONE;
    }
    return PyCFunction_New(&function_annotate_def, (PyObject *)fn);
}

static int
function_set_annotate(FunctionObject *fn, PyObject *v, void *c)
{
    if (v == NULL) {
        PyErr_SetString(PyExc_TypeError, "__annotate__ cannot be deleted");
        return -1;
    }
    if (v != Py_None && !PyCallable_Check(v)) {
        PyErr_SetString(PyExc_TypeError,
                        "__annotate__ must be callable or None");
        return -1;
    }
    Py_XSETREF(fn->annotate, Py_NewRef(v));
    Py_CLEAR(fn->ann_thunk);
    if (v != Py_None) {
        Py_CLEAR(fn->annotations);
    }
    return 0;
}
#endif

static PyObject *
function_get_annotations(FunctionObject *fn, void *c)
{
#if PY_VERSION_HEX >= 0x030E0000
    if (fn->annotations == NULL) {
        ModState *st = in_st(interp_of(fn->interp));
        PyObject *a = NULL;
        if (fn->annotate == NULL && fn->ann_thunk != NULL) {
            a = annotate_new(st, fn->ann_thunk, 0);
            if (a == NULL) {
                return NULL;
            }
        }
        else if (fn->annotate != NULL && annotate_check(st, fn->annotate)) {
            a = Py_NewRef(fn->annotate);
        }
        else if (fn->annotate != NULL && PyCFunction_Check(fn->annotate) &&
                 ((PyCFunctionObject *)fn->annotate)->m_ml ==
                     &function_annotate_def) {
            a = Py_NewRef(fn->annotate);
        }
        if (a != NULL) {
            PyObject *one = PyLong_FromLong(1);
            PyObject *d = one ? PyObject_CallOneArg(a, one) : NULL;
            Py_XDECREF(one);
            Py_DECREF(a);
            if (d == NULL) {
                return NULL;
            }
            if (!PyDict_Check(d)) {
                Py_DECREF(d);
                PyErr_SetString(PyExc_TypeError,
                                "__annotate__ returned a non-dict");
                return NULL;
            }
            if (fn->annotations == NULL) {
                fn->annotations = d;
            }
            else {
                Py_DECREF(d); /* set while the annotations ran */
            }
        }
    }
#endif
    if (fn->annotations == NULL && (fn->annotations = PyDict_New()) == NULL) {
        return NULL;
    }
    Py_INCREF(fn->annotations);
    return fn->annotations;
}

static int
function_set_annotations(FunctionObject *fn, PyObject *v, void *c)
{
    Py_XINCREF(v);
    Py_XSETREF(fn->annotations, v);
#if PY_VERSION_HEX >= 0x030E0000
    Py_CLEAR(fn->annotate);
    Py_CLEAR(fn->ann_thunk);
#endif
    return 0;
}

#if PY_VERSION_HEX >= 0x030C0000
/* __type_params__ (3.12+): the type parameters of a generic function
 * (PEP 695), as CPython's functions: a tuple, () when it has none. */
static PyObject *
function_get_type_params(FunctionObject *fn, void *c)
{
    if (fn->type_params == NULL) {
        return PyTuple_New(0);
    }
    return Py_NewRef(fn->type_params);
}

static int
function_set_type_params(FunctionObject *fn, PyObject *v, void *c)
{
    if (v == NULL || !PyTuple_Check(v)) {
        PyErr_SetString(PyExc_TypeError,
                        "__type_params__ must be set to a tuple");
        return -1;
    }
    Py_XSETREF(fn->type_params, Py_NewRef(v));
    return 0;
}
#endif

static PyObject *
function_get_defaults(FunctionObject *fn, void *c)
{
    PyObject *d = fn->defaults ? fn->defaults : Py_None;
    Py_INCREF(d);
    return d;
}

static PyObject *
function_get_kwdefaults(FunctionObject *fn, void *c)
{
    PyObject *d = fn->kwdefaults ? fn->kwdefaults : Py_None;
    Py_INCREF(d);
    return d;
}

/* __source__, as smolagents sets it on the functions code defines:
 * ast.unparse of the definition.  Computed on demand from the program's
 * source (the policy refuses this dunder to interpreted code; it is for the
 * host). */
static PyObject *
function_get_source(FunctionObject *fn, void *c)
{
    if (fn->program == NULL || fn->def == NULL) {
        Py_RETURN_NONE;
    }
    PyObject *seg = source_segment((ProgramObject *)fn->program, fn->def);
    if (seg == NULL) {
        return NULL;
    }
    PyObject *ast = PyImport_ImportModule("ast");
    PyObject *textwrap = ast ? PyImport_ImportModule("textwrap") : NULL;
    PyObject *res = NULL;
    if (textwrap != NULL) {
        PyObject *ded = PyObject_CallMethod(textwrap, "dedent", "O", seg);
        PyObject *tree =
            ded ? PyObject_CallMethod(ast, "parse", "O", ded) : NULL;
        res = tree ? PyObject_CallMethod(ast, "unparse", "O", tree) : NULL;
        Py_XDECREF(ded);
        Py_XDECREF(tree);
    }
    if (res == NULL) {
        /* not parseable alone (a lambda inside an expression): raw text */
        PyErr_Clear();
        res = Py_NewRef(seg);
    }
    Py_XDECREF(ast);
    Py_XDECREF(textwrap);
    Py_DECREF(seg);
    return res;
}

static PyGetSetDef function_getset[] = {
    {"__source__", (getter)function_get_source, NULL, NULL, NULL},
    {"__dict__", (getter)function_get_dict, NULL, NULL, NULL},
    {"__name__", (getter)function_get_name, (setter)function_set_name, NULL,
     NULL},
    {"__qualname__", (getter)function_get_qualname,
     (setter)function_set_qualname, NULL, NULL},
    {"__doc__", (getter)function_get_doc, (setter)function_set_doc, NULL,
     NULL},
    {"__module__", (getter)function_get_module, (setter)function_set_module,
     NULL, NULL},
    {"__annotations__", (getter)function_get_annotations,
     (setter)function_set_annotations, NULL, NULL},
#if PY_VERSION_HEX >= 0x030E0000
    {"__annotate__", (getter)function_get_annotate,
     (setter)function_set_annotate, NULL, NULL},
#endif
#if PY_VERSION_HEX >= 0x030C0000
    {"__type_params__", (getter)function_get_type_params,
     (setter)function_set_type_params, NULL, NULL},
#endif
    {"__defaults__", (getter)function_get_defaults, NULL, NULL, NULL},
    {"__kwdefaults__", (getter)function_get_kwdefaults, NULL, NULL, NULL},
    {NULL},
};

static PyMemberDef function_members[] = {
    {"__vectorcalloffset__", T_PYSSIZET, offsetof(FunctionObject, vectorcall),
     READONLY},
    {"__weaklistoffset__", T_PYSSIZET, offsetof(FunctionObject, weakreflist),
     READONLY},
    {"__dictoffset__", T_PYSSIZET, offsetof(FunctionObject, dict), READONLY},
    {NULL},
};

static PyType_Slot function_slots[] = {
    {Py_tp_dealloc, function_dealloc},
    {Py_tp_traverse, function_traverse},
    {Py_tp_clear, function_clear},
    {Py_tp_call, PyVectorcall_Call},
    {Py_tp_descr_get, function_descr_get},
    {Py_tp_repr, function_repr},
    {Py_tp_getset, function_getset},
    {Py_tp_members, function_members},
    {0, NULL},
};

PyType_Spec Function_spec = {
    .name = "builtins.function", /* named as CPython's (module.c) */
    .basicsize = sizeof(FunctionObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC |
             Py_TPFLAGS_HAVE_VECTORCALL | Py_TPFLAGS_METHOD_DESCRIPTOR |
             Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = function_slots,
};

/* --------------------------------------------------------------- classes */

/* Apply __mro_entries__ to the bases (PEP 560).  Returns a new tuple. */
static PyObject *
resolve_bases(ModState *st, PyObject *bases, int *changed)
{
    *changed = 0;
    PyObject *out = PyList_New(0);
    if (out == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(bases); i++) {
        PyObject *b = PyTuple_GET_ITEM(bases, i);
        if (PyType_Check(b)) {
            if (PyList_Append(out, b) < 0) {
                goto fail;
            }
            continue;
        }
        PyObject *meth;
        if (PyObject_GetOptionalAttr(b, st->str_mro_entries, &meth) < 0) {
            goto fail;
        }
        if (meth == NULL) {
            if (PyList_Append(out, b) < 0) {
                goto fail;
            }
            continue;
        }
        PyObject *r = PyObject_CallOneArg(meth, bases);
        Py_DECREF(meth);
        if (r == NULL) {
            goto fail;
        }
        if (!PyTuple_Check(r)) {
            PyErr_SetString(PyExc_TypeError,
                            "__mro_entries__ must return a tuple");
            Py_DECREF(r);
            goto fail;
        }
        *changed = 1;
        for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(r); k++) {
            if (PyList_Append(out, PyTuple_GET_ITEM(r, k)) < 0) {
                Py_DECREF(r);
                goto fail;
            }
        }
        Py_DECREF(r);
    }
    PyObject *t = PyList_AsTuple(out);
    Py_DECREF(out);
    return t;
fail:
    Py_DECREF(out);
    return NULL;
}

/* The equivalent of builtins.__build_class__ for a ClassDef node, with the
 * body run by the interpreter in the namespace from __prepare__. */
PyObject *
build_class(Frame *f, Node *s)
{
    ModState *st = in_st(f->in);
    Scope *cs = s->ClassDef.scope;
    PyObject *orig_bases = NULL, *bases = NULL, *kw = NULL, *meta = NULL,
             *ns = NULL, *cls = NULL, *classcell = NULL, *annot = NULL;
    PyObject **cells = NULL;
    Frame cf = {0};
    /* bases (with *starred) */
    {
        PyObject *l = PyList_New(0);
        if (l == NULL) {
            return NULL;
        }
        for (Py_ssize_t i = 0; i < s->ClassDef.nbases; i++) {
            Node *b = s->ClassDef.bases[i];
            PyObject *v =
                eval_expr(f, b->kind == K_Starred ? b->Starred.value : b);
            if (v == NULL) {
                Py_DECREF(l);
                return NULL;
            }
            int r = 0;
            if (b->kind == K_Starred) {
                PyObject *t = hostcall_star_tuple(f->in, v); /* security */
                r = t ? 0 : -1;
                for (Py_ssize_t k = 0; t && k < PyTuple_GET_SIZE(t) && r == 0;
                     k++) {
                    r = PyList_Append(l, PyTuple_GET_ITEM(t, k));
                }
                Py_XDECREF(t);
            }
            else {
                r = PyList_Append(l, v);
            }
            Py_DECREF(v);
            if (r < 0) {
                Py_DECREF(l);
                return NULL;
            }
        }
        orig_bases = PyList_AsTuple(l);
        Py_DECREF(l);
        if (orig_bases == NULL) {
            return NULL;
        }
    }
    kw = PyDict_New();
    if (kw == NULL) {
        goto done;
    }
    for (Py_ssize_t i = 0; i < s->ClassDef.nkeywords; i++) {
        Node *k = s->ClassDef.keywords[i];
        PyObject *v = eval_expr(f, k->keyword.value);
        if (v == NULL) {
            goto done;
        }
        int r = k->obj ? PyDict_SetItem(kw, k->obj, v) : PyDict_Update(kw, v);
        Py_DECREF(v);
        if (r < 0) {
            goto done;
        }
    }
    int changed = 0;
    bases = resolve_bases(st, orig_bases, &changed);
    if (bases == NULL) {
        goto done;
    }
    meta = PyDict_GetItemWithError(kw, st->str_metaclass);
    if (meta != NULL) {
        Py_INCREF(meta);
        if (PyDict_DelItem(kw, st->str_metaclass) < 0) {
            goto done;
        }
    }
    else if (PyErr_Occurred()) {
        goto done;
    }
    else if (PyTuple_GET_SIZE(bases) == 0) {
        meta = (PyObject *)&PyType_Type;
        Py_INCREF(meta);
    }
    else {
        meta = (PyObject *)Py_TYPE(PyTuple_GET_ITEM(bases, 0));
        Py_INCREF(meta);
    }
    if (PyType_Check(meta)) {
        PyObject *winner = (PyObject *)compat_calculate_metaclass(
            (PyTypeObject *)meta, bases);
        if (winner == NULL) {
            goto done;
        }
        Py_INCREF(winner);
        Py_SETREF(meta, winner);
    }
    /* namespace */
    {
        PyObject *prep;
        if (PyObject_GetOptionalAttr(meta, st->str_prepare, &prep) < 0) {
            goto done;
        }
        if (prep == NULL) {
            ns = PyDict_New();
        }
        else {
            PyObject *pargs[2] = {s->obj, bases};
            ns = PyObject_VectorcallDict(prep, pargs, 2, kw);
            Py_DECREF(prep);
        }
        if (ns == NULL) {
            goto done;
        }
        if (!PyMapping_Check(ns)) {
            PyErr_Format(
                PyExc_TypeError,
                "%.200s.__prepare__() must return a mapping, not %.200s",
                PyType_Check(meta) ? ((PyTypeObject *)meta)->tp_name
                                   : "<metaclass>",
                Py_TYPE(ns)->tp_name);
            goto done;
        }
    }
    /* run the body */
    {
        PyObject *modname = PyDict_GetItemWithError(f->globals, st->str_name);
        if (modname == NULL && PyErr_Occurred()) {
            goto done;
        }
        if (PyObject_SetItem(ns, st->str_module,
                             modname ? modname : st->str_main) < 0 ||
            PyObject_SetItem(ns, st->str_qualname, cs->qualname) < 0) {
            goto done;
        }
#if PY_VERSION_HEX >= 0x030D0000
        {
            PyObject *key = PyUnicode_InternFromString("__firstlineno__");
            PyObject *line = key ? PyLong_FromLong(cs->firstlineno) : NULL;
            int r = line ? PyObject_SetItem(ns, key, line) : -1;
            Py_XDECREF(line);
            Py_XDECREF(key);
            if (r < 0) {
                goto done;
            }
        }
#endif
        if (s->ClassDef.type_params != NULL) {
            /* PEP 695: the annotation scope's tuple, before the body */
            PyObject *tp = eval_expr(f, s->ClassDef.type_params);
            PyObject *key =
                tp ? PyUnicode_InternFromString("__type_params__") : NULL;
            int r = key ? PyObject_SetItem(ns, key, tp) : -1;
            Py_XDECREF(key);
            Py_XDECREF(tp);
            if (r < 0) {
                goto done;
            }
        }
        if (cs->docstring &&
            PyObject_SetItem(ns, st->str_doc, cs->docstring) < 0) {
            goto done;
        }
        int ncells = cs->ncells + cs->nfree;
        cells = PyMem_Calloc(ncells ? ncells : 1, sizeof(PyObject *));
        if (cells == NULL) {
            PyErr_NoMemory();
            goto done;
        }
        cf.in = f->in;
        cf.scope = cs;
        cf.globals = f->globals;
        cf.builtins = f->builtins;
        cf.locals = ns;
        cf.cells = cells;
        cf.program = f->program;
        cf.back = f;
        for (int i = 0; i < cs->ncells; i++) {
            cells[i] = PyCell_New(NULL);
            if (cells[i] == NULL) {
                goto done;
            }
        }
        if (cs->needs_classdict_cell &&
            PyCell_Set(cells[cs->classdict_cell_slot], ns) < 0) {
            goto done; /* __classdict__: the namespace, for annotation scopes */
        }
        /* free variables: take the enclosing frame's cells by name */
        for (int i = 0; i < cs->nfree; i++) {
            PyObject *name = PyTuple_GET_ITEM(cs->freevars, i);
            Scope *ps = f->scope;
            int slot = scope_cell_slot(ps, name);
            if (slot < 0 || f->cells == NULL) {
                PyErr_Format(PyExc_SystemError, "no cell for '%U'", name);
                goto done;
            }
            Py_INCREF(f->cells[slot]);
            cells[cs->ncells + i] = f->cells[slot];
        }
        if (limits_check_stack(f->in) < 0) {
            goto done;
        }
        Status bst = eval_body(&cf, cs->body, cs->nbody);
        if (bst != ST_OK) {
            if (bst != ST_ERROR) {
                PyErr_SetString(PyExc_SystemError,
                                "bad control flow in class body");
            }
            goto done;
        }
#if PY_VERSION_HEX >= 0x030D0000
        {
            PyObject *key = PyUnicode_InternFromString("__static_attributes__");
            PyObject *sa = cs->static_attributes ? Py_NewRef(cs->static_attributes)
                                                 : PyTuple_New(0);
            int r = key && sa ? PyObject_SetItem(ns, key, sa) : -1;
            Py_XDECREF(sa);
            Py_XDECREF(key);
            if (r < 0) {
                goto done;
            }
        }
#endif
#if PY_VERSION_HEX >= 0x030E0000
        if (s->ClassDef.annotate != NULL) {
            /* PEP 649: the annotate object of the body's annotated names,
               where CPython's `type` looks for it */
            PyObject *thunk = make_function(&cf, s->ClassDef.annotate);
            annot = thunk ? annotate_new(st, thunk, 1) : NULL;
            if (annot != NULL) {
                annotate_set_done(annot, cf.ann_done);
            }
            PyObject *key =
                annot ? PyUnicode_InternFromString("__annotate_func__") : NULL;
            int r = key ? PyObject_SetItem(ns, key, annot) : -1;
            Py_XDECREF(key);
            Py_XDECREF(thunk);
            if (r < 0) {
                goto done;
            }
        }
#endif
        if (cs->needs_class_cell) {
            classcell = cells[cs->class_cell_slot];
            Py_INCREF(classcell);
            if (PyObject_SetItem(ns, st->str_classcell, classcell) < 0) {
                goto done;
            }
        }
        if (changed &&
            PyObject_SetItem(ns, st->str_orig_bases, orig_bases) < 0) {
            goto done;
        }
        /* type.__new__ makes these implicit class/static methods only for
           plain Python functions; do the same for interpreted ones */
        static const char *const implicit[] = {"__init_subclass__",
                                               "__class_getitem__", "__new__"};
        for (int k = 0; k < 3; k++) {
            PyObject *key = PyUnicode_FromString(implicit[k]);
            if (key == NULL) {
                goto done;
            }
            PyObject *fnv = PyObject_GetItem(ns, key);
            if (fnv == NULL) {
                PyErr_Clear();
            }
            else if (Py_TYPE(fnv) == st->FunctionType) {
                PyObject *w =
                    k < 2 ? PyClassMethod_New(fnv) : PyStaticMethod_New(fnv);
                int r = w ? PyObject_SetItem(ns, key, w) : -1;
                Py_XDECREF(w);
                if (r < 0) {
                    Py_DECREF(fnv);
                    Py_DECREF(key);
                    goto done;
                }
            }
            Py_XDECREF(fnv);
            Py_DECREF(key);
        }
    }
    {
        PyObject *margs[3] = {s->obj, bases, ns};
        cls = PyObject_VectorcallDict(meta, margs, 3, kw);
    }
    if (cls != NULL && annot != NULL) {
        annotate_set_owner(annot, cls); /* ForwardRef's owner */
    }
#if PY_VERSION_HEX >= 0x030C0000
    if (cls != NULL && cs->needs_classdict_cell && PyType_Check(cls)) {
        /* __classdict__ now reads the class's dict, as CPython's type.__new__
           points it there through __classdictcell__ -- an entry not put in
           the namespace here: a metaclass of the code's would get the cell,
           and from it the class's dict itself, writable */
        PyObject *d = PyType_GetDict((PyTypeObject *)cls);
        if (d == NULL || PyCell_Set(cells[cs->classdict_cell_slot], d) < 0) {
            Py_XDECREF(d);
            Py_CLEAR(cls);
            goto done;
        }
        Py_DECREF(d);
    }
#endif
    if (cls != NULL && classcell != NULL && PyType_Check(cls)) {
        PyObject *cell_cls = PyCell_GET(classcell);
        if (cell_cls != cls) {
            if (cell_cls == NULL) {
                PyErr_Format(PyExc_RuntimeError,
                             "__class__ not set defining %R as %R. "
                             "Was __classcell__ propagated to type.__new__?",
                             s->obj, cls);
            }
            else {
                PyErr_Format(PyExc_TypeError,
                             "__class__ set to %R defining %R as %R", cell_cls,
                             s->obj, cls);
            }
            Py_CLEAR(cls);
        }
    }
done:
    if (cells != NULL) {
        for (int i = 0; i < cs->ncells + cs->nfree; i++) {
            Py_XDECREF(cells[i]);
        }
        PyMem_Free(cells);
    }
    Py_XDECREF(cf.last_value);
    Py_XDECREF(cf.ann_done);
    Py_XDECREF(classcell);
    Py_XDECREF(annot);
    Py_XDECREF(orig_bases);
    Py_XDECREF(bases);
    Py_XDECREF(kw);
    Py_XDECREF(meta);
    Py_XDECREF(ns);
    return cls;
}
