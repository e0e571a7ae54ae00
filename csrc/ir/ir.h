/* ir.h: the public header of the `ir` layer (docs/design.md, section 6.1): the
 * IR: node kinds and operators, Node, Scope, ProgramObject, and the
 * interpreted function's type test.
 *
 * A file includes its own layer's header and, through it, the layers below;
 * never a header of a layer above (scripts/check_layers.py).
 */
#ifndef SMOLAGENTS_NATIVE_IR_H
#define SMOLAGENTS_NATIVE_IR_H

#include "base/base.h"
#include "nodes_gen.h"

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
#define NF_CONST_KEYS 0x02 /* Dict: every key a constant (no `**`) */
#define NF_AT_HAND 0x02    /* BinOp, Compare (one comparator): each operand
                              a Constant without extra_ops or a NAME_FAST
                              Name (set by assign_slots; operand_at_hand) */
#define NF_LAZY 0x02       /* Import / ImportFrom: `lazy` (PEP 810) */
#define NF_BUILTIN_CALL 0x02 /* Call: `isinstance(a, b)` or `len(a)`, the
                                name and its positional arguments
                                (call_host_warm still asks which callable
                                the name gives) */
#define NF_SUPER_CALL 0x04 /* Call: `super()` candidate with no args */
#define NF_HAS_STAR 0x08   /* Tuple/List target: has a Starred element;
                              Dict: a `**m` among its items;
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
                          it (analysis only, owned until done; NULL for a
                          scope without children) */
    struct Scope **kids;
    Py_ssize_t nkids, capkids;
    Node **names; /* Name nodes to patch after analysis, and the BinOp and
                     Compare nodes that may be NF_AT_HAND (after their
                     operands: note_at_hand) */
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

/* objects.c: is `o` an interpreted function (of any module instance)? */
int function_is_interpreted(PyObject *o);
/* objects.c: the function type's tp_descr_get (binding to an instance). */
PyObject *function_descr_get(PyObject *self, PyObject *obj, PyObject *type);
PyObject *function_get_method(PyObject *obj, PyObject *name, PyObject *func,
                              getattrofunc getattro, int *unbound);

#endif /* SMOLAGENTS_NATIVE_IR_H */
