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
#include <stdint.h>

#include "compat.h"

/* Keep cold paths out of the evaluator's hot functions, whose stack frames
 * (and so every node's cost) grow with what is inlined into them. */
#define NOINLINE __attribute__((noinline))

/* ------------------------------------------------------------------ kinds */

typedef enum {
#define STMT(n) K_##n,
#define EXPR(n) K_##n,
#define PAT(n) K_##n,
#define AUX(n) K_##n,
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
    NAME_FAST,      /* function local: frame->fast[slot] */
    NAME_DEREF,     /* cell or free variable: frame->cells[slot] */
    NAME_GLOBAL,    /* globals, then builtins (functions' global names) */
    NAME_NAME,      /* module / class body: locals dict, globals, builtins */
    NAME_CLASSDEREF /* free variable read in a class body: ns, then cell */
} NameScope;

/* ------------------------------------------------------------------- IR */

struct Scope;

/* One IR node.  Meaning of the generic fields per kind is documented in
 * lower.c next to the code that builds each kind.  Nodes, and the arrays
 * they point to, live in the Program's arena; `obj` references are owned by
 * the Program (kept alive in its `consts` list). */
typedef struct Node {
    uint8_t kind;
    uint8_t op;         /* operator, ctx, conversion, ... */
    uint8_t scope_kind; /* NameScope for Name nodes */
    uint8_t flags;
    int32_t slot; /* fast/cell slot for Name; misc int otherwise */
    int32_t lineno, col, end_lineno, end_col;
    PyObject *obj; /* borrowed from Program->consts: name, constant... */
    struct Node *a, *b, *c;
    struct Node **v, **w, **x, **y; /* child lists */
    Py_ssize_t nv, nw, nx, ny;
    uint8_t *ops;           /* Compare: one CmpOpKind per comparator */
    uint32_t checked_epoch; /* Name store: tools epoch last checked (cache) */
    /* Name load (NAME_GLOBAL / NAME_NAME at module level): the value found
       for dict versions (globals, builtins); borrowed, valid while both
       versions are unchanged (see compat_dict_version). */
    uint64_t cache_gver, cache_bver;
    PyObject *cache_value;
    struct Scope *scope; /* FunctionDef, Lambda, ClassDef, comprehensions */
} Node;

/* Node flags */
#define NF_STAR_ARGS 0x01  /* Call: has *args or **kwargs (slow path) */
#define NF_SIMPLE 0x02     /* AnnAssign: simple target */
#define NF_SUPER_CALL 0x04 /* Call: `super()` candidate with no args */
#define NF_HAS_STAR 0x08   /* Tuple/List target: has a Starred element */

typedef enum { SC_MODULE, SC_FUNCTION, SC_CLASS, SC_COMPREHENSION } ScopeType;

/* A scope: module, function, lambda, class body or comprehension.  After
 * lowering it is immutable and describes how to build a frame for it. */
typedef struct Scope {
    ScopeType type;
    struct Scope *parent;
    PyObject *name;     /* borrowed from Program consts */
    PyObject *qualname; /* borrowed from Program consts */
    int lineno;
    /* filled during lowering */
    PyObject *symbols; /* dict: name -> int flags (SYM_*), owned until done */
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
    int needs_class_cell; /* class scope: a method uses __class__/super */
    int class_cell_slot;  /* class scope: cell slot of __class__ */
    int uses_class_free;  /* function: slot of free __class__, or -1 */
    Node **body;          /* statements */
    Py_ssize_t nbody;
    PyObject *docstring; /* borrowed, or NULL */
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
} ProgramObject;

/* ------------------------------------------------------- interpreter state */

typedef enum {
    ABORT_NONE = 0,
    ABORT_BUDGET,  /* a limit fired: uncatchable InterpreterError */
    ABORT_TIMEOUT, /* deadline: uncatchable timeout error */
    ABORT_POLICY,  /* a policy refusal: uncatchable InterpreterError */
} AbortKind;

/* Number of generator C stacks kept for reuse per module (generator.c). */
#define GEN_STACK_POOL 8

struct PolicyData; /* policy.c */

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
    PyObject *safe_builtins;    /* dict built once */
    PyObject *str_dunder_class; /* "__class__" */
    PyObject *str_dot0;         /* ".0" */
    PyObject *str_super;
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
    PyObject *str_send, *str_throw, *str_close;
    PyObject *str_write, *str_keys, *str_get, *str_dot;
    PyObject *str_dot0_suffix, *str_space, *str_newline;
    PyObject *dangerous[24]; /* unused (see policy): kept for module.c */
    int ndangerous;
    struct PolicyData *policy; /* policy.c: owned by the module's `_policy`
                                  capsule (security tables, wrappers) */
    PyCFunction eg_split, eg_subgroup; /* funcbridge.c: the C functions of
                                          BaseExceptionGroup's methods */
    PyObject *matcher_code; /* funcbridge.c: code of `lambda e: p(e)` */
    void *gen_stacks[GEN_STACK_POOL]; /* generator.c: free C stacks */
    int n_gen_stacks;
} ModState;

/* The live interpreter: policy, budgets, print buffer.  Owned by an
 * Interpreter Python object (module.c).  Interpreted functions keep a strong
 * reference to the Interpreter object so that hooks called later by host code
 * still run under the same policy and budgets. */
typedef struct BigStack BigStack;

typedef struct Interp {
    ModState *st;
    PyObject *owner;        /* borrowed: the InterpreterObject */
    PyObject *builtins;     /* dict: safe builtins + extra_builtins + tools */
    PyObject *tools;        /* dict: protected names */
    uint32_t tools_epoch;   /* bumped whenever `tools` changes (>= 1) */
    PyObject *authorized;   /* list of str */
    PyObject *print_chunks; /* list of str */
    Py_ssize_t print_len;
    PyObject *interpreter_error, *final_answer_exc, *timeout_error;
    /* budgets */
    long long ops_left; /* decremented per node */
    long long ops_limit;
    long long max_while_iterations;
    long long max_print_len; /* <0: unlimited */
    double deadline;         /* monotonic seconds; 0: none */
    double timeout;
    int check_countdown;       /* ops until next clock check */
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
    BigStack *bigstack;        /* bigstack.c: the stack steps run on */
    int direct_call;           /* set by call_function just before calling an
                                 interpreted function (its arguments were
                                 gated already); cleared by the callee */
    PyObject *current_program; /* borrowed: program of the running step */
    double timeout_seconds;    /* configured timeout (<= 0: none) */
    long long ops_limit_cfg;   /* configured limits, reused by hooks */
    /* security budgets (limits.c; set by Interpreter.run, docs/security.md) */
    long long max_int_bits;     /* size pre-check of int results (bits) */
    long long max_result_bytes; /* size pre-check of str/bytes/list results */
    int max_depth_cfg;          /* interpreted call depth (<= 0: derived from
                                   the recursion limit) */
    char abort_msg[256];        /* message of the pending abort, re-raised
                                   when host code swallowed the error */
    /* tripwire.c: grants (NULL: unrestricted, else a tuple of real paths
       of directories), the installation's directories (always readable),
       the entry frame's code and its runner */
    PyObject *grant_read, *grant_write, *install_dirs;
    int grant_network, grant_processes, grants_set;
    PyObject *entry_code, *entry_runner, *entry_globals;
    PyObject *host_hook_code; /* code of the host's sys.unraisablehook
                                 last called during a step */
} Interp;

/* Saved state for a host -> interpreted call (see interp_enter). */
typedef struct {
    int started; /* this call started a budget window */
    struct Interp *tripwire_prev; /* tripwire state to restore */
} InterpSave;

/* Statement status: control flow never uses Python exceptions. */
typedef enum {
    ST_OK = 0,
    ST_ERROR,
    ST_BREAK,
    ST_CONTINUE,
    ST_RETURN,
} Status;

struct GenObject;

/* An activation of a scope.  Lives on the C stack (or, for generators, on the
 * generator's own C stack). */
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
    PyObject *dict;        /* __dict__ */
    PyObject *weakreflist;
} FunctionObject;

typedef struct {
    PyObject_HEAD Interp in;
    PyObject *cache; /* dict: source -> ProgramObject */
    PyObject *extra_builtins;
} InterpreterObject;

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
/* Returns new ref or NULL: run a module body, store the value of the last
 * statement in f->last_value. */

/* eval_expr.c */
PyObject *eval_expr(Frame *f, Node *e);
int store_target(Frame *f, Node *t, PyObject *value);
int delete_target(Frame *f, Node *t);
int store_name(Frame *f, Node *t, PyObject *value);
PyObject *load_name(Frame *f, Node *e);
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

/* function.c */
extern PyType_Spec Function_spec;
extern PyType_Spec Generator_spec;
PyObject *function_new(Frame *f, Node *def, Scope *scope, PyObject *defaults,
                       PyObject *kwdefaults, PyObject *annotations,
                       PyObject *closure);
/* Run a comprehension scope with `iter` bound to `.0`. */
PyObject *run_comprehension(Frame *f, Node *e, PyObject *iter);
PyObject *build_class(Frame *f, Node *s);
/* Set up a frame for `scope` from positional/keyword args (binding errors as
 * CPython reports them). */
int bind_arguments(FunctionObject *fn, Frame *fr, PyObject *const *args,
                   size_t nargsf, PyObject *kwnames);
void frame_clear(Frame *fr);
int scope_cell_slot(Scope *ps, PyObject *name);
PyObject *gen_yield(Frame *f, PyObject *value); /* new ref: sent value */
PyObject *gen_yield_from(Frame *f, PyObject *iterable); /* new ref: result */

/* policy.c */
int policy_check_attr_name(Interp *in, PyObject *obj, PyObject *name,
                           int store);
PyObject *policy_getattr(Interp *in, PyObject *obj, PyObject *name);
int policy_setattr(Interp *in, PyObject *obj, PyObject *name, PyObject *value);
int policy_delattr(Interp *in, PyObject *obj, PyObject *name);
/* Value gate: 0 if `v` may enter interpreted code, -1 with error otherwise. */
int policy_check_value(Interp *in, PyObject *v);
int policy_check_import(Interp *in, PyObject *modname);
int policy_import_authorized(Interp *in, PyObject *modname);
int policy_check_call(Interp *in, PyObject *callable);
int policy_check_format_spec(Interp *in, PyObject *spec);
int policy_call_is_plain(Interp *in, PyObject *callable);
int policy_check_percent(Interp *in, PyObject *fmt, PyObject *args);
int policy_check_result_bytes(Interp *in, double bytes, const char *what);
/* Security hook for a host call made by call_function: may replace *pfunc
 * (bounded time.sleep / queue waits, guarded str.format) and entries of
 * args[0:nargs] (iterators that check the deadline and size budgets), and
 * refuses calls whose result would exceed a size budget.  0 / -1. */
int policy_prepare_call(Interp *in, PyObject **pfunc, PyObject **args,
                        Py_ssize_t nargs, PyObject *kwnames);
PyObject *policy_build_safe_builtins(PyObject *module, ModState *st);
PyObject *policy_import(Frame *f, PyObject *name, PyObject *fromlist,
                        int level);

/* limits.c */
int limits_tick_slow(Interp *in);
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

/* stack.c: lowest safe address of the generator C stack the thread runs on
 * (kept by generator.c at every switch), NULL on the thread's own stack.
 * Inline: read and written at every generator switch. */
/* stack.c: map a C stack above a guard area (generator and step stacks). */
char *stack_map(size_t guard, size_t size, size_t *total, char **low);

extern _Thread_local char *stack_current_limit_tls;
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
/* Deadline accounting of a host call: a call to host code counts as this
 * many operations towards the next clock check (not towards the operation
 * budget), so loops of slow host calls notice the deadline soon. */
#define HOST_CALL_CLOCK_WEIGHT 64
static inline void
limits_host_call_done(Interp *in)
{
    in->check_countdown -= HOST_CALL_CLOCK_WEIGHT;
}
double limits_now(void);

/* Charge one operation.  Returns -1 with the abort error set when a budget
 * is exhausted. */
static inline int
charge(Interp *in)
{
    if (--in->ops_left < 0 || --in->check_countdown <= 0) {
        return limits_tick_slow(in);
    }
    return 0;
}

/* Give back one operation: what smolagents does not count (the callee of a
 * call when it is a name or an attribute) after the evaluator charged it. */
static inline void
uncharge(Interp *in)
{
    in->ops_left++;
}

/* Value gate with a fast path for the common exact types, which can never
 * be refused.  (Not dict: a module's namespace is an exact dict, refused by
 * policy_check_value.) */
static inline int
gate_value(Interp *in, PyObject *v)
{
    PyTypeObject *tp = Py_TYPE(v);
    if (tp == &PyLong_Type || tp == &PyUnicode_Type || tp == &PyFloat_Type ||
        tp == &PyTuple_Type || tp == &PyList_Type || tp == &PyBool_Type ||
        v == Py_None) {
        return 0;
    }
    return policy_check_value(in, v);
}

/* Raise the interpreter error (InterpreterError) with a formatted message. */
PyObject *raise_interp_error(Interp *in, const char *fmt, ...);

/* Enter interpreted code from the host: when no step is running (a hook
 * called after the step, e.g. an interpreted __str__), start a fresh budget
 * window with the configured limits.  0 / -1. */
int interp_enter(Interp *in, InterpSave *save);
/* Leave; passes `res` through (NULL on error). */
PyObject *interp_leave(Interp *in, InterpSave *save, PyObject *res);

PyObject *make_function(Frame *f, Node *def);
int dict_merge_mapping(PyObject *d, PyObject *m);
int match_store_binds(Frame *f, PyObject *binds);
PyObject *generator_new(FunctionObject *fn, Frame *fr);
PyObject *generator_run_body(Frame *fr, Node *def);
/* generator.c: unmap the pooled generator stacks (module free). */
void generator_free_stacks(ModState *st);

/* bigstack.c: run fn(arg) on the interpreter's large C stack (created on
 * first use).  -1 with an exception if the stack cannot be had; otherwise 0
 * and whatever fn left (it reports its own errors). */
int bigstack_run(Interp *in, void (*fn)(void *), void *arg);
void bigstack_free(BigStack *bs);

/* module.c */
/* The source text of a node's span (ast.get_source_segment).  New ref. */
PyObject *source_segment(ProgramObject *p, Node *s);
ModState *get_modstate_from_type(PyTypeObject *tp);

/* Evaluate an operand, inlining the two commonest leaves (a constant, a
 * bound local).  Same result and cost accounting as eval_expr(). */
static inline PyObject *
eval_operand(Frame *f, Node *e)
{
    if (e->kind == K_Constant) {
        if (charge(f->in) < 0) {
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

#endif
