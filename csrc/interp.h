/* interp.h: the IR, the interpreter state and the internal API shared by the
 * C files of smolagents_native._core.
 *
 * Ownership conventions (DESIGN.md section 7): functions returning PyObject *
 * return a new reference or NULL with an exception set; functions returning
 * int return 0 on success and -1 with an exception set.  Statement evaluation
 * returns a Status.
 */
#ifndef SMOLAGENTS_NATIVE_INTERP_H
#define SMOLAGENTS_NATIVE_INTERP_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <pthread.h>
#include <stdint.h>

#include "compat.h"
#include "nodes_gen.h"

/* Keep cold paths out of the evaluator's hot functions, whose stack frames
 * (and so every node's cost) grow with what is inlined into them. */
#define NOINLINE __attribute__((noinline))
/* for the few hot helpers a compiler may leave out of line when a
   version's Py_INCREF grows (3.12+: immortal objects) */
#define ALWAYS_INLINE inline __attribute__((always_inline))

/* ------------------------------------------------------------------ kinds */

typedef enum {
#define STMT(n, f) K_##n,
#define EXPR(n, f) K_##n,
#define PAT(n, f) K_##n,
#define AUX(n, f) K_##n,
#include "nodes.def"
    K__COUNT
} NodeKind;

/* Binary operators, in the order of CPython's ast classes. */
typedef enum {
    OP_Add,
    OP_Sub,
    OP_Mult,
    OP_MatMult,
    OP_Div,
    OP_Mod,
    OP_Pow,
    OP_LShift,
    OP_RShift,
    OP_BitOr,
    OP_BitXor,
    OP_BitAnd,
    OP_FloorDiv,
    OP__BIN_COUNT
} BinOpKind;

typedef enum { UOP_Invert, UOP_Not, UOP_UAdd, UOP_USub } UnaryOpKind;
typedef enum { BOOL_And, BOOL_Or } BoolOpKind;
typedef enum {
    CMP_Eq,
    CMP_NotEq,
    CMP_Lt,
    CMP_LtE,
    CMP_Gt,
    CMP_GtE,
    CMP_Is,
    CMP_IsNot,
    CMP_In,
    CMP_NotIn
} CmpOpKind;
typedef enum { CTX_Load, CTX_Store, CTX_Del } CtxKind;

/* How a Name node is resolved (set by the scope pass in lower.c). */
typedef enum {
    NAME_UNRESOLVED = 0,
    NAME_FAST,       /* function local: frame->fast[slot] */
    NAME_DEREF,      /* cell or free variable: frame->cells[slot] */
    NAME_GLOBAL,     /* globals, then builtins (functions' global names) */
    NAME_NAME,       /* module / class body: locals dict, globals, builtins */
    NAME_CLASSDEREF, /* free variable read in a class body: ns, then cell */
    NAME_OUTER, /* a local of the enclosing function that a list, set or
                   dict comprehension only reads: frame->back->fast[slot],
                   with no cell (lower.c, analyze: as CPython 3.12's inlined
                   comprehensions, PEP 709) */
    /* an annotation scope directly in a class body (Scope.sees_class):
       the class namespace (the free cell __classdict__, slot
       scope->classdict_slot) first, then as NAME_GLOBAL / NAME_DEREF
       (CPython's LOAD_FROM_DICT_OR_GLOBALS / _OR_DEREF) */
    NAME_CLASSDICT_GLOBAL,
    NAME_CLASSDICT_DEREF
} NameScope;

/* ------------------------------------------------------------------- IR */

struct Scope;

/* Statement status: control flow never uses Python exceptions. */
typedef enum {
    ST_OK = 0,
    ST_ERROR,
    ST_BREAK,
    ST_CONTINUE,
    ST_RETURN,
} Status;

/* Evaluator dispatch: eval_expr / eval_stmt charge one operation, then jump
 * through a per-kind table indexed by the node's kind byte.  256 entries, so
 * no bounds check: every kind outside the category (and every byte past
 * K__COUNT) maps to a handler that raises SystemError. */
struct Frame;
struct Node;
typedef PyObject *(*ExprFn)(struct Frame *, struct Node *);
typedef Status (*StmtFn)(struct Frame *, struct Node *);
extern const ExprFn expr_table[256]; /* eval_expr.c */
extern const StmtFn stmt_table[256]; /* eval_stmt.c */

/* One IR node: a common header, then its kind's payload (the typed layout
 * of nodes.def, generated into nodes_gen.h), reached as n->Layout.field,
 * e.g. n->BinOp.left or n->Try.handlers.  The header's `op`, `slot`,
 * `flags` and `obj` mean what nodes.def says per kind.  Nodes, and the
 * arrays they point to, live in the Program's arena; `obj` references are
 * owned by the Program (kept alive in its `consts` list).  Every node has
 * sizeof(Node) bytes, so a field of another kind's layout is never out of
 * bounds; lowering zeroes the whole node. */
#define OWN_RANDOM_CACHE 16 /* ownstate.c: random methods remembered */

typedef struct Node {
    uint8_t kind;
    uint8_t op;         /* operator, ctx, conversion, ... */
    uint8_t scope_kind; /* NameScope for Name nodes */
    uint8_t flags;
    int32_t slot; /* fast/cell slot for Name; misc int otherwise */
    int32_t lineno, col, end_lineno, end_col;
    PyObject *obj; /* borrowed from Program->consts: name, constant... */
    NODE_PAYLOAD;
} Node;

/* Node flags */
#define NF_STAR_ARGS 0x01  /* Call: has *args or **kwargs (slow path) */
#define NF_ASYNC_FOR 0x01  /* comprehension: an `async for` clause */
#define NF_SIMPLE 0x02     /* AnnAssign: simple target */
#define NF_LAZY 0x02       /* Import / ImportFrom: `lazy` (PEP 810) */
#define NF_SUPER_CALL 0x04 /* Call: `super()` candidate with no args */
#define NF_HAS_STAR 0x08   /* Tuple/List target: has a Starred element;
                              comprehension (PEP 798): its element is
                              unpacked (`*x`, DictComp `**m`: no value) */
#define NF_PLAIN_NAME 0x10 /* Attribute: policy_attr_name_plain(name) */
/* Statements (set by lower_stmt_list, read by flat_levels and generator.c's
 * flat_step): the statement contains a `yield` / `yield from` of its own
 * scope; it is `yield v` or `target = yield v` with no other yield in it; a
 * For / While / If has a yield in its iterable, target or test. */
#define NF_HAS_YIELD 0x20
#define NF_YIELD_POINT 0x40
#define NF_HEAD_YIELD 0x80
/* Most levels of a flat generator (Scope.flat_levels); deeper ones run on a
 * C stack of their own. */
#define FLAT_MAX_LEVELS 32

typedef enum { SC_MODULE, SC_FUNCTION, SC_CLASS, SC_COMPREHENSION } ScopeType;

/* A scope: module, function, lambda, class body or comprehension.  After
 * lowering it is immutable and describes how to build a frame for it. */
typedef struct Scope {
    ScopeType type;
    int transparent; /* a PEP 695 annotation scope: the scopes inside it are
                        named as if it were not there (lower.c) */
    int sees_class;  /* an annotation scope directly in a class body: its
                        names look in the class namespace first (through the
                        free cell __classdict__, slot classdict_slot) */
    int classdict_slot;
    struct Scope *parent;
    PyObject *name;     /* borrowed from Program consts */
    PyObject *qualname; /* borrowed from Program consts */
    int lineno;
    /* filled during lowering */
    PyObject *symbols; /* dict: name -> int flags (SYM_*), owned until done */
    PyObject *kidfree; /* set: names this scope's children need from outside
                          it (analysis only, owned until done) */
    struct Scope **kids;
    Py_ssize_t nkids, capkids;
    Node **names; /* Name nodes to patch after analysis */
    Py_ssize_t nnames, capnames;
    /* results of analysis */
    PyObject *varnames; /* tuple: names of fast slots (params first) */
    PyObject *cellvars; /* tuple: cell slots [0, ncells) */
    PyObject *freevars; /* tuple: free slots [ncells, ncells + nfree) */
    int nlocals, ncells, nfree;
    int *cell2arg; /* per cell: index of the param it shadows, or -1 */
    /* function signature */
    int argcount, posonlyargcount, kwonlyargcount;
    int has_varargs, has_varkw;
    int is_generator;
    int is_coroutine; /* `async def`: also is_generator (generator.c) */
    int is_async_gen; /* `async def` with `yield`: also is_coroutine */
    int nyields; /* lowering: yield / yield from expressions seen so far */
    /* generator function: the levels of flat_step's resume state (the body,
       then one per if / for / while enclosing a yield) when every yield is a
       statement of its own reached only through such bodies, else 0 (the
       body runs on a C stack of its own) */
    int flat_levels;
    /* function: the number of positional arguments when a call that passes
       exactly that many positionally needs no binding beyond moving them
       into the first slots (no *args, **kwargs, keyword-only parameters,
       cells; not a generator; at most FRAME_SMALL_SLOTS locals and free
       variables together), else -1 (function_call_simple) */
    int simple_argc;
    int needs_class_cell; /* class scope: a method uses __class__/super */
    int class_cell_slot;  /* class scope: cell slot of __class__ */
    int uses_class_free;  /* function: slot of free __class__, or -1 */
    /* class scope: an annotation scope in it needs the namespace
       (__classdict__, the cell after __class__'s) */
    int needs_classdict_cell;
    int classdict_cell_slot;
    /* 3.14+ annotation scope of deferred annotations (PEP 649, lower.c's
       lower_annotate): called with i, it returns annotation i; ann_keys
       (the names) and ann_sources (the ast expressions, for the STRING and
       FORWARDREF formats) are borrowed from Program consts */
    PyObject *ann_keys;
    PyObject *ann_sources;
    /* class scope, 3.14+, while lowering: [(key, ast expression)] of the
       annotated names of its body (owned), made into an annotation scope
       when the body is lowered */
    PyObject *class_anns;
    Node **body;          /* statements */
    Py_ssize_t nbody;
    PyObject *docstring; /* borrowed, or NULL */
    /* class scope, 3.13+: __firstlineno__ (its first decorator's line, else
       the `class` line) and __static_attributes__ (lower.c's
       note_static_attribute: a set while lowering, owned; then a sorted
       tuple borrowed from Program consts, NULL when empty) */
    int firstlineno;
    PyObject *static_attrs_set;
    PyObject *static_attributes;
} Scope;

/* Symbol flags used by the scope pass. */
#define SYM_BOUND 0x01
#define SYM_USED 0x02
#define SYM_PARAM 0x04
#define SYM_GLOBAL 0x08
#define SYM_NONLOCAL 0x10
#define SYM_FREE_CHILD 0x20 /* a child scope needs this name as free */
/* resolution results */
#define SYM_R_LOCAL 0x100
#define SYM_R_CELL 0x200
#define SYM_R_FREE 0x400
#define SYM_R_GLOBAL 0x800
#define SYM_R_IMPLICIT 0x1000 /* global by default */
#define SYM_R_OUTER 0x2000    /* NAME_OUTER */

/* A lowered program: the root Node of a Module, its scopes, and everything
 * they reference.  A Python object so that functions created by a run can
 * keep the IR alive after the run ends. */
typedef struct {
    PyObject_HEAD PyObject *source; /* str */
    PyObject *lines;  /* list of source lines, for error messages */
    PyObject *consts; /* list: owns every PyObject the IR points to */
    void **blocks;    /* arena blocks */
    Py_ssize_t nblocks, capblocks;
    char *cur;
    size_t left;
    Scope **scopes; /* every scope, for freeing */
    Py_ssize_t nscopes, capscopes;
    Node *module; /* K_Module: v = body */
    Scope *top;
    size_t bytes;   /* memory it holds (arena blocks, source, lines): what
                       the interpreter's cache of programs counts */
    int referenced; /* the cache served it since its hand last passed */
} ProgramObject;

/* ------------------------------------------------------- interpreter state */

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

/* Number of generator C stacks kept for reuse per module (generator.c). */
#define GEN_STACK_POOL 8

struct PolicyData; /* policy.c */

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
typedef enum {
#define BUDGET(name, ...) BUDGET_ID_##name,
#include "budgets.def"
#undef BUDGET
    BUDGET__COUNT
} BudgetId;

/* Per-module state (multi-phase init). */
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

/* The live interpreter: policy, budgets, print buffer.  Owned by an
 * Interpreter Python object (module.c).  Interpreted functions keep a strong
 * reference to the Interpreter object so that hooks called later by host code
 * still run under the same policy and budgets. */
typedef struct BigStack BigStack; /* bigstack.c: one per thread */

typedef struct Interp {
    ModState *st;
    PyObject *owner;        /* borrowed: the InterpreterObject */
    PyObject *builtins;     /* dict: safe builtins + extra_builtins + tools */
    PyObject *tools;        /* dict: protected names */
    /* the values of `tools` (identities, held by the dict), for is_tool;
       ntool_objs < 0: not built (scan the dict) */
    PyObject **tool_objs;
    Py_ssize_t ntool_objs;
    uint32_t tools_epoch;   /* bumped whenever `tools` changes (>= 1) */
    PyObject *authorized;   /* list of str */
    PyObject *print_chunks; /* list of str */
    Py_ssize_t print_len;
    PyObject *interpreter_error, *final_answer_exc, *timeout_error;
    /* where the step's error arose (eval_stmt.c note_error_site): the
       innermost statement an exception left, as `lineno` of the step's
       InterpreterError; held (strong) so that its identity stays its own
       until the next error or the step's end */
    PyObject *err_site_exc;
    int err_site_line;
    /* budgets */
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
    int direct_call;           /* set by call_function just before calling an
                                 interpreted function (its arguments were
                                 gated already); cleared by the callee */
    PyObject *current_program; /* borrowed: program of the running step */
    Budgets budgets;            /* the one configuration of the current /
                                   last run (budgets.c), read only through
                                   its accessors (budget_<name>), never from
                                   Python globals while code runs */
    int live_generators;        /* generator bodies holding a C stack */
    unsigned long run_thread;   /* pthread of the running step or hook */
    PyThreadState *run_ts;      /* its thread state (compat.h's recursion
                                   counter steps) */
    struct NestCache *nest_cache; /* nesting.c: recent measurements */
    char abort_msg[256];        /* message of the pending abort, re-raised
                                   when host code swallowed the error */
    /* citizen.c: GIL hand-over at the check points */
    double gil_interval; /* sys.getswitchinterval() (< 0: not read yet) */
    double gil_last;     /* monotonic time the GIL was last released */
    int gil_wanted;      /* > 0: recent hand-overs were taken (citizen.c) */
    int gadgets_paused;  /* gadgets.c: > 0 while a pure call runs with the
                            gadget profile off (interpreted code entered
                            then turns it back on) */
    int tool_calls;      /* proxy.c: > 0 while a tool called by the running
                            step runs, with the step's checks suspended
                            (interpreted code it enters re-arms them:
                            interp_rearm) */
    int pure_ok;         /* gadgets.c: pure calls allowed this step: -1
                            not decided yet, 0 no (signal authorized), 1 */
    int in_hook;         /* the running window is a hook (interp_enter),
                            not a step: other threads wait for it */
    /* tripwire.c: grants (NULL: unrestricted, else a tuple of real paths
       of directories), the installation's directories (always readable),
       the entry frame's code and its runner */
    PyObject *grant_read, *grant_write, *install_dirs;
    int grant_network, grant_processes, grants_set;
    PyObject *entry_code, *entry_runner, *entry_globals;
    /* the CPython interpreter the executor was made in (module.c), for
       tripwire_foreign() */
    PyInterpreterState *py_interp;
    /* ownstate.c: the executor's own random generator and decimal context
       (NULL until used), and the host's decimal context while the code
       runs (NULL otherwise) */
    PyObject *own_random, *own_decimal, *host_decimal;
    /* the thread's async generator hooks at the window's start (owned),
       put back at its end (ownstate.c) */
    PyObject *host_agen_firstiter, *host_agen_finalizer;
    int agen_hooks_saved;
    /* the host's generator the cache below is for (strong), and its bound
       methods already given, by their function (a Python function or a
       PyMethodDef), with the executor's generator's (strong) */
    PyObject *host_random;
    struct {
        const void *key;
        PyObject *func; /* the key when it is a Python function (strong:
                           its address cannot be reused meanwhile) */
        PyObject *own;
    } random_cache[OWN_RANDOM_CACHE];
    PyObject *host_hook_code; /* code of the host's sys.unraisablehook
                                 last called during a step */
    /* memory budget (memlimit.c): net bytes allocated on the step's thread
       while it runs; written by the allocator wrappers */
    long long mem_used;
    int mem_tripped;     /* the budget refused an allocation this window */
    long long mem_last;  /* net bytes of the last window (diagnostics) */
    uint64_t window_epoch; /* a new process-wide number at limits_start
                              and a re-init: verdicts remembered for one
                              window (Node.mod_ok) */
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
} Interp;

/* One accessor per budget of budgets.def: the running (or last) window's
 * configuration, `in->budgets`, which nothing else reads.  No limit is
 * BUDGET_NONE_<KIND>, the type's largest value; budget_limited() tells a
 * limit from none where a check can be skipped. */
#define BUDGET(name, kind, def, unit, cst, what, msg)                       \
    static inline BUDGET_##kind##_T budget_##name(const Interp *in)         \
    {                                                                       \
        return in->budgets.name;                                            \
    }
#include "budgets.def"
#undef BUDGET
#define budget_limited(v) ((v) != BUDGET_NONE_COUNT)

/* A statement completed: the exception noted as the step's error site
 * (eval_stmt.c note_error_site) was caught or swallowed, and is let go. */
void error_site_release(Interp *in);
static inline void
error_site_done(Interp *in)
{
    if (in->err_site_exc != NULL) {
        error_site_release(in);
    }
}

/* memlimit.c: saved accounting state of an enclosing window. */
typedef struct {
    struct Interp *prev;
    long long prev_used;
    int prev_tripped;
} MemSave;
/* gadgets.c: what arming replaced on this thread, restored by disarming:
 * the thread's profile function (profile mode), or the interpreter whose
 * step the thread ran before (monitoring mode, 3.12+). */
typedef struct {
    Py_tracefunc func;
    PyObject *obj; /* owned */
    struct Interp *prev; /* monitoring mode */
    int armed;           /* 1: profile mode, 2: monitoring mode */
} GadgetSave;

/* window.c: what a window's transitions replaced on this thread, one
 * field per mechanism of window.def that keeps something. */
typedef struct {
    PyObject *decimal_prev;       /* ownstate_switch's (owned) */
    struct Interp *prov_prev;     /* provenance.c: armed interpreter before */
    GadgetSave gadgets;
    MemSave mem;                  /* accounting of the enclosing window */
    struct Interp *tripwire_prev; /* tripwire state to restore */
} WindowSave;

/* Saved state for a host -> interpreted call (see interp_enter). */
typedef struct {
    int started; /* this call started a window */
    WindowSave w;
} InterpSave;

/* Saved state for interp_rearm. */
typedef struct {
    int tool_calls;          /* in->tool_calls before */
    int paused;              /* gadgets_reenter's count */
    int rearmed;             /* the window was rejoined */
    GadgetSave gadgets_pure; /* gadgets_reenter's */
    PyFrameObject *boundary; /* provenance_reenter's */
    WindowSave w;
} InterpRearm;

struct GenObject;

/* An activation of a scope.  Lives on the C stack (or, for generators, on the
 * generator's own C stack). */
/* A function frame with at most this many slots lives on the C stack. */
#define FRAME_SMALL_SLOTS 16

typedef struct Frame {
    Interp *in;
    Scope *scope;
    PyObject *globals;  /* borrowed */
    PyObject *builtins; /* borrowed */
    PyObject *locals;   /* borrowed: class namespace, globals at module level,
                            NULL in functions */
    PyObject **fast;    /* owned refs, scope->nlocals entries */
    PyObject **cells;   /* owned PyCell refs, ncells + nfree */
    PyObject *retval;   /* owned, set with ST_RETURN */
    struct GenObject *gen; /* the generator this frame runs in, or NULL */
    struct Frame *back;
    PyObject *program;    /* borrowed: ProgramObject owning the IR */
    PyObject *last_value; /* module level: value of the last statement */
    PyObject *ann_done;   /* class body, 3.14+: set of the indices of the
                             annotated names it ran (owned; annotate.c) */
} Frame;

/* Record `v` (stolen) as the value of the last statement.  Only the module
 * level keeps it (it is the step's output); elsewhere holding it would keep
 * an object alive past CPython's lifetime for it (`del x` must run
 * `__del__` at once). */
static inline void
frame_set_last(Frame *f, PyObject *v)
{
    if (f->scope->type == SC_MODULE) {
        Py_XSETREF(f->last_value, v);
    }
    else {
        Py_DECREF(v);
    }
}

/* ---------------------------------------------------------------- objects */

typedef struct {
    PyObject_HEAD vectorcallfunc vectorcall;
    PyObject *program; /* ProgramObject keeping the IR alive */
    Scope *scope;      /* borrowed from program */
    Node *def;         /* FunctionDef/Lambda node, borrowed from program */
    PyObject *interp;  /* InterpreterObject */
    PyObject *globals;
    PyObject *builtins;
    PyObject *defaults;   /* tuple or NULL */
    PyObject *kwdefaults; /* dict or NULL */
    PyObject *closure;    /* tuple of cells or NULL */
    PyObject *name, *qualname, *doc, *module;
    PyObject *annotations; /* dict or NULL */
    PyObject *type_params; /* tuple (PEP 695 __type_params__) or NULL */
    PyObject *annotate;    /* 3.14+: what host code set as __annotate__ (a
                              callable or None), or the annotate object made
                              from ann_thunk; NULL: derived (function.c) */
    PyObject *ann_thunk;   /* 3.14+: the function of the annotation scope
                              (deferred annotations, annotate.c), or NULL */
    PyObject *dict;        /* __dict__ */
    PyObject *weakreflist;
} FunctionObject;

/* The head of the evaluator's generator objects (generator.c's GenObject
 * begins with it; a static assertion there holds it): what the guards may
 * read of a generator without depending on the evaluator. */
typedef struct {
    PyObject_HEAD FunctionObject *func; /* strong: its interpreter */
} GenHead;

typedef struct {
    PyObject_HEAD Interp in;
    PyObject *cache; /* dict: source -> ProgramObject, oldest first, at
                        most CACHE_BYTES of programs (module.c) */
    size_t cache_bytes;  /* the programs' ProgramObject.bytes, summed */
    long long cache_hits, cache_misses, cache_evictions;
    PyObject *extra_builtins;
} InterpreterObject;

/* 1 when a call of `fn` (an interpreted function) by code that `in` runs
 * may go without the entry checks of a call from host code: `fn` belongs to
 * `in`, whose step runs, outside a pure host call (gadgets.c) or a tool
 * call (proxy.c). */
static inline int
function_is_direct(Interp *in, FunctionObject *fn)
{
    return &((InterpreterObject *)fn->interp)->in == in && in->running &&
           in->gadgets_paused == 0 && in->tool_calls == 0;
}

/* ------------------------------------------------------------ internal API */

/* lower.c */
int lower_init_state(PyObject *module, ModState *st);
/* Returns a new ProgramObject or NULL.  A SyntaxError is left set as is; a
 * refused construct raises the interpreter error. */
PyObject *lower_program(ModState *st, Interp *in, PyObject *source);
extern PyType_Spec Program_spec;

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
 * function_init_for_call says, from the call site's cache `ic` (filled on
 * a miss), whether `tp` is made by object_new, has no __new__, is not
 * abstract, is plain to the call policy and has an interpreted __init__
 * (*pinit, borrowed from the type) that can run directly: 1, or 0 (the call
 * takes the full path; no exception set).  Then function_call_init_simple
 * (an __init__ taking exactly the nargs positional arguments and self, as
 * function_call_simple) or function_call_init (any other arguments: args
 * from args[1], args[0] a free slot the object takes) evaluates the
 * arguments, makes the object with tp_new and no arguments, runs __init__,
 * and gives the object, or a TypeError when __init__ returned anything but
 * None. */
int function_init_for_call(Interp *in, PyTypeObject *tp, CompatTypeCache *ic,
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
uint32_t gcache_name_slot(ModState *st, PyObject *name);
void gcache_begin(Interp *in, PyObject *globals, PyObject *builtins);
/* gcache_end: the step is over (the dicts are released: hooks called
 * later look names up uncached).  gcache_clear: everything freed. */
void gcache_end(Interp *in);
/* shim.c: functions of `_core` for the Python shim's per-step path. */
int shim_add_functions(PyObject *m);
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
    in->g_untracked = 1;
}
PyObject *gcache_touched(Interp *in);
int gcache_delete(Frame *f, Node *t);
static inline PyObject *
gcache_load(Frame *f, Node *e)
{
    Interp *in = f->in;
    uint32_t i = e->Name.gslot - 1; /* 0 (no slot) wraps past ngslots */
    if (i < in->ngslots && f->globals == in->g_dict &&
        f->builtins == in->g_builtins && in->gslots[i].epoch == in->g_epoch &&
        compat_watched_version(COMPAT_WATCH_GLOBALS, f->globals) ==
            in->g_seen &&
        compat_watched_version(COMPAT_WATCH_BUILTINS, f->builtins) ==
            in->b_seen) {
        return Py_NewRef(in->gslots[i].value);
    }
    return gcache_load_slow(f, e);
}
PyObject *binary_op(Interp *in, int op, PyObject *l, PyObject *r, int inplace);
PyObject *call_function(Frame *f, Node *call);

/* eval_match.c: returns 1 on match, 0 no match, -1 error.  Captured names
 * are appended to the list `binds` as 2-tuples (PyCapsule named
 * "smolagents_native.node" holding the Name store Node *, value), stored by
 * match_store_binds() only once the whole pattern of a case matched. */
int match_pattern(Frame *f, Node *p, PyObject *subject, PyObject *binds);

/* funcbridge.c */
int funcbridge_init_state(ModState *st);
/* Before a host call: replace an interpreted function passed where CPython's
 * C code demands a real Python function (ExceptionGroup.split/subgroup
 * predicates) by a real function that calls it.  `args` are owned
 * references (replaced in place).  0, or -1 with an exception. */
int funcbridge_adapt_call(Interp *in, PyObject *func, PyObject **args,
                          Py_ssize_t nargs);
/* 1 when funcbridge_adapt_call may replace an argument of a call of `func`
 * (hostcall_gate never remembers such a callable as plain). */
int funcbridge_may_adapt(Interp *in, PyObject *func);

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
static inline int
annotate_check(ModState *st, PyObject *o)
{
    return Py_TYPE(o) == st->AnnotateType;
}
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

/* policy.c */
int policy_check_attr_name(Interp *in, PyObject *obj, PyObject *name,
                           int store);
PyObject *policy_getattr(Interp *in, PyObject *obj, PyObject *name);
int policy_attr_name_plain(ModState *st, PyObject *name);
/* What the object decides of an attribute access (policy_check_attr_name
 * after the name's own rules passed) */
int policy_check_attr_object(Interp *in, PyObject *obj, PyObject *name,
                             int store);
PyObject *policy_getattr_plain(Interp *in, PyObject *obj, PyObject *name);
/* policy_getattr after the attribute check passed: the load, the
 * substitutes and the value gate */
PyObject *policy_getattr_checked(Interp *in, PyObject *obj, PyObject *name);
/* policy_setattr for a name policy_attr_name_plain accepted: only what the
 * object decides (a module, a tool, an object the code did not create) */
int policy_setattr_plain(Interp *in, PyObject *obj, PyObject *name,
                         PyObject *value);
/* Plain-name loads from instances (an Attribute node's itype / itag).  A
 * load of a name policy_attr_name_plain accepted, from an object that is
 * neither a module nor an internal object, passes the attribute check on the
 * object's type alone (policy_check_attr_plain); and when the type's lookup
 * of the name is the generic one (provenance_getattr_is_generic), the load
 * is PyObject_GenericGetAttr.  Both facts depend only on the type and its
 * bases, which get a new version tag whenever they change (tags are never
 * reused; provenance_adopt gives one when it installs its guard), so
 * policy_getattr_remember records the type and tag it found them for (from
 * facts that ran no code, before the load), and a load from an object of
 * that type at that tag is PyObject_GenericGetAttr then policy_attr_result
 * (eval_attribute). */
void policy_getattr_remember(PyObject *obj, PyObject *name, PyTypeObject **ctp,
                             uint32_t *ctag);
/* policy_setattr_plain remembering its verdict at a site (an Attribute
 * node's itype / itag): a store to an instance whose type's verdict was
 * "allowed" (it depends on the type alone for an instance that is not a
 * class, a super() proxy, a module or an internal object, and not a tool)
 * and whose type's store is the generic one, at the same version tag, is
 * PyObject_GenericSetAttr after the tool check.  *cstag: the tag at which
 * the type was also seen, when the site remembered it, to have no
 * attribute of the name while its instances have a dict: the store is then
 * what PyObject_GenericSetAttr does in that case, an item store in the
 * instance's dict. */
int policy_setattr_plain_cached(Interp *in, PyObject *obj, PyObject *name,
                                PyObject *value, PyTypeObject **ctp,
                                uint32_t *ctag, uint32_t *cstag);
int policy_setattr(Interp *in, PyObject *obj, PyObject *name, PyObject *value);
int policy_delattr(Interp *in, PyObject *obj, PyObject *name);
/* Value gate: 0 if `v` may enter interpreted code, -1 with error otherwise. */
int policy_check_value(Interp *in, PyObject *v);
int policy_check_import(Interp *in, PyObject *modname);
int policy_import_authorized(Interp *in, PyObject *modname);
int policy_check_call(Interp *in, PyObject *callable);
int policy_check_format_spec(Interp *in, PyObject *spec);
int policy_call_is_plain(Interp *in, PyObject *callable);
/* 1 when `callable` is refused by the call gate unless it is a tool */
int policy_callable_is_dangerous(Interp *in, PyObject *callable);
int policy_check_percent(Interp *in, PyObject *fmt, PyObject *args);
int policy_check_result_bytes(Interp *in, double bytes, const char *what);
/* PK_SEQ_EXTEND's size pre-check of self.extend(arg): the result against
 * the size budget when seq_bytes knows arg's size.  0 / -1, or 1 when it
 * does not (an iterable: the caller prepares it). */
int policy_check_extend(Interp *in, PyObject *self, PyObject *arg);
/* Security hook for a host call made by call_function: may replace *pfunc
 * (bounded time.sleep / queue waits, guarded str.format) and entries of
 * args[0:nargs] (iterators that check the deadline and size budgets), and
 * refuses calls whose result would exceed a size budget.  0 / -1. */
int policy_prepare_call(Interp *in, PyObject **pfunc, PyObject **args,
                        Py_ssize_t nargs, PyObject *kwnames);
PyObject *policy_build_safe_builtins(PyObject *module, ModState *st);
PyObject *policy_import(Frame *f, PyObject *name, PyObject *fromlist,
                        int level);
/* `from mod import *` leaves out `nm` when the module's dict binds it to a
 * module the code may not use (3.15's math.integer under "math").  1 / 0;
 * never raises, runs no code. */
int policy_star_skips(Interp *in, PyObject *mod, PyObject *nm);

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
/* RecursionError (catchable, as in CPython) when the C stack is nearly
 * exhausted.  0 / -1. */
static inline int
limits_check_stack(Interp *in)
{
    char *sp = (char *)__builtin_frame_address(0);
    if ((in->stack_limit != NULL && sp < in->stack_limit) ||
        (in->stack_hi != NULL && sp > in->stack_hi)) {
        return limits_check_stack_slow(in, sp);
    }
    return 0;
}
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
    return in->tick + in->ops_extra;
}

static inline long long
limits_clock_left(const Interp *in)
{
    return in->tick + in->clock_extra;
}

static inline void
limits_counters_set(Interp *in, long long ops, long long clock)
{
    long long t = ops < clock ? ops : clock;
    in->tick = t;
    in->ops_extra = ops - t;
    in->clock_extra = clock - t;
}

/* The next charge() takes the slow path (an abort is pending; a signal
 * was claimed); the budget left is kept. */
static inline void
limits_force_slow(Interp *in)
{
    limits_counters_set(in, limits_ops_left(in), 0);
}

/* Bring the clock check `n` operations nearer without spending budget. */
static inline void
limits_clock_spend(Interp *in, long long n)
{
    in->tick -= n;
    in->ops_extra += n;
}

/* Spend `n` operations of the budget without moving the clock check: the
 * next charge() notices an exhausted budget. */
static inline void
limits_ops_spend(Interp *in, long long n)
{
    in->tick -= n;
    in->clock_extra += n;
}

/* Deadline accounting of a host call: a call to host code counts as this
 * many operations towards the next clock check (not towards the operation
 * budget), so loops of slow host calls notice the deadline soon. */
#define HOST_CALL_CLOCK_WEIGHT 64
static inline void
limits_host_call_done(Interp *in)
{
    limits_clock_spend(in, HOST_CALL_CLOCK_WEIGHT);
}
double limits_now(void);
/* How many times this thread asked pthread_getattr_np for its bounds. */
unsigned long limits_stack_bound_queries(void);

/* Charge one operation.  Returns -1 with the abort error set when a budget
 * is exhausted.  charge_due() is its test alone: 1 when limits_tick_slow()
 * must run (the evaluator's dispatch calls that out of line). */
static ALWAYS_INLINE int
charge_due(Interp *in)
{
    return __builtin_expect(--in->tick <= 0, 0);
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
    in->tick -= n;
    if (in->tick <= 0) {
        return limits_tick_slow(in);
    }
    return 0;
}

/* Give back one operation: what smolagents does not count (the callee of a
 * call when it is a name or an attribute) after the evaluator charged it. */
static inline void
uncharge(Interp *in)
{
    in->ops_extra++;
}

/* The values every check passes at once: int, str, float, tuple, list,
 * bool, None (what the value gate and the attribute substitutes need not
 * look at).  Not dict: a module's namespace is an exact dict, refused by
 * policy_check_value. */
/* The exact types of the plain values (int, str, float, tuple, list,
 * bool) by their address: slot (address >> plain_type_shift) & 63 holds
 * the type whose slot it is, the shift chosen at module init so that the
 * six slots differ (policy_plain_types_init); when no shift separates
 * them, plain_type_chain makes value_is_plain compare each type. */
extern PyTypeObject *plain_type_tab[64];
extern unsigned int plain_type_shift;
extern int plain_type_chain;
int policy_plain_types_init(void);
static inline int
value_is_plain_chain(PyObject *v)
{
    PyTypeObject *tp = Py_TYPE(v);
    return tp == &PyLong_Type || tp == &PyUnicode_Type ||
           tp == &PyFloat_Type || tp == &PyTuple_Type || tp == &PyList_Type ||
           tp == &PyBool_Type || v == Py_None;
}
static inline int
value_is_plain(PyObject *v)
{
    PyTypeObject *tp = Py_TYPE(v);
    return plain_type_tab[((uintptr_t)tp >> plain_type_shift) & 63] == tp ||
           v == Py_None || (plain_type_chain && value_is_plain_chain(v));
}

/* Value gate with a fast path for the plain values, which can never be
 * refused. */
static inline int
gate_value(Interp *in, PyObject *v)
{
    return value_is_plain(v) ? 0 : policy_check_value(in, v);
}

/* PyModule_Check(o) without walking the MRO of the common small objects:
 * a subclass of module has at least a module object's size. */
static inline int
module_check_fast(PyObject *o)
{
    PyTypeObject *tp = Py_TYPE(o);
    return tp == &PyModule_Type ||
           (tp->tp_basicsize >= PyModule_Type.tp_basicsize &&
            PyType_IsSubtype(tp, &PyModule_Type));
}

/* policy_check_attr_name(in, obj, name, 0) for a name policy_attr_name_plain
 * accepted: only a module or an internal object still needs the full
 * check (policy.c); for anything else (policy_attr_plain_asks_object 0)
 * the verdict depends on the type alone. */
static inline int
policy_attr_plain_asks_object(PyObject *obj)
{
    PyTypeObject *tp = Py_TYPE(obj);
    return tp == &PyFrame_Type || tp == &PyTraceBack_Type ||
           tp == &PyCode_Type || module_check_fast(obj);
}
static inline int
policy_check_attr_plain(Interp *in, PyObject *obj, PyObject *name)
{
    if (policy_attr_plain_asks_object(obj)) {
        return policy_check_attr_object(in, obj, name, 0);
    }
    return 0;
}

/* Raise the interpreter error (InterpreterError) with a formatted message. */
PyObject *raise_interp_error(Interp *in, const char *fmt, ...);

/* The value an attribute load gives interpreted code: `v` (stolen, the
 * attribute's value) with the substitutes and the value gate applied.  New
 * reference, or NULL with an exception. */
PyObject *policy_attr_result_slow(Interp *in, PyObject *v);
static inline PyObject *
policy_attr_result(Interp *in, PyObject *v)
{
    return value_is_plain(v) ? v : policy_attr_result_slow(in, v);
}

/* Enter interpreted code from the host: when no step is running (a hook
 * called after the step, e.g. an interpreted __str__), start a fresh budget
 * window with the configured limits.  0 / -1. */
int interp_enter(Interp *in, InterpSave *save);
/* 0, or -1 with RuntimeError once the module's state is being torn down
 * (interpreter exit): the entries of host code into interpreted code
 * (function_vectorcall, gen_resume_other: a finalizer) ask first, before
 * any check reads the freed policy tables or interp_enter runs. */
int interp_closing_error(void);
static inline int
interp_closing(Interp *in)
{
    return in->st->closing ? interp_closing_error() : 0;
}
/* Entering interpreted code while a step (or hook) of this interpreter
 * runs: only from the thread that runs it (its budgets and stack bounds
 * are that thread's).  0, or -1 with InterpreterError; from another thread
 * during a step, or during a hook still running after a short wait, the
 * refusal also aborts that window (limits.c).  Inline:
 * called on every call of an interpreted function by host code. */
int interp_wrong_thread(Interp *in, int finalizer);
/* While another thread runs a hook of this interpreter (an interpreted
 * function host code called after a step, e.g. a thread the code started),
 * wait for it to end, without the GIL (the hook's own budget window bounds
 * its operations, not a host call it blocks in), at most `max_seconds`
 * (<= 0: no bound).  0 when no such hook runs (any more), 1 when one still
 * runs after `max_seconds`, -1 when a signal handler raised. */
int interp_wait_for_hook(Interp *in, double max_seconds);
/* `finalizer`: the call is a finalizer of the code's objects (an
 * interpreted __del__, a generator closed at collection), which the
 * collector runs on whatever thread it collects on: refused without
 * ending the step. */
static inline int
interp_check_thread(Interp *in, int finalizer)
{
    if (in->running && in->run_thread != (unsigned long)pthread_self()) {
        return interp_wrong_thread(in, finalizer);
    }
    return 0;
}
/* Leave; passes `res` through (NULL on error). */
PyObject *interp_leave(Interp *in, InterpSave *save, PyObject *res);
/* Interpreted code of the running step (this thread) entered by host code
 * that runs with some of the step's checks off: a pure call (gadgets.c:
 * the gadget refusals paused), a tool call (proxy.c: tripwire,
 * provenance, gadget refusals and memory accounting suspended) or an
 * import (policy.c: the tripwire suspended while module bodies run; a
 * finalizer of the code may run there).  Every check is on again until
 * interp_rearm_done; the host frame that entered is the provenance
 * boundary meanwhile (provenance_reenter).  Needed when
 * interp_needs_rearm(): the tripwire is armed for the running step
 * whenever the step's own code runs, so it tells host code that suspended
 * the checks apart. */
extern HOT_TLS struct Interp *tripwire_armed_tls; /* tripwire.c */
/* 1 when this thread runs another CPython interpreter than `in`'s (a
 * subinterpreter started on the step's thread sees the thread's arming):
 * the process-wide hooks (audit events, type.__new__, range iterators) then
 * leave it alone, since no object of the executor's may cross into it, and
 * the step is ended with an error at its next check (tripwire.c). */
int tripwire_foreign(struct Interp *in);
static inline int
interp_needs_rearm(Interp *in)
{
    return in->gadgets_paused > 0 || in->tool_calls > 0 ||
           tripwire_armed_tls != in;
}
void interp_rearm(Interp *in, InterpRearm *r);
void interp_rearm_done(Interp *in, InterpRearm *r);

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
/* generator.c: 1 when `it` is a generator of `in`'s code (a generator
 * function's or a generator expression's): every resume of it runs charged
 * nodes of its body while the step runs, under the interpreter's depth and
 * recursion checks, so that a consumer that keeps none of its items needs
 * no budget iterator over it (policy.c, prepare_iterable). */
static inline int
generator_is_own(Interp *in, PyObject *it)
{
    /* func is NULL once the collector cleared the generator (gen_clear):
       not counted as the code's then (its consumer gets a budget iterator) */
    return Py_TYPE(it) == in->st->GeneratorType &&
           ((GenHead *)it)->func != NULL &&
           ((GenHead *)it)->func->interp == in->owner;
}
/* generator.c: unmap the pooled generator stacks (module free). */
void generator_free_stacks(ModState *st);
/* The code objects host code finds as gi_code / cr_code / ag_code (made
 * once per module).  0 / -1. */
int generator_init_state(ModState *st);

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

/* deadline.c: the deadline at its sources (budget iterators over
 * unbounded iterators, weights of big-int arithmetic). */
int deadline_charge_binop(Interp *in, int op, PyObject *l, PyObject *r);
/* Cheap filter before deadline_charge_binop: 0 when both ints are small
 * (under 100 digits, well below its HEAVY_BITS) and op is not a power. */
static inline int
deadline_may_be_heavy(int op, PyObject *l, PyObject *r)
{
#if PY_VERSION_HEX >= 0x030C0000
    /* the digit count above the sign and flag bits of lv_tag (the layout of
       cpython/longintrepr.h from 3.12, as compat_long_num_bits reads it) */
    uintptr_t a = ((PyLongObject *)l)->long_value.lv_tag >>
                  _PyLong_NON_SIZE_BITS,
              b = ((PyLongObject *)r)->long_value.lv_tag >>
                  _PyLong_NON_SIZE_BITS;
    return op == OP_Pow || a > 100 || b > 100;
#else
    /* the signed digit count */
    Py_ssize_t a = Py_SIZE(l), b = Py_SIZE(r);
    return op == OP_Pow || a > 100 || a < -100 || b > 100 || b < -100;
#endif
}
int deadline_check_modpow(Interp *in, PyObject *b, PyObject *e, PyObject *m);
/* Steals res: res itself, or a budget iterator over it.  New ref / NULL. */
PyObject *deadline_wrap_result(Interp *in, PyObject *res);
/* The iterator types with no end of their own as deadline sources
 * (deadline.c): installed once per process at module init (0 / -1);
 * deadline_next_orig(tp) gives CPython's own tp_iternext for theirs (tp's
 * tp_iternext otherwise). */
int deadline_install_sources(void);
iternextfunc deadline_next_orig(PyTypeObject *tp);
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
/* Replace *pit (owned) by a budget iterator when it has no bound.  0 / -1. */
int deadline_wrap_iter(Interp *in, PyObject **pit);
/* policy.c: budget iterators. */
PyObject *policy_budget_iterator(Interp *in, PyObject *it);
int policy_is_budget_iterator(Interp *in, PyObject *v);

/* hostcall.c: the one entry point for calls into host code.  *pfunc and
 * the argument array (owned by the caller) may have entries replaced; with
 * PY_VECTORCALL_ARGUMENTS_OFFSET in nargsf, args[-1] is writable.  New
 * reference or NULL. */
#define HC_CHECKED 0x1 /* the call gate was applied already */
#define HC_METHOD 0x2  /* args[0] is the object of an unbound method */
#define HC_PLAIN \
    0x4 /* policy_prepare_call and funcbridge_adapt_call
                          have nothing to do for it */
/* The call gate of a Call node `e` for host callable `func`: the flags to
 * pass to hostcall_vectorcall (HC_CHECKED, with HC_PLAIN when a verdict
 * remembered for a plain callable applies), or -1 when the call is
 * refused. */
int hostcall_gate(Interp *in, Node *e, PyObject *program, PyObject *func);
/* 1 when `func` is an interpreted function or a method bound to one: not a
 * host call (its arguments and results stay inside the interpreter). */
static inline int
hostcall_is_interpreted(Interp *in, PyObject *func)
{
    PyTypeObject *ft = in->st->FunctionType;
    return Py_TYPE(func) == ft ||
           (Py_TYPE(func) == &PyMethod_Type &&
            Py_TYPE(PyMethod_GET_FUNCTION(func)) == ft);
}
PyObject *hostcall_vectorcall(Interp *in, PyObject **pfunc, PyObject **args,
                              size_t nargsf, PyObject *kwnames, int flags);
/* hostcall_vectorcall(in, &descr, args, n | offset, NULL, HC_CHECKED |
 * HC_PLAIN | HC_METHOD) for a method descriptor the call site's gate
 * remembered as plain: args[0] the object, n - 1 arguments after it,
 * args[-1] free. */
PyObject *hostcall_method_plain(Interp *in, PyObject *descr, PyObject **args,
                                Py_ssize_t n);
/* f(*args, **kw): `args` a fresh tuple, `kw` a fresh dict or NULL. */
PyObject *hostcall_call(Interp *in, PyObject **pfunc, PyObject *args,
                        PyObject *kw, int flags);
/* func(*args) where func may be interpreted or host (with, decorators,
 * yield from): a host call goes through hostcall_vectorcall. */
PyObject *hostcall_callv(Interp *in, PyObject *func, PyObject *const *args,
                         Py_ssize_t nargs);
/* iter(x) for a C loop of the evaluator: unbounded iterators wrapped. */
PyObject *hostcall_getiter(Interp *in, PyObject *iterable);
/* tuple(v) for f(*v) and star targets: unbounded iterators wrapped. */
PyObject *hostcall_star_tuple(Interp *in, PyObject *v);
/* `item in container`, an iterator container wrapped.  1 / 0 / -1. */
int hostcall_contains(Interp *in, PyObject *container, PyObject *item);

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
/* fuzzcov.c: add _fuzz_counters() in the fuzz build; nothing otherwise. */
int fuzzcov_add_to_module(PyObject *m);
/* nesting.c: refuse (abort, max_nesting) a host-call result nested deeper
 * than the budget through objects whose types recurse without CPython's
 * trashcan.  0 / -1. */
int nesting_check(Interp *in, PyObject *res);
/* 0 when nesting_check has nothing to walk for `res` for sure (the usual
 * results: numbers, strings, lists, tuples, dicts), as its own first test
 * would find; inline so that host calls skip the call. */
static inline int
nesting_may_walk(PyObject *res)
{
    /* PyObject_IS_GC(res), inline: the type's flag first */
    PyTypeObject *tp = Py_TYPE(res);
    return PyType_IS_GC(tp) && tp != &PyList_Type && tp != &PyTuple_Type &&
           tp != &PyDict_Type && (tp->tp_is_gc == NULL || tp->tp_is_gc(res));
}
int nesting_init(ModState *st);
/* Drop the measurements kept for the step (end of a step or hook). */
void nesting_forget(Interp *in);

/* dunders.c: 1 when the reviewed allowlist lets the code read the dunder
 * `name` on `obj` (NULL: the object is not known yet), else 0.  No error. */
int dunder_read_allowed(Interp *in, PyObject *obj, PyObject *name);

/* provenance.c: which classes the code made (recorded at creation while
 * a step runs on the thread), protocols they may not define, id(). */
int provenance_init(void);
int provenance_adopt(Interp *in, PyTypeObject *tp); /* 0 / -1 (abort) */
int provenance_is_code_type(PyTypeObject *tp);      /* 1 / 0, no error */
Interp *provenance_arm(Interp *in); /* returns the previous one */
/* Is a module body running above the step (an import)?  1 / 0. */
int provenance_in_import(void);
/* Interpreted code entered by the host frame running now (a callback, a
 * finalizer): that frame is the boundary of provenance_in_import until
 * provenance_reenter_done, so a module body below it (an import that was
 * running when a finalizer struck) does not make the code's calls count as
 * the import's.  Returns the previous boundary. */
/* gadgets.c: local `name` of a Python frame (new reference), or NULL with
 * no error set. */
PyObject *frame_local(PyFrameObject *frame, const char *name);
PyFrameObject *provenance_reenter(void);
void provenance_reenter_done(PyFrameObject *prev);
void provenance_disarm(Interp *prev);
PyObject *provenance_id(PyObject *obj); /* new ref: id() of the code */
/* The host-object part of the attribute choke point (policy.c): `_private`
 * names and writes on what the code did not create.  0 / -1 (abort). */
int provenance_check_attr(Interp *in, PyObject *obj, PyObject *name,
                          int store);
/* Is this the read super().__init_subclass__ (1 / 0)? */
int provenance_super_init_subclass(PyObject *obj, PyObject *name);
/* load_method on an instance of the code's classes whose lookup is the
 * generic one, for a method the class gives as an interpreted function:
 * 1 with *res (new reference, or NULL with an error) and *unbound (res is
 * that function, not bound: no instance attribute shadows it); 0 when it
 * does not apply (nothing done).  `cache` (the Attribute node's, or NULL)
 * remembers the type lookup per type version tag. */
int provenance_get_method(PyObject *obj, PyObject *name, PyObject **res,
                          int *unbound, CompatTypeCache *cache);
/* 1 when obj has an instance dict without an entry for `name` (a method the
 * type gives as a non-data descriptor is then what the generic lookup
 * finds), 0 otherwise: no dict, an entry, or an error (cleared). */
int provenance_method_unshadowed(PyObject *obj, PyObject *name);
/* 1 when reading attribute `name` of an instance of `tp` is exactly
 * PyObject_GenericGetAttr(obj, name): tp's tp_getattro is the generic one,
 * or the code's-class guard over the generic one and `name` is not a
 * protocol name.  Runs no code. */
int provenance_getattr_is_generic(PyTypeObject *tp, PyObject *name);
/* objects.c: is `o` an interpreted function (of any module instance)? */
int function_is_interpreted(PyObject *o);
/* objects.c: the function type's tp_descr_get (binding to an instance). */
PyObject *function_descr_get(PyObject *self, PyObject *obj, PyObject *type);
PyObject *function_get_method(PyObject *obj, PyObject *name, PyObject *func,
                              getattrofunc getattro, int *unbound);

/* inprocess.c: the in-process table (inprocess.def).  inprocess_shared:
 * 1 while the process is the host's, 0 in a process-mode worker (set once,
 * `_core.worker_process()`). */
extern int inprocess_shared;
/* Is attribute `name` of the module called `modname` withheld in this
 * process?  1 / 0, never raises. */
int inprocess_withheld(PyObject *modname, PyObject *name);
/* The same as a refusal (the step's policy error): 0 / -1. */
int inprocess_check_module_attr(Interp *in, PyObject *modname,
                                PyObject *name);
/* A name held by attrgetter / methodcaller: refused when the table
 * withholds it from any module.  0 / -1. */
int inprocess_check_held_name(Interp *in, PyObject *name);
int inprocess_add_to_module(PyObject *m);

/* ownstate.c: process-wide state that is the executor's own (inprocess.def's
 * OWN entries).  ownstate_random_method: for a bound method of random's
 * hidden generator, the same method of the executor's generator (new
 * reference); NULL without an error for anything else. */
PyObject *ownstate_random_method(Interp *in, PyObject *v);
/* The window's start (a step, a hook): the thread's async generator hooks
 * kept (put back by ownstate_leave), the executor's decimal context
 * installed, once the code has imported decimal.  0 / -1. */
int ownstate_enter(Interp *in);
/* The code imported decimal: it has a context of its own from now on,
 * installed at once when a window is open.  0 / -1. */
int ownstate_decimal_imported(Interp *in);
/* Is `v` a method ownstate_random_method gave this executor (remembered)? */
int ownstate_is_own_random(Interp *in, PyObject *v);
/* Frees what ownstate holds (the executor's end, its gc clear). */
void ownstate_clear(Interp *in);
/* The window's end: the thread's async generator hooks and the host's
 * decimal context put back.  Keeps a pending exception, never fails. */
void ownstate_leave(Interp *in);
/* Inside a window: install the host's (to_own 0: a tool call) or the
 * executor's (1: the code called back from a tool) decimal context; the
 * previous one (new reference, or NULL: nothing to do) goes to
 * ownstate_switch_back with the same to_own.  Keep a pending exception. */
PyObject *ownstate_switch(Interp *in, int to_own);
void ownstate_switch_back(Interp *in, int to_own, PyObject *prev);

/* gadgets.c: host Python functions refused while a step runs on the
 * thread (gadgets.def, and inprocess.def's WITHHELD_CALL entries). */
int gadgets_init(void);
int gadgets_refresh(void); /* after an import: resolve new modules */
/* The sys.monitoring tool id of monitoring mode, or -1 (profile mode). */
int gadgets_monitoring_tool(void);
void gadgets_arm(Interp *in, GadgetSave *save);
void gadgets_disarm(GadgetSave *save);
/* Off and back on around a tool call (host code not acting for the code). */
void gadgets_suspend(GadgetSave *save);
void gadgets_resume(GadgetSave *save);
/* Value gate part: instances of the table's C types (attrgetter...) whose
 * names would be refused.  0 / -1 (abort). */
int gadgets_check_value(Interp *in, PyObject *v);
/* gadgets.c: is tp a gadget type (its instances' verdict depends on what
 * they hold); how many gadget types are known so far (grows as their
 * modules are imported) */
int gadgets_is_type(PyTypeObject *tp);
extern int gadgets_known_types;
/* A host call of a reviewed pure function with inert arguments (pure.def):
 * 1 when it may run with the gadget profile off, 0 otherwise.  Never
 * raises. */
int gadgets_pure_call(Interp *in, PyObject *func, PyObject *const *args,
                      Py_ssize_t n);
/* The profile off (and automatic collection) around such a call, then on
 * again; an exception pending at gadgets_unpause is kept. */
typedef struct {
    GadgetSave prof;
    int gc_was_enabled;
} GadgetPause;
void gadgets_pause(Interp *in, GadgetPause *p);
void gadgets_unpause(Interp *in, GadgetPause *p);
/* Interpreted code entered while a pure call runs (in->gadgets_paused):
 * the profile on again for its duration. */
void gadgets_reenter(Interp *in, GadgetSave *save, int *paused);
void gadgets_reenter_done(Interp *in, GadgetSave *save, int paused);

/* window.c: the per-thread mechanisms of window.def, armed, suspended and
 * disarmed in one place and one order (docs/design.md, "The window"). */
/* The run state of a window on this thread: running, its thread, a hook
 * (interpreted code host code called after the step) or a step, the
 * per-window counters.  The caller ran limits_start. */
void window_begin(Interp *in, int hook);
/* Not running any more (after window_close and the caller's clean-up). */
void window_end(Interp *in);
/* After a window closed: when an abort is pending but `res` (the window's
 * result, NULL with an exception on failure) does not carry its error (host
 * code swallowed it or raised another for it, or the limit fired before the
 * code could report it), the abort's error replaces it.  Returns `res` or
 * NULL (stolen). */
PyObject *window_abort_takes_over(Interp *in, PyObject *res);
/* Arm every mechanism, in window.def's order.  0, or -1 with an exception
 * and nothing armed. */
int window_open(Interp *in, WindowSave *w);
/* Disarm them, in the reverse order. */
void window_close(Interp *in, WindowSave *w);
/* Around a tool call (host code that does not act for the code): suspend
 * the window of this thread, if any (returns its interpreter, or NULL), and
 * resume it with what window_suspend returned. */
Interp *window_suspend(WindowSave *w);
void window_resume(Interp *in, WindowSave *w);

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
ModState *get_modstate_from_type(PyTypeObject *tp);

/* Evaluate an operand, inlining the two commonest leaves (a constant, a
 * bound local).  Same result and cost accounting as eval_expr(). */

/* Bind `value` (borrowed) to an assignment target.  0 / -1.  A function
 * local whose binding the tool check passed (check_tool_binding) is stored
 * here, inline, as STORE_FAST; everything else in store_target_slow. */
static inline int
store_target(Frame *f, Node *t, PyObject *value)
{
    if (t->kind == K_Name && t->scope_kind == NAME_FAST &&
        t->Name.checked_epoch == f->in->tools_epoch) {
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

/* An operand (call argument, binary operand): a constant or a bound local
 * without a call of eval_expr.  Always inline: GCC left it out of line on
 * 3.13, a call per operand (recursion_fib: 1.8% of its instructions). */
static ALWAYS_INLINE PyObject *
eval_operand(Frame *f, Node *e)
{
    if (e->kind == K_Constant) {
        if (charge(f->in) < 0 ||
            (e->Constant.extra_ops &&
             charge_more(f->in, e->Constant.extra_ops) < 0)) {
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

#endif
