/* budget.h: the public header of the `budget` layer (docs/design.md, section
 * 6.1): budgets (budgets.def) and the budget layer's state (BudgetState,
 * in_budget), the module's state (ModState), counters and aborts, the C stack,
 * memory accounting, the check points.
 *
 * A file includes its own layer's header and, through it, the layers below;
 * never a header of a layer above (scripts/check_layers.py).
 */
#ifndef SMOLAGENTS_NATIVE_BUDGET_H
#define SMOLAGENTS_NATIVE_BUDGET_H

#include "ir/ir.h"

/* The configured budgets of an interpreter, one field per entry of
 * budgets.def (budgets.c parses them).  One encoding of "no limit" (None)
 * for every budget: the largest value of its type, so that every check is
 * `amount > budget` with no special case. */
#define BUDGET_NONE_COUNT LLONG_MAX
#define BUDGET_NONE_SECONDS HUGE_VAL
#define BUDGET_COUNT_T long long
#define BUDGET_SECONDS_T double

typedef struct Budgets {
#define BUDGET(name, kind, def, unit, cst, what, msg) BUDGET_##kind##_T name;
#include "budgets.def"
#undef BUDGET
} Budgets;

/* The kind of the pending abort (BudgetState.abort): ABORT_NONE, or why
 * the window's code is being unwound past every handler. */
typedef enum {
    ABORT_NONE = 0,
    ABORT_BUDGET,  /* a limit fired: uncatchable InterpreterError */
    ABORT_TIMEOUT, /* deadline: uncatchable timeout error */
    ABORT_POLICY,  /* a policy refusal: uncatchable InterpreterError */
    ABORT_INTERRUPT, /* a KeyboardInterrupt from a host call or the code
                        (citizen.c): uncatchable, reaches the caller */
    ABORT_SIGNAL,    /* an exception raised by a host signal handler at a
                        check point (citizen.c): likewise, also out of hooks */
} AbortKind;

#define OWN_RANDOM_CACHE 16 /* ownstate.c: random methods remembered */

/* Number of generator C stacks kept for reuse per module (generator.c). */
#define GEN_STACK_POOL 8

struct PolicyData; /* policy.c */

/* Per-module state (multi-phase init): the interned names, types and tables
 * every layer reads (in_st), declared in the lowest layer that reads it; each
 * field is labelled by the file that owns it. */
typedef struct {
    PyObject *ast_module;
    PyObject *kind_of_class; /* dict: ast class -> int kind (or -1-refused) */
    PyObject *op_of_class;   /* dict: operator/ctx class -> int */
    PyObject **field_names_all; /* interned ast field names (lower.c) */
    int n_field_names;
    PyObject *str_string_filename; /* "<string>" */
    PyObject *dangerous_callables; /* set of builtins refused at call time */
    PyTypeObject *ProgramType;
    PyTypeObject *FunctionType;
    PyTypeObject *GeneratorType;
    PyTypeObject *InterpreterType;
    PyTypeObject *ProxyType;  /* proxy.c: call-only tool proxies */
    PyTypeObject *RunnerType; /* tripwire.c: the entry frame's runner */
    PyTypeObject *LazyImportType; /* lazyimport.c (PEP 810) */
    PyTypeObject *AnnotateType;   /* annotate.c (PEP 649, 3.14+) */
    PyTypeObject *CoroutineType;  /* generator.c: `async def` called */
    PyTypeObject *CoroWrapperType; /* generator.c: coroutine.__await__() */
    PyTypeObject *AsyncGenType;    /* generator.c: `async def` + `yield` */
    PyTypeObject *AsyncGenASendType;  /* its __anext__() / asend() */
    PyTypeObject *AsyncGenAThrowType; /* its athrow() / aclose() */
    PyTypeObject *BudgetsType;  /* budgets.c: parsed budgets */
    PyObject *safe_builtins;    /* dict built once */
    PyObject *builtin_isinstance, *builtin_len, *list_append,
        *list_extend;           /* hostcall_fast_builtin, list_extend_fast */
    PyObject *empty_tuple;      /* the arguments of object_new (function.c) */
    PyObject *template_type, *interpolation_type; /* 3.14+: PEP 750's
                                   string.templatelib types (eval_expr.c) */
    PyObject *empty_range_iter; /* iter(range(0)): a counted comprehension's
                                   `.0` (function.c) */
    PyObject *str_dunder_class; /* "__class__" */
    PyObject *str_classdict;     /* "__classdict__" */
    PyObject *str_init;         /* "__init__" */
    PyObject *str_del;          /* "__del__" */
    PyObject *str_dot0;         /* ".0" */
    PyObject *str_super;
    PyObject *str___debug__;  /* lower.c: sources naming them get the compile check */
    PyObject *str___future__;
    PyObject *str_name; /* "__name__" */
    PyObject *str_qualname;
    PyObject *str_module;
    PyObject *str_doc;
    PyObject *str_classcell;
    PyObject *str_annotations;
    PyObject *str_main;
    PyObject *str_match_args;
    PyObject *str_mro_entries;
    PyObject *str_orig_bases;
    PyObject *str_prepare;
    PyObject *str_metaclass;
    PyObject *str_all;
    PyObject *str_enter, *str_exit;
    PyObject *str_aenter, *str_aexit, *str_aiter, *str_anext;
    PyObject *str_send, *str_throw, *str_close;
    PyObject *str_write, *str_keys, *str_get, *str_dot;
    PyObject *str_dot0_suffix, *str_space, *str_newline;
    PyObject *str_print_outputs, *str_operations_count, *str_counter,
        *str_value;          /* step() */
    PyObject *dangerous[24]; /* unused (see policy): kept for module.c */
    int ndangerous;
    struct PolicyData *policy; /* policy.c: owned by the module's `_policy`
                                  capsule (security tables, wrappers);
                                  NULL once that is freed */
    int closing; /* the module is being torn down (interpreter exit): its
                    state is going, so no interpreted code runs any more
                    (interp_enter refuses) */
    destructor subtype_dealloc; /* nesting.c: deallocator of Python classes */
    PyCFunction eg_split, eg_subgroup; /* funcbridge.c: the C functions of
                                          BaseExceptionGroup's methods */
    PyObject *matcher_code; /* funcbridge.c: code of `lambda e: p(e)` */
    PyObject *gen_code[3];  /* generator.c: gi_code / cr_code / ag_code */
    PyObject *entry_template; /* tripwire.c: the step's entry code, its
                                  runner constant a placeholder (None) */
    PyObject *install_dirs; /* tripwire.c: real paths of the installation,
                               computed once (sysconfig + realpath are far
                               too slow for every executor's first step) */
    void *gen_stacks[GEN_STACK_POOL]; /* generator.c: free C stacks */
    int n_gen_stacks;
    /* compat.h: dict watcher ids (globals dicts, builtins dicts, the
       shim's tool dicts, the dicts of modules whose values Attribute
       nodes remember), -1 for none */
    int dict_watcher, bdict_watcher, tools_watcher, modules_watcher;
    /* globalcache.c: global name -> slot number + 1 (lowering), and the
       names by slot number (a list: gname_list[i] is slot i's name) */
    PyObject *gname_ids, *gname_list;
    /* gadgets.c, inert_instance: its "yes" by dict state, the version tags
       of instance dicts whose values were all inert scalars (immutable,
       so the dict's tag is all that can change the verdict); round robin.
       Per interpreter: from 3.12 each interpreter numbers its dicts'
       states with a counter of its own. */
    uint64_t inert_dict_tags[4];
    unsigned int inert_dict_next;
} ModState;

/* The budget layer's part of the interpreter state (Interp: module.h), first
 * in it: the one configuration, the counters of the running window and its
 * pending abort, the C stack's bounds, memory accounting.  The module's state
 * and the error classes a budget raises are here, the lowest layer that uses
 * them. */
typedef struct BudgetState {
    ModState *st;
    PyObject *interpreter_error, *timeout_error;
    /* the operation budget and the clock check's countdown, folded into
       one counter for charge() (see limits_counters_set) */
    long long tick;        /* operations until limits_tick_slow must run */
    long long ops_extra;   /* budget left = tick + ops_extra */
    long long clock_extra; /* operations to the clock check = tick + this */
    double deadline;         /* monotonic seconds; 0: none */
    int depth, max_depth;      /* interpreted call depth */
    char *stack_limit;         /* lowest safe address of the current C stack */
    char *stack_lo, *stack_hi; /* extent of the stack stack_limit belongs to
                                 (NULL: unknown); a stack pointer outside it
                                 means interpreted code of this interpreter
                                 runs on a stack another interpreter switched
                                 to, whose bound the thread-local knows */
    unsigned long stack_thread; /* thread whose limit is cached below */
    char *stack_thread_limit;   /* cached: pthread_getattr_np reads /proc */
    AbortKind abort;
    int running;
    Budgets budgets;            /* the one configuration of the current /
                                   last run (budgets.c), read only through
                                   its accessors (budget_<name>), never from
                                   Python globals while code runs */
    PyThreadState *run_ts;      /* the thread state of the running step or
                                   hook (compat.h's recursion counter
                                   steps) */
    struct NestCache *nest_cache; /* nesting.c: recent measurements */
    char abort_msg[256];        /* message of the pending abort, re-raised
                                   when host code swallowed the error */
    /* citizen.c: GIL hand-over at the check points */
    double gil_interval; /* sys.getswitchinterval() (< 0: not read yet) */
    double gil_last;     /* monotonic time the GIL was last released */
    int gil_wanted;      /* > 0: recent hand-overs were taken (citizen.c) */
    /* memory budget (memlimit.c): net bytes allocated on the step's thread
       while it runs; written by the allocator wrappers */
    long long mem_used;
    int mem_tripped;     /* the budget refused an allocation this window */
    long long mem_last;  /* net bytes of the last window (diagnostics) */
    uint64_t window_epoch; /* a new process-wide number at limits_start
                              and a re-init: verdicts remembered for one
                              window (Node.mod_ok) */
} BudgetState;

/* The interpreter as each layer sees it: its own state after the states of
 * the layers below, each view the first member of the next (guard.h,
 * runtime.h, eval.h), so that a pointer to the Interp is a pointer to every
 * view.  in_budget(in): the budget layer's part. */
static inline BudgetState *
in_budget(const Interp *in)
{
    return (BudgetState *)in;
}

/* The module's state, which every layer reads (its interned names, types,
 * tables). */
static inline ModState *
in_st(const Interp *in)
{
    return in_budget(in)->st;
}

/* The Interp of an Interpreter object (module.h: InterpreterObject), which
 * holds it right after its object header (a static assertion there). */
#define INTERP_OFFSET sizeof(PyObject)
static inline Interp *
interp_of(PyObject *owner)
{
    return (Interp *)((char *)owner + INTERP_OFFSET);
}

typedef enum {
#define BUDGET(name, ...) BUDGET_ID_##name,
#include "budgets.def"
#undef BUDGET
    BUDGET__COUNT
} BudgetId;

typedef struct BigStack BigStack; /* bigstack.c: one per thread */

/* One accessor per budget of budgets.def: the running (or last) window's
 * configuration, `in->budgets`, which nothing else reads.  No limit is
 * BUDGET_NONE_<KIND>, the type's largest value; budget_limited() tells a
 * limit from none where a check can be skipped. */
#define BUDGET(name, kind, def, unit, cst, what, msg)                       \
    static inline BUDGET_##kind##_T budget_##name(const Interp *in)         \
    {                                                                       \
        return in_budget(in)->budgets.name;                                 \
    }
#include "budgets.def"
#undef BUDGET

#define budget_limited(v) ((v) != BUDGET_NONE_COUNT)

/* memlimit.c: saved accounting state of an enclosing window. */
typedef struct {
    struct Interp *prev;
    long long prev_used;
    int prev_tripped;
} MemSave;

/* citizen.c: the interpreter as a good citizen of its host process */
/* Start of a budget window (limits_start). */
void citizen_start(Interp *in);
/* At a check point: hand the GIL over at the switch interval, run pending
 * signal handlers (main thread).  0 / -1 (the handler's exception, made an
 * uncatchable abort). */
int citizen_tick(Interp *in);
/* A hook window's end (interp_leave): the GIL handed over once a switch
 * interval has passed on this thread since the last hand-over, as
 * CPython's eval loop would between calls of a Python function: host C
 * code calling short hooks in a loop (map over the code's function on a
 * thread) never reaches a check point.  Keeps a pending exception. */
void citizen_hook_end(Interp *in);
/* Called where a handler decides whether it may see the pending error: a
 * KeyboardInterrupt becomes an uncatchable abort (ABORT_INTERRUPT).
 * 1 if the pending error is now an abort of citizen.c's kinds, else 0. */
int citizen_claim_error(Interp *in);
/* The abort kinds whose exception reaches the caller unchanged. */
static inline int
citizen_abort_passes_through(AbortKind kind)
{
    return kind == ABORT_INTERRUPT || kind == ABORT_SIGNAL;
}
/* Raise the pending citizen abort again (host code swallowed it).  -1. */
int citizen_reraise(Interp *in);

/* limits.c */
int limits_tick_slow(Interp *in);
/* The step's timeout error (limits.c): an abort while code runs, a plain
 * error before (the lowering).  Always -1. */
int limits_timeout(Interp *in);
/* -1 with the timeout error when the deadline has passed, else 0 (the
 * lowering's periodic check). */
int limits_check_deadline(Interp *in);
int limits_stack_error(void);
long long seq_bytes(PyObject *v);
int limits_check_stack_slow(Interp *in, char *sp);

void limits_start(Interp *in);
void limits_new_window_epoch(Interp *in);

/* stack.c: lowest safe address of the generator C stack the thread runs on
 * (kept by generator.c at every switch), NULL on the thread's own stack.
 * Inline: read and written at every generator switch. */
/* stack.c: map a C stack above a guard area (generator and step stacks);
 * `what` names the stack in the MemoryError; `keep_reserve`: refuse to take
 * the last sixteenth of a finite RLIMIT_AS (generator stacks). */
char *stack_map(size_t guard, size_t size, size_t *total, char **low,
                const char *what, int keep_reserve);

extern HOT_TLS char *stack_current_limit_tls;
static inline char *
stack_current_limit(void)
{
    return stack_current_limit_tls;
}
static inline void
stack_set_current_limit(char *limit)
{
    stack_current_limit_tls = limit;
}

int limits_check_binop(Interp *in, int op, PyObject *l, PyObject *r);
/* 1 when the product of the ints `l` and `r` is certainly within the int
 * size budget, from their digit counts alone (|l * r| has at most as many
 * bits as l and r together): limits_check_binop's OP_Mult answer, without
 * its call, for all but the products near the limit. */
static inline int
limits_product_within(const Interp *in, PyObject *l, PyObject *r)
{
    long long max_bits = budget_max_int_bits(in);
    return !budget_limited(max_bits) ||
           (double)(compat_long_ndigits(l) + compat_long_ndigits(r)) *
                   PyLong_SHIFT <=
               (double)max_bits;
}
/* 1 when `b ** e` (`b` an int of `bbits` bits, `e` >= 0 an int that fits
 * a long long) is within the int size budget: limits_check_binop's OP_Pow
 * answer, without its call. */
static inline int
limits_power_within(const Interp *in, long long bbits, long long e)
{
    long long max_bits = budget_max_int_bits(in);
    return bbits <= 1 || e <= 0 || !budget_limited(max_bits) ||
           (double)(bbits - 1) * (double)e <= (double)max_bits;
}
int limits_abort(Interp *in, AbortKind kind, const char *fmt, ...);
/* Raise again the pending abort (in->abort) with its saved message. -1. */
int limits_reraise_abort(Interp *in);
/* The two countdowns an operation decrements, the operation budget and the
 * clock check's (every CLOCK_EVERY operations), are kept as one counter,
 * in->tick, so that charge() is one decrement and one test:
 *
 *     operations left in the budget   = tick + ops_extra
 *     operations to the clock check   = tick + clock_extra
 *
 * with both extras >= 0 whenever they are set here, so a positive tick means
 * that neither is due.  limits_tick_slow() runs when tick reaches 0; it
 * checks what is really due and sets the counters again.  Code outside this
 * header reads and changes them only through these helpers. */
/* The largest operation budget (None, or any bigger number, is this one:
 * about 2.3e18 operations, beyond any step's reach): the extras can then
 * grow past the budget by the clock's spending without overflow. */
#define LIMITS_OPS_MAX (LLONG_MAX / 4)

/* The window's operation budget: max_operations, at most LIMITS_OPS_MAX. */
static inline long long
limits_ops_budget(const Interp *in)
{
    long long b = budget_max_operations(in);
    return b < LIMITS_OPS_MAX ? b : LIMITS_OPS_MAX;
}

static inline long long
limits_ops_left(const Interp *in)
{
    return in_budget(in)->tick + in_budget(in)->ops_extra;
}

static inline long long
limits_clock_left(const Interp *in)
{
    return in_budget(in)->tick + in_budget(in)->clock_extra;
}
static inline void
limits_counters_set(Interp *in, long long ops, long long clock)
{
    long long t = ops < clock ? ops : clock;
    in_budget(in)->tick = t;
    in_budget(in)->ops_extra = ops - t;
    in_budget(in)->clock_extra = clock - t;
}

/* The next charge() takes the slow path (an abort is pending; a signal
 * was claimed); the budget left is kept. */
static inline void
limits_force_slow(Interp *in)
{
    limits_counters_set(in, limits_ops_left(in), 0);
}

/* Spend `n` operations of the budget without moving the clock check: the
 * next charge() notices an exhausted budget. */
static inline void
limits_ops_spend(Interp *in, long long n)
{
    in_budget(in)->tick -= n;
    in_budget(in)->clock_extra += n;
}
double limits_now(void);
/* How many times this thread asked pthread_getattr_np for its bounds. */
unsigned long limits_stack_bound_queries(void);
/* Ask now for the calling thread's stack extent, which the thread keeps (a
 * fork server's main thread: every worker forked from it inherits the
 * answer, the same mapping, and skips the query on its first step). */
void limits_prime_stack_extent(void);

/* Raise the interpreter error (InterpreterError) with a formatted message. */
PyObject *raise_interp_error(Interp *in, const char *fmt, ...);

/* memlimit.c: the allocator wrappers (installed once per process, at
 * module exec) and the per-thread accounting window of a step or hook. */
void memlimit_install(void);
int memlimit_available(void);
/* Start counting allocations of this thread against budget_max_memory_bytes. */
void memlimit_begin(Interp *in, MemSave *save);
void memlimit_end(Interp *in, MemSave *save);
/* Stop / resume counting on this thread (e.g. around a host tool call). */
void memlimit_suspend(MemSave *save);
void memlimit_resume(MemSave *save);
/* Count the allocations against `in` again, continuing its window (code
 * of its step re-entered during a tool call); undone by memlimit_resume. */
void memlimit_rejoin(Interp *in, MemSave *save);

/* bigstack.c: run fn(arg) on the thread's large C stack (mapped on first
 * use, shared by the interpreters of the thread).  -1 with an exception if
 * the stack cannot be had; otherwise 0 and whatever fn left (it reports its
 * own errors). */
int bigstack_run(Interp *in, void (*fn)(void *), void *arg);
/* From a generator body: run fn(arg) on the big stack below the frame that
 * resumed the generator there, or in place when there is none.  0 / -1. */
int bigstack_call_from_generator(Interp *in, void (*fn)(void *), void *arg);
/* Around a switch to a generator body (generator.c): record the resumer's
 * position on the big stack; returns what to put back afterwards. */
char *bigstack_note_switch_out(void);
/* A host call (PyObject_Vectorcall / PyObject_Call) made from interpreted
 * code: on the big stack when made on a generator's stack.  New ref.
 * (bigstack_vectorcall: inline, in bigstack.h.) */
PyObject *bigstack_call(Interp *in, PyObject *func, PyObject *args,
                        PyObject *kw);
void bigstack_note_switch_back(char *saved);
/* Unmap the calling thread's big stack if nothing runs on it: 1 if it was
 * released, 0 otherwise.  Its reserved size in bytes (0: none). */
int bigstack_release_thread(void);
size_t bigstack_thread_size(void);

/* budgets.c: parse the budget keywords of Interpreter.run() into *b (the
 * defaults of budgets.def for those absent); the other keywords are left
 * in *rest (a new dict, or NULL when none).  0 / -1. */
int budgets_parse(PyObject *kwds, Budgets *b, PyObject **rest);
/* Install *b as the interpreter's configuration (in->budgets and the
 * working limits derived from it). */
void budgets_apply(Interp *in, const Budgets *b);
/* The printf-style message of a budget (budgets.def). */
const char *budget_message(BudgetId id);
/* Add BUDGETS (tuple of (name, default, unit, constant, what, message))
 * to the module.  0 / -1. */
int budgets_add_to_module(PyObject *m);
/* If `o` is a _core.Budgets object (the type budgets_add_to_module made),
 * copy its budgets into *b and return 1; else 0. */
int budgets_from_object(ModState *st, PyObject *o, Budgets *b);
/* bigstack.c: add release_thread_stack() / thread_stack_size() /
 * stack_bound_queries().  0 / -1. */
int bigstack_add_to_module(PyObject *m);

/* nesting.c: refuse (abort, max_nesting) a host-call result nested deeper
 * than the budget through objects whose types recurse without CPython's
 * trashcan.  0 / -1. */
int nesting_check(Interp *in, PyObject *res);

int nesting_init(ModState *st);
/* Drop the measurements kept for the step (end of a step or hook). */
void nesting_forget(Interp *in);

#include "bigstack.h"
#include "switch.h"

#endif /* SMOLAGENTS_NATIVE_BUDGET_H */
