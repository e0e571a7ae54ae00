/* eval_stmt.c: evaluate statement nodes.
 *
 * eval_stmt() returns a Status: control flow (break, continue, return) is a
 * status code, never a Python exception; ST_ERROR means an exception is set.
 *
 * Budget and policy aborts (in->abort != ABORT_NONE) propagate as ST_ERROR
 * through every handler: `except` clauses do not match them and `finally`
 * bodies and `__exit__` methods do not run, so user code cannot swallow or
 * delay them.  The final-answer exception is not matched by `except` clauses
 * either (as in smolagents, where it is a BaseException that its evaluator
 * never hands to user handlers), but `finally` bodies do run for it.
 */
#include "eval.h"

/* Special-method lookup on the type, as CPython does for `with`: returns a
 * new reference (bound when the attribute is a descriptor) or NULL, with an
 * exception set only for real errors. */
static PyObject *
lookup_special(PyObject *obj, PyObject *name)
{
    PyObject *res = compat_type_lookup(Py_TYPE(obj), name);
    if (res == NULL) {
        return NULL;
    }
    descrgetfunc get = Py_TYPE(res)->tp_descr_get;
    if (get != NULL) {
        Py_SETREF(res, get(res, obj, (PyObject *)Py_TYPE(obj)));
    }
    return res;
}

/* Is the pending error one that user handlers must not see? */
static int
error_is_uncatchable(Frame *f)
{
    if (in_budget(f->in)->abort != ABORT_NONE || citizen_claim_error(f->in)) {
        return 1;
    }
    PyObject *t = PyErr_Occurred();
    return t && in_eval(f->in)->final_answer_exc &&
           PyErr_GivenExceptionMatches(t, in_eval(f->in)->final_answer_exc);
}

/* Fetch the pending exception as one normalized object with its traceback
 * attached.  Returns a new reference (never NULL when an error was set). */
static PyObject *
fetch_exception(void)
{
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    PyErr_NormalizeException(&t, &v, &tb);
    if (tb != NULL && v != NULL) {
        PyException_SetTraceback(v, tb);
    }
    Py_XDECREF(t);
    Py_XDECREF(tb);
    return v;
}

/* Re-raise a fetched exception (steals the reference). */
static void
restore_exception(PyObject *exc)
{
    PyObject *tb = PyException_GetTraceback(exc);
    PyErr_Restore((PyObject *)Py_TYPE(exc), exc, tb);
    Py_INCREF(Py_TYPE(exc));
}

static NOINLINE Status eval_stmt_tick(Frame *f, Node *s);

/* An exception leaves statement `s`: if it is not the one noted already
 * (an inner statement's), `s` is where it arose.  The error path only.
 * The note holds the exception; a statement that completes lets it go
 * (error_site_done), so an exception the code caught (or host code
 * swallowed) lives no longer than under CPython, but for the statement
 * that was running. */
NOINLINE void
error_site_release(Interp *in)
{
    Py_CLEAR(in_eval(in)->err_site_exc);
}

static NOINLINE void
note_error_site(Interp *in, Node *s)
{
    if (!PyErr_Occurred()) {
        return;
    }
    PyObject *exc = fetch_exception();
    if (exc == NULL) {
        return;
    }
    if (exc != in_eval(in)->err_site_exc) {
        Py_XSETREF(in_eval(in)->err_site_exc, Py_NewRef(exc));
        in_eval(in)->err_site_line = s->lineno;
    }
    restore_exception(exc);
}

/* The statements of a body, each charged then dispatched through
 * stmt_table here (eval_stmt's work, without a call to it per statement);
 * inline in the loops, whose bodies run once per iteration. */
static inline Status
body_run(Frame *f, Node **body, Py_ssize_t n)
{
    for (Py_ssize_t i = 0; i < n; i++) {
        Node *s = body[i];
        Status st = charge_due(f->in) ? eval_stmt_tick(f, s)
                                      : stmt_table[s->kind](f, s);
        if (st != ST_OK) {
            if (st == ST_ERROR) {
                note_error_site(f->in, s);
            }
            return st;
        }
        error_site_done(f->in);
    }
    return ST_OK;
}

Status
eval_body(Frame *f, Node **body, Py_ssize_t n)
{
    return body_run(f, body, n);
}

/* ------------------------------------------------------------------ loops */

/* `range(...)` as a loop's iterable: a call of a name with one to three
 * positional arguments, neither starred nor keyword. */
static inline int
range_call_shape(Node *it)
{
    return it->kind == K_Call && it->Call.func->kind == K_Name &&
           it->Call.nkeywords == 0 && !(it->flags & NF_STAR_ARGS) &&
           it->Call.nargs >= 1 && it->Call.nargs <= 3;
}

/* ls over the iterable `src` (stolen). */
static int
loop_source_iter(Interp *in, PyObject *src, LoopSource *ls)
{
    ls->it = PyObject_GetIter(src);
    Py_DECREF(src);
    if (ls->it == NULL) {
        return -1;
    }
    /* a range's own next: the loop's body or element is charged */
    ls->next = deadline_next_orig(Py_TYPE(ls->it));
    ls->gated = generator_yields_gated(in, ls->it);
    return 0;
}

int
loop_source_object(Frame *f, Node *iter, LoopSource *ls)
{
    PyObject *src = eval_expr(f, iter);
    return src == NULL ? -1 : loop_source_iter(f->in, src, ls);
}

/* A range(...) call (range_call_shape) as a loop's items.  When the callee
 * is the builtin range and the arguments are ints that fit a long long,
 * with a step other than 0, the loop counts in C (CPython 3.11's
 * FOR_ITER_RANGE goes as far as the iterator; a short inner loop paid
 * about 1,000 instructions for the object, the iterator and the host
 * call).  The operations charged are the generic path's: the call node,
 * its callee name (refunded, as for every call of a name), each argument.
 * Any other callee continues as call_function would; other arguments go
 * to range through the host-call entry point (its errors, an __index__ of
 * the code's own). */
static NOINLINE int
loop_source_range(Frame *f, Node *call, LoopSource *ls)
{
    if (charge(f->in) < 0) { /* the call node, as eval_expr charges it */
        return -1;
    }
    PyObject *func = eval_expr(f, call->Call.func);
    if (func == NULL) {
        return -1;
    }
    if (func != (PyObject *)&PyRange_Type) {
        PyObject *src = call_with_callee(f, call, func);
        return src == NULL ? -1 : loop_source_iter(f->in, src, ls);
    }
    uncharge(f->in); /* the callee name, as call_function_with */
    Py_ssize_t n = call->Call.nargs, done = 0;
    /* stack[0]: free slot (PY_VECTORCALL_ARGUMENTS_OFFSET) */
    PyObject *stack[4];
    PyObject **args = stack + 1;
    long long v[3];
    int fits = 1;
    for (; done < n; done++) {
        args[done] = eval_operand(f, call->Call.args[done]);
        if (args[done] == NULL) {
            break;
        }
        int overflow = 0;
        if (fits && PyLong_CheckExact(args[done])) {
            v[done] = PyLong_AsLongLongAndOverflow(args[done], &overflow);
            fits = !overflow;
        }
        else {
            fits = 0;
        }
    }
    int rc = -1;
    if (done == n && fits && (n < 3 || v[2] != 0)) {
        long long start = n == 1 ? 0 : v[0], stop = n == 1 ? v[0] : v[1];
        long long step = n == 3 ? v[2] : 1;
        unsigned long long count = 0; /* range's length, as CPython's */
        if (step > 0 && start < stop) {
            count =
                ((unsigned long long)stop - (unsigned long long)start - 1) /
                    (unsigned long long)step +
                1;
        }
        else if (step < 0 && start > stop) {
            count =
                ((unsigned long long)start - (unsigned long long)stop - 1) /
                    (0 - (unsigned long long)step) +
                1;
        }
        ls->it = NULL;
        ls->next = NULL;
        ls->gated = 1; /* ints */
        ls->start = start;
        ls->step = step;
        ls->k = 0;
        ls->n = count;
        rc = 0;
    }
    else if (done == n) {
        /* security (hostcall.c): the one host-call entry point, with
           every check (this site remembers no verdict) */
        PyObject *src = hostcall_vectorcall(
            f->in, &func, args, (size_t)n | PY_VECTORCALL_ARGUMENTS_OFFSET,
            NULL, 0);
        rc = src == NULL ? -1 : loop_source_iter(f->in, src, ls);
    }
    for (Py_ssize_t i = 0; i < done; i++) {
        Py_DECREF(args[i]);
    }
    Py_DECREF(func);
    return rc;
}

int
loop_source_init(Frame *f, Node *iter, LoopSource *ls)
{
    if (range_call_shape(iter)) {
        return loop_source_range(f, iter, ls);
    }
    return loop_source_object(f, iter, ls);
}

/* The result of calling __aenter__ / __aexit__ (`async with`) or __anext__
 * (`async for`), awaited (steals `aw`; new ref or NULL). */
static PyObject *
await_result(Frame *f, PyObject *aw)
{
    if (aw == NULL) {
        return NULL;
    }
    PyObject *r = gen_await(f, aw);
    Py_DECREF(aw);
    return r;
}

PyObject *
async_iter_begin(Frame *f, Node *iter)
{
    PyObject *obj = eval_expr(f, iter);
    if (obj == NULL) {
        return NULL;
    }
    PyObject *aiterf = lookup_special(obj, in_st(f->in)->str_aiter);
    if (aiterf == NULL) {
        if (!PyErr_Occurred()) {
            PyErr_Format(PyExc_TypeError,
                         "'async for' requires an object with __aiter__ "
                         "method, got %.100s",
                         Py_TYPE(obj)->tp_name);
        }
        Py_DECREF(obj);
        return NULL;
    }
    Py_DECREF(obj);
    PyObject *it = hostcall_callv(f->in, aiterf, NULL, 0); /* security */
    Py_DECREF(aiterf);
    if (it == NULL || policy_check_value(f->in, it) < 0) {
        Py_XDECREF(it);
        return NULL;
    }
    return it;
}

int
async_iter_next(Frame *f, PyObject *it, PyObject **pitem)
{
    *pitem = NULL;
    PyObject *anext = lookup_special(it, in_st(f->in)->str_anext);
    if (anext == NULL) {
        if (!PyErr_Occurred()) {
            PyErr_Format(PyExc_TypeError,
                         "'async for' received an object from __aiter__ "
                         "that does not implement __anext__: %.100s",
                         Py_TYPE(it)->tp_name);
        }
        return -1;
    }
    PyObject *aw = hostcall_callv(f->in, anext, NULL, 0); /* security */
    Py_DECREF(anext);
    PyObject *item = await_result(f, aw);
    if (item == NULL) {
        if (in_budget(f->in)->abort == ABORT_NONE &&
            PyErr_ExceptionMatches(PyExc_StopAsyncIteration)) {
            PyErr_Clear();
            return 0;
        }
        return -1;
    }
    if (policy_check_value(f->in, item) < 0) {
        Py_DECREF(item);
        return -1;
    }
    *pitem = item;
    return 1;
}

/* `async for` (CPython's GET_AITER, then GET_ANEXT + await per item until
 * StopAsyncIteration). */
static Status
eval_async_for(Frame *f, Node *s)
{
    PyObject *it = async_iter_begin(f, s->For.iter);
    if (it == NULL) {
        return ST_ERROR;
    }
    Status res = ST_OK;
    for (;;) {
        PyObject *item;
        int got = async_iter_next(f, it, &item);
        if (got <= 0) {
            res = got == 0 ? eval_body(f, s->For.orelse, s->For.norelse)
                           : ST_ERROR;
            break;
        }
        if (store_target(f, s->For.target, item) < 0) {
            Py_DECREF(item);
            res = ST_ERROR;
            break;
        }
        Py_DECREF(item);
        res = body_run(f, s->For.body, s->For.nbody);
        if (res == ST_BREAK) {
            res = ST_OK;
            break;
        }
        if (res == ST_CONTINUE) {
            res = ST_OK;
            continue;
        }
        if (res != ST_OK) {
            break;
        }
    }
    Py_DECREF(it);
    return res;
}

static Status
eval_for(Frame *f, Node *s)
{
    LoopSource ls;
    if (loop_source_init(f, s->For.iter, &ls) < 0) {
        return ST_ERROR;
    }
    Status st = ST_OK;
    /* no charge per iteration: as smolagents counts, the body's statements
       are the operations (a body has at least one) */
    for (;;) {
        PyObject *item = loop_source_next(&ls);
        if (item == NULL) {
            if (PyErr_Occurred()) {
                st = ST_ERROR;
                break;
            }
            /* the iterator is released before the else clause, as by
               CPython's FOR_ITER */
            loop_source_clear(&ls);
            st = eval_body(f, s->For.orelse, s->For.norelse);
            break;
        }
        if (loop_source_gate(f->in, &ls, item) < 0 ||
            store_target(f, s->For.target, item) < 0) {
            Py_DECREF(item);
            st = ST_ERROR;
            break;
        }
        Py_DECREF(item);
        st = body_run(f, s->For.body, s->For.nbody);
        if (st == ST_BREAK) {
            st = ST_OK;
            break;
        }
        if (st == ST_CONTINUE) {
            st = ST_OK;
            continue;
        }
        if (st != ST_OK) {
            break;
        }
    }
    loop_source_clear(&ls);
    return st;
}

static Status
eval_while(Frame *f, Node *s)
{
    long long iterations = 0;
    for (;;) {
        int b = eval_cond(f, s->While.test);
        if (b < 0) {
            return ST_ERROR;
        }
        if (!b) {
            return eval_body(f, s->While.orelse, s->While.norelse);
        }
        if (++iterations > budget_max_while_iterations(f->in)) {
            limits_abort(f->in, ABORT_BUDGET,
                         budget_message(BUDGET_ID_max_while_iterations),
                         budget_max_while_iterations(f->in));
            return ST_ERROR;
        }
        Status st = body_run(f, s->While.body, s->While.nbody);
        if (st == ST_BREAK) {
            return ST_OK;
        }
        if (st == ST_CONTINUE) {
            continue;
        }
        if (st != ST_OK) {
            return st;
        }
    }
}

/* ------------------------------------------------------------- exceptions */

/* Check an `except` clause's type and whether `exc` matches it: 1 / 0 / -1. */
static int
handler_matches(Frame *f, Node *h, PyObject *exc)
{
    if (h->ExceptHandler.type == NULL) {
        return 1;
    }
    PyObject *t = eval_expr(f, h->ExceptHandler.type);
    if (t == NULL) {
        return -1;
    }
    int ok = 1;
    if (PyTuple_Check(t)) {
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(t); i++) {
            PyObject *x = PyTuple_GET_ITEM(t, i);
            if (!PyExceptionClass_Check(x)) {
                ok = 0;
            }
        }
    }
    else if (!PyExceptionClass_Check(t)) {
        ok = 0;
    }
    if (!ok) {
        Py_DECREF(t);
        PyErr_SetString(PyExc_TypeError,
                        "catching classes that do not inherit from "
                        "BaseException is not allowed");
        return -1;
    }
    int m = PyErr_GivenExceptionMatches(exc, t);
    Py_DECREF(t);
    return m;
}

/* Run a handler body with `exc` as the handled exception, binding it to the
 * handler's name (unbound again afterwards, as CPython does). */
static Status
run_handler(Frame *f, Node *h, PyObject *exc)
{
    if (h->ExceptHandler.target != NULL) {
        if (policy_check_value(f->in, exc) < 0 ||
            store_name(f, h->ExceptHandler.target, exc) < 0) {
            return ST_ERROR;
        }
    }
    PyObject *saved = compat_get_handled();
    compat_set_handled(exc);
    Status st = eval_body(f, h->ExceptHandler.body, h->ExceptHandler.nbody);
    compat_set_handled(saved);
    Py_XDECREF(saved);
    if (h->ExceptHandler.target != NULL) {
        /* `del name`, ignoring a name the body already removed */
        PyObject *t = NULL, *v = NULL, *tb = NULL;
        if (st == ST_ERROR) {
            PyErr_Fetch(&t, &v, &tb);
        }
        if (delete_target(f, h->ExceptHandler.target) < 0) {
            PyErr_Clear();
        }
        if (st == ST_ERROR) {
            PyErr_Restore(t, v, tb);
        }
    }
    return st;
}

/* Run a finally body.  `pending` is the status that led here; for ST_ERROR
 * the exception is fetched while the body runs (and is the handled exception
 * for context chaining), then restored if the body completes normally. */
static Status
run_finally(Frame *f, Node *s, Status pending)
{
    if (s->Try.nfinalbody == 0) {
        return pending;
    }
    if (pending == ST_ERROR && in_budget(f->in)->abort != ABORT_NONE) {
        return ST_ERROR;
    }
    PyObject *exc = NULL;
    PyObject *retval = NULL;
    if (pending == ST_ERROR) {
        exc = fetch_exception();
    }
    if (pending == ST_RETURN) {
        retval = f->retval;
        f->retval = NULL;
    }
    PyObject *saved = NULL;
    if (exc) {
        saved = compat_get_handled();
        compat_set_handled(exc);
    }
    Status st = eval_body(f, s->Try.finalbody, s->Try.nfinalbody);
    if (exc) {
        compat_set_handled(saved);
        Py_XDECREF(saved);
    }
    if (st != ST_OK) {
        /* the finally body's own control flow wins */
        Py_XDECREF(exc);
        Py_XDECREF(retval);
        return st;
    }
    if (exc) {
        restore_exception(exc);
    }
    if (retval) {
        Py_XSETREF(f->retval, retval);
    }
    return pending;
}

static Status
eval_try(Frame *f, Node *s)
{
    Status st = eval_body(f, s->Try.body, s->Try.nbody);
    if (st == ST_ERROR && s->Try.nhandlers && !error_is_uncatchable(f)) {
        PyObject *exc = fetch_exception();
        int handled = 0;
        for (Py_ssize_t i = 0; i < s->Try.nhandlers; i++) {
            Node *h = s->Try.handlers[i];
            int m = handler_matches(f, h, exc);
            if (m < 0) {
                /* an error evaluating the type: it propagates, with the
                   original exception as its context */
                PyObject *nexc = fetch_exception();
                Py_INCREF(exc);
                PyException_SetContext(nexc, exc);
                restore_exception(nexc);
                handled = -1;
                break;
            }
            if (m) {
                st = run_handler(f, h, exc);
                handled = 1;
                break;
            }
        }
        if (handled == 0) {
            restore_exception(exc);
            st = ST_ERROR;
        }
        else {
            if (handled < 0) {
                st = ST_ERROR;
            }
            Py_DECREF(exc);
        }
    }
    else if (st == ST_OK && s->Try.norelse) {
        st = eval_body(f, s->Try.orelse, s->Try.norelse);
    }
    return run_finally(f, s, st);
}

/* ------------------------------------------------------------- except* */
#if PY_VERSION_HEX >= 0x030B0000

/* Match `exc` (an exception, a group, or None) against the type of an
 * except* clause, as CPython's CHECK_EG_MATCH does: a naked exception that
 * matches is wrapped in a group with an empty message; a group is split.
 * Sets new references in *match and *rest (either may be Py_None).  0 / -1. */
static int
star_match(PyObject *exc, PyObject *type, PyObject **match, PyObject **rest)
{
    *match = *rest = NULL;
    if (exc == Py_None) {
        *match = Py_NewRef(Py_None);
        *rest = Py_NewRef(Py_None);
        return 0;
    }
    if (PyErr_GivenExceptionMatches(exc, type)) {
        if (PyObject_TypeCheck(exc,
                               (PyTypeObject *)PyExc_BaseExceptionGroup)) {
            *match = Py_NewRef(exc);
        }
        else {
            *match = PyObject_CallFunction(PyExc_BaseExceptionGroup, "s(O)",
                                           "", exc);
            if (*match == NULL) {
                return -1;
            }
            /* the wrapper carries the original's traceback */
            PyObject *tb = PyException_GetTraceback(exc);
            if (tb) {
                PyException_SetTraceback(*match, tb);
                Py_DECREF(tb);
            }
        }
        *rest = Py_NewRef(Py_None);
        return 0;
    }
    if (PyObject_TypeCheck(exc, (PyTypeObject *)PyExc_BaseExceptionGroup)) {
        /* one argument even when `type` is a tuple of types */
        PyObject *name = PyUnicode_FromString("split");
        PyObject *pair = name ? PyObject_CallMethodOneArg(exc, name, type)
                              : NULL;
        Py_XDECREF(name);
        if (pair == NULL) {
            return -1;
        }
        /* a subclass's split() may return anything: CPython 3.14's checks
           (earlier versions crash on a non-tuple) */
        if (!PyTuple_CheckExact(pair)) {
            PyErr_Format(PyExc_TypeError,
                         "%.200s.split must return a tuple, not %.200s",
                         Py_TYPE(exc)->tp_name, Py_TYPE(pair)->tp_name);
            Py_DECREF(pair);
            return -1;
        }
        if (PyTuple_GET_SIZE(pair) < 2) {
            PyErr_Format(PyExc_TypeError,
                         "%.200s.split must return a 2-tuple, "
                         "got tuple of size %zd",
                         Py_TYPE(exc)->tp_name, PyTuple_GET_SIZE(pair));
            Py_DECREF(pair);
            return -1;
        }
        *match = Py_NewRef(PyTuple_GET_ITEM(pair, 0));
        *rest = Py_NewRef(PyTuple_GET_ITEM(pair, 1));
        Py_DECREF(pair);
        return 0;
    }
    *match = Py_NewRef(Py_None);
    *rest = Py_NewRef(exc);
    return 0;
}

/* The `exceptions` of an exception group, new ref: a subclass may make the
 * attribute anything, and only a tuple is walked. */
static PyObject *
group_exceptions(PyObject *e)
{
    PyObject *subs = PyObject_GetAttrString(e, "exceptions");
    if (subs != NULL && !PyTuple_Check(subs)) {
        PyErr_Format(PyExc_TypeError,
                     "%.200s.exceptions must be a tuple, not %.200s",
                     Py_TYPE(e)->tp_name, Py_TYPE(subs)->tp_name);
        Py_CLEAR(subs);
    }
    return subs;
}

/* Add the ids of the leaf exceptions of `e` to the set `ids`.  0 / -1. */
static int
collect_leaf_ids(PyObject *e, PyObject *ids)
{
    if (PyObject_TypeCheck(e, (PyTypeObject *)PyExc_BaseExceptionGroup)) {
        PyObject *subs = group_exceptions(e);
        if (subs == NULL) {
            return -1;
        }
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(subs); i++) {
            if (collect_leaf_ids(PyTuple_GET_ITEM(subs, i), ids) < 0) {
                Py_DECREF(subs);
                return -1;
            }
        }
        Py_DECREF(subs);
        return 0;
    }
    PyObject *id = PyLong_FromVoidPtr(e);
    int r = id ? PySet_Add(ids, id) : -1;
    Py_XDECREF(id);
    return r;
}

/* The part of `e` whose leaves are in `ids` (a set of ids), keeping the
 * nesting and metadata of `e` as BaseExceptionGroup.split() does.  Returns
 * a new reference (Py_None for nothing) or NULL. */
static PyObject *
project_leaves(PyObject *e, PyObject *ids)
{
    if (!PyObject_TypeCheck(e, (PyTypeObject *)PyExc_BaseExceptionGroup)) {
        PyObject *id = PyLong_FromVoidPtr(e);
        if (id == NULL) {
            return NULL;
        }
        int r = PySet_Contains(ids, id);
        Py_DECREF(id);
        if (r < 0) {
            return NULL;
        }
        return Py_NewRef(r ? e : Py_None);
    }
    PyObject *subs = group_exceptions(e);
    PyObject *kept = PyList_New(0);
    PyObject *res = NULL;
    int same = 1;
    if (subs == NULL || kept == NULL) {
        goto done;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(subs); i++) {
        PyObject *x = PyTuple_GET_ITEM(subs, i);
        PyObject *p = project_leaves(x, ids);
        if (p == NULL) {
            goto done;
        }
        if (p != x) {
            same = 0;
        }
        int r = p == Py_None ? 0 : PyList_Append(kept, p);
        Py_DECREF(p);
        if (r < 0) {
            goto done;
        }
    }
    if (PyList_GET_SIZE(kept) == 0) {
        res = Py_NewRef(Py_None);
    }
    else if (same) {
        res = Py_NewRef(e);
    }
    else {
        res = PyObject_CallMethod(e, "derive", "O", kept);
        if (res != NULL &&
            !PyObject_TypeCheck(res, (PyTypeObject *)PyExc_BaseExceptionGroup)) {
            /* as BaseExceptionGroup.split() checks a subclass's derive() */
            PyErr_SetString(PyExc_TypeError,
                            "derive must return an instance of "
                            "BaseExceptionGroup");
            Py_CLEAR(res);
        }
        if (res != NULL) {
            PyObject *tb = PyException_GetTraceback(e);
            PyObject *cause = PyException_GetCause(e);
            PyObject *ctx = PyException_GetContext(e);
            if (tb) {
                PyException_SetTraceback(res, tb);
                Py_DECREF(tb);
            }
            PyException_SetCause(res, cause); /* steals */
            ((PyBaseExceptionObject *)res)->suppress_context =
                ((PyBaseExceptionObject *)e)->suppress_context;
            PyException_SetContext(res, ctx); /* steals */
            PyObject *notes = ((PyBaseExceptionObject *)e)->notes;
            if (notes) {
                Py_XSETREF(((PyBaseExceptionObject *)res)->notes,
                           Py_NewRef(notes));
            }
        }
    }
done:
    Py_XDECREF(subs);
    Py_XDECREF(kept);
    return res;
}

/* Same exception metadata: a part of the original group re-raised. */
static int
same_metadata(PyObject *a, PyObject *b)
{
    PyBaseExceptionObject *x = (PyBaseExceptionObject *)a;
    PyBaseExceptionObject *y = (PyBaseExceptionObject *)b;
    return x->notes == y->notes && x->traceback == y->traceback &&
           x->cause == y->cause && x->context == y->context;
}

/* What an except* statement re-raises, as CPython's PREP_RERAISE_STAR:
 * parts of the original group re-raised keep the original's structure; new
 * exceptions are grouped with them under an empty message.  Returns a new
 * reference (Py_None when nothing is left) or NULL. */
static PyObject *
prep_reraise_star(PyObject *orig, PyObject *excs)
{
    Py_ssize_t n = PyList_GET_SIZE(excs);
    if (n == 0) {
        return Py_NewRef(Py_None);
    }
    if (!PyObject_TypeCheck(orig, (PyTypeObject *)PyExc_BaseExceptionGroup)) {
        /* a naked exception: at most one clause ran */
        return Py_NewRef(PyList_GET_ITEM(excs, 0));
    }
    PyObject *raised = PyList_New(0), *ids = PySet_New(NULL), *result = NULL,
             *reraised = NULL;
    if (raised == NULL || ids == NULL) {
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *e = PyList_GET_ITEM(excs, i);
        if (e == Py_None) {
            continue;
        }
        int r = same_metadata(e, orig) ? collect_leaf_ids(e, ids)
                                       : PyList_Append(raised, e);
        if (r < 0) {
            goto done;
        }
    }
    reraised = project_leaves(orig, ids);
    if (reraised == NULL) {
        goto done;
    }
    if (PyList_GET_SIZE(raised) == 0) {
        result = Py_NewRef(reraised);
        goto done;
    }
    if (reraised != Py_None && PyList_Append(raised, reraised) < 0) {
        goto done;
    }
    if (PyList_GET_SIZE(raised) > 1) {
        result =
            PyObject_CallFunction(PyExc_BaseExceptionGroup, "sO", "", raised);
    }
    else {
        result = Py_NewRef(PyList_GET_ITEM(raised, 0));
    }
done:
    Py_XDECREF(raised);
    Py_XDECREF(ids);
    Py_XDECREF(reraised);
    return result;
}

static Status
eval_try_star(Frame *f, Node *s)
{
    Status st = eval_body(f, s->Try.body, s->Try.nbody);
    if (st != ST_ERROR || error_is_uncatchable(f)) {
        if (st == ST_OK && s->Try.norelse) {
            st = eval_body(f, s->Try.orelse, s->Try.norelse);
        }
        return run_finally(f, s, st);
    }
    PyObject *orig = fetch_exception();
    PyObject *current = Py_NewRef(orig);
    PyObject *excs = PyList_New(0);
    PyObject *toraise = NULL;
    if (excs == NULL) {
        goto fail;
    }
    for (Py_ssize_t i = 0; i < s->Try.nhandlers && current != Py_None; i++) {
        Node *h = s->Try.handlers[i];
        PyObject *t = eval_expr(f, h->ExceptHandler.type);
        if (t == NULL) {
            goto fail;
        }
        int bad = 0;
        if (PyTuple_Check(t)) {
            for (Py_ssize_t k = 0; k < PyTuple_GET_SIZE(t); k++) {
                PyObject *x = PyTuple_GET_ITEM(t, k);
                bad |= !PyExceptionClass_Check(x) ? 1
                       : PyType_IsSubtype(
                             (PyTypeObject *)x,
                             (PyTypeObject *)PyExc_BaseExceptionGroup)
                           ? 2
                           : 0;
            }
        }
        else {
            bad = !PyExceptionClass_Check(t) ? 1
                  : PyType_IsSubtype((PyTypeObject *)t,
                                     (PyTypeObject *)PyExc_BaseExceptionGroup)
                      ? 2
                      : 0;
        }
        if (bad) {
            Py_DECREF(t);
            PyErr_SetString(
                PyExc_TypeError,
                bad & 2 ? "catching ExceptionGroup with except* is not "
                          "allowed. Use except instead."
                        : "catching classes that do not inherit from "
                          "BaseException is not allowed");
            goto fail;
        }
        PyObject *match, *rest;
        int r = star_match(current, t, &match, &rest);
        Py_DECREF(t);
        if (r < 0) {
            goto fail;
        }
        Py_SETREF(current, rest);
        if (match != Py_None) {
            Status hs = run_handler(f, h, match);
            if (hs == ST_ERROR) {
                if (error_is_uncatchable(f)) {
                    Py_DECREF(match);
                    goto fail;
                }
                PyObject *e = fetch_exception();
                r = PyList_Append(excs, e);
                Py_DECREF(e);
                if (r < 0) {
                    Py_DECREF(match);
                    goto fail;
                }
            }
            else if (hs != ST_OK) {
                /* CPython rejects these at compile time */
                Py_DECREF(match);
                PyErr_SetString(
                    PyExc_SyntaxError,
                    "'break', 'continue' and 'return' cannot appear "
                    "in an except* block");
                goto fail;
            }
        }
        Py_DECREF(match);
    }
    if (current != Py_None && PyList_Append(excs, current) < 0) {
        goto fail;
    }
    toraise = prep_reraise_star(orig, excs);
    if (toraise == NULL) {
        goto fail;
    }
    Py_DECREF(orig);
    Py_DECREF(current);
    Py_DECREF(excs);
    if (toraise == Py_None) {
        Py_DECREF(toraise);
        return run_finally(f, s, ST_OK);
    }
    restore_exception(toraise);
    return run_finally(f, s, ST_ERROR);
fail:
    /* an error of the machinery itself (or an abort) propagates */
    Py_DECREF(orig);
    Py_XDECREF(current);
    Py_XDECREF(excs);
    return run_finally(f, s, ST_ERROR);
}
#else
/* 3.10 has neither except* nor exception groups: its ast has no TryStar
 * node, so this is never reached. */
static Status
eval_try_star(Frame *f, Node *s)
{
    PyErr_SetString(PyExc_SystemError, "except* needs CPython 3.11 or newer");
    return ST_ERROR;
}
#endif /* 3.11+ */

static Status
eval_raise(Frame *f, Node *s)
{
    if (s->Raise.exc == NULL) {
        PyObject *exc = compat_get_handled();
        if (exc == NULL) {
            PyErr_SetString(PyExc_RuntimeError,
                            "No active exception to reraise");
            return ST_ERROR;
        }
        restore_exception(exc);
        return ST_ERROR;
    }
    PyObject *v = eval_expr(f, s->Raise.exc);
    if (v == NULL) {
        return ST_ERROR;
    }
    PyObject *exc = NULL;
    if (PyExceptionClass_Check(v)) {
        exc = PyObject_CallNoArgs(v);
        Py_DECREF(v);
        if (exc == NULL) {
            return ST_ERROR;
        }
        if (!PyExceptionInstance_Check(exc)) {
            PyErr_Format(PyExc_TypeError,
                         "calling %R should have returned an instance of "
                         "BaseException, not %R",
                         v, Py_TYPE(exc));
            Py_DECREF(exc);
            return ST_ERROR;
        }
    }
    else if (PyExceptionInstance_Check(v)) {
        exc = v;
    }
    else {
        Py_DECREF(v);
        PyErr_SetString(PyExc_TypeError,
                        "exceptions must derive from BaseException");
        return ST_ERROR;
    }
    if (s->Raise.cause) {
        PyObject *c = eval_expr(f, s->Raise.cause);
        if (c == NULL) {
            Py_DECREF(exc);
            return ST_ERROR;
        }
        PyObject *cause = NULL;
        if (PyExceptionClass_Check(c)) {
            cause = PyObject_CallNoArgs(c);
            Py_DECREF(c);
            if (cause == NULL) {
                Py_DECREF(exc);
                return ST_ERROR;
            }
        }
        else if (PyExceptionInstance_Check(c) || c == Py_None) {
            cause = c;
        }
        else {
            Py_DECREF(c);
            Py_DECREF(exc);
            PyErr_SetString(PyExc_TypeError,
                            "exception causes must derive from BaseException");
            return ST_ERROR;
        }
        if (cause == Py_None) {
            Py_DECREF(cause);
            PyException_SetCause(exc, NULL);
            ((PyBaseExceptionObject *)exc)->suppress_context = 1;
        }
        else {
            PyException_SetCause(exc, cause); /* steals */
        }
    }
    PyErr_SetObject((PyObject *)Py_TYPE(exc), exc);
    Py_DECREF(exc);
    return ST_ERROR;
}

/* -------------------------------------------------------------------- with */

static Status with_items(Frame *f, Node *s, Py_ssize_t i);

static Status with_item_run(Frame *f, Node *s, Py_ssize_t i, PyObject *enter,
                            PyObject *exitf, int is_async);

static Status
with_items(Frame *f, Node *s, Py_ssize_t i)
{
    if (i == s->With.nitems) {
        return eval_body(f, s->With.body, s->With.nbody);
    }
    int is_async = s->kind == K_AsyncWith;
    Node *item = s->With.items[i];
    PyObject *mgr = eval_expr(f, item->withitem.context_expr);
    if (mgr == NULL) {
        return ST_ERROR;
    }
    if (is_async) {
        /* as `with`: 3.14 looks __aexit__ up first, earlier versions
           __aenter__; the first missing one is named */
#if PY_VERSION_HEX >= 0x030E0000
        PyObject *exitf = lookup_special(mgr, in_st(f->in)->str_aexit);
        PyObject *enter =
            exitf ? lookup_special(mgr, in_st(f->in)->str_aenter) : NULL;
#else
        PyObject *exitf = NULL;
        PyObject *enter = lookup_special(mgr, in_st(f->in)->str_aenter);
        if (enter != NULL) {
            exitf = lookup_special(mgr, in_st(f->in)->str_aexit);
        }
#endif
        if (exitf == NULL || enter == NULL) {
            if (!PyErr_Occurred()) {
                compat_async_with_protocol_error(
                    mgr, exitf == NULL && (PY_VERSION_HEX >= 0x030E0000 ||
                                           enter != NULL));
            }
            Py_XDECREF(exitf);
            Py_XDECREF(enter);
            Py_DECREF(mgr);
            return ST_ERROR;
        }
        Py_DECREF(mgr);
        return with_item_run(f, s, i, enter, exitf, 1);
    }
#if PY_VERSION_HEX >= 0x030E0000
    /* 3.14 looks __exit__ up first */
    PyObject *exitf = lookup_special(mgr, in_st(f->in)->str_exit);
    if (exitf == NULL) {
        if (!PyErr_Occurred()) {
            compat_with_protocol_error(mgr, 1);
        }
        Py_DECREF(mgr);
        return ST_ERROR;
    }
    PyObject *enter = lookup_special(mgr, in_st(f->in)->str_enter);
    if (enter == NULL) {
        if (!PyErr_Occurred()) {
            compat_with_protocol_error(mgr, 0);
        }
        Py_DECREF(exitf);
        Py_DECREF(mgr);
        return ST_ERROR;
    }
#else
    PyObject *enter = lookup_special(mgr, in_st(f->in)->str_enter);
    if (enter == NULL) {
        if (!PyErr_Occurred()) {
            compat_with_protocol_error(mgr, 0);
        }
        Py_DECREF(mgr);
        return ST_ERROR;
    }
    PyObject *exitf = lookup_special(mgr, in_st(f->in)->str_exit);
    if (exitf == NULL) {
        if (!PyErr_Occurred()) {
            compat_with_protocol_error(mgr, 1);
        }
        Py_DECREF(enter);
        Py_DECREF(mgr);
        return ST_ERROR;
    }
#endif
    Py_DECREF(mgr);
    return with_item_run(f, s, i, enter, exitf, 0);
}

/* One item of a `with` / `async with`: enter, bind, run the rest, exit
 * (the results of __aenter__ and __aexit__ awaited when is_async).  Takes
 * `enter` and `exitf`. */
static Status
with_item_run(Frame *f, Node *s, Py_ssize_t i, PyObject *enter,
              PyObject *exitf, int is_async)
{
    Node *item = s->With.items[i];
    PyObject *res = hostcall_callv(f->in, enter, NULL, 0); /* security */
    Py_DECREF(enter);
    if (is_async) {
        res = await_result(f, res);
    }
    if (res == NULL) {
        Py_DECREF(exitf);
        return ST_ERROR;
    }
    if (policy_check_value(f->in, res) < 0) {
        Py_DECREF(res);
        Py_DECREF(exitf);
        return ST_ERROR;
    }
    /* as CPython, the body does not keep __enter__'s result alive: only
       the target holds it (`del target` frees it) */
    Status st = ST_OK;
    if (item->withitem.optional_vars != NULL &&
        store_target(f, item->withitem.optional_vars, res) < 0) {
        st = ST_ERROR;
        /* CPython calls __exit__ with the exception here too */
    }
    Py_DECREF(res);
    if (st == ST_OK) {
        st = with_items(f, s, i + 1);
    }
    if (st == ST_ERROR) {
        if (in_budget(f->in)->abort != ABORT_NONE) {
            Py_DECREF(exitf);
            return ST_ERROR;
        }
        PyObject *exc = fetch_exception();
        PyObject *saved = compat_get_handled();
        compat_set_handled(exc);
        /* __exit__ gets no traceback: a host traceback leads to frames */
        PyObject *xargs[3] = {(PyObject *)Py_TYPE(exc), exc, Py_None};
        PyObject *r = hostcall_callv(f->in, exitf, xargs, 3); /* security */
        if (is_async) {
            r = await_result(f, r);
        }
        compat_set_handled(saved);
        Py_XDECREF(saved);
        Py_DECREF(exitf);
        if (r == NULL) {
            PyObject *nexc = fetch_exception();
            PyException_SetContext(nexc, exc); /* steals exc */
            restore_exception(nexc);
            return ST_ERROR;
        }
        int t = PyObject_IsTrue(r);
        Py_DECREF(r);
        if (t < 0) {
            Py_DECREF(exc);
            return ST_ERROR;
        }
        if (t && !PyErr_GivenExceptionMatches(exc, in_eval(f->in)->final_answer_exc)) {
            Py_DECREF(exc);
            return ST_OK;
        }
        restore_exception(exc);
        return ST_ERROR;
    }
    PyObject *nones[3] = {Py_None, Py_None, Py_None};
    PyObject *r = hostcall_callv(f->in, exitf, nones, 3); /* security */
    if (is_async) {
        r = await_result(f, r);
    }
    Py_DECREF(exitf);
    if (r == NULL) {
        if (st == ST_RETURN) {
            Py_CLEAR(f->retval);
        }
        return ST_ERROR;
    }
    Py_DECREF(r);
    return st;
}

/* ----------------------------------------------------------- assignments */

/* `a, b = x, y` (a tuple display assigned to a tuple or list target of the
 * same length, no starred element on either side): the values are
 * evaluated left to right, then stored left to right, as CPython's compiler
 * does it, without the tuple in between, except at module level, where the
 * tuple is the statement's value (the step's output) and is built after.
 * Operations are counted as for the tuple display.  1 when it applied
 * (*st set), 0 when the general path must run (nothing done). */
static int
assign_parallel(Frame *f, Node *target, Node *value, Status *st)
{
    Py_ssize_t n = value->Seq.nelts;
    if ((target->kind != K_Tuple && target->kind != K_List) ||
        target->Seq.nelts != n || n > 8 ||
        ((target->flags | value->flags) & NF_HAS_STAR)) {
        return 0;
    }
    *st = ST_ERROR;
    if (charge(f->in) < 0) { /* the tuple display's own operation */
        return 1;
    }
    PyObject *items[8];
    Py_ssize_t got = 0;
    for (; got < n; got++) {
        items[got] = eval_expr(f, value->Seq.elts[got]);
        if (items[got] == NULL) {
            goto done;
        }
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        if (store_target(f, target->Seq.elts[i], items[i]) < 0) {
            goto done;
        }
    }
    if (f->keep_last) {
        PyObject *t = PyTuple_New(n);
        if (t == NULL) {
            goto done;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            PyTuple_SET_ITEM(t, i, items[i]); /* references move */
        }
        got = 0;
        frame_set_last(f, t);
    }
    *st = ST_OK;
done:
    for (Py_ssize_t i = 0; i < got; i++) {
        Py_DECREF(items[i]);
    }
    return 1;
}

/* `s += t` (eval_augassign) appends to the string in place, as CPython
 * does, when the name's binding (and, at module level, the step's last
 * value) is all that holds it: the binding lets go of it first
 * (str_release_binding), so that PyUnicode_Append resizes it rather than
 * copying it (a document built line by line: linear, not quadratic).  A
 * local is left unbound, as in CPython, and a module-level name None (as
 * CPython 3.10's STORE_NAME path, which deletes it; 3.11+ appends in place
 * for locals only) when the append fails for memory; the name is bound
 * again after it.  Module-level strings shorter than this are copied:
 * cheaper than the extra store. */
#define INPLACE_GLOBAL_MIN_LEN 256

static int
str_append_in_place_ok(Frame *f, Node *t, PyObject *cur, PyObject *rhs)
{
    if (t->kind != K_Name || !PyUnicode_CheckExact(cur) ||
        !PyUnicode_CheckExact(rhs)) {
        return 0;
    }
    if (t->scope_kind == NAME_FAST) {
        return Py_REFCNT(cur) == 2;
    }
    return (t->scope_kind == NAME_GLOBAL ||
            (t->scope_kind == NAME_NAME && f->locals == f->globals)) &&
           t->Name.checked_epoch == in_eval(f->in)->tools_epoch &&
           PyDict_CheckExact(f->globals) &&
           Py_REFCNT(cur) == 2 + (f->last_value == cur) &&
           PyUnicode_GET_LENGTH(cur) >= INPLACE_GLOBAL_MIN_LEN;
}

/* The binding (and the last value) let go of `cur`, for which
 * str_append_in_place_ok holds.  0 / -1. */
static int
str_release_binding(Frame *f, Node *t, PyObject *cur)
{
    if (t->scope_kind == NAME_FAST) {
        Py_CLEAR(f->fast[t->slot]);
        return 0;
    }
    if (gcache_store(f, t, Py_None) < 0) {
        return -1;
    }
    if (f->last_value == cur) {
        Py_SETREF(f->last_value, Py_NewRef(Py_None)); /* set again after */
    }
    return 0;
}

static Status
eval_augassign(Frame *f, Node *s)
{
    Node *t = s->AugAssign.target;
    PyObject *obj = NULL, *key = NULL, *cur = NULL, *rhs = NULL, *res = NULL;
    Status st = ST_ERROR;
    switch (t->kind) {
    case K_Name:
        cur = load_name(f, t);
        break;
    case K_Attribute:
        obj = eval_expr(f, t->Attribute.value);
        if (obj) {
            cur = t->flags & NF_PLAIN_NAME
                      ? attr_load_for_update(f, t, obj)
                      : policy_getattr(f->in, obj, t->obj);
        }
        break;
    case K_Subscript:
        if (subscript_operands(f, t, &obj, &key) == 0) {
            cur = subscript_get(obj, key);
        }
        break;
    default:
        PyErr_SetString(PyExc_SystemError, "bad augmented assignment target");
        break;
    }
    if (cur == NULL) {
        goto done;
    }
    rhs = eval_expr(f, s->AugAssign.value);
    if (rhs == NULL) {
        goto done;
    }
    if (s->op == OP_Add && str_append_in_place_ok(f, t, cur, rhs)) {
        if (limits_check_binop(f->in, OP_Add, cur, rhs) < 0 ||
            str_release_binding(f, t, cur) < 0) {
            goto done;
        }
        PyUnicode_Append(&cur, rhs);
        if (cur == NULL) {
            goto done;
        }
        res = cur;
        cur = NULL;
    }
    else {
        res = binary_op(f->in, s->op, cur, rhs, 1);
    }
    if (res == NULL) {
        goto done;
    }
    switch (t->kind) {
    case K_Name:
        if (store_name(f, t, res) < 0) {
            goto done;
        }
        break;
    case K_Attribute:
        /* the store may remember another type or tag (the right operand
           changed the class): the load's dict position is kept for the tag
           it was learned at (Attribute.atag) */
        if ((t->flags & NF_PLAIN_NAME
                 ? attr_store_plain(f, t, obj, res)
                 : policy_setattr(f->in, obj, t->obj, res)) < 0) {
            goto done;
        }
        break;
    case K_Subscript:
        if (subscript_set(obj, key, res) < 0) {
            goto done;
        }
        break;
    default:
        goto done;
    }
    frame_set_last(f, res);
    res = NULL;
    st = ST_OK;
done:
    Py_XDECREF(obj);
    Py_XDECREF(key);
    Py_XDECREF(cur);
    Py_XDECREF(rhs);
    Py_XDECREF(res);
    return st;
}

static Status
eval_annassign(Frame *f, Node *s)
{
    int at_module_or_class =
        f->scope->type == SC_MODULE || f->scope->type == SC_CLASS;
    if (s->AnnAssign.value) {
        PyObject *v = eval_expr(f, s->AnnAssign.value);
        if (v == NULL) {
            return ST_ERROR;
        }
        int r = store_target(f, s->AnnAssign.target, v);
        frame_set_last(f, v);
        if (r < 0) {
            return ST_ERROR;
        }
    }
    if (!at_module_or_class) {
        return ST_OK; /* annotations of locals are not evaluated */
    }
    if (s->AnnAssign.annotation == NULL) {
        /* 3.14 (PEP 649): deferred (lower.c: a class's annotation scope
           has it; at module level, or of a target that is not a plain
           name, it is never evaluated).  A class body records which ran:
           its annotations are those (CPython's
           __conditional_annotations__; annotate.c) */
        if (f->scope->type == SC_CLASS && (s->flags & NF_SIMPLE)) {
            PyObject *i = PyLong_FromLong(s->slot);
            if (i == NULL || (f->ann_done == NULL &&
                              (f->ann_done = PySet_New(NULL)) == NULL) ||
                PySet_Add(f->ann_done, i) < 0) {
                Py_XDECREF(i);
                return ST_ERROR;
            }
            Py_DECREF(i);
        }
        return ST_OK;
    }
    PyObject *ann = eval_expr(f, s->AnnAssign.annotation);
    if (ann == NULL) {
        return ST_ERROR;
    }
    if (!(s->flags & NF_SIMPLE)) {
        Py_DECREF(ann);
        return ST_OK;
    }
    PyObject *ns = f->locals ? f->locals : f->globals;
    if (ns == f->globals) {
        gcache_note(f->in, in_st(f->in)->str_annotations); /* changed in place */
    }
    PyObject *d = PyObject_GetItem(ns, in_st(f->in)->str_annotations);
    if (d == NULL) {
        if (!PyErr_ExceptionMatches(PyExc_KeyError)) {
            Py_DECREF(ann);
            return ST_ERROR;
        }
        PyErr_Clear();
        d = PyDict_New();
        if (d == NULL ||
            PyObject_SetItem(ns, in_st(f->in)->str_annotations, d) < 0) {
            Py_XDECREF(d);
            Py_DECREF(ann);
            return ST_ERROR;
        }
    }
    int r = PyObject_SetItem(d, s->AnnAssign.target->obj, ann);
    Py_DECREF(d);
    Py_DECREF(ann);
    return r < 0 ? ST_ERROR : ST_OK;
}

/* ------------------------------------------------------------- definitions */

/* Evaluate decorators (top to bottom) into a new list. */
static PyObject *
eval_decorators(Frame *f, Node **decs, Py_ssize_t n)
{
    PyObject *l = PyList_New(n);
    if (l == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *d = eval_expr(f, decs[i]);
        if (d == NULL) {
            Py_DECREF(l);
            return NULL;
        }
        PyList_SET_ITEM(l, i, d);
    }
    return l;
}

/* Apply decorators bottom-up.  Steals `obj`; returns new ref or NULL. */
static PyObject *
apply_decorators(Frame *f, PyObject *decs, PyObject *obj)
{
    for (Py_ssize_t i = PyList_GET_SIZE(decs) - 1; i >= 0; i--) {
        PyObject *d = PyList_GET_ITEM(decs, i);
        /* security (hostcall.c): call gate, result gate */
        PyObject *r = hostcall_callv(f->in, d, &obj, 1);
        Py_DECREF(obj);
        if (r == NULL || policy_check_value(f->in, r) < 0) {
            Py_XDECREF(r);
            return NULL;
        }
        obj = r;
    }
    return obj;
}

static Status
eval_def(Frame *f, Node *s)
{
    int is_def = s->kind == K_FunctionDef;
    Node **decs =
        is_def ? s->Function.decorator_list : s->ClassDef.decorator_list;
    Py_ssize_t ndecs =
        is_def ? s->Function.ndecorator_list : s->ClassDef.ndecorator_list;
    PyObject *dl = eval_decorators(f, decs, ndecs);
    if (dl == NULL) {
        return ST_ERROR;
    }
    Node *generic = is_def ? s->Function.generic : s->ClassDef.generic;
    PyObject *obj;
    if (generic != NULL) {
        /* PEP 695: the annotation scope makes the type parameters and
           returns the definition */
        PyObject *scope_fn = make_function(f, generic);
        obj = scope_fn ? function_call_direct(f->in, scope_fn, NULL, 0, NULL)
                       : NULL;
        Py_XDECREF(scope_fn);
    }
    else {
        obj = is_def ? make_function(f, s) : build_class(f, s);
    }
    if (obj == NULL) {
        Py_DECREF(dl);
        return ST_ERROR;
    }
    obj = apply_decorators(f, dl, obj);
    Py_DECREF(dl);
    if (obj == NULL) {
        return ST_ERROR;
    }
    int r =
        store_name(f, is_def ? s->Function.target : s->ClassDef.target, obj);
    Py_DECREF(obj);
    return r < 0 ? ST_ERROR : ST_OK;
}

/* ----------------------------------------------------------------- imports */

/* The value `import a.b.c [as x]` binds for alias `al` (the import done
 * now, under the policy).  New ref. */
static PyObject *
import_alias_value(Frame *f, Node *al)
{
    PyObject *mod = policy_import(f, al->obj, NULL, 0);
    if (mod == NULL || !al->flags) {
        return mod;
    }
    /* import a.b.c as x binds the submodule a.b.c */
    PyObject *bind = mod;
    PyObject *parts = PyUnicode_Split(al->obj, in_st(f->in)->str_dot, -1);
    if (parts == NULL) {
        Py_DECREF(mod);
        return NULL;
    }
    Py_INCREF(bind);
    for (Py_ssize_t k = 1; k < PyList_GET_SIZE(parts) && bind != NULL; k++) {
        PyObject *sub = PyObject_GetAttr(bind, PyList_GET_ITEM(parts, k));
        Py_DECREF(bind);
        bind = sub;
    }
    Py_DECREF(parts);
    Py_DECREF(mod);
    return bind;
}

static PyObject *import_from_value(Frame *f, Node *s, PyObject *mod,
                                   Node *al);

PyObject *
import_binding(Frame *f, Node *stmt, Py_ssize_t index)
{
    if (stmt->kind == K_Import) {
        return import_alias_value(f, stmt->Import.names[index]);
    }
    Node *al = stmt->ImportFrom.names[index];
    PyObject *fromlist = PyTuple_Pack(1, al->obj);
    PyObject *mod =
        fromlist ? policy_import(f, stmt->obj, fromlist, stmt->slot) : NULL;
    Py_XDECREF(fromlist);
    if (mod == NULL) {
        return NULL;
    }
    PyObject *v = import_from_value(f, stmt, mod, al);
    Py_DECREF(mod);
    return v;
}

/* `lazy import ...` / `lazy from m import ...` (PEP 810, lazyimport.c): each
 * name is bound to a lazy_import object, except that `lazy from m import`
 * binds at once when m is imported already, as CPython does. */
static Status
eval_lazy_import(Frame *f, Node *s)
{
    int from = s->kind == K_ImportFrom;
    Py_ssize_t n = from ? s->ImportFrom.nnames : s->Import.nnames;
    int loaded = 0;
    if (from && s->slot == 0) {
        PyObject *m = PyImport_GetModule(s->obj);
        if (m == NULL && PyErr_Occurred()) {
            return ST_ERROR;
        }
        loaded = m != NULL;
        Py_XDECREF(m);
    }
    Status st = ST_OK;
    for (Py_ssize_t i = 0; i < n && st == ST_OK; i++) {
        Node *al = from ? s->ImportFrom.names[i] : s->Import.names[i];
        PyObject *v =
            loaded ? import_binding(f, s, i) : lazyimport_new(f, s, i);
        if (v == NULL || store_name(f, al->alias.target, v) < 0) {
            st = ST_ERROR;
        }
        Py_XDECREF(v);
    }
    /* no global-name slot may hold a lazy object */
    gcache_forget(f->in);
    return st;
}

static Status
eval_import(Frame *f, Node *s)
{
    if (s->flags & NF_LAZY) {
        return eval_lazy_import(f, s);
    }
    for (Py_ssize_t i = 0; i < s->Import.nnames; i++) {
        Node *al = s->Import.names[i];
        PyObject *bind = import_alias_value(f, al);
        if (bind == NULL) {
            return ST_ERROR;
        }
        int r = store_name(f, al->alias.target, bind);
        Py_DECREF(bind);
        if (r < 0) {
            return ST_ERROR;
        }
    }
    return ST_OK;
}

/* CPython's ImportError for `from m import name` when m has no such name:
 * "cannot import name 'x' from 'm' (location)", with .name and .path. */
static void
import_name_error(PyObject *mod, PyObject *modname, PyObject *name)
{
    PyObject *path = PyObject_GetAttrString(mod, "__file__");
    if (path == NULL) {
        PyErr_Clear();
    }
    PyObject *msg = PyUnicode_FromFormat(
        "cannot import name '%U' from '%U' (%S)", name, modname,
        path != NULL && path != Py_None ? path : NULL);
    if (path == NULL || path == Py_None) {
        Py_XDECREF(msg);
        msg = PyUnicode_FromFormat(
            "cannot import name '%U' from '%U' (unknown location)", name,
            modname);
    }
    if (msg != NULL) {
        PyErr_SetImportError(msg, modname, path != NULL ? path : Py_None);
        Py_DECREF(msg);
    }
    Py_XDECREF(path);
}

/* Does the in-process table withhold attribute `nm` of module `mod`?  Never
 * raises. */
static int
modname_withheld(PyObject *mod, PyObject *nm)
{
    if (!PyModule_Check(mod)) {
        return 0;
    }
    PyObject *mname = PyModule_GetNameObject(mod);
    if (mname == NULL) {
        PyErr_Clear();
        return 0;
    }
    int r = inprocess_withheld(mname, nm);
    Py_DECREF(mname);
    return r;
}

/* The value `from m import name` binds for alias `al` of statement `s`,
 * `mod` being m.  New ref. */
static PyObject *
import_from_value(Frame *f, Node *s, PyObject *mod, Node *al)
{
    PyObject *v = policy_getattr(f->in, mod, al->obj);
    if (v != NULL || in_budget(f->in)->abort != ABORT_NONE ||
        !PyErr_ExceptionMatches(PyExc_AttributeError)) {
        return v;
    }
    /* maybe a submodule not yet imported */
    PyErr_Clear();
    PyObject *full = PyUnicode_FromFormat("%U.%U", s->obj, al->obj);
    if (full == NULL) {
        return NULL;
    }
    /* only an authorized submodule is tried; otherwise the name is simply
       missing, as CPython reports it */
    PyObject *sub = policy_import_authorized(f->in, full)
                        ? policy_import(f, full, NULL, 0)
                        : NULL;
    Py_DECREF(full);
    if (sub == NULL) {
        if (in_budget(f->in)->abort == ABORT_NONE &&
            (!PyErr_Occurred() || PyErr_ExceptionMatches(PyExc_ImportError))) {
            PyErr_Clear();
            import_name_error(mod, s->obj, al->obj);
        }
        return NULL;
    }
    Py_DECREF(sub);
    return policy_getattr(f->in, mod, al->obj);
}

/* `from __future__ import annotations, ...` with __future__ not
 * authorized: a compiler directive (lower.c reads it; CPython's compile
 * check refuses a misplaced one and an unknown feature).  It binds each
 * feature's _Feature record (read-only attributes), never the module,
 * whose all_feature_names list is the host's own state.  -1: not this
 * case; else the status. */
static int
future_import(Frame *f, Node *s)
{
    if (s->slot != 0 || s->obj == NULL ||
        PyUnicode_CompareWithASCIIString(s->obj, "__future__") != 0 ||
        policy_import_authorized(f->in, s->obj)) {
        return -1;
    }
    PyObject *mod = PyImport_ImportModule("__future__");
    PyObject *feats =
        mod ? PyObject_GetAttrString(mod, "all_feature_names") : NULL;
    Status st = feats && PyList_Check(feats) ? ST_OK : ST_ERROR;
    for (Py_ssize_t i = 0; i < s->ImportFrom.nnames && st == ST_OK; i++) {
        Node *al = s->ImportFrom.names[i];
        int known = 0; /* a name of the list (str compares only) */
        for (Py_ssize_t k = 0; al->alias.target != NULL && !known &&
                               k < PyList_GET_SIZE(feats);
             k++) {
            PyObject *fname = PyList_GET_ITEM(feats, k);
            known = PyUnicode_CheckExact(fname) &&
                    PyUnicode_Compare(fname, al->obj) == 0;
        }
        PyObject *v = known > 0 ? PyObject_GetAttr(mod, al->obj) : NULL;
        if (known == 0) {
            PyErr_Format(PyExc_SyntaxError, "future feature %U is not defined",
                         al->obj);
        }
        if (v == NULL || store_name(f, al->alias.target, v) < 0) {
            st = ST_ERROR;
        }
        Py_XDECREF(v);
    }
    Py_XDECREF(feats);
    Py_XDECREF(mod);
    return (int)st;
}

static Status
eval_import_from(Frame *f, Node *s)
{
    if (s->flags & NF_LAZY) {
        return eval_lazy_import(f, s);
    }
    int fut = future_import(f, s);
    if (fut >= 0) {
        return (Status)fut;
    }
    PyObject *fromlist = PyTuple_New(s->ImportFrom.nnames);
    if (fromlist == NULL) {
        return ST_ERROR;
    }
    for (Py_ssize_t i = 0; i < s->ImportFrom.nnames; i++) {
        Py_INCREF(s->ImportFrom.names[i]->obj);
        PyTuple_SET_ITEM(fromlist, i, s->ImportFrom.names[i]->obj);
    }
    PyObject *mod = policy_import(f, s->obj, fromlist, s->slot);
    Py_DECREF(fromlist);
    if (mod == NULL) {
        return ST_ERROR;
    }
    Status st = ST_OK;
    for (Py_ssize_t i = 0; i < s->ImportFrom.nnames && st == ST_OK; i++) {
        Node *al = s->ImportFrom.names[i];
        if (al->alias.target == NULL) {
            /* from m import *: public names, honouring __all__ */
            PyObject *all = PyObject_GetAttr(mod, in_st(f->in)->str_all);
            PyObject *names;
            if (all == NULL) {
                PyErr_Clear();
                PyObject *d = PyObject_GetAttrString(mod, "__dict__");
                if (d == NULL) {
                    st = ST_ERROR;
                    break;
                }
                names = PyMapping_Keys(d);
                Py_DECREF(d);
            }
            else {
                names = PySequence_List(all);
                Py_DECREF(all);
            }
            if (names == NULL) {
                st = ST_ERROR;
                break;
            }
            for (Py_ssize_t k = 0; k < PyList_GET_SIZE(names); k++) {
                PyObject *nm = PyList_GET_ITEM(names, k);
                if (!PyUnicode_Check(nm) ||
                    PyUnicode_READ_CHAR(nm, 0) == '_') {
                    continue;
                }
                if (modname_withheld(mod, nm)) {
                    continue; /* withheld in process (inprocess.def) */
                }
                if (policy_star_skips(f->in, mod, nm)) {
                    continue; /* a module the code may not use */
                }
                PyObject *v = policy_getattr(f->in, mod, nm);
                if (v == NULL) {
                    /* names the policy refuses are skipped, not fatal */
                    if (in_budget(f->in)->abort != ABORT_NONE) {
                        st = ST_ERROR;
                        break;
                    }
                    PyErr_Clear();
                    continue;
                }
                PyObject *ns = f->locals ? f->locals : f->globals;
                if (ns == f->globals) {
                    gcache_note(f->in, nm); /* a global stored off the slots */
                }
                int r = PyDict_SetItem(ns, nm, v);
                Py_DECREF(v);
                if (r < 0) {
                    st = ST_ERROR;
                    break;
                }
            }
            Py_DECREF(names);
            continue;
        }
        PyObject *v = import_from_value(f, s, mod, al);
        if (v == NULL) {
            st = ST_ERROR;
            break;
        }
        if (store_name(f, al->alias.target, v) < 0) {
            st = ST_ERROR;
        }
        Py_DECREF(v);
    }
    Py_DECREF(mod);
    return st;
}

/* ------------------------------------------------------------------- match */

int match_store_binds(Frame *f, PyObject *binds);

static Status
eval_match(Frame *f, Node *s)
{
    PyObject *subject = eval_expr(f, s->Match.subject);
    if (subject == NULL) {
        return ST_ERROR;
    }
    Status st = ST_OK;
    for (Py_ssize_t i = 0; i < s->Match.ncases; i++) {
        Node *c = s->Match.cases[i];
        PyObject *binds = PyList_New(0);
        if (binds == NULL) {
            st = ST_ERROR;
            break;
        }
        int m = match_pattern(f, c->match_case.pattern, subject, binds);
        if (m > 0 && match_store_binds(f, binds) < 0) {
            m = -1;
        }
        Py_DECREF(binds);
        if (m < 0) {
            st = ST_ERROR;
            break;
        }
        if (m == 0) {
            continue;
        }
        if (c->match_case.guard) {
            int t = eval_cond(f, c->match_case.guard);
            if (t < 0) {
                st = ST_ERROR;
                break;
            }
            if (!t) {
                continue;
            }
        }
        st = eval_body(f, c->match_case.body, c->match_case.nbody);
        break;
    }
    Py_DECREF(subject);
    return st;
}

/* --------------------------------------------------------------- dispatch */

/* One handler per statement kind, reached through stmt_table (ir.h).
 * Each is its own function, so that eval_stmt itself needs no stack frame
 * and its dispatch is a tail jump. */

static NOINLINE Status
st_expr(Frame *f, Node *s)
{
    PyObject *v = eval_expr(f, s->Expr.value);
    if (v == NULL) {
        return ST_ERROR;
    }
    /* the step's output (module.c): like smolagents, a statement whose
       value is None does not replace an earlier one in if/for bodies */
    if (v != Py_None) {
        frame_set_last(f, v);
    }
    else {
        Py_DECREF(v);
    }
    return ST_OK;
}

static NOINLINE Status
st_assign_general(Frame *f, Node *s)
{
    if (s->Assign.ntargets == 1 && s->Assign.value->kind == K_Tuple) {
        Status st;
        if (assign_parallel(f, s->Assign.targets[0], s->Assign.value, &st)) {
            return st;
        }
    }
    PyObject *v = eval_expr(f, s->Assign.value);
    if (v == NULL) {
        return ST_ERROR;
    }
    for (Py_ssize_t i = 0; i < s->Assign.ntargets; i++) {
        if (store_target(f, s->Assign.targets[i], v) < 0) {
            Py_DECREF(v);
            return ST_ERROR;
        }
    }
    frame_set_last(f, v);
    return ST_OK;
}

/* `t = value` with one target, unless a tuple display goes to a tuple or
 * list target (assign_parallel): a function local (not the module's,
 * whose last value the step reports) takes the value's reference, as
 * STORE_FAST; the rest in st_assign_general. */
static NOINLINE Status
st_assign(Frame *f, Node *s)
{
    if (s->Assign.ntargets != 1 || (s->Assign.value->kind == K_Tuple &&
                                    (s->Assign.targets[0]->kind == K_Tuple ||
                                     s->Assign.targets[0]->kind == K_List))) {
        return st_assign_general(f, s);
    }
    PyObject *v = eval_expr(f, s->Assign.value);
    if (v == NULL) {
        return ST_ERROR;
    }
    Node *t = s->Assign.targets[0];
    if (t->kind == K_Name && t->scope_kind == NAME_FAST &&
        t->Name.checked_epoch == in_eval(f->in)->tools_epoch &&
        f->scope->type != SC_MODULE) {
        Py_XSETREF(f->fast[t->slot], v);
        return ST_OK;
    }
    if (store_target(f, t, v) < 0) {
        Py_DECREF(v);
        return ST_ERROR;
    }
    frame_set_last(f, v);
    return ST_OK;
}

/* `cur op= <the statement's value>` for a target whose value `cur`
 * (stolen) was read first, as CPython reads it before the operand (which
 * may rebind the target: `x += (x := 10)`): the operand, then the in-place
 * operation, both operands let go as BINARY_OP lets them go.  New
 * reference, or NULL. */
static inline PyObject *
augassign_operate(Frame *f, Node *s, PyObject *cur)
{
    PyObject *rhs = eval_operand(f, s->AugAssign.value);
    if (rhs == NULL) {
        Py_DECREF(cur);
        return NULL;
    }
    PyObject *res = binary_op(f->in, s->op, cur, rhs, 1);
    Py_DECREF(cur);
    Py_DECREF(rhs);
    return res;
}

/* `x op= y` on a module-level name (or a global) whose slot is current
 * and holds a value of the globals that is not a str (`cur`, owned): what
 * eval_augassign does for it (the name read through its slot, then the
 * operand, the in-place operation and the store), without its generic
 * target handling.  The old value is let go before the store, as
 * CPython's BINARY_OP lets go of its operands. */
static NOINLINE Status
augassign_global(Frame *f, Node *s, Node *t, PyObject *cur)
{
    PyObject *res = augassign_operate(f, s, cur);
    if (res == NULL) {
        return ST_ERROR;
    }
    if (gcache_store(f, t, res) < 0) {
        Py_DECREF(res);
        return ST_ERROR;
    }
    frame_set_last(f, res);
    return ST_OK;
}

static NOINLINE Status
st_augassign(Frame *f, Node *s)
{
    Node *t = s->AugAssign.target;
    if (t->kind == K_Name &&
        (t->scope_kind == NAME_GLOBAL ||
         (t->scope_kind == NAME_NAME && f->locals == f->globals)) &&
        t->Name.checked_epoch == in_eval(f->in)->tools_epoch) {
        /* strings take eval_augassign's in-place path */
        GSlot *g = gcache_current(f, t->Name.gslot);
        if (g != NULL && g->in_globals && !PyUnicode_CheckExact(g->value)) {
            return augassign_global(f, s, t, Py_NewRef(g->value));
        }
    }
    if (t->kind == K_Name && t->scope_kind == NAME_FAST &&
        t->Name.checked_epoch == in_eval(f->in)->tools_epoch &&
        f->fast[t->slot] != NULL && !PyUnicode_CheckExact(f->fast[t->slot])) {
        /* x op= y on a bound local (strings take the in-place path) */
        PyObject *res = augassign_operate(f, s, Py_NewRef(f->fast[t->slot]));
        if (res == NULL) {
            return ST_ERROR;
        }
        Py_XSETREF(f->fast[t->slot], res);
        return ST_OK;
    }
    return eval_augassign(f, s);
}

static NOINLINE Status
st_if(Frame *f, Node *s)
{
    int b = eval_cond(f, s->If.test);
    if (b < 0) {
        return ST_ERROR;
    }
    return b ? eval_body(f, s->If.body, s->If.nbody)
             : eval_body(f, s->If.orelse, s->If.norelse);
}

static Status
st_break(Frame *f, Node *s)
{
    return ST_BREAK;
}

static Status
st_continue(Frame *f, Node *s)
{
    return ST_CONTINUE;
}

static Status
st_pass(Frame *f, Node *s)
{
    return ST_OK;
}

static NOINLINE Status
st_return(Frame *f, Node *s)
{
    PyObject *v;
    if (s->Return.value) {
        v = eval_expr(f, s->Return.value);
        if (v == NULL) {
            return ST_ERROR;
        }
    }
    else {
        v = Py_NewRef(Py_None);
    }
    Py_XSETREF(f->retval, v);
    return ST_RETURN;
}

static NOINLINE Status
st_delete(Frame *f, Node *s)
{
    for (Py_ssize_t i = 0; i < s->Delete.ntargets; i++) {
        if (delete_target(f, s->Delete.targets[i]) < 0) {
            return ST_ERROR;
        }
    }
    return ST_OK;
}

static NOINLINE Status
st_with(Frame *f, Node *s)
{
    return with_items(f, s, 0);
}

static NOINLINE Status
st_assert(Frame *f, Node *s)
{
    int b = eval_cond(f, s->Assert.test);
    if (b != 0) {
        return b < 0 ? ST_ERROR : ST_OK;
    }
    if (s->Assert.msg) {
        PyObject *m = eval_expr(f, s->Assert.msg);
        if (m == NULL) {
            return ST_ERROR;
        }
        PyObject *e = PyObject_CallOneArg(PyExc_AssertionError, m);
        Py_DECREF(m);
        if (e == NULL) {
            return ST_ERROR;
        }
        PyErr_SetObject(PyExc_AssertionError, e);
        Py_DECREF(e);
    }
    else {
        PyErr_SetNone(PyExc_AssertionError);
    }
    return ST_ERROR;
}

static NOINLINE Status
st_bad(Frame *f, Node *s)
{
    PyErr_Format(PyExc_SystemError, "eval_stmt: unexpected node kind %d",
                 s->kind);
    return ST_ERROR;
}

/* Every kind that is not a statement (and every byte past K__COUNT) goes to
 * st_bad: the range initializer comes first and the kinds override it.
 * eval_tables_check() verifies at import that every STMT kind of nodes.def
 * has its own handler. */
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Woverride-init"
const StmtFn stmt_table[256] = {
    [0 ... 255] = st_bad,
    [K_Expr] = st_expr,
    [K_Assign] = st_assign,
    [K_AugAssign] = st_augassign,
    [K_AnnAssign] = eval_annassign,
    [K_If] = st_if,
    [K_For] = eval_for,
    [K_While] = eval_while,
    [K_Break] = st_break,
    [K_Continue] = st_continue,
    [K_TypeAlias] = eval_type_alias,
    [K_Pass] = st_pass,
    [K_Global] = st_pass,
    [K_Nonlocal] = st_pass,
    [K_Return] = st_return,
    [K_Delete] = st_delete,
    [K_FunctionDef] = eval_def,
    [K_ClassDef] = eval_def,
    [K_Try] = eval_try,
    [K_TryStar] = eval_try_star,
    [K_Raise] = eval_raise,
    [K_With] = st_with,
    [K_AsyncWith] = st_with,
    [K_AsyncFor] = eval_async_for,
    [K_AsyncFunctionDef] = eval_def, /* never made (lower.c) */
    [K_Assert] = st_assert,
    [K_Import] = eval_import,
    [K_ImportFrom] = eval_import_from,
    [K_Match] = eval_match,
};
#pragma GCC diagnostic pop

/* The budget check's slow path, out of eval_stmt (as eval_expr_tick). */
static NOINLINE Status
eval_stmt_tick(Frame *f, Node *s)
{
    if (limits_tick_slow(f->in) < 0) {
        return ST_ERROR;
    }
    return stmt_table[s->kind](f, s);
}

Status
eval_stmt(Frame *f, Node *s)
{
    if (charge_due(f->in)) {
        return eval_stmt_tick(f, s);
    }
    return stmt_table[s->kind](f, s);
}

int
eval_stmt_table_check(void)
{
#define STMT(n, fields)                                                     \
    if (stmt_table[K_##n] == st_bad) {                                      \
        PyErr_SetString(PyExc_SystemError,                                  \
                        "eval_stmt: no handler for statement kind " #n);    \
        return -1;                                                          \
    }
#include "ir/nodes.def"
    return 0;
}

/* The source text of a statement (ast.get_source_segment semantics: column
 * offsets are UTF-8 byte offsets). */
PyObject *
source_segment(ProgramObject *p, Node *s)
{
    Py_ssize_t nl = PyList_GET_SIZE(p->lines);
    if (s->lineno < 1 || s->end_lineno > nl || s->end_lineno < s->lineno) {
        return PyUnicode_FromString("");
    }
    PyObject *parts = PyList_New(0);
    if (parts == NULL) {
        return NULL;
    }
    for (int ln = s->lineno; ln <= s->end_lineno; ln++) {
        PyObject *line = PyList_GET_ITEM(p->lines, ln - 1);
        Py_ssize_t blen;
        const char *b = PyUnicode_AsUTF8AndSize(line, &blen);
        if (b == NULL) {
            Py_DECREF(parts);
            return NULL;
        }
        Py_ssize_t start = ln == s->lineno ? s->col : 0;
        Py_ssize_t stop = ln == s->end_lineno ? s->end_col : blen;
        if (start > blen) {
            start = blen;
        }
        if (stop > blen) {
            stop = blen;
        }
        if (stop < start) {
            stop = start;
        }
        PyObject *seg =
            PyUnicode_DecodeUTF8(b + start, stop - start, "replace");
        if (seg == NULL || PyList_Append(parts, seg) < 0) {
            Py_XDECREF(seg);
            Py_DECREF(parts);
            return NULL;
        }
        Py_DECREF(seg);
    }
    PyObject *nlsep = PyUnicode_FromString("\n");
    PyObject *r = nlsep ? PyUnicode_Join(nlsep, parts) : NULL;
    Py_XDECREF(nlsep);
    Py_DECREF(parts);
    return r;
}
