/* eval.h: the public header of the `eval` layer (docs/design.md, section 6.1):
 * the evaluator and its state (EvalState, in_eval): expressions, statements,
 * patterns, functions, generators, module-level names.
 *
 * A file includes its own layer's header and, through it, the layers below;
 * never a header of a layer above (scripts/check_layers.py).
 */
#ifndef SMOLAGENTS_NATIVE_EVAL_H
#define SMOLAGENTS_NATIVE_EVAL_H

#include "runtime/runtime.h"

/* The evaluator's part of the interpreter state: the step's error site, the
 * call protocol's flag, live generators, the module-level names' slots. */
typedef struct EvalState {
    uint32_t tools_epoch;   /* bumped whenever `tools` changes (>= 1) */
    PyObject *final_answer_exc;
    /* where the step's error arose (eval_stmt.c note_error_site): the
       innermost statement an exception left, as `lineno` of the step's
       InterpreterError; held (strong) so that its identity stays its own
       until the next error or the step's end */
    PyObject *err_site_exc;
    int err_site_line;
    int direct_call;           /* set by call_function just before calling an
                                 interpreted function (its arguments were
                                 gated already); cleared by the callee */
    int live_generators;        /* generator bodies holding a C stack */
    /* globalcache.c: one slot per global name of the dicts g_dict and
       g_builtins (owned), valid while their versions are g_seen / b_seen
       and the slot's epoch is g_epoch */
    PyObject *g_dict, *g_builtins;
    uint64_t g_seen, b_seen, g_epoch;
    struct GSlot *gslots;
    uint32_t ngslots;
    int g_strkeys; /* g_dict's keys are all exact str: 1 / 0, -1 unknown */
    /* the last step's globals (an address, never dereferenced) and their
       version at its end, when their keys were all exact str and nothing
       but our own stores had changed them: the next step on the same dict
       at the same version knows the verdict without a scan of its keys
       (the version is unique to one dict up to 3.13; from 3.14 a watched
       dict's deallocation moves it, so the address is still that dict) */
    const void *strkeys_dict;
    uint64_t strkeys_version;
    /* the names of the step's globals read or written (gcache_touched):
       slots filled since g_step_epoch, and the names noted off the slots */
    uint64_t g_step_epoch;
    /* the slots first filled in this step, by number (at most
       GCACHE_FILLED_MAX; g_filled_over: more, then every slot is looked
       at), so that gcache_touched needs no pass over every name */
    uint32_t *g_filled;
    uint32_t n_filled;
    int g_filled_over;
    PyObject *g_touched; /* set, or NULL: none noted */
    int g_untracked;     /* an access could not be noted: names unknown */
} EvalState;

/* The interpreter as the evaluator (and the lowering above it) sees it
 * (budget.h, in_budget). */
typedef struct InterpEvalView {
    InterpRuntimeView lower;
    EvalState eval;
} InterpEvalView;

static inline EvalState *
in_eval(const Interp *in)
{
    return &((InterpEvalView *)in)->eval;
}

/* specialize.c: the one writer of the inline caches (nodes.def's CACHE
 * fields), each from a verdict its caller obtained (specialize.c's head). */
/* How many callables one call site may remember in turn (each one is kept
 * alive by the program): past it the site is megamorphic and always takes
 * the full gate. */
#define HC_MAX_FILLS 4
/* How many modules one Attribute node may remember in turn (each one is
 * held by the program); the same for the values of a module
 * (Attribute.mval). */
#define MOD_MAX_FILLS 4
/* How many times an attribute site learns where its name sits in the
 * instance dict or inline slots (Attribute.aidx, vidx): a site whose
 * instances keep their keys in other orders stops learning after that and
 * takes the generic lookup. */
#define AIDX_MAX_FILLS 4
/* How many times a store site looks for its name's inline slot
 * (Attribute.svidx): values several slots share (small ints, None) hide
 * it, and a site that keeps finding such values stops looking. */
#define SVIDX_MAX_FILLS 4
/* Attribute.mval_version of a value remembered in an earlier budget window:
 * the next load takes the full path (a watched version is never this
 * large: it counts dict changes from 1) */
#define MVAL_STALE UINT64_MAX
/* A store to Name `t` passed the tool check at this tools epoch. */
void specialize_name_checked(Node *t, uint32_t tools_epoch);
/* Call `e` remembers host callable `func` (a pass of hostcall_gate with
 * HC_REMEMBER; plain: with HC_REMEMBER_PLAIN), held by `program`, unless
 * the site has learned HC_MAX_FILLS callables already. */
void specialize_call_gate(Node *e, PyObject *program, PyObject *func,
                          int plain);
/* Call `e` remembers the class and __init__ function_init_for_call found. */
void specialize_call_init(Node *e, const CompatTypeCache *learned);
/* Attribute `e` remembers a guard's verdict on its type (itype / itag, and
 * stag when the verdict has one); nothing when v->type is NULL. */
void specialize_attr_verdict(Node *e, const AttrVerdict *v);
/* Attribute `attr` remembers module `mod` (held by f's program) as passing
 * the attribute check in this budget window. */
void specialize_module_checked(Frame *f, Node *attr, PyObject *mod);
/* Attribute `attr` remembers v, the value its module gave as it is, at
 * the module dict's watched version (0: not watched). */
void specialize_module_value(Frame *f, Node *attr, PyObject *v,
                             uint64_t version);
/* A method load at `attr` remembers its type-alone verdict (mtype, NULL for
 * none), whether provenance found the code's own method (mcode) and the
 * type cache the lookup filled. */
void specialize_method(Node *attr, PyTypeObject *mtype, int mcode,
                       const CompatTypeCache *tcache);
/* The method site `attr` remembers how many of its type's shared keys its
 * name was not among (Attribute.mabsent, compat_inline_has_name). */
void specialize_method_absent(Node *attr, uint8_t absent);
/* After PyObject_GenericGetAttr(obj, name) gave v at Attribute `e` whose
 * itype / itag are obj's type at its tag: when that type has no attribute
 * `name` at all (no descriptor, no class attribute: the generic lookup is
 * the instance dict's entry), remember where the dict holds it. */
void specialize_instance_attr(Node *e, PyObject *obj, PyObject *v);

/* globalcache.c: module-level names and globals, one slot per name.
 * gcache_name_slot: the slot number + 1 of a global name (lowering), 0 for
 * none.  gcache_begin: a step starts with these dicts (exact, watched).
 * gcache_load (below) / gcache_load_slow: the name's value, new reference,
 * or NULL with NameError.  gcache_store / gcache_delete: a store or delete
 * of the name in f->globals: 0 / -1, and -2 for a delete of a name the
 * globals do not hold (no exception set). */
typedef struct GSlot {
    PyObject *value; /* borrowed: held by the dict it was found in */
    uint64_t epoch;  /* == Interp.g_epoch, or the slot is empty */
    int in_globals;  /* found in g_dict (else in g_builtins) */
} GSlot;

/* A statement completed: the exception noted as the step's error site
 * (eval_stmt.c note_error_site) was caught or swallowed, and is let go. */
void error_site_release(Interp *in);
static inline void
error_site_done(Interp *in)
{
    if (in_eval(in)->err_site_exc != NULL) {
        error_site_release(in);
    }
}

/* An activation of a scope.  Lives on the C stack (or, for generators, on the
 * generator's own C stack). */
/* A function frame with at most this many slots lives on the C stack. */
#define FRAME_SMALL_SLOTS 16

/* Record `v` (stolen) as the value of the last statement.  Only the
 * step's last top-level statement keeps it (Frame.keep_last: its value is
 * the step's output, module.c step_output); elsewhere holding it would keep
 * an object alive past CPython's lifetime for it (`del x` must run
 * `__del__` at once, and so must a store that replaces a value inside a
 * loop body). */
static inline void
frame_set_last(Frame *f, PyObject *v)
{
    if (f->keep_last) {
        Py_XSETREF(f->last_value, v);
    }
    else {
        Py_DECREF(v);
    }
}

/* 1 when a call of `fn` (an interpreted function) by code that `in` runs
 * may go without the entry checks of a call from host code: `fn` belongs to
 * `in`, whose step runs, outside a pure host call (gadgets.c) or a tool
 * call (proxy.c). */
static inline int
function_is_direct(Interp *in, FunctionObject *fn)
{
    return interp_of(fn->interp) == in && in_budget(in)->running &&
           in_guard(in)->gadgets_paused == 0 && in_runtime(in)->tool_calls == 0;
}

/* eval_stmt.c */
Status eval_body(Frame *f, Node **body, Py_ssize_t n);
Status eval_stmt(Frame *f, Node *s);
/* typealias.c: `type X[...] = v` (3.12+) */
Status eval_type_alias(Frame *f, Node *s);
/* Returns new ref or NULL: run a module body, store the value of the last
 * statement in f->last_value. */

/* eval_expr.c */
PyObject *eval_expr(Frame *f, Node *e);
/* The call `e` of `func` (owned, evaluated already, not an attribute):
 * what call_function does past evaluating the callee. */
PyObject *call_with_callee(Frame *f, Node *e, PyObject *func);
/* The truth of an expression in a test: 1 / 0 / -1 (eval_expr.c). */
int eval_cond(Frame *f, Node *e);
/* A call by interpreted code of `func`, an interpreted callable
 * (hostcall_is_interpreted): a function of `in` while its step runs goes
 * without the entry checks of a call from host code; anything else (a
 * bound method, another interpreter's function) through its vectorcall
 * (function.c). */
PyObject *function_call_direct(Interp *in, PyObject *func,
                               PyObject *const *args, size_t nargsf,
                               PyObject *kwnames);
/* The fast path of a call by interpreted code: `fn` is a function of this
 * step's interpreter (function_is_direct) whose scope's simple_argc is
 * nargs (+ 1 with self_arg).  The arguments are evaluated straight into the
 * new frame's slots, `self_arg` (owned, or NULL) first.  New reference, or
 * NULL with an exception; self_arg is consumed either way. */
PyObject *function_call_simple(Frame *f, FunctionObject *fn,
                               PyObject *self_arg, Node **args,
                               Py_ssize_t nargs);
/* Instantiating a class of the code's own without type_call (3.11's
 * CALL_ALLOC_AND_ENTER_INIT does the same for Python classes in CPython):
 * function_init_for_call says, from the cache of Call `e` (its icache,
 * which specialize_call_init fills on a miss), whether `tp` is made by object_new, has no __new__, is not
 * abstract, is plain to the call policy and has an interpreted __init__
 * (*pinit, borrowed from the type) that can run directly: 1, or 0 (the call
 * takes the full path; no exception set).  Then function_call_init_simple
 * (an __init__ taking exactly the nargs positional arguments and self, as
 * function_call_simple) or function_call_init (any other arguments: args
 * from args[1], args[0] a free slot the object takes) evaluates the
 * arguments, makes the object with tp_new and no arguments, runs __init__,
 * and gives the object, or a TypeError when __init__ returned anything but
 * None. */
int function_init_for_call(Interp *in, Node *e, PyTypeObject *tp,
                           FunctionObject **pinit);
PyObject *function_call_init_simple(Frame *f, FunctionObject *init,
                                    PyTypeObject *tp, Node **args,
                                    Py_ssize_t nargs);
PyObject *function_call_init(Interp *in, FunctionObject *init,
                             PyTypeObject *tp, PyObject **args, size_t nargsf,
                             PyObject *kwnames);
/* At import: every expression / statement kind of nodes.def has its
 * handler in expr_table / stmt_table.  0, or -1 with SystemError. */
int eval_expr_table_check(void);
int eval_stmt_table_check(void);
/* eval_expr.c: a store to a plain attribute name (NF_PLAIN_NAME) at
 * Attribute `t`, its site's verdicts used and learned.  0 / -1. */
int attr_store_plain(Frame *f, Node *t, PyObject *obj, PyObject *value);
int store_target_slow(Frame *f, Node *t, PyObject *value);
/* The load of `obj.name` in an augmented assignment to the plain-name
 * attribute target t (policy_getattr_plain's checks and result): t's
 * itype / itag are its store's (policy_setattr_plain_cached); while they
 * hold, the load reads the instance dict at the position it learned, as
 * eval_attribute's loads do (docs/security.md, section 11).  New reference
 * or NULL. */
PyObject *attr_load_for_update(Frame *f, Node *t, PyObject *obj);
int delete_target(Frame *f, Node *t);
int store_name(Frame *f, Node *t, PyObject *value);
PyObject *load_name(Frame *f, Node *e);
/* NameError for `name`, with .name set as CPython does.  NULL. */
PyObject *raise_name_error(PyObject *name);

uint32_t gcache_name_slot(ModState *st, PyObject *name);
void gcache_begin(Interp *in, PyObject *globals, PyObject *builtins);
/* gcache_end: the step is over (the dicts are released: hooks called
 * later look names up uncached).  gcache_clear: everything freed. */
void gcache_end(Interp *in);

void gcache_clear(Interp *in);
int gcache_traverse(Interp *in, visitproc visit, void *arg);
PyObject *gcache_load_slow(Frame *f, Node *e);
int gcache_store(Frame *f, Node *t, PyObject *value);
/* Empty every slot (a value no slot may hold was stored: lazyimport.c). */
void gcache_forget(Interp *in);
/* The step's names (process mode's state sync, docs/isolation.md): every
 * access of the step's globals by name goes through a slot (filled at the
 * step's epoch or later) or is noted here.  gcache_note: `name` of the
 * globals read or written off the slots (no exception set; it sets none).  gcache_untracked: an access whose
 * name is unknown.  gcache_touched: a new set of the names the step read
 * or wrote in its globals (builtins' names too), or None when an access
 * was not noted; NULL with an exception. */
void gcache_note(Interp *in, PyObject *name);
static inline void
gcache_untracked(Interp *in)
{
    in_eval(in)->g_untracked = 1;
}
PyObject *gcache_touched(Interp *in);
int gcache_delete(Frame *f, Node *t);
/* The slot of `gslot1` (a Name's gslot: number + 1, 0 for none) when it
 * may be used as it is (globalcache.c's guarantee): the frame's dicts are
 * the ones the slots describe, neither changed since last seen, and the
 * slot was filled in this epoch.  NULL otherwise (the slow paths sync). */
static inline GSlot *
gcache_current(Frame *f, uint32_t gslot1)
{
    EvalState *ev = in_eval(f->in);
    uint32_t i = gslot1 - 1; /* 0 (no slot) wraps past ngslots */
    if (i < ev->ngslots && f->globals == ev->g_dict &&
        f->builtins == ev->g_builtins && ev->gslots[i].epoch == ev->g_epoch &&
        compat_watched_version(COMPAT_WATCH_GLOBALS, f->globals) == ev->g_seen &&
        compat_watched_version(COMPAT_WATCH_BUILTINS, f->builtins) == ev->b_seen) {
        return &ev->gslots[i];
    }
    return NULL;
}

static inline PyObject *
gcache_load(Frame *f, Node *e)
{
    GSlot *s = gcache_current(f, e->Name.gslot);
    return s != NULL ? Py_NewRef(s->value) : gcache_load_slow(f, e);
}
PyObject *binary_op(Interp *in, int op, PyObject *l, PyObject *r, int inplace);
PyObject *call_function(Frame *f, Node *call);

/* eval_match.c: returns 1 on match, 0 no match, -1 error.  Captured names
 * are appended to the list `binds` as 2-tuples (PyCapsule named
 * "smolagents_native.node" holding the Name store Node *, value), stored by
 * match_store_binds() only once the whole pattern of a case matched. */
int match_pattern(Frame *f, Node *p, PyObject *subject, PyObject *binds);

/* function.c */
extern PyType_Spec Function_spec;
/* lazyimport.c (PEP 810): the object `lazy import` binds; resolved by the
 * global lookups when they find it in the globals.  LazyImportType is the
 * module state's. */
extern PyType_Spec LazyImport_spec;
/* annotate.c (PEP 649, 3.14+): the `__annotate__` of a function or class
 * whose annotations are deferred, made from its annotation scope's function
 * (FunctionObject.ann_thunk). */
extern PyType_Spec Annotate_spec;
PyObject *annotate_new(ModState *st, PyObject *thunk, int is_class);

void annotate_set_owner(PyObject *annotate, PyObject *owner);
/* A class body's annotations: only those whose statement ran (`done`, a set
 * of indices; CPython's __conditional_annotations__). */
void annotate_set_done(PyObject *annotate, PyObject *done);
PyObject *lazyimport_new(Frame *f, Node *stmt, Py_ssize_t index);
PyObject *lazyimport_resolve(Frame *f, PyObject *name, PyObject *lazy);
/* eval_stmt.c: the value name `index` of an Import / ImportFrom statement
 * binds (the import done now, under the policy).  New ref. */
PyObject *import_binding(Frame *f, Node *stmt, Py_ssize_t index);
extern PyType_Spec Generator_spec;
extern PyType_Spec Coroutine_spec;
extern PyType_Spec CoroWrapper_spec;
extern PyType_Spec AsyncGen_spec;
extern PyType_Spec AsyncGenASend_spec;
extern PyType_Spec AsyncGenAThrow_spec;
/* `await x` in a running coroutine: its result (new ref) or NULL. */
PyObject *gen_await(Frame *f, PyObject *awaitable);
PyObject *function_new(Frame *f, Node *def, Scope *scope, PyObject *defaults,
                       PyObject *kwdefaults, PyObject *annotations,
                       PyObject *closure);
/* Run a comprehension scope with `iter` bound to `.0`. */
PyObject *build_class(Frame *f, Node *s);
void frame_clear(Frame *fr);
int scope_cell_slot(Scope *ps, PyObject *name);
/* `yield value`: steals `value` (no reference to it stays on the body's C
 * stack while suspended, where the collector could not see it: a cycle
 * through a yielded value would never be collected).  New reference: the
 * value sent in; or NULL. */
PyObject *gen_yield(Frame *f, PyObject *value);
PyObject *gen_yield_from(Frame *f, PyObject *iterable); /* new ref: result */

/* Charge one operation.  Returns -1 with the abort error set when a budget
 * is exhausted.  charge_due() is its test alone: 1 when limits_tick_slow()
 * must run (the evaluator's dispatch calls that out of line). */
static ALWAYS_INLINE int
charge_due(Interp *in)
{
    return __builtin_expect(--in_budget(in)->tick <= 0, 0);
}

static ALWAYS_INLINE int
charge(Interp *in)
{
    if (charge_due(in)) {
        return limits_tick_slow(in);
    }
    return 0;
}

/* Charge `n` more operations at once: a constant folded from several nodes
 * (Constant.extra_ops) counts as they would have. */
static inline int
charge_more(Interp *in, uint32_t n)
{
    in_budget(in)->tick -= n;
    if (in_budget(in)->tick <= 0) {
        return limits_tick_slow(in);
    }
    return 0;
}

/* Give back one operation: what smolagents does not count (the callee of a
 * call when it is a name or an attribute) after the evaluator charged it. */
static inline void
uncharge(Interp *in)
{
    in_budget(in)->ops_extra++;
}
static inline int
interp_closing(Interp *in)
{
    return in_st(in)->closing ? interp_closing_error() : 0;
}

/* `finalizer`: the call is a finalizer of the code's objects (an
 * interpreted __del__, a generator closed at collection), which the
 * collector runs on whatever thread it collects on: refused without
 * ending the step. */
static inline int
interp_check_thread(Interp *in, int finalizer)
{
    if (in_budget(in)->running && in_runtime(in)->run_thread != (unsigned long)pthread_self()) {
        return interp_wrong_thread(in, finalizer);
    }
    return 0;
}
static inline int
interp_needs_rearm(Interp *in)
{
    return in_guard(in)->gadgets_paused > 0 || in_runtime(in)->tool_calls > 0 ||
           tripwire_armed_tls != in;
}

PyObject *make_function(Frame *f, Node *def);
int dict_merge_mapping(PyObject *d, PyObject *m);
/* `*v` into a list or a set, `**v` into a dict (displays, PEP 798
 * comprehensions; eval_expr.c).  0 / -1. */
int display_unpack(Interp *in, PyObject *acc, PyObject *v);
int match_store_binds(Frame *f, PyObject *binds);
PyObject *generator_new(FunctionObject *fn, Frame *fr);
PyObject *generator_run_body(Frame *fr, Node *def);
/* generator.c: 1 when the items of iterator `it` are values `in`'s code
 * made or gated already (its flat generators and generator expressions):
 * loops over it need not gate them again. */
int generator_yields_gated(Interp *in, PyObject *it);

/* generator.c: unmap the pooled generator stacks (module free). */
void generator_free_stacks(ModState *st);
/* The code objects host code finds as gi_code / cr_code / ag_code (made
 * once per module).  0 / -1. */
int generator_init_state(ModState *st);

/* Cheap filter before deadline_charge_binop: 0 when both ints are small
 * (under 100 digits, well below its HEAVY_BITS) and op is not a power. */
static inline int
deadline_may_be_heavy(int op, PyObject *l, PyObject *r)
{
    return op == OP_Pow || compat_long_ndigits(l) > 100 ||
           compat_long_ndigits(r) > 100;
}

/* The next item of a loop's iterator `it`, `next` being
 * deadline_next_orig(Py_TYPE(it)): for the loops every
 * iteration of which runs charged nodes (a for statement's body, a
 * comprehension's element or conditions, a generator's body), so that a
 * range's items need no charge of their own.  What PyIter_Next gives: a
 * new reference, or NULL at the end (no exception) or with an error. */
static inline PyObject *
loop_iter_next(iternextfunc next, PyObject *it)
{
    PyObject *x = next(it);
    if (x == NULL && PyErr_Occurred() &&
        PyErr_ExceptionMatches(PyExc_StopIteration)) {
        PyErr_Clear();
    }
    return x;
}

/* The items of a `for` statement or of a comprehension's `for` clause:
 * its iterator (`it`, with `next` as for loop_iter_next), or, for a call
 * of the builtin range whose arguments are ints that fit a long long, a
 * count in C (`it` NULL): no range object, iterator nor host call.
 * loop_source_init (eval_stmt.c) evaluates the iterable expression;
 * loop_source_object always makes the iterator (a generator expression
 * needs an object).  Both 0, or -1 with an exception and nothing to
 * clear. */
typedef struct {
    PyObject *it;      /* owned; NULL: counting */
    iternextfunc next; /* it's */
    int gated;         /* its items need no value gate */
    long long start, step;
    unsigned long long k, n; /* counting: items given, items in all */
} LoopSource;
int loop_source_init(Frame *f, Node *iter, LoopSource *ls);
/* Asynchronous iteration (eval_stmt.c: `async for`, and the `async for`
 * clauses of comprehensions, function.c): the __aiter__() of the value of
 * `iter` (GET_AITER; new reference or NULL), then each __anext__() awaited
 * in the running coroutine (f->gen): 1 with *pitem (new reference,
 * checked), 0 at StopAsyncIteration, -1 on error. */
PyObject *async_iter_begin(Frame *f, Node *iter);
int async_iter_next(Frame *f, PyObject *it, PyObject **pitem);
int loop_source_object(Frame *f, Node *iter, LoopSource *ls);

/* The next item (new reference), or NULL at the end or with an error. */
static inline PyObject *
loop_source_next(LoopSource *ls)
{
    if (ls->it != NULL) {
        return loop_iter_next(ls->next, ls->it);
    }
    if (ls->k >= ls->n) {
        return NULL;
    }
    /* every item lies between start and stop: only the product may wrap
       (unsigned, then exact modulo 2**64) */
    unsigned long long k = ls->k++;
    return PyLong_FromLongLong((long long)((unsigned long long)ls->start +
                                           k * (unsigned long long)ls->step));
}

/* The item needs the value gate (an iterator's, unless its producer gated
 * it already). */
static inline int
loop_source_gate(Interp *in, LoopSource *ls, PyObject *item)
{
    return ls->gated ? 0 : gate_value(in, item);
}
static inline void
loop_source_clear(LoopSource *ls)
{
    Py_CLEAR(ls->it);
}

/* A comprehension whose first `for` clause's items come from `src` (a
 * generator expression's: an iterator). */
PyObject *run_comprehension(Frame *f, Node *e, LoopSource *src);

/* eval_expr.c: the code's dir() builtin (module.c puts it among the guarded
 * builtins).  Is `func` it?  Without arguments the evaluator calls
 * eval_dir_frame(): the sorted names bound in the frame (new ref). */
PyObject *eval_builtin_dir(PyObject *self, PyObject *const *args,
                           Py_ssize_t nargs);
int eval_is_guarded_dir(PyObject *func);
PyObject *eval_dir_frame(Frame *f);
/* eval_stmt.c: the source text of a node's span (ast.get_source_segment).
 * New ref. */
PyObject *source_segment(ProgramObject *p, Node *s);

/* Evaluate an operand, inlining the two commonest leaves (a constant, a
 * bound local).  Same result and cost accounting as eval_expr(). */

/* Bind `value` (borrowed) to an assignment target.  0 / -1.  A function
 * local whose binding the tool check passed (check_tool_binding) is stored
 * here, inline, as STORE_FAST; everything else in store_target_slow. */
static inline int
store_target(Frame *f, Node *t, PyObject *value)
{
    if (t->kind == K_Name && t->scope_kind == NAME_FAST &&
        t->Name.checked_epoch == in_eval(f->in)->tools_epoch) {
        Py_INCREF(value);
        Py_XSETREF(f->fast[t->slot], value);
        return 0;
    }
    return store_target_slow(f, t, value);
}

/* The slot of obj[key] when obj is an exact list and key an exact int in
 * range, not negative and small (CPython's BINARY_SUBSCR_LIST_INT and
 * STORE_SUBSCR_LIST_INT: what list_subscript and list_ass_subscript reach
 * for it), else NULL: the generic protocol, which also raises. */
static inline PyObject **
list_int_slot(PyObject *obj, PyObject *key)
{
    long long i;
    if (PyList_CheckExact(obj) && PyLong_CheckExact(key) &&
        compat_small_int(key, &i) && i >= 0 && i < PyList_GET_SIZE(obj)) {
        return ((PyListObject *)obj)->ob_item + i;
    }
    return NULL;
}

/* obj[key]: a new reference, or NULL with an exception.  Not gated. */
static inline PyObject *
subscript_get(PyObject *obj, PyObject *key)
{
    PyObject **slot = list_int_slot(obj, key);
    if (slot != NULL) {
        return Py_NewRef(*slot);
    }
    if (PyDict_CheckExact(obj)) {
        /* an exact dict, as CPython's BINARY_SUBSCR_DICT: the lookup
           without the mapping protocol's dispatch (an exact dict has no
           __missing__); a missing key raises KeyError((key,)) as
           dict_subscript does, with no second lookup */
        PyObject *v = PyDict_GetItemWithError(obj, key);
        if (v != NULL) {
            return Py_NewRef(v);
        }
        if (!PyErr_Occurred()) {
            PyObject *args = PyTuple_Pack(1, key);
            if (args != NULL) {
                PyErr_SetObject(PyExc_KeyError, args);
                Py_DECREF(args);
            }
        }
        return NULL;
    }
    return PyObject_GetItem(obj, key);
}

/* obj[key] = value.  0 / -1. */
static inline int
subscript_set(PyObject *obj, PyObject *key, PyObject *value)
{
    PyObject **slot = list_int_slot(obj, key);
    if (slot != NULL) {
        PyObject *old = *slot;
        *slot = Py_NewRef(value);
        Py_DECREF(old); /* last: its finalizer sees the list updated */
        return 0;
    }
    return PyObject_SetItem(obj, key, value);
}

/* What evaluating the Constant node `e` charges (eval_expr's operation,
 * then ev_constant's extra_ops, for a constant folded from several nodes),
 * for the places that take the constant without evaluating it.  0 / -1. */
static ALWAYS_INLINE int
charge_constant(Interp *in, Node *e)
{
    if (charge(in) < 0) {
        return -1;
    }
    if (e->Constant.extra_ops && charge_more(in, e->Constant.extra_ops) < 0) {
        return -1;
    }
    return 0;
}

/* An operand (call argument, binary operand): a constant or a bound local
 * without a call of eval_expr.  Always inline: GCC left it out of line on
 * 3.13, a call per operand (recursion_fib: 1.8% of its instructions). */
static ALWAYS_INLINE PyObject *
eval_operand(Frame *f, Node *e)
{
    if (e->kind == K_Constant) {
        if (charge_constant(f->in, e) < 0) {
            return NULL;
        }
        Py_INCREF(e->obj);
        return e->obj;
    }
    if (e->kind == K_Name && e->scope_kind == NAME_FAST && f->fast[e->slot]) {
        if (charge(f->in) < 0) {
            return NULL;
        }
        Py_INCREF(f->fast[e->slot]);
        return f->fast[e->slot];
    }
    return eval_expr(f, e);
}

/* An operand of a NF_AT_HAND node (a BinOp, or a Compare of one
 * comparator), which eval_operand() would give without evaluating
 * anything: a constant (no extra_ops) or a local of the frame.  Borrowed
 * (the program holds the constant; the slot, which only the frame's own
 * code rebinds, holds the local), or NULL for an unbound local.  Charges
 * nothing: the caller charges the operand's one operation with its own
 * (eval_cond, eval_binop), and takes a reference before anything that may
 * run code. */
static ALWAYS_INLINE PyObject *
operand_at_hand(Frame *f, Node *e)
{
    return e->kind == K_Constant ? e->obj : f->fast[e->slot];
}

/* The object and the key of a Subscript node `t`, in CPython's order, as
 * operands: 0 with both set (new references), or -1 with an exception and
 * neither. */
static inline int
subscript_operands(Frame *f, Node *t, PyObject **obj, PyObject **key)
{
    *key = NULL;
    *obj = eval_operand(f, t->Subscript.value);
    if (*obj == NULL) {
        return -1;
    }
    *key = eval_operand(f, t->Subscript.slice);
    if (*key == NULL) {
        Py_CLEAR(*obj);
        return -1;
    }
    return 0;
}

#endif /* SMOLAGENTS_NATIVE_EVAL_H */
