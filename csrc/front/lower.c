/* lower.c: Python ast objects -> the compact IR of ir.h, plus the scope
 * pass that resolves every name to a slot.
 *
 * Lowering reads the ast objects exactly once; the evaluator never touches
 * them.  It also rejects statically what CPython's compiler rejects after the
 * parser (return/yield outside a function, break outside a loop, nonlocal
 * without binding) and what the policy refuses by name (async constructs).
 *
 * The scope pass follows CPython's symtable.c: first collect, per scope, the
 * names bound, used, declared global or nonlocal; then analyze top-down,
 * passing the set of names bound in enclosing function scopes, to classify
 * each name as local, cell, free, or global (explicit or implicit).
 */
#include "front.h"

#include <string.h>

/* ---------------------------------------------------------------- fields */

/* FIELDS(X): every ast field name lowering reads (generated from nodes.def) */
#define FIELDS(X) NODE_AST_FIELDS(X)

enum {
#define X(n) F_##n,
    FIELDS(X)
#undef X
        F__COUNT
};

static const char *const field_cstr[] = {
#define X(n) #n,
    FIELDS(X)
#undef X
};

/* Interned field names, created at module exec (no mutable globals: the
 * array lives in the module state; this pointer table is per-process
 * constant data filled once per module state). */
/* Statement bodies nested deeper than this are left to CPython's compiler
 * (its block-nesting limit). */
#define MAX_UNCHECKED_DEPTH 8

typedef struct {
    ModState *st;
    Interp *in;
    ProgramObject *prog;
    Scope *scope;
    int loop_depth;      /* loops enclosing in the current scope */
    int in_finally_cont; /* unused; reserved */
    /* One parse (see lower_program): set when the source holds a construct
     * whose compile-stage checks the lowering does not repeat. */
    int needs_compile_check;
    int star_ok;    /* the next lower_expr is an element of a display or
                       call arguments, where `*x` is allowed */
    int body_depth; /* nested statement bodies */
    PyObject **fields;
    char *stack_limit;
    PyObject
        *private_cls; /* innermost class name, for private-name mangling */
    PyObject *str_consts; /* str constants met so far (lower_str_const) */
    PyObject *tuple_consts; /* folded constant tuples by their key
                               (fold_constant_tuple) */
    int in_augassign;     /* lowering an augmented assignment */
    int future_annotations; /* `from __future__ import annotations`: every
                               annotation is its source text, evaluated
                               when the def / statement runs (PEP 563) */
    unsigned int nodes;   /* nodes made: the deadline is read every
                             LOWER_CLOCK_EVERY of them */
} Lower;

/* The lowering reads the clock every this many nodes (a power of two):
 * some 20 microseconds of work between two reads. */
#define LOWER_CLOCK_EVERY 256

/* CPython's private name mangling: inside a class, `__spam` (not ending in
 * two underscores, no dot) becomes `_Class__spam`.  Returns a new reference,
 * interned. */
static PyObject *
mangle(Lower *L, PyObject *name)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(name);
    if (L->private_cls == NULL || n < 3 ||
        PyUnicode_READ_CHAR(name, 0) != '_' ||
        PyUnicode_READ_CHAR(name, 1) != '_' ||
        (PyUnicode_READ_CHAR(name, n - 1) == '_' &&
         PyUnicode_READ_CHAR(name, n - 2) == '_') ||
        PyUnicode_FindChar(name, '.', 0, n, 1) >= 0) {
        Py_INCREF(name);
        return name;
    }
    Py_ssize_t cn = PyUnicode_GET_LENGTH(L->private_cls), i = 0;
    while (i < cn && PyUnicode_READ_CHAR(L->private_cls, i) == '_') {
        i++;
    }
    if (i == cn) {
        Py_INCREF(name);
        return name;
    }
    PyObject *stripped = PyUnicode_Substring(L->private_cls, i, cn);
    if (stripped == NULL) {
        return NULL;
    }
    PyObject *r = PyUnicode_FromFormat("_%U%U", stripped, name);
    Py_DECREF(stripped);
    if (r != NULL) {
        PyUnicode_InternInPlace(&r);
    }
    return r;
}

/* A str constant made of name characters only ([A-Za-z0-9_], at most
 * INTERN_CONST_MAX of them) is interned, as CPython's compiler interns such
 * constants of its code objects: `row["units"]` then finds the key the
 * dict display `{"units": ...}` stored by identity, without comparing
 * characters (each literal of the source is a str object of its own), and
 * `"ab" is "ab"` answers as in CPython.  Bounded: interned strings live as
 * long as the process from 3.12 (public interning is immortal there),
 * as the names the lowering interns already do. */
#define INTERN_CONST_MAX 40
static int
name_like(PyObject *s)
{
    if (PyUnicode_GET_LENGTH(s) > INTERN_CONST_MAX || !PyUnicode_IS_ASCII(s)) {
        return 0;
    }
    const unsigned char *c = PyUnicode_1BYTE_DATA(s);
    for (Py_ssize_t i = 0, n = PyUnicode_GET_LENGTH(s); i < n; i++) {
        if (!((c[i] >= 'a' && c[i] <= 'z') || (c[i] >= 'A' && c[i] <= 'Z') ||
              (c[i] >= '0' && c[i] <= '9') || c[i] == '_')) {
            return 0;
        }
    }
    return 1;
}

/* The object a str constant `v` (stolen, an exact str) becomes: interned
 * when name_like, else the first equal constant of the program (CPython's
 * compiler shares equal constants across a compilation unit: two `"a b"`
 * literals are one object).  New reference, or NULL with an exception. */
static PyObject *
lower_str_const(Lower *L, PyObject *v)
{
    if (name_like(v)) {
        PyUnicode_InternInPlace(&v);
        return v;
    }
    if (L->str_consts == NULL && (L->str_consts = PyDict_New()) == NULL) {
        Py_DECREF(v);
        return NULL;
    }
    PyObject *first = PyDict_SetDefault(L->str_consts, v, v); /* borrowed */
    Py_XINCREF(first);
    Py_DECREF(v);
    return first;
}

/* Field name storage: kept in the module state's field dict. */
static PyObject *
fieldname(ModState *st, int i)
{
    return st->field_names_all[i];
}

/* --------------------------------------------------------------- arena */

static void *
arena_alloc(ProgramObject *p, size_t size)
{
    size = (size + 15) & ~(size_t)15;
    if (size > p->left) {
        size_t bsize = size > 16384 ? size : 16384;
        if (p->nblocks == p->capblocks) {
            Py_ssize_t cap = p->capblocks ? p->capblocks * 2 : 16;
            void **nb = PyMem_Realloc(p->blocks, cap * sizeof(void *));
            if (nb == NULL) {
                PyErr_NoMemory();
                return NULL;
            }
            p->blocks = nb;
            p->capblocks = cap;
        }
        /* not zeroed here: each allocation zeroes only what it takes (a
           small program would otherwise pay for clearing a whole block) */
        char *b = PyMem_Malloc(bsize);
        if (b == NULL) {
            PyErr_NoMemory();
            return NULL;
        }
        p->blocks[p->nblocks++] = b;
        p->bytes += bsize;
        p->cur = b;
        p->left = bsize;
    }
    void *r = p->cur;
    p->cur += size;
    p->left -= size;
    memset(r, 0, size);
    return r;
}

/* Keep `o` alive for the program's lifetime; returns `o` borrowed, or NULL.
 * Steals nothing. */
static PyObject *
keep(Lower *L, PyObject *o)
{
    if (o == NULL) {
        return NULL;
    }
    if (PyList_Append(L->prog->consts, o) < 0) {
        return NULL;
    }
    return o;
}

/* Like keep() but steals the reference. */
static PyObject *
keep_steal(Lower *L, PyObject *o)
{
    if (o == NULL) {
        return NULL;
    }
    PyObject *r = keep(L, o);
    Py_DECREF(o);
    return r;
}

/* ---------------------------------------------------------------- helpers */

/* New reference to field `f` of ast object `o`, or NULL with error.
 *
 * The parser's ast objects (ast2obj) keep every field and location in their
 * instance dict (`tp_dictoffset` > 0, not a managed dict, on 3.10 to 3.15),
 * and no ast class defines a data descriptor for a field the lowering reads
 * (tests/engine/test_nodes_spec.py checks both on the running version), so
 * the dict lookup gives what PyObject_GetAttr would, for a fifth of its
 * instructions (the generic lookup walks the type's MRO first).  A field the
 * dict does not hold (a class default, an object of another kind) goes
 * through PyObject_GetAttr as before. */
static PyObject *
getf(Lower *L, PyObject *o, int f)
{
    PyObject *name = fieldname(L->st, f);
    Py_ssize_t off = Py_TYPE(o)->tp_dictoffset;
    if (off > 0 && Py_TYPE(o)->tp_getattro == PyObject_GenericGetAttr) {
        PyObject *dict = *(PyObject **)((char *)o + off);
        if (dict != NULL && PyDict_CheckExact(dict)) {
            PyObject *v = PyDict_GetItemWithError(dict, name);
            if (v != NULL) {
                Py_INCREF(v);
                return v;
            }
            if (PyErr_Occurred()) {
                return NULL;
            }
        }
    }
    return PyObject_GetAttr(o, name);
}

/* Field that may be None: returns new ref, Py_None converted to NULL with
 * *err = 0.  On error, returns NULL with *err = 1. */
static PyObject *
getf_opt(Lower *L, PyObject *o, int f, int *err)
{
    PyObject *v = getf(L, o, f);
    if (v == NULL) {
        *err = 1;
        return NULL;
    }
    if (v == Py_None) {
        Py_DECREF(v);
        return NULL;
    }
    return v;
}

static int
getint(Lower *L, PyObject *o, int f, int dflt)
{
    PyObject *v = getf(L, o, f);
    if (v == NULL) {
        PyErr_Clear();
        return dflt;
    }
    int r = dflt;
    if (PyLong_Check(v)) {
        r = (int)PyLong_AsLong(v);
    }
    Py_DECREF(v);
    return r;
}

/* The kind number of an ast object: >= 0 a NodeKind, -2 - i for refused
 * entry i, or -1 unknown (error set). */
static int
kind_of(Lower *L, PyObject *o)
{
    PyObject *k =
        PyDict_GetItemWithError(L->st->kind_of_class, (PyObject *)Py_TYPE(o));
    if (k == NULL) {
        if (!PyErr_Occurred()) {
            PyErr_Format(PyExc_TypeError, "unexpected ast node %s",
                         Py_TYPE(o)->tp_name);
        }
        return -1000;
    }
    return (int)PyLong_AsLong(k);
}

static int
op_of(Lower *L, PyObject *o)
{
    PyObject *k =
        PyDict_GetItemWithError(L->st->op_of_class, (PyObject *)Py_TYPE(o));
    if (k == NULL) {
        if (!PyErr_Occurred()) {
            PyErr_Format(PyExc_TypeError, "unexpected ast operator %s",
                         Py_TYPE(o)->tp_name);
        }
        return -1;
    }
    return (int)PyLong_AsLong(k);
}

static Node *
node_new(Lower *L, int kind, PyObject *src)
{
    /* the step's deadline covers its lowering: a long source ends near it
       (the parse before it is bounded by max_source_bytes) */
    if ((++L->nodes & (LOWER_CLOCK_EVERY - 1)) == 0 &&
        limits_check_deadline(L->in) < 0) {
        return NULL;
    }
    Node *n = arena_alloc(L->prog, sizeof(Node));
    if (n == NULL) {
        return NULL;
    }
    n->kind = (uint8_t)kind;
    if (src != NULL) {
        n->lineno = getint(L, src, F_lineno, 0);
        n->col = getint(L, src, F_col_offset, 0);
        n->end_lineno = getint(L, src, F_end_lineno, n->lineno);
        n->end_col = getint(L, src, F_end_col_offset, n->col);
    }
    return n;
}

static PyObject *
syntax_error(Lower *L, Node *at, const char *msg, PyObject *arg)
{
    PyObject *m =
        arg ? PyUnicode_FromFormat(msg, arg) : PyUnicode_FromString(msg);
    if (m == NULL) {
        return NULL;
    }
    PyObject *text = Py_None;
    Py_INCREF(text);
    if (at && at->lineno > 0 &&
        at->lineno <= PyList_GET_SIZE(L->prog->lines)) {
        Py_SETREF(text, PyList_GET_ITEM(L->prog->lines, at->lineno - 1));
        Py_INCREF(text);
    }
    PyObject *args =
        Py_BuildValue("(N(siiNii))", m, "<unknown>", at ? at->lineno : 1,
                      at ? at->col + 1 : 1, text, at ? at->end_lineno : 1,
                      at ? at->end_col + 1 : 1);
    if (args == NULL) {
        return NULL;
    }
    PyErr_SetObject(PyExc_SyntaxError, args);
    Py_DECREF(args);
    return NULL;
}

static int
check_stack(Lower *L)
{
    char *sp = (char *)__builtin_frame_address(0);
    if (sp < L->stack_limit) {
        PyErr_SetString(PyExc_RecursionError,
                        "maximum recursion depth exceeded during lowering "
                        "(the code is nested too deeply)");
        return -1;
    }
    return 0;
}

/* ---------------------------------------------------------------- scopes */

static long sym_get(Scope *s, PyObject *name);

static Scope *
scope_new(Lower *L, ScopeType type, PyObject *name, Node *at)
{
    Scope *s = arena_alloc(L->prog, sizeof(Scope));
    if (s == NULL) {
        return NULL;
    }
    s->type = type;
    s->parent = L->scope;
    s->name = name;
    s->lineno = at ? at->lineno : 0;
    s->uses_class_free = -1;
    s->class_cell_slot = -1;
    s->symbols = PyDict_New();
    if (s->symbols == NULL) {
        return NULL;
    }
    ProgramObject *p = L->prog;
    if (p->nscopes == p->capscopes) {
        Py_ssize_t cap = p->capscopes ? p->capscopes * 2 : 8;
        Scope **ns = PyMem_Realloc(p->scopes, cap * sizeof(Scope *));
        if (ns == NULL) {
            Py_CLEAR(s->symbols);
            PyErr_NoMemory();
            return NULL;
        }
        p->scopes = ns;
        p->capscopes = cap;
    }
    p->scopes[p->nscopes++] = s;
    if (L->scope) {
        Scope *par = L->scope;
        if (par->nkids == par->capkids) {
            Py_ssize_t cap = par->capkids ? par->capkids * 2 : 4;
            Scope **nk = PyMem_Realloc(par->kids, cap * sizeof(Scope *));
            if (nk == NULL) {
                PyErr_NoMemory();
                return NULL;
            }
            par->kids = nk;
            par->capkids = cap;
        }
        par->kids[par->nkids++] = s;
    }
    /* qualname as CPython computes it: a name declared global in the
       enclosing scope is qualified as a module-level one */
    int force_global = 0;
    Scope *named = L->scope; /* the scope the qualname is relative to */
    while (named != NULL && named->transparent) {
        named = named->parent;
    }
    if (named != NULL && named->type != SC_MODULE &&
        type != SC_COMPREHENSION) {
        PyObject *mangled = mangle(L, name);
        if (mangled == NULL) {
            return NULL;
        }
        force_global = (sym_get(named, mangled) & SYM_GLOBAL) != 0;
        Py_DECREF(mangled);
    }
    if (named == NULL || named->type == SC_MODULE || force_global) {
        s->qualname = name;
    }
    else {
        PyObject *q;
        if (named->type == SC_FUNCTION || named->type == SC_COMPREHENSION) {
            q = PyUnicode_FromFormat("%U.<locals>.%U", named->qualname, name);
        }
        else {
            q = PyUnicode_FromFormat("%U.%U", named->qualname, name);
        }
        s->qualname = keep_steal(L, q);
        if (s->qualname == NULL) {
            return NULL;
        }
    }
    return s;
}

static int
sym_add(Scope *s, PyObject *name, int flags)
{
    PyObject *old = PyDict_GetItemWithError(s->symbols, name);
    long v = 0;
    if (old != NULL) {
        v = PyLong_AsLong(old);
    }
    else if (PyErr_Occurred()) {
        return -1;
    }
    PyObject *nv = PyLong_FromLong(v | flags);
    if (nv == NULL) {
        return -1;
    }
    int r = PyDict_SetItem(s->symbols, name, nv);
    Py_DECREF(nv);
    return r;
}

static long
sym_get(Scope *s, PyObject *name)
{
    PyObject *old = PyDict_GetItemWithError(s->symbols, name);
    return old ? PyLong_AsLong(old) : 0;
}

static int
scope_add_name_node(Scope *s, Node *n)
{
    if (s->nnames == s->capnames) {
        Py_ssize_t cap = s->capnames ? s->capnames * 2 : 16;
        Node **nn = PyMem_Realloc(s->names, cap * sizeof(Node *));
        if (nn == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        s->names = nn;
        s->capnames = cap;
    }
    s->names[s->nnames++] = n;
    return 0;
}

static int
is_funclike(Scope *s)
{
    return s->type == SC_FUNCTION || s->type == SC_COMPREHENSION;
}

/* Record a Name node for later resolution and mark its use or binding. */
static int
note_name(Lower *L, Node *n, int ctx)
{
    Scope *s = L->scope;
    n->op = (uint8_t)ctx;
    if (ctx == CTX_Load) {
        if (sym_add(s, n->obj, SYM_USED) < 0) {
            return -1;
        }
        /* `super` in a function implies the __class__ free variable, as in
           CPython's compiler, so that zero-argument super() works. */
        if (is_funclike(s) &&
            PyUnicode_Compare(n->obj, L->st->str_super) == 0) {
            if (sym_add(s, L->st->str_dunder_class, SYM_USED) < 0) {
                return -1;
            }
        }
    }
    else {
        if (sym_add(s, n->obj, SYM_BOUND) < 0) {
            return -1;
        }
    }
    return scope_add_name_node(s, n);
}

/* An operand a BinOp or Compare may find at hand (operand_at_hand): a
 * constant that charges nothing beyond itself, or a name (whether a local
 * of the frame is known after analysis). */
static int
may_be_at_hand(Node *e)
{
    return (e->kind == K_Constant && e->Constant.extra_ops == 0) ||
           e->kind == K_Name;
}

/* Record a BinOp, or a Compare of one comparator, whose two operands may
 * be at hand: assign_slots sets NF_AT_HAND once the names are resolved
 * (the operands' Name nodes precede it in the list). */
static int
note_at_hand(Lower *L, Node *n, Node *left, Node *right)
{
    if (!may_be_at_hand(left) || !may_be_at_hand(right)) {
        return 0;
    }
    return scope_add_name_node(L->scope, n);
}

/* 3.13+ (__static_attributes__): `self.<attr> = ...` (a plain store, not
 * an augmented one) in a class's body or in any function inside it adds
 * <attr> (unmangled) to the innermost class's set, as CPython's compiler
 * does. */
static int
note_static_attribute(Lower *L, Node *attr_node, PyObject *rawattr)
{
#if PY_VERSION_HEX >= 0x030D0000
    Node *v = attr_node->Attribute.value;
    if (L->in_augassign || v == NULL || v->kind != K_Name ||
        PyUnicode_CompareWithASCIIString(v->obj, "self") != 0) {
        return 0;
    }
    Scope *c = L->scope;
    while (c != NULL && c->type != SC_CLASS) {
        c = c->parent;
    }
    if (c == NULL) {
        return 0;
    }
    if (c->static_attrs_set == NULL &&
        (c->static_attrs_set = PySet_New(NULL)) == NULL) {
        return -1;
    }
    return PySet_Add(c->static_attrs_set, rawattr);
#else
    return 0;
#endif
}

/* ---------------------------------------------------------------- lowering */

static Node *lower_expr(Lower *L, PyObject *o);
static Node *lower_stmt(Lower *L, PyObject *o);
static PyObject *ast_at(Lower *L, const char *cls, PyObject *kw, PyObject *pos);
#if PY_VERSION_HEX >= 0x030E0000
static Node *lower_annotate(Lower *L, PyObject *pairs, PyObject *pos);
static PyObject *def_annotations(Lower *L, PyObject *o);
#endif
static Node *lower_pattern(Lower *L, PyObject *o);
static int lower_stmt_list(Lower *L, PyObject *list, Node ***out,
                           Py_ssize_t *n);

typedef Node *(*lower_fn)(Lower *, PyObject *);

/* Lower the list in field `f` of `o` with `fn`; None elements become NULL
 * when allow_none. */
static int
lower_list(Lower *L, PyObject *o, int f, lower_fn fn, Node ***out,
           Py_ssize_t *n, int allow_none)
{
    PyObject *list = getf(L, o, f);
    if (list == NULL) {
        return -1;
    }
    if (!PyList_Check(list)) {
        Py_DECREF(list);
        PyErr_SetString(PyExc_TypeError, "ast field is not a list");
        return -1;
    }
    Py_ssize_t len = PyList_GET_SIZE(list);
    *n = len;
    *out = NULL;
    if (len == 0) {
        Py_DECREF(list);
        return 0;
    }
    Node **arr = arena_alloc(L->prog, len * sizeof(Node *));
    if (arr == NULL) {
        Py_DECREF(list);
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *item = PyList_GET_ITEM(list, i);
        if (item == Py_None && allow_none) {
            arr[i] = NULL;
            continue;
        }
        Py_INCREF(item);
        arr[i] = fn(L, item);
        Py_DECREF(item);
        if (arr[i] == NULL) {
            Py_DECREF(list);
            return -1;
        }
    }
    Py_DECREF(list);
    *out = arr;
    return 0;
}

static int
lower_stmt_list(Lower *L, PyObject *list, Node ***out, Py_ssize_t *n)
{
    Py_ssize_t len = PyList_GET_SIZE(list);
    *n = len;
    *out = NULL;
    if (len == 0) {
        return 0;
    }
    Node **arr = arena_alloc(L->prog, len * sizeof(Node *));
    if (arr == NULL) {
        return -1;
    }
    for (Py_ssize_t i = 0; i < len; i++) {
        PyObject *item = PyList_GET_ITEM(list, i);
        Py_INCREF(item);
        int before = L->scope->nyields;
        Node *s = arr[i] = lower_stmt(L, item);
        Py_DECREF(item);
        if (s == NULL) {
            return -1;
        }
        int yields = L->scope->nyields - before;
        if (yields > 0) {
            s->flags |= NF_HAS_YIELD;
            Node *v = s->kind == K_Expr     ? s->Expr.value
                      : s->kind == K_Assign ? s->Assign.value
                                            : NULL;
            if (yields == 1 && v != NULL && v->kind == K_Yield) {
                s->flags |= NF_YIELD_POINT;
            }
        }
    }
    *out = arr;
    return 0;
}

static int
lower_body(Lower *L, PyObject *o, int f, Node ***out, Py_ssize_t *n)
{
    PyObject *list = getf(L, o, f);
    if (list == NULL) {
        return -1;
    }
    /* CPython's compiler refuses more than CO_MAXBLOCKS (20) nested blocks
       in one code object; deep nesting leaves that check to it */
    if (++L->body_depth > MAX_UNCHECKED_DEPTH) {
        L->needs_compile_check = 1;
    }
    int r = lower_stmt_list(L, list, out, n);
    L->body_depth--;
    Py_DECREF(list);
    return r;
}

/* An element of a list/tuple/set display, a call's positional arguments or
 * a class's bases: the places where a starred expression in a load context
 * is valid. */
static Node *
lower_star_ok_expr(Lower *L, PyObject *o)
{
    L->star_ok = 1;
    return lower_expr(L, o);
}

/* Lower an optional node-valued field with `fn`: *out = NULL for None. */
static int
lower_opt_with(Lower *L, PyObject *o, int f, lower_fn fn, Node **out)
{
    int err = 0;
    PyObject *v = getf_opt(L, o, f, &err);
    *out = NULL;
    if (err) {
        return -1;
    }
    if (v == NULL) {
        return 0;
    }
    *out = fn(L, v);
    Py_DECREF(v);
    return *out ? 0 : -1;
}

/* Lower optional expression field: *out = NULL for None. */
static int
lower_opt_expr(Lower *L, PyObject *o, int f, Node **out)
{
    return lower_opt_with(L, o, f, lower_expr, out);
}

/* An annotation evaluated where it stands (up to 3.13, or PEP 563's): under
 * `from __future__ import annotations` the constant of its source text, as
 * CPython's compiler makes it (ast.unparse's spelling). */
static Node *
lower_annotation(Lower *L, PyObject *o)
{
    if (!L->future_annotations) {
        return lower_expr(L, o);
    }
    PyObject *text = PyObject_CallMethod(L->st->ast_module, "unparse", "O", o);
    PyObject *kw = text ? Py_BuildValue("{sO}", "value", text) : NULL;
    PyObject *c = kw ? ast_at(L, "Constant", kw, o) : NULL;
    Node *n = c ? lower_expr(L, c) : NULL;
    Py_XDECREF(c);
    Py_XDECREF(kw);
    Py_XDECREF(text);
    return n;
}

static int
lower_opt_annotation(Lower *L, PyObject *o, int f, Node **out)
{
    return lower_opt_with(L, o, f, lower_annotation, out);
}

/* A required field of `o` is None: -1 with the TypeError CPython's
 * compiler gives for that tree. */
static int
missing_field(PyObject *o, const char *field)
{
    PyErr_Format(PyExc_TypeError, "required field \"%s\" missing from %s",
                 field, Py_TYPE(o)->tp_name);
    return -1;
}

/* the lowering functions the spec names for lists of other nodes */
static Node *lower_handler(Lower *L, PyObject *o);
static Node *lower_withitem(Lower *L, PyObject *o);
static Node *lower_case(Lower *L, PyObject *o);
static Node *lower_alias_import(Lower *L, PyObject *o);
static Node *lower_alias_from(Lower *L, PyObject *o);

/* lower_fields_<Layout>(): the automatic fields of each layout */
#include "lower_gen.inc"

/* A Name store target made from a plain string (except-as, import-as, match
 * captures, function and class names). */
static Node *
name_target(Lower *L, PyObject *name, Node *pos)
{
    Node *n = node_new(L, K_Name, NULL);
    if (n == NULL) {
        return NULL;
    }
    if (pos) {
        n->lineno = pos->lineno;
        n->col = pos->col;
        n->end_lineno = pos->end_lineno;
        n->end_col = pos->end_col;
    }
    PyObject *interned = mangle(L, name);
    if (interned == NULL) {
        return NULL;
    }
    PyUnicode_InternInPlace(&interned);
    n->obj = keep_steal(L, interned);
    if (n->obj == NULL) {
        return NULL;
    }
    if (note_name(L, n, CTX_Store) < 0) {
        return NULL;
    }
    return n;
}

/* Refuse a construct by name. */
static Node *
refuse(Lower *L, PyObject *o, const char *what, const char *why)
{
    int line = getint(L, o, F_lineno, 0);
    raise_interp_error(L->in, "%s is not supported (line %d): %s", what, line,
                       why);
    return NULL;
}

/* Refuse the node of refused kind `kind` (kind_of's -2 - i). */
static Node *
refuse_kind(Lower *L, PyObject *o, int kind)
{
    /* a NULL last entry: the lists may be empty (no kind is refused now) */
    static const char *const what[] = {
#define REFUSED(n, w, y) w,
#include "ir/nodes.def"
        NULL};
    static const char *const why[] = {
#define REFUSED(n, w, y) y,
#include "ir/nodes.def"
        NULL};
    Py_ssize_t i = -2 - (Py_ssize_t)kind;
    Py_ssize_t n = (Py_ssize_t)(sizeof(what) / sizeof(what[0])) - 1;
    if (i < 0 || i >= n) {
        PyErr_Format(PyExc_SystemError, "refuse_kind: bad kind %d", kind);
        return NULL;
    }
    return refuse(L, o, what[i], why[i]);
}

/* An `await` or `async for` in the comprehension being lowered: it is
 * asynchronous.  A list, set or dict comprehension runs inline on the
 * stack of the coroutine that evaluates it (run_comprehension: its frame's
 * generator is that coroutine's), as do the comprehensions it is nested
 * in, up to a generator expression (then an asynchronous generator, on a
 * stack of its own) or the function (a suspension point there: not a
 * flat generator).  Where CPython allows them (a coroutine's body; an
 * asynchronous generator expression anywhere) is its compiler's check. */
static void
comp_async(Lower *L)
{
    L->needs_compile_check = 1;
    for (Scope *s = L->scope; s != NULL; s = s->parent) {
        s->nyields++;
        if (s->type != SC_COMPREHENSION) {
            break;
        }
        s->is_coroutine = 1;
        if (s->is_generator) {
            s->is_async_gen = 1;
            break;
        }
    }
}

/* `await`, `async for`, `async with`: only in a coroutine's own body (a
 * SyntaxError elsewhere, as CPython's); in a comprehension, that
 * comprehension is asynchronous (comp_async).  Counts as a suspension
 * point (nyields: not a flat generator).  0 / -1. */
static int
async_only(Lower *L, PyObject *o, const char *what)
{
    Scope *s = L->scope;
    if (s->type == SC_COMPREHENSION) {
        comp_async(L);
        return 0;
    }
    if (!s->is_coroutine) {
        Node *n = node_new(L, K_Pass, o);
        if (n != NULL) {
            PyObject *m = PyUnicode_FromFormat(
                "%s outside %s", what,
                s->type == SC_FUNCTION || s->type == SC_COMPREHENSION
                    ? "async function"
                    : "function");
            if (m != NULL) {
                syntax_error(L, n, PyUnicode_AsUTF8(m), NULL);
                Py_DECREF(m);
            }
        }
        return -1;
    }
    s->nyields++;
    return 0;
}

static int
get_ctx(Lower *L, PyObject *o)
{
    PyObject *c = getf(L, o, F_ctx);
    if (c == NULL) {
        return -1;
    }
    int r = op_of(L, c);
    Py_DECREF(c);
    return r;
}

/* Enter the arguments of a function/lambda: declare params in the new
 * scope, and lower annotations and defaults in the enclosing scope. */
static Node *
lower_arguments(Lower *L, PyObject *args, Scope *fs, int with_annotations)
{
    /* nodes.def: arguments.  Default values and annotations are evaluated
       in the enclosing scope. */
    Node *an = node_new(L, K_arguments, NULL);
    if (an == NULL || lower_fields_arguments(L, args, an) < 0) {
        return NULL;
    }
    PyObject *lists[5] = {NULL};
    int fl[5] = {F_posonlyargs, F_args, F_vararg, F_kwonlyargs, F_kwarg};
    Py_ssize_t total = 0;
    Node **arr = NULL;
    int ok = 0;
    for (int i = 0; i < 5; i++) {
        lists[i] = getf(L, args, fl[i]);
        if (lists[i] == NULL) {
            goto done;
        }
        if (lists[i] == Py_None) {
            continue;
        }
        if (PyList_Check(lists[i])) {
            total += PyList_GET_SIZE(lists[i]);
        }
        else {
            total += 1;
        }
    }
    arr = total ? arena_alloc(L->prog, total * sizeof(Node *)) : NULL;
    if (total && arr == NULL) {
        goto done;
    }
    Py_ssize_t k = 0;
    for (int i = 0; i < 5; i++) {
        PyObject *li = lists[i];
        if (li == Py_None) {
            continue;
        }
        Py_ssize_t m = PyList_Check(li) ? PyList_GET_SIZE(li) : 1;
        for (Py_ssize_t j = 0; j < m; j++) {
            PyObject *a = PyList_Check(li) ? PyList_GET_ITEM(li, j) : li;
            Node *argn = node_new(L, K_arg, a);
            if (argn == NULL) {
                goto done;
            }
            PyObject *raw = getf(L, a, F_arg);
            if (raw == NULL) {
                goto done;
            }
            PyObject *nm = mangle(L, raw);
            Py_DECREF(raw);
            if (nm == NULL) {
                goto done;
            }
            PyUnicode_InternInPlace(&nm);
            argn->obj = keep_steal(L, nm);
            if (argn->obj == NULL) {
                goto done;
            }
            if (with_annotations &&
                lower_opt_annotation(L, a, F_annotation,
                                     &argn->arg.annotation) < 0) {
                goto done;
            }
            if (sym_get(fs, argn->obj) & SYM_PARAM) {
                syntax_error(L, argn,
                             "duplicate argument '%U' in function definition",
                             argn->obj);
                goto done;
            }
            if (sym_add(fs, argn->obj, SYM_BOUND | SYM_PARAM) < 0) {
                goto done;
            }
            argn->op = (uint8_t)i; /* which list it came from */
            arr[k++] = argn;
        }
        if (i == 0) {
            fs->posonlyargcount = (int)m;
        }
        if (i == 0 || i == 1) {
            fs->argcount += (int)m;
        }
        if (i == 2) {
            fs->has_varargs = 1;
        }
        if (i == 3) {
            fs->kwonlyargcount = (int)m;
        }
        if (i == 4) {
            fs->has_varkw = 1;
        }
    }
    an->arguments.args = arr;
    an->arguments.nargs = total;
    ok = 1;
done:
    for (int i = 0; i < 5; i++) {
        Py_XDECREF(lists[i]);
    }
    return ok ? an : NULL;
}

static PyObject *
docstring_of(PyObject *body)
{
    /* First statement an Expr whose value is a str Constant.  Borrowed-ish:
       returns a new ref or NULL without error. */
    if (!PyList_Check(body) || PyList_GET_SIZE(body) == 0) {
        return NULL;
    }
    PyObject *first = PyList_GET_ITEM(body, 0);
    if (strcmp(Py_TYPE(first)->tp_name, "Expr") != 0) {
        return NULL;
    }
    PyObject *v = PyObject_GetAttrString(first, "value");
    if (v == NULL) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *r = NULL;
    if (strcmp(Py_TYPE(v)->tp_name, "Constant") == 0) {
        PyObject *c = PyObject_GetAttrString(v, "value");
        if (c && PyUnicode_Check(c)) {
            r = c;
        }
        else {
            Py_XDECREF(c);
            PyErr_Clear();
        }
    }
    Py_DECREF(v);
    return r;
}

/* FunctionDef and Lambda (nodes.def: layout Function). */

/* A generator whose every yield is a statement of its own (`yield v`,
 * `target = yield v`, with no other yield in it) reached only through the
 * bodies and else-clauses of if / for / while statements needs no C stack:
 * generator.c's flat_step resumes it from a list of levels (the body being
 * run, its position, and a for loop's iterator or a while loop's count).
 * Returns the number of levels `body` needs at nesting `depth` (the
 * function body is level 1), or 0 when a yield is anywhere else: in an
 * expression, in a test or an iterable, in a try, with or match statement,
 * as `yield from`, or nested deeper than FLAT_MAX_LEVELS. */
static int
flat_levels(Node **body, Py_ssize_t n, int depth)
{
    int most = depth;
    for (Py_ssize_t i = 0; i < n; i++) {
        Node *s = body[i];
        if (!(s->flags & NF_HAS_YIELD)) {
            continue;
        }
        Node **b, **e;
        Py_ssize_t nb, ne;
        switch (s->kind) {
        case K_Expr:
        case K_Assign:
            if (!(s->flags & NF_YIELD_POINT)) {
                return 0;
            }
            continue;
        case K_If:
            b = s->If.body, nb = s->If.nbody;
            e = s->If.orelse, ne = s->If.norelse;
            break;
        case K_For:
            b = s->For.body, nb = s->For.nbody;
            e = s->For.orelse, ne = s->For.norelse;
            break;
        case K_While:
            b = s->While.body, nb = s->While.nbody;
            e = s->While.orelse, ne = s->While.norelse;
            break;
        default:
            return 0;
        }
        if ((s->flags & NF_HEAD_YIELD) || depth >= FLAT_MAX_LEVELS) {
            return 0;
        }
        int d1 = flat_levels(b, nb, depth + 1);
        int d2 = d1 ? flat_levels(e, ne, depth + 1) : 0;
        if (d2 == 0) {
            return 0;
        }
        most = d1 > most ? d1 : most;
        most = d2 > most ? d2 : most;
    }
    return most;
}

/* `tp_load` (an ast Name, or NULL): the definition is the one a PEP 695
 * annotation scope returns (lower_generic): it binds no name, and its
 * __type_params__ is that name's value in the annotation scope. */
static Node *
lower_function_ex(Lower *L, PyObject *o, int kind, PyObject *tp_load)
{
    Node *n = node_new(L, kind, o);
    if (n == NULL) {
        return NULL;
    }
    PyObject *name;
    if (kind == K_FunctionDef) {
        if (tp_load != NULL &&
            (n->Function.type_params = lower_expr(L, tp_load)) == NULL) {
            return NULL;
        }
        name = getf(L, o, F_name);
        if (name == NULL) {
            return NULL;
        }
        PyUnicode_InternInPlace(&name);
        if (keep_steal(L, name) == NULL) {
            return NULL;
        }
        if (lower_list(L, o, F_decorator_list, lower_expr,
                       &n->Function.decorator_list,
                       &n->Function.ndecorator_list, 0) < 0) {
            return NULL;
        }
    }
    else {
        name = keep_steal(L, PyUnicode_InternFromString("<lambda>"));
        if (name == NULL) {
            return NULL;
        }
    }
    n->obj = name;
    Scope *fs = scope_new(L, SC_FUNCTION, name, n);
    if (fs == NULL) {
        return NULL;
    }
    n->Function.scope = fs;
    if (strcmp(Py_TYPE(o)->tp_name, "AsyncFunctionDef") == 0) {
        /* a coroutine: its body always runs as a generator's does */
        fs->is_coroutine = 1;
        fs->is_generator = 1;
    }
    PyObject *args = getf(L, o, F_args);
    if (args == NULL) {
        return NULL;
    }
#if PY_VERSION_HEX >= 0x030E0000
    /* PEP 649: the annotations go to an annotation scope of their own
       (PEP 563's strings stay eager) */
    int eager_annotations = kind == K_FunctionDef && L->future_annotations;
#else
    int eager_annotations = kind == K_FunctionDef;
#endif
    n->Function.args = lower_arguments(L, args, fs, eager_annotations);
    Py_DECREF(args);
    if (n->Function.args == NULL) {
        return NULL;
    }
    if (eager_annotations &&
        lower_opt_annotation(L, o, F_returns, &n->Function.returns) < 0) {
        return NULL;
    }
#if PY_VERSION_HEX >= 0x030E0000
    if (kind == K_FunctionDef && !eager_annotations) {
        PyObject *pairs = def_annotations(L, o);
        if (pairs == NULL) {
            return NULL;
        }
        if (PyList_GET_SIZE(pairs) &&
            (n->Function.annotate = lower_annotate(L, pairs, o)) == NULL) {
            Py_DECREF(pairs);
            return NULL;
        }
        Py_DECREF(pairs);
    }
#endif
    /* body in the new scope */
    Scope *saved = L->scope;
    int saved_loops = L->loop_depth;
    L->scope = fs;
    L->loop_depth = 0;
    int r;
    if (kind == K_FunctionDef) {
        PyObject *body = getf(L, o, F_body);
        if (body == NULL) {
            L->scope = saved;
            return NULL;
        }
        PyObject *doc = docstring_of(body);
        if (doc) {
            fs->docstring = keep_steal(L, doc);
        }
        r = lower_stmt_list(L, body, &fs->body, &fs->nbody);
        Py_DECREF(body);
    }
    else {
        /* lambda body: one Return statement */
        Node *ret = node_new(L, K_Return, o);
        r = -1;
        if (ret) {
            r = lower_opt_expr(L, o, F_body, &ret->Return.value);
            Node **arr = arena_alloc(L->prog, sizeof(Node *));
            if (r == 0 && arr) {
                arr[0] = ret;
                fs->body = arr;
                fs->nbody = 1;
            }
            else {
                r = -1;
            }
        }
    }
    L->scope = saved;
    L->loop_depth = saved_loops;
    if (r < 0) {
        return NULL;
    }
    if (kind == K_FunctionDef && fs->is_generator && !fs->is_async_gen) {
        /* an async generator's `yield` marks its suspension (generator.c,
           gen_yield): never flat */
        fs->flat_levels = flat_levels(fs->body, fs->nbody, 1);
    }
    if (kind == K_FunctionDef && tp_load == NULL) {
        n->Function.target = name_target(L, name, n);
        if (n->Function.target == NULL) {
            return NULL;
        }
    }
    return n;
}

static Node *
lower_function(Lower *L, PyObject *o, int kind)
{
    return lower_function_ex(L, o, kind, NULL);
}

/* ClassDef (nodes.def); `tp_load` as for lower_function_ex. */
static Node *
lower_class_ex(Lower *L, PyObject *o, PyObject *tp_load)
{
    Node *n = node_new(L, K_ClassDef, o);
    if (n == NULL) {
        return NULL;
    }
    if (tp_load != NULL &&
        (n->ClassDef.type_params = lower_expr(L, tp_load)) == NULL) {
        return NULL;
    }
    PyObject *name = getf(L, o, F_name);
    if (name == NULL) {
        return NULL;
    }
    PyUnicode_InternInPlace(&name);
    n->obj = keep_steal(L, name);
    if (n->obj == NULL) {
        return NULL;
    }
    if (lower_fields_ClassDef(L, o, n) < 0) {
        return NULL;
    }
    /* keywords: keyword nodes (obj = name or NULL for **) */
    PyObject *kws = getf(L, o, F_keywords);
    if (kws == NULL) {
        return NULL;
    }
    Py_ssize_t nk = PyList_GET_SIZE(kws);
    n->ClassDef.nkeywords = nk;
    if (nk > 1) {
        L->needs_compile_check = 1; /* "keyword argument repeated" */
    }
    if (nk) {
        n->ClassDef.keywords = arena_alloc(L->prog, nk * sizeof(Node *));
        if (n->ClassDef.keywords == NULL) {
            Py_DECREF(kws);
            return NULL;
        }
    }
    for (Py_ssize_t i = 0; i < nk; i++) {
        PyObject *kw = PyList_GET_ITEM(kws, i);
        Node *kn = node_new(L, K_keyword, kw);
        int err = 0;
        if (kn == NULL) {
            Py_DECREF(kws);
            return NULL;
        }
        PyObject *argname = getf_opt(L, kw, F_arg, &err);
        if (err) {
            Py_DECREF(kws);
            return NULL;
        }
        if (argname) {
            PyUnicode_InternInPlace(&argname);
            kn->obj = keep_steal(L, argname);
        }
        if (lower_fields_keyword(L, kw, kn) < 0) {
            Py_DECREF(kws);
            return NULL;
        }
        n->ClassDef.keywords[i] = kn;
    }
    Py_DECREF(kws);
    Scope *cs = scope_new(L, SC_CLASS, name, n);
    if (cs == NULL) {
        return NULL;
    }
    n->ClassDef.scope = cs;
    cs->firstlineno = n->ClassDef.ndecorator_list
                          ? n->ClassDef.decorator_list[0]->lineno
                          : n->lineno;
    Scope *saved = L->scope;
    int saved_loops = L->loop_depth;
    PyObject *saved_private = L->private_cls;
    L->scope = cs;
    L->loop_depth = 0;
    L->private_cls = name;
    PyObject *body = getf(L, o, F_body);
    int r = -1;
    if (body) {
        PyObject *doc = docstring_of(body);
        if (doc) {
            cs->docstring = keep_steal(L, doc);
        }
        r = lower_stmt_list(L, body, &cs->body, &cs->nbody);
        Py_DECREF(body);
    }
#if PY_VERSION_HEX >= 0x030E0000
    /* PEP 649: the annotated names of the body, in the class's annotation
       scope (made in the class scope: it sees the class's names, and
       private names are mangled with the class's name) */
    if (r == 0 && cs->class_anns != NULL) {
        n->ClassDef.annotate = lower_annotate(L, cs->class_anns, o);
        if (n->ClassDef.annotate == NULL) {
            r = -1;
        }
    }
    Py_CLEAR(cs->class_anns);
#endif
    L->scope = saved;
    L->loop_depth = saved_loops;
    L->private_cls = saved_private;
    if (r < 0) {
        return NULL;
    }
    if (tp_load != NULL) {
        return n;
    }
    n->ClassDef.target = name_target(L, name, n);
    return n->ClassDef.target ? n : NULL;
}

/* Comprehensions (nodes.def: layout Comp).  The first iterator is lowered
 * in the enclosing scope, the rest inside. */
static Node *
lower_comprehension(Lower *L, PyObject *o, int kind)
{
    Node *n = node_new(L, kind, o);
    if (n == NULL) {
        return NULL;
    }
    PyObject *gens = getf(L, o, F_generators);
    if (gens == NULL) {
        return NULL;
    }
    Py_ssize_t ng = PyList_GET_SIZE(gens);
    n->Comp.ngenerators = ng;
    n->Comp.generators = arena_alloc(L->prog, (ng ? ng : 1) * sizeof(Node *));
    if (n->Comp.generators == NULL) {
        Py_DECREF(gens);
        return NULL;
    }
    const char *nm = kind == K_ListComp   ? "<listcomp>"
                     : kind == K_SetComp  ? "<setcomp>"
                     : kind == K_DictComp ? "<dictcomp>"
                                          : "<genexpr>";
    PyObject *name = keep_steal(L, PyUnicode_InternFromString(nm));
    if (name == NULL) {
        Py_DECREF(gens);
        return NULL;
    }
    /* the first iterable, in the enclosing scope */
    Node *first_iter = NULL;
    if (ng > 0) {
        PyObject *g0 = PyList_GET_ITEM(gens, 0);
        if (lower_opt_expr(L, g0, F_iter, &first_iter) < 0) {
            Py_DECREF(gens);
            return NULL;
        }
    }
    Scope *cs = scope_new(L, SC_COMPREHENSION, name, n);
    if (cs == NULL) {
        Py_DECREF(gens);
        return NULL;
    }
    n->Comp.scope = cs;
    cs->is_generator = (kind == K_GeneratorExp);
    cs->argcount = 1;
    if (sym_add(cs, L->st->str_dot0, SYM_BOUND | SYM_PARAM) < 0) {
        Py_DECREF(gens);
        return NULL;
    }
    Scope *saved = L->scope;
    int saved_loops = L->loop_depth;
    L->scope = cs;
    L->loop_depth = 0;
    int ok = 0;
    for (Py_ssize_t i = 0; i < ng; i++) {
        PyObject *g = PyList_GET_ITEM(gens, i);
        Node *cn = node_new(L, K_comprehension, NULL);
        if (cn == NULL) {
            goto done;
        }
        PyObject *isasync = PyObject_GetAttrString(g, "is_async");
        if (isasync == NULL) {
            goto done;
        }
        int ia = PyObject_IsTrue(isasync);
        Py_DECREF(isasync);
        if (ia) {
            cn->flags |= NF_ASYNC_FOR;
            comp_async(L); /* the scope is the comprehension's (cs) */
        }
        if (i == 0) {
            cn->comprehension.iter = first_iter;
        }
        else if (lower_opt_expr(L, g, F_iter, &cn->comprehension.iter) < 0) {
            goto done;
        }
        if (lower_fields_comprehension(L, g, cn) < 0) {
            goto done;
        }
        n->Comp.generators[i] = cn;
    }
    if (kind == K_DictComp) {
        if (lower_opt_expr(L, o, F_key, &n->Comp.elt) < 0 ||
            lower_opt_expr(L, o, F_value, &n->Comp.value) < 0) {
            goto done;
        }
        if (n->Comp.value == NULL) {
            n->flags |= NF_HAS_STAR; /* PEP 798: `{**m for ...}` */
        }
    }
    else {
        /* PEP 798 (3.15): `[*x for ...]` unpacks its element */
        PyObject *elt = getf(L, o, F_elt);
        int ek = elt ? kind_of(L, elt) : -1000;
        int starred = ek == K_Starred;
        PyObject *inner = starred ? getf(L, elt, F_value) : NULL;
        if (ek == -1000 || (starred && inner == NULL)) {
            Py_XDECREF(elt);
            goto done;
        }
        n->Comp.elt = lower_expr(L, starred ? inner : elt);
        Py_XDECREF(inner);
        Py_DECREF(elt);
        if (n->Comp.elt == NULL) {
            goto done;
        }
        if (starred) {
            n->flags |= NF_HAS_STAR;
        }
    }
    ok = 1;
done:
    L->scope = saved;
    L->loop_depth = saved_loops;
    Py_DECREF(gens);
    return ok ? n : NULL;
}

/* Call (nodes.def). */
static Node *
lower_call(Lower *L, PyObject *o)
{
    Node *n = node_new(L, K_Call, o);
    if (n == NULL) {
        return NULL;
    }
    if (lower_fields_Call(L, o, n) < 0) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < n->Call.nargs; i++) {
        if (n->Call.args[i]->kind == K_Starred) {
            n->flags |= NF_STAR_ARGS;
        }
    }
    PyObject *kws = getf(L, o, F_keywords);
    if (kws == NULL) {
        return NULL;
    }
    Py_ssize_t nk = PyList_GET_SIZE(kws);
    n->Call.nkeywords = nk;
    PyObject *kwnames = NULL;
    if (nk) {
        n->Call.keywords = arena_alloc(L->prog, nk * sizeof(Node *));
        kwnames = PyTuple_New(nk);
        if (n->Call.keywords == NULL || kwnames == NULL) {
            Py_XDECREF(kwnames);
            Py_DECREF(kws);
            return NULL;
        }
    }
    for (Py_ssize_t i = 0; i < nk; i++) {
        PyObject *kw = PyList_GET_ITEM(kws, i);
        Node *kn = node_new(L, K_keyword, kw);
        int err = 0;
        if (kn == NULL) {
            goto fail;
        }
        PyObject *argname = getf_opt(L, kw, F_arg, &err);
        if (err) {
            goto fail;
        }
        if (argname) {
            PyUnicode_InternInPlace(&argname);
            kn->obj = keep_steal(L, argname);
            if (kn->obj == NULL) {
                goto fail;
            }
            for (Py_ssize_t j = 0; j < i; j++) {
                PyObject *prev = PyTuple_GET_ITEM(kwnames, j);
                if (prev == kn->obj ||
                    (prev != Py_None && PyUnicode_Compare(prev, kn->obj) == 0)) {
                    L->needs_compile_check = 1; /* "keyword argument repeated" */
                }
            }
            Py_INCREF(kn->obj);
            PyTuple_SET_ITEM(kwnames, i, kn->obj);
        }
        else {
            n->flags |= NF_STAR_ARGS;
            Py_INCREF(Py_None);
            PyTuple_SET_ITEM(kwnames, i, Py_None);
        }
        if (lower_fields_keyword(L, kw, kn) < 0) {
            goto fail;
        }
        n->Call.keywords[i] = kn;
    }
    Py_DECREF(kws);
    if (kwnames) {
        n->obj = keep_steal(L, kwnames);
        if (n->obj == NULL) {
            return NULL;
        }
    }
    if (n->Call.func->kind == K_Name && n->Call.nargs == 0 &&
        n->Call.nkeywords == 0 &&
        PyUnicode_Compare(n->Call.func->obj, L->st->str_super) == 0) {
        n->flags |= NF_SUPER_CALL;
    }
    if (n->Call.func->kind == K_Name && n->Call.nkeywords == 0 &&
        !(n->flags & NF_STAR_ARGS) &&
        ((n->Call.nargs == 2 &&
          PyUnicode_CompareWithASCIIString(n->Call.func->obj, "isinstance") ==
              0) ||
         (n->Call.nargs == 1 &&
          PyUnicode_CompareWithASCIIString(n->Call.func->obj, "len") == 0))) {
        n->flags |= NF_BUILTIN_CALL;
    }
    return n;
fail:
    Py_XDECREF(kwnames);
    Py_DECREF(kws);
    return NULL;
}

/* `__debug__`: the constant `not sys.flags.optimize`, as CPython's
 * compiler folds it.  New node, or NULL with an exception. */
static Node *
lower_debug_constant(Lower *L, PyObject *o)
{
    PyObject *flags = PySys_GetObject("flags"); /* borrowed */
    PyObject *opt =
        flags ? PyObject_GetAttrString(flags, "optimize") : NULL;
    if (opt == NULL) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_RuntimeError, "sys.flags is missing");
        }
        return NULL;
    }
    int optimized = PyObject_IsTrue(opt);
    Py_DECREF(opt);
    if (optimized < 0) {
        return NULL;
    }
    Node *n = node_new(L, K_Constant, o);
    if (n == NULL) {
        return NULL;
    }
    n->obj = keep_steal(L, PyBool_FromLong(!optimized));
    return n->obj ? n : NULL;
}

/* A new K_Constant node for `value` (stolen) at the position of `n`, which
 * it replaces (the folds below; `n` stays unused in the arena), charging
 * `extra` operations beyond its own: those of the nodes it replaces, so
 * that the operation count is smolagents' (capped: a literal is bounded by
 * the source's size anyway). */
static Node *
constant_at(Lower *L, Node *n, PyObject *value, uint64_t extra)
{
    Node *c = node_new(L, K_Constant, NULL);
    if (c == NULL) {
        Py_DECREF(value);
        return NULL;
    }
    c->Constant.extra_ops = extra > UINT32_MAX ? UINT32_MAX : (uint32_t)extra;
    c->lineno = n->lineno;
    c->col = n->col;
    c->end_lineno = n->end_lineno;
    c->end_col = n->end_col;
    c->obj = keep_steal(L, value);
    return c->obj ? c : NULL;
}

/* A tuple display whose elements are all constants (after lowering, so
 * nested displays of constants are folded first) becomes one constant, as
 * CPython's AST optimizer folds it: evaluated once, at lowering, and the
 * same object at every evaluation.  The elements' values are immutable
 * (ast.Constant holds only str, bytes, numbers, bool, None, Ellipsis and
 * tuples made here). */
/* The key of a constant as an element of a folded tuple: equal keys make
 * one object, as CPython's compiler merges equal constants of a code
 * object (_PyCode_ConstantKey): a tuple (folded already: one object per
 * key) by identity, a float or complex by its bits (0.0 and -0.0 differ),
 * anything else by its type and value (1, 1.0 and True differ).  New
 * reference or NULL. */
static PyObject *
const_key(PyObject *v)
{
    PyTypeObject *tp = Py_TYPE(v);
    if (tp == &PyTuple_Type) {
        return PyLong_FromVoidPtr(v);
    }
    if (tp == &PyFloat_Type || tp == &PyComplex_Type) {
        double d[2] = {0, 0};
        if (tp == &PyFloat_Type) {
            d[0] = PyFloat_AS_DOUBLE(v);
        }
        else {
            d[0] = PyComplex_RealAsDouble(v);
            d[1] = PyComplex_ImagAsDouble(v);
        }
        return Py_BuildValue("(Oy#)", (PyObject *)tp, (const char *)d,
                             (Py_ssize_t)sizeof(d));
    }
    return PyTuple_Pack(2, (PyObject *)tp, v);
}

static Node *
fold_constant_tuple(Lower *L, Node *n)
{
    PyObject *t = PyTuple_New(n->Seq.nelts);
    PyObject *key = t ? PyTuple_New(n->Seq.nelts) : NULL;
    if (key == NULL) {
        Py_XDECREF(t);
        return NULL;
    }
    uint64_t extra = 0; /* each element, with what it folds */
    for (Py_ssize_t i = 0; i < n->Seq.nelts; i++) {
        PyObject *v = n->Seq.elts[i]->obj;
        PyObject *k = const_key(v);
        if (k == NULL) {
            Py_DECREF(t);
            Py_DECREF(key);
            return NULL;
        }
        PyTuple_SET_ITEM(t, i, Py_NewRef(v));
        PyTuple_SET_ITEM(key, i, k);
        extra += 1 + (uint64_t)n->Seq.elts[i]->Constant.extra_ops;
    }
    /* equal displays of one program are one object (`(1, 2) is (1, 2)`) */
    if (L->tuple_consts == NULL && (L->tuple_consts = PyDict_New()) == NULL) {
        Py_DECREF(t);
        Py_DECREF(key);
        return NULL;
    }
    PyObject *first = PyDict_SetDefault(L->tuple_consts, key, t); /* borrowed */
    Py_DECREF(key);
    if (first == NULL) {
        Py_DECREF(t);
        return NULL;
    }
    Py_INCREF(first);
    Py_DECREF(t);
    return constant_at(L, n, first, extra);
}

/* `-c`, `+c` and `~c` of an int, float or complex constant become a
 * constant, as CPython's AST optimizer folds them (so that `(-1, 0)` is a
 * constant tuple too); also `-True` / `+True` (`~True` warns from 3.12 and
 * is left to run time).
 * `n` itself when nothing is folded; NULL with an exception. */
static Node *
fold_constant_sign(Lower *L, Node *n)
{
    Node *operand = n->UnaryOp.operand;
    if (operand->kind != K_Constant || n->op == UOP_Not) {
        return n;
    }
    PyObject *v = operand->obj;
    PyTypeObject *tp = Py_TYPE(v);
    if (tp != &PyLong_Type && tp != &PyFloat_Type && tp != &PyComplex_Type &&
        tp != &PyBool_Type) {
        return n;
    }
    if (tp != &PyLong_Type && n->op == UOP_Invert) {
        return n; /* a TypeError, or 3.12's warning for `~True`, at run time */
    }
    PyObject *r = n->op == UOP_USub   ? PyNumber_Negative(v)
                  : n->op == UOP_UAdd ? PyNumber_Positive(v)
                                      : PyNumber_Invert(v);
    /* the operand, with what it folds */
    return r ? constant_at(L, n, r, 1 + (uint64_t)operand->Constant.extra_ops)
             : NULL;
}

static Node *
lower_expr(Lower *L, PyObject *o)
{
    int star_ok = L->star_ok;
    L->star_ok = 0;
    if (check_stack(L) < 0) {
        return NULL;
    }
    int kind = kind_of(L, o);
    if (kind == -1000) {
        return NULL;
    }
    if (kind < 0) {
        return refuse_kind(L, o, kind);
    }
    Node *n;
    switch ((NodeKind)kind) {
    case K_BoolOp: {
        n = node_new(L, kind, o);
        if (n == NULL) {
            return NULL;
        }
        PyObject *op = getf(L, o, F_op);
        if (op == NULL) {
            return NULL;
        }
        n->op = (uint8_t)op_of(L, op);
        Py_DECREF(op);
        if (lower_fields_BoolOp(L, o, n) < 0) {
            return NULL;
        }
        return n;
    }
    case K_NamedExpr: {
        L->needs_compile_check = 1; /* comprehension rebinding rules */
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_NamedExpr(L, o, n) < 0) {
            return NULL;
        }
        PyObject *t = getf(L, o, F_target);
        if (t == NULL) {
            return NULL;
        }
        PyObject *rawid = getf(L, t, F_id);
        PyObject *id = rawid ? mangle(L, rawid) : NULL;
        Py_XDECREF(rawid);
        Node *tn = id ? node_new(L, K_Name, t) : NULL;
        Py_DECREF(t);
        if (tn == NULL) {
            Py_XDECREF(id);
            return NULL;
        }
        PyUnicode_InternInPlace(&id);
        tn->obj = keep_steal(L, id);
        if (tn->obj == NULL) {
            return NULL;
        }
        Scope *s = L->scope;
        if (s->type == SC_COMPREHENSION) {
            /* declare through every comprehension up to the target scope */
            Scope *target = s;
            while (target->type == SC_COMPREHENSION) {
                target = target->parent;
            }
            if (target->type == SC_CLASS) {
                return syntax_error(L, n,
                                    "assignment expression within a "
                                    "comprehension cannot be "
                                    "used in a class body",
                                    NULL),
                       (Node *)NULL;
            }
            /* as CPython's symtable: global in the comprehensions when
               the target scope is the module or declares it global */
            int global = target->type == SC_MODULE ||
                         (sym_get(target, tn->obj) & SYM_GLOBAL);
            for (Scope *c = s; c != target; c = c->parent) {
                if (sym_add(c, tn->obj,
                            global ? SYM_GLOBAL : SYM_NONLOCAL) < 0) {
                    return NULL;
                }
            }
            if (sym_add(target, tn->obj, SYM_BOUND) < 0) {
                return NULL;
            }
            tn->op = CTX_Store;
            if (scope_add_name_node(s, tn) < 0) {
                return NULL;
            }
        }
        else if (note_name(L, tn, CTX_Store) < 0) {
            return NULL;
        }
        n->NamedExpr.target = tn;
        return n;
    }
    case K_BinOp: {
        n = node_new(L, kind, o);
        if (n == NULL) {
            return NULL;
        }
        PyObject *op = getf(L, o, F_op);
        if (op == NULL) {
            return NULL;
        }
        n->op = (uint8_t)op_of(L, op);
        Py_DECREF(op);
        if (lower_fields_BinOp(L, o, n) < 0 ||
            note_at_hand(L, n, n->BinOp.left, n->BinOp.right) < 0) {
            return NULL;
        }
        return n;
    }
    case K_UnaryOp: {
        n = node_new(L, kind, o);
        if (n == NULL) {
            return NULL;
        }
        PyObject *op = getf(L, o, F_op);
        if (op == NULL) {
            return NULL;
        }
        n->op = (uint8_t)op_of(L, op);
        Py_DECREF(op);
        if (lower_fields_UnaryOp(L, o, n) < 0) {
            return NULL;
        }
        return fold_constant_sign(L, n);
    }
    case K_Lambda:
        return lower_function(L, o, K_Lambda);
    case K_IfExp:
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_IfExp(L, o, n) < 0) {
            return NULL;
        }
        return n;
    case K_Dict:
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_Dict(L, o, n) < 0) {
            return NULL;
        }
        n->flags |= NF_CONST_KEYS;
        for (Py_ssize_t i = 0; i < n->Dict.nvalues; i++) {
            if (n->Dict.keys[i] == NULL) {
                n->flags = (n->flags | NF_HAS_STAR) & ~NF_CONST_KEYS;
            }
            else if (n->Dict.keys[i]->kind != K_Constant) {
                n->flags &= ~NF_CONST_KEYS;
            }
        }
        return n;
    case K_Set:
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_Seq(L, o, n) < 0) {
            return NULL;
        }
        return n;
    case K_ListComp:
    case K_SetComp:
    case K_DictComp:
    case K_GeneratorExp:
        return lower_comprehension(L, o, kind);
    case K_Await:
        if (async_only(L, o, "'await'") < 0) {
            return NULL;
        }
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_Yield(L, o, n) < 0) {
            return NULL;
        }
        return n;
    case K_Yield:
    case K_YieldFrom: {
        L->needs_compile_check = 1; /* placement (comprehensions, ...) */
        n = node_new(L, kind, o);
        if (n == NULL) {
            return NULL;
        }
        Scope *s = L->scope;
        if (s->is_coroutine) {
            if (kind == K_YieldFrom) {
                return syntax_error(L, n, "'yield from' inside async function",
                                    NULL),
                       (Node *)NULL;
            }
            s->is_async_gen = 1; /* PEP 525 (generator.c) */
        }
        if (s->type == SC_MODULE || s->type == SC_CLASS) {
            return syntax_error(L, n, "'yield' outside function", NULL),
                   (Node *)NULL;
        }
        if (s->type == SC_COMPREHENSION && !s->is_generator) {
            return syntax_error(L, n, "'yield' inside list comprehension",
                                NULL),
                   (Node *)NULL;
        }
        s->is_generator = 1;
        s->nyields++;
        if (lower_fields_Yield(L, o, n) < 0) {
            return NULL;
        }
        return n;
    }
    case K_Compare: {
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_Compare(L, o, n) < 0) {
            return NULL;
        }
        PyObject *ops = getf(L, o, F_ops);
        if (ops == NULL) {
            return NULL;
        }
        Py_ssize_t ncmp = n->Compare.ncomparators;
        n->Compare.ops = arena_alloc(L->prog, ncmp + 1);
        if (n->Compare.ops == NULL) {
            Py_DECREF(ops);
            return NULL;
        }
        for (Py_ssize_t i = 0; i < ncmp; i++) {
            n->Compare.ops[i] = (uint8_t)op_of(L, PyList_GET_ITEM(ops, i));
        }
        Py_DECREF(ops);
        if (ncmp == 1 && note_at_hand(L, n, n->Compare.left,
                                      n->Compare.comparators[0]) < 0) {
            return NULL;
        }
        return n;
    }
    case K_Call:
        return lower_call(L, o);
    case K_FormattedValue:
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_FormattedValue(L, o, n) < 0) {
            return NULL;
        }
        {
            int conv = getint(L, o, F_conversion, -1);
            n->op = conv < 0 ? 0 : (uint8_t)conv;
        }
        return n;
    case K_JoinedStr:
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_JoinedStr(L, o, n) < 0) {
            return NULL;
        }
        return n;
    case K_TemplateStr:
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_TemplateStr(L, o, n) < 0) {
            return NULL;
        }
        return n;
    case K_Interpolation: {
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_Interpolation(L, o, n) < 0) {
            return NULL;
        }
        int conv = getint(L, o, F_conversion, -1);
        n->op = conv < 0 ? 0 : (uint8_t)conv;
        PyObject *text = getf(L, o, F_str);
        if (text == NULL || !PyUnicode_Check(text)) {
            if (text != NULL) {
                PyErr_SetString(PyExc_TypeError, "malformed Interpolation");
                Py_DECREF(text);
            }
            return NULL;
        }
        n->obj = keep_steal(L, text);
        return n->obj ? n : NULL;
    }
    case K_Constant: {
        n = node_new(L, kind, o);
        if (n == NULL) {
            return NULL;
        }
        PyObject *v = getf(L, o, F_value);
        if (v != NULL && PyUnicode_CheckExact(v)) {
            v = lower_str_const(L, v);
        }
        n->obj = keep_steal(L, v);
        return n->obj ? n : NULL;
    }
    case K_Attribute: {
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_Attribute(L, o, n) < 0) {
            return NULL;
        }
        PyObject *rawattr = getf(L, o, F_attr);
        if (rawattr == NULL) {
            return NULL;
        }
        PyObject *attr = mangle(L, rawattr);
        int ctx = attr ? get_ctx(L, o) : -1;
        if (ctx == CTX_Store && note_static_attribute(L, n, rawattr) < 0) {
            ctx = -1;
        }
        Py_DECREF(rawattr);
        if (attr == NULL) {
            return NULL;
        }
        PyUnicode_InternInPlace(&attr);
        n->obj = keep_steal(L, attr);
        if (n->obj == NULL || ctx < 0) {
            return NULL;
        }
        n->op = (uint8_t)ctx;
        if (policy_attr_name_plain(L->st, n->obj)) {
            n->flags |= NF_PLAIN_NAME;
        }
        return n;
    }
    case K_Subscript: {
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_Subscript(L, o, n) < 0) {
            return NULL;
        }
        int ctx = get_ctx(L, o);
        if (ctx < 0) {
            return NULL;
        }
        n->op = (uint8_t)ctx;
        return n;
    }
    case K_Starred: {
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_Starred(L, o, n) < 0) {
            return NULL;
        }
        int ctx = get_ctx(L, o);
        if (ctx < 0) {
            return NULL;
        }
        if (ctx != CTX_Load || !star_ok) {
            /* star-unpacking targets, "can't use starred expression here" */
            L->needs_compile_check = 1;
        }
        n->op = (uint8_t)ctx;
        return n;
    }
    case K_Name: {
        PyObject *rawid = getf(L, o, F_id);
        if (rawid == NULL) {
            return NULL;
        }
        if (PyUnicode_CompareWithASCIIString(rawid, "__debug__") == 0) {
            /* CPython's compiler makes `__debug__` a constant (assigning
               to it is a SyntaxError it already reported) */
            Py_DECREF(rawid);
            return lower_debug_constant(L, o);
        }
        n = node_new(L, kind, o);
        if (n == NULL) {
            Py_DECREF(rawid);
            return NULL;
        }
        PyObject *id = mangle(L, rawid);
        Py_DECREF(rawid);
        if (id == NULL) {
            return NULL;
        }
        PyUnicode_InternInPlace(&id);
        n->obj = keep_steal(L, id);
        int ctx = get_ctx(L, o);
        if (n->obj == NULL || ctx < 0) {
            return NULL;
        }
        if (note_name(L, n, ctx) < 0) {
            return NULL;
        }
        return n;
    }
    case K_List:
    case K_Tuple: {
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_Seq(L, o, n) < 0) {
            return NULL;
        }
        int ctx = get_ctx(L, o);
        if (ctx < 0) {
            return NULL;
        }
        n->op = (uint8_t)ctx;
        int all_constant = kind == K_Tuple && ctx == CTX_Load;
        for (Py_ssize_t i = 0; i < n->Seq.nelts; i++) {
            if (n->Seq.elts[i]->kind == K_Starred) {
                n->flags |= NF_HAS_STAR;
            }
            if (n->Seq.elts[i]->kind != K_Constant) {
                all_constant = 0;
            }
        }
        if (all_constant) {
            return fold_constant_tuple(L, n);
        }
        return n;
    }
    case K_Slice:
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_Slice(L, o, n) < 0) {
            return NULL;
        }
        return n;
        /* not expressions */
        /* every kind of the other categories (nodes.def): a kind
       added there must be handled above or listed here */
#define STMT(n, f) case K_##n:
#define PAT(n, f) case K_##n:
#define AUX(n, f) case K_##n:
#include "ir/nodes.def"
    case K__COUNT:
        break;
    }
    PyErr_Format(PyExc_TypeError, "expected an expression, got %s",
                 Py_TYPE(o)->tp_name);
    return NULL;
}

/* Patterns (nodes.def).  Capture targets are Name stores. */
static Node *
lower_capture(Lower *L, PyObject *o, int field, Node *pos, Node **out)
{
    int err = 0;
    PyObject *nm = getf_opt(L, o, field, &err);
    *out = NULL;
    if (err) {
        return NULL;
    }
    if (nm == NULL) {
        return pos;
    }
    *out = name_target(L, nm, pos);
    Py_DECREF(nm);
    return *out ? pos : NULL;
}

static Node *
lower_pattern(Lower *L, PyObject *o)
{
    if (check_stack(L) < 0) {
        return NULL;
    }
    int kind = kind_of(L, o);
    if (kind == -1000) {
        return NULL;
    }
    Node *n = node_new(L, kind, o);
    if (n == NULL) {
        return NULL;
    }
    switch (kind) {
    case K_MatchValue:
        return lower_fields_MatchValue(L, o, n) < 0 ? NULL : n;
    case K_MatchSingleton:
        n->obj = keep_steal(L, getf(L, o, F_value));
        return n->obj ? n : NULL;
    case K_MatchSequence:
    case K_MatchOr:
        return lower_fields_Patterns(L, o, n) < 0 ? NULL : n;
    case K_MatchMapping:
        if (lower_fields_MatchMapping(L, o, n) < 0) {
            return NULL;
        }
        return lower_capture(L, o, F_rest, n, &n->MatchMapping.rest);
    case K_MatchClass: {
        if (lower_fields_MatchClass(L, o, n) < 0) {
            return NULL;
        }
        PyObject *attrs = getf(L, o, F_kwd_attrs);
        if (attrs == NULL) {
            return NULL;
        }
        n->obj = keep_steal(L, PyList_AsTuple(attrs));
        Py_DECREF(attrs);
        return n->obj ? n : NULL;
    }
    case K_MatchStar:
        return lower_capture(L, o, F_name, n, &n->MatchStar.target);
    case K_MatchAs:
        if (lower_fields_MatchAs(L, o, n) < 0) {
            return NULL;
        }
        return lower_capture(L, o, F_name, n, &n->MatchAs.target);
    default:
        PyErr_Format(PyExc_TypeError, "expected a pattern, got %s",
                     Py_TYPE(o)->tp_name);
        return NULL;
    }
}

static Node *
lower_handler(Lower *L, PyObject *o)
{
    Node *n = node_new(L, K_ExceptHandler, o);
    if (n == NULL || lower_fields_ExceptHandler(L, o, n) < 0) {
        return NULL;
    }
    if (n->ExceptHandler.type == NULL) {
        L->needs_compile_check = 1; /* "default 'except:' must be last" */
    }
    if (lower_capture(L, o, F_name, n, &n->ExceptHandler.target) == NULL) {
        return NULL;
    }
    if (lower_body(L, o, F_body, &n->ExceptHandler.body,
                   &n->ExceptHandler.nbody) < 0) {
        return NULL;
    }
    return n;
}

static Node *
lower_withitem(Lower *L, PyObject *o)
{
    Node *n = node_new(L, K_withitem, NULL);
    if (n == NULL || lower_fields_withitem(L, o, n) < 0) {
        return NULL;
    }
    return n;
}

static Node *
lower_case(Lower *L, PyObject *o)
{
    Node *n = node_new(L, K_match_case, NULL);
    if (n == NULL || lower_fields_match_case(L, o, n) < 0) {
        return NULL;
    }
    n->lineno = n->match_case.pattern->lineno;
    return n;
}

/* alias (nodes.def) for Import and ImportFrom. */
static Node *
lower_alias(Lower *L, PyObject *o, int from)
{
    Node *n = node_new(L, K_alias, o);
    if (n == NULL) {
        return NULL;
    }
    PyObject *name = getf(L, o, F_name);
    if (name == NULL) {
        return NULL;
    }
    n->obj = keep_steal(L, name);
    if (n->obj == NULL) {
        return NULL;
    }
    int err = 0;
    PyObject *as = getf_opt(L, o, F_asname, &err);
    if (err) {
        return NULL;
    }
    if (as) {
        n->flags = 1;
        n->alias.target = name_target(L, as, n);
        Py_DECREF(as);
        return n->alias.target ? n : NULL;
    }
    if (from && PyUnicode_CompareWithASCIIString(n->obj, "*") == 0) {
        L->needs_compile_check = 1;
        if (L->scope->type != SC_MODULE) {
            return syntax_error(L, n, "import * only allowed at module level",
                                NULL),
                   (Node *)NULL;
        }
        return n;
    }
    PyObject *first;
    Py_ssize_t dot =
        PyUnicode_FindChar(n->obj, '.', 0, PyUnicode_GET_LENGTH(n->obj), 1);
    if (dot == -2) {
        return NULL;
    }
    if (dot >= 0 && !from) {
        first = PyUnicode_Substring(n->obj, 0, dot);
    }
    else {
        first = n->obj;
        Py_INCREF(first);
    }
    if (first == NULL) {
        return NULL;
    }
    n->alias.target = name_target(L, first, n);
    Py_DECREF(first);
    return n->alias.target ? n : NULL;
}

static Node *
lower_alias_import(Lower *L, PyObject *o)
{
    return lower_alias(L, o, 0);
}

static Node *
lower_alias_from(Lower *L, PyObject *o)
{
    return lower_alias(L, o, 1);
}

/* ------------------------------------------------ annotation scopes */

/* `s`, an annotation scope (PEP 695's, a lazily evaluated part of a type
 * parameter or alias, PEP 649's) made in the current scope, sees the
 * class's names first when that scope is a class body or an annotation
 * scope that does, as CPython's can_see_class_scope: the free variable
 * __classdict__ (the namespace; the class's dict once it is made) and
 * NAME_CLASSDICT_GLOBAL / NAME_CLASSDICT_DEREF loads (assign_slots). */
static int
see_class_scope(Lower *L, Scope *s)
{
    Scope *in = L->scope;
    if (in->type == SC_CLASS || (in->transparent && in->sees_class)) {
        s->sees_class = 1;
        return sym_add(s, L->st->str_classdict, SYM_USED);
    }
    return 0;
}

/* ------------------------------------------------ PEP 695 type parameters */

/* A Lambda ast node `lambda <params>: expr`, placed at expr (new ref). */
static PyObject *
thunk_ast(Lower *L, PyObject *params, PyObject *expr)
{
    PyObject *ast = L->st->ast_module;
    PyObject *args = NULL, *arguments = NULL, *lam = NULL, *kw = NULL;
    PyObject *res = NULL;
    Py_ssize_t n = PyList_GET_SIZE(params);
    args = PyList_New(n);
    if (args == NULL) {
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *a = PyObject_CallMethod(ast, "arg", "OOO",
                                          PyList_GET_ITEM(params, i), Py_None,
                                          Py_None);
        if (a == NULL) {
            goto done;
        }
        PyList_SET_ITEM(args, i, a);
    }
    kw = Py_BuildValue("{s[]sOsOs[]s[]sOs[]}", "posonlyargs", "args", args,
                       "vararg", Py_None, "kwonlyargs", "kw_defaults",
                       "kwarg", Py_None, "defaults");
    PyObject *cls = kw ? PyObject_GetAttrString(ast, "arguments") : NULL;
    if (cls == NULL) {
        goto done;
    }
    PyObject *noargs = PyTuple_New(0);
    arguments = noargs ? PyObject_Call(cls, noargs, kw) : NULL;
    Py_XDECREF(noargs);
    Py_DECREF(cls);
    if (arguments == NULL) {
        goto done;
    }
    lam = PyObject_CallMethod(ast, "Lambda", "OO", arguments, expr);
    if (lam == NULL) {
        goto done;
    }
    static const int locs[] = {F_lineno, F_col_offset, F_end_lineno,
                               F_end_col_offset};
    for (int i = 0; i < 4; i++) {
        PyObject *v = getf(L, expr, locs[i]);
        if (v == NULL) {
            PyErr_Clear();
            continue;
        }
        int r = PyObject_SetAttr(lam, fieldname(L->st, locs[i]), v);
        Py_DECREF(v);
        if (r < 0) {
            goto done;
        }
    }
    res = Py_NewRef(lam);
done:
    Py_XDECREF(kw);
    Py_XDECREF(lam);
    Py_XDECREF(arguments);
    Py_XDECREF(args);
    return res;
}

/* Append a new str made of `cs` to the list.  0 / -1. */
static int
append_cstr(PyObject *list, const char *cs)
{
    PyObject *u = PyUnicode_FromString(cs);
    int r = u ? PyList_Append(list, u) : -1;
    Py_XDECREF(u);
    return r;
}

/* Append a thunk for `expr` to `thunks` (a list of ast.Lambda) and write
 * the call of it, as the helper source sees it, to `src`.  0 / -1. */
static int
add_thunk(Lower *L, PyObject *thunks, PyObject *src, PyObject *fname,
          PyObject *params, PyObject *call_args, PyObject *expr)
{
    PyObject *lam = thunk_ast(L, params, expr);
    if (lam == NULL) {
        return -1;
    }
    PyObject *part = PyUnicode_FromFormat("%U[%zd](%U)", fname,
                                          PyList_GET_SIZE(thunks), call_args);
    int r = (part == NULL || PyList_Append(thunks, lam) < 0 ||
             PyList_Append(src, part) < 0)
                ? -1
                : 0;
    Py_XDECREF(part);
    Py_DECREF(lam);
    return r;
}

/* Code object `code` with every nested code object's co_qualname that starts
 * with `old` starting with `new` instead (recursively through co_consts).
 * New ref. */
static PyObject *
requalify_code(PyObject *code, PyObject *old, PyObject *new)
{
    PyObject *qual = PyObject_GetAttrString(code, "co_qualname");
    PyObject *consts = qual ? PyObject_GetAttrString(code, "co_consts") : NULL;
    PyObject *nconsts = NULL, *nqual = NULL, *res = NULL;
    if (consts == NULL || !PyTuple_Check(consts) || !PyUnicode_Check(qual)) {
        if (consts != NULL) {
            PyErr_SetString(PyExc_SystemError, "malformed code object");
        }
        goto done;
    }
    nconsts = PyTuple_New(PyTuple_GET_SIZE(consts));
    if (nconsts == NULL) {
        goto done;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(consts); i++) {
        PyObject *c = PyTuple_GET_ITEM(consts, i);
        PyObject *nc = PyCode_Check(c) ? requalify_code(c, old, new)
                                       : Py_NewRef(c);
        if (nc == NULL) {
            goto done;
        }
        PyTuple_SET_ITEM(nconsts, i, nc);
    }
    int starts = PyUnicode_Tailmatch(qual, old, 0, PY_SSIZE_T_MAX, -1);
    if (starts < 0) {
        goto done;
    }
    if (starts) {
        PyObject *rest = PyUnicode_Substring(qual, PyUnicode_GET_LENGTH(old),
                                             PyUnicode_GET_LENGTH(qual));
        nqual = rest ? PyUnicode_Concat(new, rest) : NULL;
        Py_XDECREF(rest);
        if (nqual == NULL) {
            goto done;
        }
    }
    else {
        nqual = Py_NewRef(qual);
    }
    PyObject *replace = PyObject_GetAttrString(code, "replace");
    PyObject *empty = replace ? PyTuple_New(0) : NULL;
    PyObject *kw = empty ? Py_BuildValue("{sOsO}", "co_qualname", nqual,
                                         "co_consts", nconsts)
                         : NULL;
    res = kw ? PyObject_Call(replace, empty, kw) : NULL;
    Py_XDECREF(kw);
    Py_XDECREF(empty);
    Py_XDECREF(replace);
done:
    Py_XDECREF(nqual);
    Py_XDECREF(nconsts);
    Py_XDECREF(consts);
    Py_XDECREF(qual);
    return res;
}

/* The qualified-name prefix of a definition in the current scope, as
 * CPython computes it ("", "f.<locals>.", "C.").  New ref. */
static PyObject *
scope_qualname_prefix(Lower *L)
{
    Scope *s = L->scope;
    while (s != NULL && s->transparent) {
        s = s->parent;
    }
    if (s == NULL || s->type == SC_MODULE) {
        return PyUnicode_FromString("");
    }
    if (s->type == SC_FUNCTION || s->type == SC_COMPREHENSION) {
        return PyUnicode_FromFormat("%U.<locals>.", s->qualname);
    }
    return PyUnicode_FromFormat("%U.", s->qualname);
}

/* What CPython's helper (lower_type_params) makes from type parameters. */
typedef enum {
    TP_ALIAS, /* `type Name[params] = value`: returns the TypeAliasType */
    TP_DEF,   /* returns (params, *params), params the __type_params__ tuple */
    TP_CLASS, /* returns (params, Generic[params], *params) */
} TypeParamsMode;

/* `type Name[params] = value` (3.12+, PEP 695), and the type parameters of
 * a generic function or class (lower_generic).  The objects are CPython's
 * own: a helper compiled by CPython from generated source,
 * `def _mk(f): type Name[params] = f[0](params); return Name` (or
 * `def Name[params](): pass`, `class Name[params]: pass` returning the
 * parameters), receives the value (and each bound, constraint and default)
 * as an interpreted function of the type parameters, so that CPython's
 * alias, TypeVar, ParamSpec and TypeVarTuple objects evaluate them on first
 * access, in the scope of the statement.  Identifiers in the source come
 * from the parser; nothing else of the user's reaches it.
 *
 * Node: obj = the helper's code object, thunks (Lambda nodes, evaluated in
 * the current scope to functions), target: where the result is stored
 * (`target`, an ast target, is lowered here).  `name`, `tparams`, `value`
 * (TP_ALIAS only) and `target` are borrowed. */
static Node *
lower_type_params(Lower *L, PyObject *o, PyObject *name, PyObject *tparams,
                  PyObject *value, TypeParamsMode mode, PyObject *target)
{
    Node *n = node_new(L, K_TypeAlias, o);
    PyObject *pnames = NULL;
    PyObject *thunks = NULL, *src = NULL, *fname = NULL, *call_args = NULL;
    PyObject *comma = NULL, *text = NULL, *code = NULL;
    Node *res = NULL;
    if (n == NULL) {
        goto done;
    }
    if (!PyList_Check(tparams) || !PyUnicode_Check(name)) {
        PyErr_SetString(PyExc_TypeError, "malformed TypeAlias node");
        goto done;
    }
    Py_ssize_t np = PyList_GET_SIZE(tparams);
    pnames = PyList_New(0);
    thunks = PyList_New(0);
    src = PyList_New(0);
    comma = PyUnicode_FromString(", ");
    if (!pnames || !thunks || !src || !comma) {
        goto done;
    }
    for (Py_ssize_t i = 0; i < np; i++) {
        PyObject *pn = getf(L, PyList_GET_ITEM(tparams, i), F_name);
        int r = pn ? PyList_Append(pnames, pn) : -1;
        Py_XDECREF(pn);
        if (r < 0) {
            goto done;
        }
    }
    /* the helper's parameter: a name no type parameter or alias uses */
    fname = PyUnicode_FromString("_sn_thunks");
    while (fname != NULL) {
        int clash = PyUnicode_Compare(fname, name) == 0;
        for (Py_ssize_t i = 0; !clash && i < np; i++) {
            clash = PyUnicode_Compare(fname, PyList_GET_ITEM(pnames, i)) == 0;
        }
        if (!clash) {
            break;
        }
        Py_SETREF(fname, PyUnicode_FromFormat("%U_", fname));
    }
    if (fname == NULL || (call_args = PyUnicode_Join(comma, pnames)) == NULL) {
        goto done;
    }
    /* "def _mk(F):\n type Name[" */
    text = PyUnicode_FromFormat("def _mk(%U):\n %s %U", fname,
                                mode == TP_ALIAS ? "type"
                                : mode == TP_DEF ? "def"
                                                 : "class",
                                name);
    if (text == NULL || PyList_Append(src, text) < 0) {
        goto done;
    }
    if (np > 0 && append_cstr(src, "[") < 0) {
        goto done;
    }
    for (Py_ssize_t i = 0; i < np; i++) {
        PyObject *p = PyList_GET_ITEM(tparams, i);
        int kind = kind_of(L, p);
        if (kind == -1000) {
            goto done;
        }
        const char *prefix = kind == K_TypeVarTuple ? "*"
                             : kind == K_ParamSpec  ? "**"
                                                    : "";
        Py_SETREF(text, PyUnicode_FromFormat("%s%s%U", i ? ", " : "", prefix,
                                             PyList_GET_ITEM(pnames, i)));
        if (text == NULL || PyList_Append(src, text) < 0) {
            goto done;
        }
        int err = 0;
        if (kind == K_TypeVar) {
            PyObject *bound = getf_opt(L, p, F_bound, &err);
            if (err) {
                goto done;
            }
            if (bound != NULL) {
                int r = 0;
                PyObject *tuple_cls =
                    PyObject_GetAttrString(L->st->ast_module, "Tuple");
                int is_tuple =
                    tuple_cls != NULL && (PyObject *)Py_TYPE(bound) == tuple_cls;
                Py_XDECREF(tuple_cls);
                PyObject *elts = is_tuple ? getf(L, bound, F_elts) : NULL;
                if (tuple_cls == NULL || (is_tuple && elts == NULL)) {
                    r = -1;
                }
                else if (is_tuple) {
                    /* constraints: one thunk per element, as CPython
                       recognises them by the tuple's syntax */
                    r = append_cstr(src, ": (");
                    for (Py_ssize_t j = 0; r == 0 && j < PyList_GET_SIZE(elts);
                         j++) {
                        if (j && PyList_Append(src, comma) < 0) {
                            r = -1;
                            break;
                        }
                        r = add_thunk(L, thunks, src, fname, pnames, call_args,
                                      PyList_GET_ITEM(elts, j));
                    }
                    if (r == 0) {
                        r = append_cstr(src, ",)");
                    }
                }
                else {
                    r = append_cstr(src, ": ");
                    r = r < 0 ? -1
                              : add_thunk(L, thunks, src, fname, pnames,
                                          call_args, bound);
                }
                Py_XDECREF(elts);
                Py_DECREF(bound);
                if (r < 0) {
                    goto done;
                }
            }
        }
        /* 3.13+: a default (absent as a field before) */
        PyObject *dflt = NULL;
        if (PyObject_GetOptionalAttr(p, fieldname(L->st, F_default_value),
                                     &dflt) < 0) {
            goto done;
        }
        if (dflt != NULL && dflt != Py_None) {
            int r = append_cstr(src, " = ");
            PyObject *starred_cls =
                PyObject_GetAttrString(L->st->ast_module, "Starred");
            PyObject *inner = NULL;
            if (starred_cls != NULL && (PyObject *)Py_TYPE(dflt) == starred_cls) {
                /* `*Ts = *tuple[int, ...]` */
                inner = getf(L, dflt, F_value);
                if (r == 0 && inner != NULL) {
                    r = append_cstr(src, "*");
                }
            }
            else if (starred_cls != NULL) {
                inner = Py_NewRef(dflt);
            }
            Py_XDECREF(starred_cls);
            if (inner == NULL) {
                r = -1;
            }
            if (r == 0) {
                r = add_thunk(L, thunks, src, fname, pnames, call_args, inner);
            }
            Py_XDECREF(inner);
            if (r < 0) {
                Py_DECREF(dflt);
                goto done;
            }
        }
        Py_XDECREF(dflt);
    }
    if (np > 0 && append_cstr(src, "]") < 0) {
        goto done;
    }
    if (mode == TP_ALIAS) {
        if (append_cstr(src, " = ") < 0 ||
            add_thunk(L, thunks, src, fname, pnames, call_args, value) < 0) {
            goto done;
        }
        Py_SETREF(text, PyUnicode_FromFormat("\n return %U\n", name));
    }
    else {
        Py_SETREF(text,
                  mode == TP_DEF
                      ? PyUnicode_FromFormat(
                            "(): pass\n return (%U.__type_params__, "
                            "*%U.__type_params__)\n",
                            name, name)
                      : PyUnicode_FromFormat(
                            ": pass\n return (%U.__type_params__, "
                            "%U.__orig_bases__[0], *%U.__type_params__)\n",
                            name, name, name));
    }
    if (text == NULL || PyList_Append(src, text) < 0) {
        goto done;
    }
    /* the helper's source, compiled by CPython */
    {
        PyObject *empty = PyUnicode_FromString("");
        Py_SETREF(text, empty ? PyUnicode_Join(empty, src) : NULL);
        Py_XDECREF(empty);
    }
    if (text == NULL) {
        goto done;
    }
    const char *csrc = PyUnicode_AsUTF8(text);
    if (csrc == NULL) {
        goto done;
    }
    code = Py_CompileString(csrc,
                            mode == TP_ALIAS ? "<type alias>"
                                             : "<type parameters>",
                            Py_file_input);
    if (code != NULL && mode == TP_ALIAS) {
        /* the alias and its value are named for the statement's scope, not
           the helper's (3.15's TypeAliasType repr shows the qualname) */
        PyObject *old = PyUnicode_FromString("_mk.<locals>.");
        PyObject *prefix = old ? scope_qualname_prefix(L) : NULL;
        Py_SETREF(code, prefix ? requalify_code(code, old, prefix) : NULL);
        Py_XDECREF(prefix);
        Py_XDECREF(old);
    }
    if (code == NULL || keep(L, code) == NULL) {
        goto done;
    }
    n->obj = code;
    /* the thunks, lowered in the current scope */
    n->TypeAlias.nthunks = PyList_GET_SIZE(thunks);
    n->TypeAlias.thunks =
        arena_alloc(L->prog, n->TypeAlias.nthunks * sizeof(Node *));
    if (n->TypeAlias.thunks == NULL) {
        goto done;
    }
    for (Py_ssize_t i = 0; i < n->TypeAlias.nthunks; i++) {
        n->TypeAlias.thunks[i] =
            lower_function(L, PyList_GET_ITEM(thunks, i), K_Lambda);
        if (n->TypeAlias.thunks[i] == NULL ||
            see_class_scope(L, n->TypeAlias.thunks[i]->Function.scope) < 0) {
            goto done;
        }
    }
    n->TypeAlias.target = lower_expr(L, target);
    if (n->TypeAlias.target == NULL) {
        goto done;
    }
    res = n;
done:
    Py_XDECREF(pnames);
    Py_XDECREF(thunks);
    Py_XDECREF(src);
    Py_XDECREF(fname);
    Py_XDECREF(call_args);
    Py_XDECREF(comma);
    Py_XDECREF(text);
    Py_XDECREF(code);
    return res;
}

static Node *
lower_type_alias(Lower *L, PyObject *o)
{
    PyObject *target = NULL, *name = NULL, *tparams = NULL, *value = NULL;
    Node *n = NULL;
    if ((target = getf(L, o, F_name)) != NULL &&
        (name = getf(L, target, F_id)) != NULL &&
        (tparams = getf(L, o, F_type_params)) != NULL &&
        (value = getf(L, o, F_value)) != NULL) {
        n = lower_type_params(L, o, name, tparams, value, TP_ALIAS, target);
    }
    Py_XDECREF(target);
    Py_XDECREF(name);
    Py_XDECREF(tparams);
    Py_XDECREF(value);
    return n;
}

/* `lazy import` (PEP 810, 3.15: the is_lazy field): NF_LAZY, and CPython's
 * compile-stage checks (module level only, not in try, no star).  0 / -1. */
static int
lower_lazy_flag(Lower *L, PyObject *o, Node *n)
{
    PyObject *v = NULL;
    if (PyObject_GetOptionalAttr(o, fieldname(L->st, F_is_lazy), &v) < 0) {
        return -1;
    }
    int lazy = v != NULL && v != Py_None ? PyObject_IsTrue(v) : 0;
    Py_XDECREF(v);
    if (lazy < 0) {
        return -1;
    }
    if (lazy) {
        n->flags |= NF_LAZY;
        L->needs_compile_check = 1;
    }
    return 0;
}

/* ------------------------------------------ PEP 695 generic definitions */

/* 1 when `o` (a FunctionDef or ClassDef) has type parameters (3.12+), 0
 * when not, -1 on error. */
static int
has_type_params(Lower *L, PyObject *o)
{
    PyObject *tp = NULL;
    if (PyObject_GetOptionalAttr(o, fieldname(L->st, F_type_params), &tp) <
        0) {
        return -1;
    }
    int has = tp != NULL && PyList_Check(tp) && PyList_GET_SIZE(tp) > 0;
    Py_XDECREF(tp);
    return has;
}

/* ast.<cls>(**kw) placed at `pos` (new ref; kw may be NULL). */
static PyObject *
ast_at(Lower *L, const char *cls, PyObject *kw, PyObject *pos)
{
    PyObject *type = PyObject_GetAttrString(L->st->ast_module, cls);
    PyObject *empty = type ? PyTuple_New(0) : NULL;
    PyObject *node = empty ? PyObject_Call(type, empty, kw) : NULL;
    Py_XDECREF(empty);
    Py_XDECREF(type);
    static const int locs[] = {F_lineno, F_col_offset, F_end_lineno,
                               F_end_col_offset};
    for (int i = 0; node != NULL && pos != NULL && i < 4; i++) {
        PyObject *v = getf(L, pos, locs[i]);
        if (v == NULL) {
            PyErr_Clear();
            continue;
        }
        int r = PyObject_SetAttr(node, fieldname(L->st, locs[i]), v);
        Py_DECREF(v);
        if (r < 0) {
            Py_CLEAR(node);
        }
    }
    return node;
}

/* ast.Name(id, Load() or Store()) at `pos` (new ref). */
static PyObject *
ast_name(Lower *L, PyObject *id, int store, PyObject *pos)
{
    PyObject *ctx = ast_at(L, store ? "Store" : "Load", NULL, NULL);
    PyObject *kw = ctx ? Py_BuildValue("{sOsO}", "id", id, "ctx", ctx) : NULL;
    PyObject *node = kw ? ast_at(L, "Name", kw, pos) : NULL;
    Py_XDECREF(kw);
    Py_XDECREF(ctx);
    return node;
}

/* ast.Name of the C string `id` (new ref). */
static PyObject *
ast_name_s(Lower *L, const char *id, int store, PyObject *pos)
{
    PyObject *u = PyUnicode_InternFromString(id);
    PyObject *node = u ? ast_name(L, u, store, pos) : NULL;
    Py_XDECREF(u);
    return node;
}

#if PY_VERSION_HEX >= 0x030E0000
/* PEP 649 (3.14+): the annotation scope of deferred annotations, as a
 * FunctionDef node with no target, made in the current scope (annotate.c
 * says how it is used).  `pairs`: a list of (name, ast expression).  It is
 * the function
 *     def __annotate__(.index, /):
 *         if .index == 0: return <annotation 0>
 *         ...
 * so that each annotation is evaluated on its own (annotationlib's
 * FORWARDREF format).  Directly in a class body it sees the class's names
 * (Scope.sees_class: the free cell __classdict__, as CPython's annotation
 * scopes). */
static Node *
lower_annotate(Lower *L, PyObject *pairs, PyObject *pos)
{
    Py_ssize_t n = PyList_GET_SIZE(pairs);
    PyObject *keys = PyTuple_New(n), *srcs = PyTuple_New(n);
    PyObject *body = PyList_New(0), *argnode = NULL, *akw = NULL, *kw = NULL;
    PyObject *gargs = NULL, *name = NULL;
    Node *res = NULL;
    if (keys == NULL || srcs == NULL || body == NULL) {
        goto done;
    }
    for (Py_ssize_t i = 0; i < n; i++) {
        PyObject *pair = PyList_GET_ITEM(pairs, i);
        PyObject *key = PyTuple_GET_ITEM(pair, 0);
        PyObject *src = PyTuple_GET_ITEM(pair, 1);
        PyTuple_SET_ITEM(keys, i, Py_NewRef(key));
        PyTuple_SET_ITEM(srcs, i, Py_NewRef(src));
        PyObject *idx = ast_name_s(L, ".index", 0, src);
        PyObject *eq = idx ? ast_at(L, "Eq", NULL, NULL) : NULL;
        PyObject *num = eq ? PyLong_FromSsize_t(i) : NULL;
        PyObject *ckw = num ? Py_BuildValue("{sO}", "value", num) : NULL;
        PyObject *cst = ckw ? ast_at(L, "Constant", ckw, src) : NULL;
        PyObject *tkw = cst ? Py_BuildValue("{sOs[O]s[O]}", "left", idx, "ops",
                                            eq, "comparators", cst)
                            : NULL;
        PyObject *test = tkw ? ast_at(L, "Compare", tkw, src) : NULL;
        PyObject *rkw = test ? Py_BuildValue("{sO}", "value", src) : NULL;
        PyObject *ret = rkw ? ast_at(L, "Return", rkw, src) : NULL;
        PyObject *ikw = ret ? Py_BuildValue("{sOs[O]s[]}", "test", test,
                                            "body", ret, "orelse")
                            : NULL;
        PyObject *iff = ikw ? ast_at(L, "If", ikw, src) : NULL;
        int r = iff ? PyList_Append(body, iff) : -1;
        Py_XDECREF(iff);
        Py_XDECREF(ikw);
        Py_XDECREF(ret);
        Py_XDECREF(rkw);
        Py_XDECREF(test);
        Py_XDECREF(tkw);
        Py_XDECREF(cst);
        Py_XDECREF(ckw);
        Py_XDECREF(num);
        Py_XDECREF(eq);
        Py_XDECREF(idx);
        if (r < 0) {
            goto done;
        }
    }
    if ((akw = Py_BuildValue("{sssO}", "arg", ".index", "annotation",
                             Py_None)) == NULL ||
        (argnode = ast_at(L, "arg", akw, pos)) == NULL ||
        (kw = Py_BuildValue("{s[O]s[]sOs[]s[]sOs[]}", "posonlyargs", argnode,
                            "args", "vararg", Py_None, "kwonlyargs",
                            "kw_defaults", "kwarg", Py_None, "defaults")) ==
            NULL ||
        (gargs = ast_at(L, "arguments", kw, NULL)) == NULL ||
        (name = PyUnicode_InternFromString("__annotate__")) == NULL ||
        keep(L, name) == NULL || keep(L, keys) == NULL ||
        keep(L, srcs) == NULL) {
        goto done;
    }
    Node *g = node_new(L, K_FunctionDef, pos);
    Scope *gs = g ? scope_new(L, SC_FUNCTION, name, g) : NULL;
    if (gs == NULL) {
        goto done;
    }
    g->obj = name;
    g->Function.scope = gs;
    gs->ann_keys = keys;
    gs->ann_sources = srcs;
    if (see_class_scope(L, gs) < 0) {
        goto done;
    }
    g->Function.args = lower_arguments(L, gargs, gs, 0);
    if (g->Function.args == NULL) {
        goto done;
    }
    Scope *saved = L->scope;
    int saved_loops = L->loop_depth;
    L->scope = gs;
    L->loop_depth = 0;
    int r = lower_stmt_list(L, body, &gs->body, &gs->nbody);
    L->scope = saved;
    L->loop_depth = saved_loops;
    if (r == 0) {
        res = g;
    }
done:
    Py_XDECREF(keys);
    Py_XDECREF(srcs);
    Py_XDECREF(body);
    Py_XDECREF(argnode);
    Py_XDECREF(akw);
    Py_XDECREF(kw);
    Py_XDECREF(gargs);
    Py_XDECREF(name);
    return res;
}

/* The annotations of a def's arguments and return, as lower_annotate's
 * pairs (a new list, empty when there are none), in CPython's order
 * (positional-only, positional, *args, keyword-only, **kwargs, return),
 * under the parameters' mangled names. */
static PyObject *
def_annotations(Lower *L, PyObject *o)
{
    PyObject *pairs = PyList_New(0);
    PyObject *args = pairs ? getf(L, o, F_args) : NULL;
    if (args == NULL) {
        Py_XDECREF(pairs);
        return NULL;
    }
    static const int fl[5] = {F_posonlyargs, F_args, F_vararg, F_kwonlyargs,
                              F_kwarg};
    for (int i = 0; i < 6; i++) {
        PyObject *li = i < 5 ? getf(L, args, fl[i]) : NULL;
        if (i < 5 && li == NULL) {
            goto fail;
        }
        Py_ssize_t m = i == 5 ? 1
                       : li == Py_None ? 0
                       : PyList_Check(li) ? PyList_GET_SIZE(li)
                                          : 1;
        for (Py_ssize_t j = 0; j < m; j++) {
            PyObject *a = i == 5 ? o : PyList_Check(li) ? PyList_GET_ITEM(li, j) : li;
            PyObject *ann = getf(L, a, i == 5 ? F_returns : F_annotation);
            PyObject *key = NULL;
            if (ann != NULL && ann != Py_None) {
                if (i == 5) {
                    key = PyUnicode_InternFromString("return");
                }
                else {
                    PyObject *raw = getf(L, a, F_arg);
                    key = raw ? mangle(L, raw) : NULL;
                    Py_XDECREF(raw);
                }
            }
            PyObject *pair = key ? PyTuple_Pack(2, key, ann) : NULL;
            int r = ann == NULL                     ? -1
                    : ann == Py_None                ? 0
                    : pair != NULL                  ? PyList_Append(pairs, pair)
                                                    : -1;
            Py_XDECREF(pair);
            Py_XDECREF(key);
            Py_XDECREF(ann);
            if (r < 0) {
                Py_XDECREF(li);
                goto fail;
            }
        }
        Py_XDECREF(li);
    }
    Py_DECREF(args);
    return pairs;
fail:
    Py_DECREF(args);
    Py_DECREF(pairs);
    return NULL;
}
#endif

/* A shallow copy of the ast node `o` (new ref). */
static PyObject *
ast_copy(PyObject *o)
{
    PyObject *copy = PyImport_ImportModule("copy");
    PyObject *res = copy ? PyObject_CallMethod(copy, "copy", "O", o) : NULL;
    Py_XDECREF(copy);
    return res;
}

/* The defaults of a generic function move to its annotation scope's
 * parameters (they are evaluated in the enclosing scope, as CPython does):
 * `gargs` (new ref) gets a parameter `.dI` / `.kI` per default with the
 * default as its own, and `inner` (the function's copy) a copy of its
 * arguments whose defaults read those parameters.  0 / -1. */
static int
move_defaults(Lower *L, PyObject *o, PyObject *inner, PyObject **gargs)
{
    PyObject *args = NULL, *nargs = NULL, *defs = NULL, *kwdefs = NULL;
    PyObject *gpos = NULL, *gkw = NULL, *gdefs = NULL, *gkwdefs = NULL;
    PyObject *ndefs = NULL, *nkwdefs = NULL, *kw = NULL;
    int r = -1;
    *gargs = NULL;
    if ((args = getf(L, o, F_args)) == NULL || (nargs = ast_copy(args)) == NULL ||
        (defs = PyObject_GetAttrString(args, "defaults")) == NULL ||
        (kwdefs = PyObject_GetAttrString(args, "kw_defaults")) == NULL ||
        !PyList_Check(defs) || !PyList_Check(kwdefs) ||
        (gpos = PyList_New(0)) == NULL || (gkw = PyList_New(0)) == NULL ||
        (gdefs = PyList_New(0)) == NULL || (gkwdefs = PyList_New(0)) == NULL ||
        (ndefs = PyList_New(0)) == NULL || (nkwdefs = PyList_New(0)) == NULL) {
        if (!PyErr_Occurred()) {
            PyErr_SetString(PyExc_TypeError, "malformed arguments node");
        }
        goto done;
    }
    for (int pass = 0; pass < 2; pass++) {
        PyObject *src = pass ? kwdefs : defs;
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(src); i++) {
            PyObject *d = PyList_GET_ITEM(src, i);
            if (d == Py_None) {
                if (PyList_Append(nkwdefs, Py_None) < 0) {
                    goto done;
                }
                continue;
            }
            PyObject *pname = PyUnicode_FromFormat(".%c%zd", pass ? 'k' : 'd',
                                                   i);
            PyObject *akw = pname ? Py_BuildValue("{sO}", "arg", pname) : NULL;
            PyObject *arg = akw ? ast_at(L, "arg", akw, d) : NULL;
            PyObject *load = arg ? ast_name(L, pname, 0, d) : NULL;
            int ok = load != NULL &&
                     PyList_Append(pass ? gkw : gpos, arg) == 0 &&
                     PyList_Append(pass ? gkwdefs : gdefs, d) == 0 &&
                     PyList_Append(pass ? nkwdefs : ndefs, load) == 0;
            Py_XDECREF(load);
            Py_XDECREF(arg);
            Py_XDECREF(akw);
            Py_XDECREF(pname);
            if (!ok) {
                goto done;
            }
        }
    }
    if (PyObject_SetAttrString(nargs, "defaults", ndefs) < 0 ||
        PyObject_SetAttrString(nargs, "kw_defaults", nkwdefs) < 0 ||
        PyObject_SetAttrString(inner, "args", nargs) < 0) {
        goto done;
    }
    kw = Py_BuildValue("{s[]sOsOsOsOsOsO}", "posonlyargs", "args", gpos,
                       "vararg", Py_None, "kwonlyargs", gkw, "kw_defaults",
                       gkwdefs, "kwarg", Py_None, "defaults", gdefs);
    *gargs = kw ? ast_at(L, "arguments", kw, NULL) : NULL;
    r = *gargs ? 0 : -1;
done:
    Py_XDECREF(kw);
    Py_XDECREF(ndefs);
    Py_XDECREF(nkwdefs);
    Py_XDECREF(gdefs);
    Py_XDECREF(gkwdefs);
    Py_XDECREF(gkw);
    Py_XDECREF(gpos);
    Py_XDECREF(kwdefs);
    Py_XDECREF(defs);
    Py_XDECREF(nargs);
    Py_XDECREF(args);
    return r;
}

/* `def f[T](...)` and `class C[T](...)` (3.12+, PEP 695).  As in CPython's
 * compiler, an annotation scope (a function named `<generic parameters of
 * f>`, invisible in the qualified names of what it holds) stands between
 * the definition and the enclosing scope:
 *
 *   - the statement (kind FunctionDef or ClassDef, with only decorators,
 *     target and `generic`) evaluates the decorators, makes the annotation
 *     scope's function, whose parameters `.d0`, `.k0`... have the
 *     function's defaults as their defaults (evaluated now, in the
 *     enclosing scope, after the decorators: CPython's order), calls it,
 *     decorates the result and binds the name;
 *   - the annotation scope runs
 *         .type_params[, .generic_base], T, *Ts, **P = <CPython's helper>
 *         return <def f(x: T = .d0) -> T: ...>
 *                or <class C(bases, .generic_base, **keywords): ...>
 *     (lower_type_params, TP_DEF / TP_CLASS), so that annotations, bases
 *     and keywords see the type parameters, the body sees them as free
 *     variables, and the definition binds no name there (a recursive call
 *     in the body reads the enclosing scope's name, as in CPython).  The
 *     definition's __type_params__ (a function's attribute, a class's
 *     namespace entry set before its body) is `.type_params`; a class gets
 *     Generic[params] as its last base.
 *
 * Inside a class body the annotation scope sees the class's names first
 * (Scope.sees_class, __classdict__), as CPython's; the lazily evaluated
 * bounds, constraints and defaults do not (docs/compatibility.md). */
static Node *
lower_generic(Lower *L, PyObject *o, int kind)
{
    int is_def = kind == K_FunctionDef;
    PyObject *name = NULL, *tparams = NULL, *inner = NULL, *gargs = NULL;
    PyObject *tp_load = NULL, *elts = NULL, *target = NULL, *kw = NULL;
    PyObject *gname = NULL, *empty = NULL;
    Node *res = NULL;
    /* CPython's compile-stage checks of type parameters (duplicates, a
       non-default one after a default...) */
    L->needs_compile_check = 1;
    Node *n = node_new(L, kind, o);
    if (n == NULL || (name = getf(L, o, F_name)) == NULL ||
        (tparams = getf(L, o, F_type_params)) == NULL ||
        !PyList_Check(tparams) || !PyUnicode_Check(name)) {
        if (n != NULL && !PyErr_Occurred()) {
            PyErr_SetString(PyExc_TypeError, "malformed definition node");
        }
        goto done;
    }
    PyUnicode_InternInPlace(&name);
    if (keep(L, name) == NULL) {
        goto done;
    }
    n->obj = name;
    /* the decorators, in the enclosing scope */
    if (lower_list(L, o, F_decorator_list, lower_expr,
                   is_def ? &n->Function.decorator_list
                          : &n->ClassDef.decorator_list,
                   is_def ? &n->Function.ndecorator_list
                          : &n->ClassDef.ndecorator_list,
                   0) < 0) {
        goto done;
    }
    /* the definition the annotation scope returns: a copy of `o` without
       type parameters or decorators */
    if ((inner = ast_copy(o)) == NULL || (empty = PyList_New(0)) == NULL ||
        PyObject_SetAttrString(inner, "type_params", empty) < 0 ||
        PyObject_SetAttrString(inner, "decorator_list", empty) < 0) {
        goto done;
    }
    if (is_def) {
        if (move_defaults(L, o, inner, &gargs) < 0) {
            goto done;
        }
    }
    else {
        PyObject *bases = getf(L, o, F_bases);
        PyObject *nb = bases ? PySequence_List(bases) : NULL;
        PyObject *gb = nb ? ast_name_s(L, ".generic_base", 0, o) : NULL;
        int r = gb && PyList_Append(nb, gb) == 0 &&
                        PyObject_SetAttrString(inner, "bases", nb) == 0
                    ? 0
                    : -1;
        Py_XDECREF(gb);
        Py_XDECREF(nb);
        Py_XDECREF(bases);
        kw = Py_BuildValue("{s[]s[]sOs[]s[]sOs[]}", "posonlyargs", "args",
                           "vararg", Py_None, "kwonlyargs", "kw_defaults",
                           "kwarg", Py_None, "defaults");
        if (r < 0 || kw == NULL ||
            (gargs = ast_at(L, "arguments", kw, NULL)) == NULL) {
            goto done;
        }
    }
    /* the helper's target: .type_params[, .generic_base], T, Ts, P */
    if ((elts = PyList_New(0)) == NULL) {
        goto done;
    }
    for (Py_ssize_t i = -2; i < PyList_GET_SIZE(tparams); i++) {
        PyObject *t;
        if (i == -2) {
            t = ast_name_s(L, ".type_params", 1, o);
        }
        else if (i == -1) {
            if (is_def) {
                continue;
            }
            t = ast_name_s(L, ".generic_base", 1, o);
        }
        else {
            PyObject *p = PyList_GET_ITEM(tparams, i);
            PyObject *pn = getf(L, p, F_name);
            t = pn ? ast_name(L, pn, 1, p) : NULL;
            Py_XDECREF(pn);
        }
        int r = t ? PyList_Append(elts, t) : -1;
        Py_XDECREF(t);
        if (r < 0) {
            goto done;
        }
    }
    {
        PyObject *store = ast_at(L, "Store", NULL, NULL);
        PyObject *tkw =
            store ? Py_BuildValue("{sOsO}", "elts", elts, "ctx", store) : NULL;
        target = tkw ? ast_at(L, "Tuple", tkw, o) : NULL;
        Py_XDECREF(tkw);
        Py_XDECREF(store);
    }
    if (target == NULL ||
        (tp_load = ast_name_s(L, ".type_params", 0, o)) == NULL) {
        goto done;
    }
    /* the annotation scope */
    gname = PyUnicode_FromFormat("<generic parameters of %U>", name);
    if (gname == NULL) {
        goto done;
    }
    PyUnicode_InternInPlace(&gname);
    if (keep(L, gname) == NULL) {
        goto done;
    }
    Node *g = node_new(L, K_FunctionDef, o);
    Scope *gs = g ? scope_new(L, SC_FUNCTION, gname, g) : NULL;
    if (gs == NULL) {
        goto done;
    }
    g->obj = gname;
    gs->transparent = 1;
    if (see_class_scope(L, gs) < 0) {
        goto done;
    }
    g->Function.scope = gs;
    g->Function.args = lower_arguments(L, gargs, gs, 0);
    Node **body = g->Function.args ? arena_alloc(L->prog, 2 * sizeof(Node *))
                                   : NULL;
    Node *ret = body ? node_new(L, K_Return, o) : NULL;
    if (ret == NULL) {
        goto done;
    }
    Scope *saved = L->scope;
    int saved_loops = L->loop_depth;
    L->scope = gs;
    L->loop_depth = 0;
    body[0] = lower_type_params(L, o, name, tparams, NULL,
                                is_def ? TP_DEF : TP_CLASS, target);
    ret->Return.value =
        body[0] == NULL ? NULL
        : is_def        ? lower_function_ex(L, inner, K_FunctionDef, tp_load)
                        : lower_class_ex(L, inner, tp_load);
    body[1] = ret;
    L->scope = saved;
    L->loop_depth = saved_loops;
    if (ret->Return.value == NULL) {
        goto done;
    }
    if (!is_def && n->ClassDef.ndecorator_list) {
        ret->Return.value->ClassDef.scope->firstlineno =
            n->ClassDef.decorator_list[0]->lineno;
    }
    gs->body = body;
    gs->nbody = 2;
    /* the statement */
    Node *t = name_target(L, name, n);
    if (t == NULL) {
        goto done;
    }
    if (is_def) {
        n->Function.generic = g;
        n->Function.target = t;
    }
    else {
        n->ClassDef.generic = g;
        n->ClassDef.target = t;
    }
    res = n;
done:
    Py_XDECREF(name);
    Py_XDECREF(tparams);
    Py_XDECREF(inner);
    Py_XDECREF(gargs);
    Py_XDECREF(tp_load);
    Py_XDECREF(elts);
    Py_XDECREF(target);
    Py_XDECREF(kw);
    Py_XDECREF(gname);
    Py_XDECREF(empty);
    return res;
}

static Node *
lower_stmt(Lower *L, PyObject *o)
{
    if (check_stack(L) < 0) {
        return NULL;
    }
    int kind = kind_of(L, o);
    if (kind == -1000) {
        return NULL;
    }
    if (kind < 0) {
        return refuse_kind(L, o, kind);
    }
    Node *n;
    switch ((NodeKind)kind) {
    case K_AsyncFunctionDef: /* a FunctionDef node (lower_function_ex) */
    case K_FunctionDef:
    case K_ClassDef: {
        if (kind == K_AsyncFunctionDef) {
            kind = K_FunctionDef;
        }
        int generic = has_type_params(L, o);
        if (generic != 0) {
            return generic < 0 ? NULL : lower_generic(L, o, kind);
        }
        return kind == K_FunctionDef ? lower_function(L, o, K_FunctionDef)
                                     : lower_class_ex(L, o, NULL);
    }
    case K_Return:
        n = node_new(L, kind, o);
        if (n == NULL) {
            return NULL;
        }
        if (!is_funclike(L->scope)) {
            return syntax_error(L, n, "'return' outside function", NULL),
                   (Node *)NULL;
        }
        return lower_fields_Return(L, o, n) < 0 ? NULL : n;
    case K_Delete:
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_Delete(L, o, n) < 0) {
            return NULL;
        }
        return n;
    case K_Assign:
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_Assign(L, o, n) < 0) {
            return NULL;
        }
        return n;
    case K_AugAssign: {
        n = node_new(L, kind, o);
        if (n == NULL) {
            return NULL;
        }
        PyObject *op = getf(L, o, F_op);
        if (op == NULL) {
            return NULL;
        }
        n->op = (uint8_t)op_of(L, op);
        Py_DECREF(op);
        L->in_augassign++;
        int r = lower_fields_AugAssign(L, o, n);
        L->in_augassign--;
        if (r < 0) {
            return NULL;
        }
        /* an augmented Name target is both used and bound */
        Node *t = n->AugAssign.target;
        if (t->kind == K_Name && sym_add(L->scope, t->obj, SYM_USED) < 0) {
            return NULL;
        }
        return n;
    }
    case K_AnnAssign:
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_AnnAssign(L, o, n) < 0) {
            return NULL;
        }
        if (getint(L, o, F_simple, 0)) {
            n->flags |= NF_SIMPLE;
        }
#if PY_VERSION_HEX >= 0x030E0000
        /* PEP 649: never evaluated here; a class body's annotated names go
           to the class's annotation scope (lower_class_ex); PEP 563's
           strings as before 3.14 */
        if (L->future_annotations) {
            if (lower_opt_annotation(L, o, F_annotation,
                                     &n->AnnAssign.annotation) < 0) {
                return NULL;
            }
        }
        else if (L->scope->type == SC_CLASS && (n->flags & NF_SIMPLE)) {
            PyObject *ann = getf(L, o, F_annotation);
            n->slot = L->scope->class_anns
                          ? (int)PyList_GET_SIZE(L->scope->class_anns)
                          : 0; /* its index, recorded when it runs */
            PyObject *pair =
                ann ? PyTuple_Pack(2, n->AnnAssign.target->obj, ann) : NULL;
            int r = pair == NULL ? -1
                    : L->scope->class_anns == NULL &&
                            (L->scope->class_anns = PyList_New(0)) == NULL
                        ? -1
                        : PyList_Append(L->scope->class_anns, pair);
            Py_XDECREF(pair);
            Py_XDECREF(ann);
            if (r < 0) {
                return NULL;
            }
        }
#else
        if (lower_opt_annotation(L, o, F_annotation,
                                 &n->AnnAssign.annotation) < 0) {
            return NULL;
        }
#endif
        return n;
    case K_AsyncFor:
    case K_For: {
        if (kind == K_AsyncFor && async_only(L, o, "'async for'") < 0) {
            return NULL;
        }
        int before = L->scope->nyields;
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_For(L, o, n) < 0) {
            return NULL;
        }
        if (L->scope->nyields != before) {
            n->flags |= NF_HEAD_YIELD;
        }
        L->loop_depth++;
        if (lower_body(L, o, F_body, &n->For.body, &n->For.nbody) < 0) {
            L->loop_depth--;
            return NULL;
        }
        L->loop_depth--;
        return lower_body(L, o, F_orelse, &n->For.orelse, &n->For.norelse) < 0
                   ? NULL
                   : n;
    }
    case K_While: {
        int before = L->scope->nyields;
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_While(L, o, n) < 0) {
            return NULL;
        }
        if (L->scope->nyields != before) {
            n->flags |= NF_HEAD_YIELD;
        }
        L->loop_depth++;
        if (lower_body(L, o, F_body, &n->While.body, &n->While.nbody) < 0) {
            L->loop_depth--;
            return NULL;
        }
        L->loop_depth--;
        return lower_body(L, o, F_orelse, &n->While.orelse,
                          &n->While.norelse) < 0
                   ? NULL
                   : n;
    }
    case K_If: {
        int before = L->scope->nyields;
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_If(L, o, n) < 0) {
            return NULL;
        }
        if (L->scope->nyields != before) {
            n->flags |= NF_HEAD_YIELD;
        }
        if (lower_body(L, o, F_body, &n->If.body, &n->If.nbody) < 0) {
            return NULL;
        }
        return lower_body(L, o, F_orelse, &n->If.orelse, &n->If.norelse) < 0
                   ? NULL
                   : n;
    }
    case K_AsyncWith:
    case K_With:
        if (kind == K_AsyncWith && async_only(L, o, "'async with'") < 0) {
            return NULL;
        }
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_With(L, o, n) < 0) {
            return NULL;
        }
        if (n->With.nitems > 2) {
            /* each item is a block of CPython's compiler (its nesting
               limit); two per level stay within it at the depth the
               lowering checks itself */
            L->needs_compile_check = 1;
        }
        return n;
    case K_Match:
        L->needs_compile_check = 1; /* pattern checks */
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_Match(L, o, n) < 0) {
            return NULL;
        }
        return n;
    case K_Raise:
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_Raise(L, o, n) < 0) {
            return NULL;
        }
        return n;
    case K_Try:
    case K_TryStar:
        if (kind == K_TryStar) {
            /* "'break', 'continue' and 'return' cannot appear in an
               except* block" */
            L->needs_compile_check = 1;
        }
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_Try(L, o, n) < 0) {
            return NULL;
        }
        return n;
    case K_Assert:
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_Assert(L, o, n) < 0) {
            return NULL;
        }
        return n;
    case K_Import:
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_Import(L, o, n) < 0 ||
            lower_lazy_flag(L, o, n) < 0) {
            return NULL;
        }
        return n;
    case K_ImportFrom: {
        n = node_new(L, kind, o);
        if (n == NULL || lower_lazy_flag(L, o, n) < 0) {
            return NULL;
        }
        int err = 0;
        PyObject *mod = getf_opt(L, o, F_module, &err);
        if (err) {
            return NULL;
        }
        if (mod == NULL) {
            mod = PyUnicode_FromString("");
        }
        n->obj = keep_steal(L, mod);
        n->slot = getint(L, o, F_level, 0);
        if (n->obj == NULL || lower_fields_ImportFrom(L, o, n) < 0) {
            return NULL;
        }
        return n;
    }
    case K_Global:
    case K_Nonlocal: {
        L->needs_compile_check = 1; /* parameter / annotation conflicts */
        n = node_new(L, kind, o);
        if (n == NULL) {
            return NULL;
        }
        if (kind == K_Nonlocal && L->scope->type == SC_MODULE) {
            return syntax_error(L, n,
                                "nonlocal declaration not allowed at module "
                                "level",
                                NULL),
                   (Node *)NULL;
        }
        PyObject *names = getf(L, o, F_names);
        if (names == NULL) {
            return NULL;
        }
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(names); i++) {
            PyObject *nm = keep_steal(L, mangle(L, PyList_GET_ITEM(names, i)));
            if (nm == NULL) {
                Py_DECREF(names);
                return NULL;
            }
            long prev = sym_get(L->scope, nm);
            if (prev & (SYM_USED | SYM_BOUND)) {
                Py_DECREF(names);
                return syntax_error(
                           L, n,
                           kind == K_Global
                               ? ((prev & SYM_BOUND) && !(prev & SYM_USED)
                                      ? "name '%U' is assigned to before "
                                        "global declaration"
                                      : "name '%U' is used prior to global "
                                        "declaration")
                               : ((prev & SYM_BOUND) && !(prev & SYM_USED)
                                      ? "name '%U' is assigned to before "
                                        "nonlocal declaration"
                                      : "name '%U' is used prior to nonlocal "
                                        "declaration"),
                           nm),
                       (Node *)NULL;
            }
            if (sym_add(L->scope, nm,
                        kind == K_Global ? SYM_GLOBAL : SYM_NONLOCAL) < 0) {
                Py_DECREF(names);
                return NULL;
            }
        }
        Py_DECREF(names);
        return n;
    }
    case K_Expr:
        n = node_new(L, kind, o);
        if (n == NULL || lower_fields_Expr(L, o, n) < 0) {
            return NULL;
        }
        return n;
    case K_Pass:
        return node_new(L, kind, o);
    case K_TypeAlias:
        L->needs_compile_check = 1;
        return lower_type_alias(L, o);
    case K_Break:
    case K_Continue:
        n = node_new(L, kind, o);
        if (n && L->loop_depth == 0) {
            return syntax_error(L, n,
                                kind == K_Break
                                    ? "'break' outside loop"
                                    : "'continue' not properly in loop",
                                NULL),
                   (Node *)NULL;
        }
        return n;
        /* every kind of the other categories (nodes.def): a kind
       added there must be handled above or listed here */
#define EXPR(n, f) case K_##n:
#define PAT(n, f) case K_##n:
#define AUX(n, f) case K_##n:
#include "ir/nodes.def"
    case K__COUNT:
        break;
    }
    PyErr_Format(PyExc_TypeError, "expected a statement, got %s",
                 Py_TYPE(o)->tp_name);
    return NULL;
}

/* --------------------------------------------------------------- analysis */

/* Mirror of CPython's analyze_block.  `bound` and `global` are sets passed
 * from the parent (NULL at module level); `free_out` receives the free names
 * of this scope that the parent must provide.  Returns 0 / -1. */
static int analyze(Lower *L, Scope *s, PyObject *bound, PyObject *global,
                   PyObject *free_out);

static int
set_update(PyObject *dst, PyObject *src)
{
    if (src == NULL) {
        return 0;
    }
    PyObject *r = PyNumber_InPlaceOr(dst, src);
    if (r == NULL) {
        return -1;
    }
    Py_DECREF(r);
    return 0;
}

static int
set_contains(PyObject *set, PyObject *k)
{
    return set ? PySet_Contains(set, k) : 0;
}

static int
sym_set_result(Scope *s, PyObject *name, long res)
{
    long v = sym_get(s, name);
    v &= ~(SYM_R_LOCAL | SYM_R_CELL | SYM_R_FREE | SYM_R_GLOBAL |
           SYM_R_IMPLICIT | SYM_R_OUTER);
    PyObject *nv = PyLong_FromLong(v | res);
    if (nv == NULL) {
        return -1;
    }
    int r = PyDict_SetItem(s->symbols, name, nv);
    Py_DECREF(nv);
    return r;
}

/* A comprehension whose reads of the enclosing function's locals can be
 * reads of that function's frame (cf.back in run_comprehension): a list,
 * set or dict comprehension (run at once, inside the function's frame; a
 * generator expression outlives it), that names none of the builtins
 * that look at the frame's own names (locals, vars, dir, eval, exec) nor
 * super (its __class__ and first argument). */
static int
comp_inlinable(Scope *k)
{
    static const char *const frame_readers[] = {"locals", "vars", "dir",
                                                "eval",   "exec", "super"};
    if (k->type != SC_COMPREHENSION || k->is_generator) {
        return 0;
    }
    for (size_t i = 0; i < sizeof(frame_readers) / sizeof(*frame_readers);
         i++) {
        PyObject *v = PyDict_GetItemString(k->symbols, frame_readers[i]);
        if (v != NULL) {
            return 0;
        }
    }
    return 1;
}

/* PEP 709 without inlining: a name local to the function-like scope `s`
 * that its children need only as reads by inlinable comprehensions
 * (comp_inlinable) that name it themselves -- not bound, declared or
 * passed on to a scope of their own (a lambda or generator expression in
 * the comprehension needs a real cell) -- stays a fast local of `s`
 * instead of becoming a cell, and those comprehensions read it from the
 * frame that runs them (SYM_R_OUTER: NAME_OUTER).  A call of a function
 * whose comprehensions read its parameters then makes no cell and the
 * comprehension no closure tuple, as on CPython 3.12+.  `kidfrees` holds
 * each child's free names; the names kept local leave `newfree`. */
static int
inline_outer_names(Scope *s, PyObject *kidfrees, PyObject *newfree)
{
    PyObject *names = PySequence_List(newfree);
    if (names == NULL) {
        return -1;
    }
    int rc = -1;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(names); i++) {
        PyObject *name = PyList_GET_ITEM(names, i);
        if (!(sym_get(s, name) & SYM_R_LOCAL)) {
            continue;
        }
        int ok = 1, readers = 0;
        for (Py_ssize_t k = 0; ok && k < s->nkids; k++) {
            int c = PySet_Contains(PyList_GET_ITEM(kidfrees, k), name);
            if (c < 0) {
                goto done;
            }
            if (!c) {
                continue;
            }
            Scope *kid = s->kids[k];
            long fl = sym_get(kid, name);
            /* kidfree: NULL for a scope without children */
            int passed = kid->kidfree ? PySet_Contains(kid->kidfree, name) : 0;
            if (passed < 0) {
                goto done;
            }
            ok = comp_inlinable(kid) && !passed && (fl & SYM_R_FREE) &&
                 !(fl & (SYM_BOUND | SYM_NONLOCAL | SYM_GLOBAL | SYM_PARAM |
                         SYM_FREE_CHILD));
            readers++;
        }
        if (!ok || readers == 0) {
            continue;
        }
        for (Py_ssize_t k = 0; k < s->nkids; k++) {
            int c = PySet_Contains(PyList_GET_ITEM(kidfrees, k), name);
            if (c < 0 ||
                (c && sym_set_result(s->kids[k], name, SYM_R_OUTER) < 0)) {
                goto done;
            }
        }
        if (PySet_Discard(newfree, name) < 0) {
            goto done;
        }
    }
    rc = 0;
done:
    Py_DECREF(names);
    return rc;
}

/* Each name's result in `s` (CPython's analyze_name): a name declared global
 * goes into `gl` and out of `bd` (the bound names `s` sees from outside), a
 * name bound here into `local` (and out of `gl`), a free name into `free`.
 * With `gl` and `local` NULL (a scope without children, which passes no
 * name down), `bd` is only read.  0 / -1. */
static int
analyze_names(Lower *L, Scope *s, PyObject *bd, PyObject *gl, PyObject *local,
              PyObject *free)
{
    PyObject *keys = PyDict_Keys(s->symbols);
    if (keys == NULL) {
        return -1;
    }
    int rc = -1;
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(keys); i++) {
        PyObject *name = PyList_GET_ITEM(keys, i);
        long fl = sym_get(s, name);
        long res;
        int c;
        if (fl & SYM_GLOBAL) {
            if (fl & SYM_PARAM) {
                syntax_error(L, NULL, "name '%U' is parameter and global",
                             name);
                goto done;
            }
            res = SYM_R_GLOBAL;
            if (gl != NULL &&
                (PySet_Add(gl, name) < 0 ||
                 (bd != NULL && PySet_Discard(bd, name) < 0))) {
                goto done;
            }
        }
        else if (fl & SYM_NONLOCAL) {
            if ((c = set_contains(bd, name)) <= 0) {
                if (c == 0) {
                    syntax_error(L, NULL,
                                 "no binding for nonlocal '%U' found", name);
                }
                goto done;
            }
            res = SYM_R_FREE;
            if (PySet_Add(free, name) < 0) {
                goto done;
            }
        }
        else if (fl & SYM_BOUND) {
            res = SYM_R_LOCAL;
            if (local != NULL &&
                (PySet_Add(local, name) < 0 || PySet_Discard(gl, name) < 0)) {
                goto done;
            }
        }
        else if ((c = set_contains(bd, name)) != 0) {
            if (c < 0) {
                goto done;
            }
            res = SYM_R_FREE;
            if (PySet_Add(free, name) < 0) {
                goto done;
            }
        }
        else {
            res = SYM_R_GLOBAL | SYM_R_IMPLICIT;
        }
        if (sym_set_result(s, name, res) < 0) {
            goto done;
        }
    }
    rc = 0;
done:
    Py_DECREF(keys);
    return rc;
}

static int
analyze(Lower *L, Scope *s, PyObject *bound, PyObject *global,
        PyObject *free_out)
{
    if (limits_check_deadline(L->in) < 0) { /* a scope: a clock read */
        return -1;
    }
    if (s->nkids == 0) {
        /* none of the sets below, which pass names down to children: only
           each name's result, its free names straight to the parent's set
           (kidfree stays NULL) */
        return analyze_names(L, s, bound, NULL, NULL, free_out);
    }
    PyObject *local = PySet_New(NULL);
    PyObject *newbound = PySet_New(NULL);
    PyObject *newglobal = PySet_New(NULL);
    PyObject *newfree = PySet_New(NULL);
    PyObject *free = PySet_New(NULL);
    PyObject *gl = global ? PySet_New(global) : PySet_New(NULL);
    PyObject *bd = bound ? PySet_New(bound) : NULL;
    PyObject *kidfrees = NULL;
    int rc = -1;
    if (!local || !newbound || !newglobal || !newfree || !free || !gl ||
        (bound && !bd)) {
        goto done;
    }
    if (s->type == SC_CLASS) {
        if (set_update(newglobal, gl) < 0 || set_update(newbound, bd) < 0) {
            goto done;
        }
    }
    if (analyze_names(L, s, bd, gl, local, free) < 0) {
        goto done;
    }
    if (s->type != SC_CLASS) {
        if (is_funclike(s) && set_update(newbound, local) < 0) {
            goto done;
        }
        if (set_update(newbound, bd) < 0 || set_update(newglobal, gl) < 0) {
            goto done;
        }
    }
    else if (PySet_Add(newbound, L->st->str_dunder_class) < 0 ||
             PySet_Add(newbound, L->st->str_classdict) < 0) {
        goto done;
    }
    kidfrees = PyList_New(0);
    if (kidfrees == NULL) {
        goto done;
    }
    for (Py_ssize_t k = 0; k < s->nkids; k++) {
        PyObject *cb = PySet_New(newbound);
        PyObject *cg = PySet_New(newglobal);
        PyObject *cf = PySet_New(NULL);
        int r = (cb && cg && cf) ? analyze(L, s->kids[k], cb, cg, cf) : -1;
        if (r == 0) {
            r = set_update(newfree, cf);
        }
        if (r == 0) {
            r = PyList_Append(kidfrees, cf);
        }
        Py_XDECREF(cb);
        Py_XDECREF(cg);
        Py_XDECREF(cf);
        if (r < 0) {
            goto done;
        }
    }
    /* names local here that children only read from list, set and dict
       comprehensions stay fast locals (NAME_OUTER in the comprehensions) */
    if (is_funclike(s) && inline_outer_names(s, kidfrees, newfree) < 0) {
        goto done;
    }
    /* names local here and free in a child become cells */
    if (is_funclike(s)) {
        PyObject *copy = PySequence_List(newfree);
        if (copy == NULL) {
            goto done;
        }
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(copy); i++) {
            PyObject *name = PyList_GET_ITEM(copy, i);
            long fl = sym_get(s, name);
            if (fl & SYM_R_LOCAL) {
                if (sym_set_result(s, name, SYM_R_CELL) < 0 ||
                    PySet_Discard(newfree, name) < 0) {
                    Py_DECREF(copy);
                    goto done;
                }
            }
        }
        Py_DECREF(copy);
    }
    s->kidfree = PySet_New(newfree);
    if (s->kidfree == NULL) {
        goto done;
    }
    if (s->type == SC_CLASS) {
        int c = PySet_Contains(newfree, L->st->str_dunder_class);
        if (c < 0) {
            goto done;
        }
        if (c) {
            s->needs_class_cell = 1;
            if (PySet_Discard(newfree, L->st->str_dunder_class) < 0) {
                goto done;
            }
        }
        c = PySet_Contains(newfree, L->st->str_classdict);
        if (c < 0) {
            goto done;
        }
        if (c) {
            s->needs_classdict_cell = 1;
            if (PySet_Discard(newfree, L->st->str_classdict) < 0) {
                goto done;
            }
        }
    }
    /* free names of children that this scope does not define pass through
       as free variables of this scope */
    {
        PyObject *names = PySequence_List(newfree);
        if (names == NULL) {
            goto done;
        }
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(names); i++) {
            PyObject *name = PyList_GET_ITEM(names, i);
            long fl = sym_get(s, name);
            if (fl & (SYM_R_LOCAL | SYM_R_CELL | SYM_R_GLOBAL)) {
                if (s->type == SC_CLASS && (fl & SYM_R_LOCAL) &&
                    !(fl & SYM_R_FREE)) {
                    /* class binds the name in its namespace, but children
                       see the enclosing function's cell */
                    if (sym_add(s, name, SYM_FREE_CHILD) < 0 ||
                        PySet_Add(free, name) < 0) {
                        Py_DECREF(names);
                    goto done;
                    }
                }
                continue;
            }
            if (fl & SYM_R_FREE) {
                continue;
            }
            if (set_contains(bd, name)) {
                if (sym_add(s, name, SYM_FREE_CHILD) < 0 ||
                    sym_set_result(s, name, SYM_R_FREE) < 0 ||
                    PySet_Add(free, name) < 0) {
                    Py_DECREF(names);
                    goto done;
                }
            }
        }
        Py_DECREF(names);
    }
    if (set_update(free_out, free) < 0) {
        goto done;
    }
    rc = 0;
done:
    Py_XDECREF(kidfrees);
    Py_XDECREF(local);
    Py_XDECREF(newbound);
    Py_XDECREF(newglobal);
    Py_XDECREF(newfree);
    Py_XDECREF(free);
    Py_XDECREF(gl);
    Py_XDECREF(bd);
    return rc;
}

static int
tuple_index(PyObject *t, PyObject *name)
{
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(t); i++) {
        if (PyUnicode_Compare(PyTuple_GET_ITEM(t, i), name) == 0) {
            return (int)i;
        }
    }
    return -1;
}

/* Assign slots from the analysis results, then patch every Name node. */
static int
assign_slots(Lower *L, Scope *s)
{
    PyObject *var = PyList_New(0), *cell = PyList_New(0), *fr = PyList_New(0);
    PyObject *keys = NULL;
    int rc = -1;
    if (!var || !cell || !fr) {
        goto done;
    }
    if (is_funclike(s)) {
        /* params first, in binding order: the arguments node isn't reachable
           from here, so the symbols dict insertion order is used (params are
           added first, in order, by lower_arguments / comprehensions). */
        keys = PyDict_Keys(s->symbols);
        if (keys == NULL) {
            goto done;
        }
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(keys); i++) {
            PyObject *name = PyList_GET_ITEM(keys, i);
            long fl = sym_get(s, name);
            if ((fl & SYM_PARAM) && PyList_Append(var, name) < 0) {
                goto done;
            }
        }
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(keys); i++) {
            PyObject *name = PyList_GET_ITEM(keys, i);
            long fl = sym_get(s, name);
            if ((fl & SYM_R_LOCAL) && !(fl & SYM_PARAM) &&
                PyList_Append(var, name) < 0) {
                goto done;
            }
            if ((fl & SYM_R_CELL) && PyList_Append(cell, name) < 0) {
                goto done;
            }
            if ((fl & SYM_R_FREE) && PyList_Append(fr, name) < 0) {
                goto done;
            }
        }
    }
    else if (s->type == SC_CLASS) {
        if (s->needs_class_cell &&
            PyList_Append(cell, L->st->str_dunder_class) < 0) {
            goto done;
        }
        if (s->needs_classdict_cell &&
            PyList_Append(cell, L->st->str_classdict) < 0) {
            goto done;
        }
        keys = PyDict_Keys(s->symbols);
        if (keys == NULL) {
            goto done;
        }
        for (Py_ssize_t i = 0; i < PyList_GET_SIZE(keys); i++) {
            PyObject *name = PyList_GET_ITEM(keys, i);
            long fl = sym_get(s, name);
            if ((fl & (SYM_R_FREE | SYM_FREE_CHILD)) &&
                PyList_Append(fr, name) < 0) {
                goto done;
            }
        }
    }
    s->varnames = keep_steal(L, PyList_AsTuple(var));
    s->cellvars = keep_steal(L, PyList_AsTuple(cell));
    s->freevars = keep_steal(L, PyList_AsTuple(fr));
    if (!s->varnames || !s->cellvars || !s->freevars) {
        goto done;
    }
    s->nlocals = (int)PyTuple_GET_SIZE(s->varnames);
    s->ncells = (int)PyTuple_GET_SIZE(s->cellvars);
    s->nfree = (int)PyTuple_GET_SIZE(s->freevars);
    if (s->ncells) {
        s->cell2arg = arena_alloc(L->prog, s->ncells * sizeof(int));
        if (s->cell2arg == NULL) {
            goto done;
        }
        for (int i = 0; i < s->ncells; i++) {
            PyObject *name = PyTuple_GET_ITEM(s->cellvars, i);
            long fl = sym_get(s, name);
            s->cell2arg[i] =
                (fl & SYM_PARAM) ? tuple_index(s->varnames, name) : -1;
        }
    }
    if (s->type == SC_CLASS && s->needs_class_cell) {
        s->class_cell_slot = 0;
    }
    if (s->type == SC_CLASS && s->needs_classdict_cell) {
        s->classdict_cell_slot = s->needs_class_cell ? 1 : 0;
    }
    if (s->sees_class) {
        int k = tuple_index(s->freevars, L->st->str_classdict);
        if (k < 0) {
            PyErr_SetString(PyExc_SystemError, "annotation scope: no __classdict__");
            goto done;
        }
        s->classdict_slot = s->ncells + k;
    }
    if (is_funclike(s)) {
        int k = tuple_index(s->freevars, L->st->str_dunder_class);
        s->uses_class_free = k < 0 ? -1 : s->ncells + k;
    }
    s->simple_argc = is_funclike(s) && !s->has_varargs && !s->has_varkw &&
                             !s->kwonlyargcount && !s->ncells &&
                             !s->is_generator &&
                             s->nlocals + s->nfree <= FRAME_SMALL_SLOTS &&
                             s->argcount <= s->nlocals
                         ? s->argcount
                         : -1;
    /* patch names */
    for (Py_ssize_t i = 0; i < s->nnames; i++) {
        Node *n = s->names[i];
        if (n->kind == K_BinOp || n->kind == K_Compare) {
            /* note_at_hand's: its operands are patched (earlier) */
            Node *l = n->kind == K_BinOp ? n->BinOp.left : n->Compare.left;
            Node *r = n->kind == K_BinOp ? n->BinOp.right
                                         : n->Compare.comparators[0];
            if ((l->kind == K_Constant || l->scope_kind == NAME_FAST) &&
                (r->kind == K_Constant || r->scope_kind == NAME_FAST)) {
                n->flags |= NF_AT_HAND;
            }
            continue;
        }
        long fl = sym_get(s, n->obj);
        if (s->type == SC_MODULE) {
            n->scope_kind = (fl & SYM_R_GLOBAL) && !(fl & SYM_R_IMPLICIT)
                                ? NAME_GLOBAL
                                : NAME_NAME;
            n->Name.gslot = gcache_name_slot(L->st, n->obj);
            continue;
        }
        if (s->type == SC_CLASS) {
            if ((fl & SYM_R_GLOBAL) && !(fl & SYM_R_IMPLICIT)) {
                n->scope_kind = NAME_GLOBAL;
                n->Name.gslot = gcache_name_slot(L->st, n->obj);
            }
            else if ((fl & SYM_R_FREE) && (fl & SYM_NONLOCAL)) {
                n->scope_kind = NAME_DEREF;
                n->slot = s->ncells + tuple_index(s->freevars, n->obj);
            }
            else if ((fl & SYM_R_FREE) && n->op == CTX_Load) {
                n->scope_kind = NAME_CLASSDEREF;
                n->slot = s->ncells + tuple_index(s->freevars, n->obj);
            }
            else {
                n->scope_kind = NAME_NAME;
            }
            continue;
        }
        if (fl & SYM_R_OUTER) {
            /* a local of the parent (inline_outer_names): in its fast
               slots, whose names assign_slots gave it first (scopes are
               numbered parents first) */
            n->scope_kind = NAME_OUTER;
            n->slot = tuple_index(s->parent->varnames, n->obj);
            if (n->slot < 0) {
                PyErr_Format(PyExc_SystemError,
                             "no local '%U' for a comprehension", n->obj);
                goto done;
            }
        }
        else if (fl & SYM_R_CELL) {
            n->scope_kind = NAME_DEREF;
            n->slot = tuple_index(s->cellvars, n->obj);
        }
        else if (fl & SYM_R_FREE) {
            n->scope_kind = NAME_DEREF;
            n->slot = s->ncells + tuple_index(s->freevars, n->obj);
        }
        else if (fl & SYM_R_LOCAL) {
            n->scope_kind = NAME_FAST;
            n->slot = tuple_index(s->varnames, n->obj);
        }
        else {
            n->scope_kind = NAME_GLOBAL;
        }
        if (s->sees_class && n->op == CTX_Load &&
            !(fl & (SYM_R_LOCAL | SYM_R_CELL | SYM_R_OUTER)) &&
            !((fl & SYM_R_GLOBAL) && !(fl & SYM_R_IMPLICIT))) {
            /* a name the annotation scope does not bind: the class's
               namespace first */
            n->scope_kind = n->scope_kind == NAME_GLOBAL
                                ? NAME_CLASSDICT_GLOBAL
                                : NAME_CLASSDICT_DEREF;
        }
        if (n->scope_kind == NAME_GLOBAL ||
            n->scope_kind == NAME_CLASSDICT_GLOBAL) {
            n->Name.gslot = gcache_name_slot(L->st, n->obj);
        }
    }
    rc = 0;
done:
    Py_XDECREF(keys);
    Py_XDECREF(var);
    Py_XDECREF(cell);
    Py_XDECREF(fr);
    return rc;
}

/* ---------------------------------------------------------------- Program */

static void
program_dealloc(ProgramObject *p)
{
    PyTypeObject *tp = Py_TYPE(p);
    for (Py_ssize_t i = 0; i < p->nscopes; i++) {
        Scope *s = p->scopes[i];
        Py_XDECREF(s->symbols);
        Py_XDECREF(s->kidfree);
        Py_XDECREF(s->static_attrs_set);
        Py_XDECREF(s->class_anns);
        PyMem_Free(s->kids);
        PyMem_Free(s->names);
    }
    PyMem_Free(p->scopes);
    for (Py_ssize_t i = 0; i < p->nblocks; i++) {
        PyMem_Free(p->blocks[i]);
    }
    PyMem_Free(p->blocks);
    Py_XDECREF(p->source);
    Py_XDECREF(p->lines);
    Py_XDECREF(p->consts);
    tp->tp_free(p);
    Py_DECREF(tp);
}

static PyType_Slot program_slots[] = {
    {Py_tp_dealloc, program_dealloc},
    {Py_tp_doc, "A lowered program (internal)."},
    {0, NULL},
};

PyType_Spec Program_spec = {
    .name = "smolagents_native._core.Program",
    .basicsize = sizeof(ProgramObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = program_slots,
};

static char *
stack_limit_for_lowering(Interp *in)
{
    if (in && in_budget(in)->stack_limit) {
        return in_budget(in)->stack_limit;
    }
    return NULL;
}

/* CPython's compiler on `src`, result discarded: 0, or -1 with its
 * SyntaxError (or another error) set. */
static int
compile_check(ModState *st, const char *src)
{
    PyCompilerFlags full = {0, PY_MINOR_VERSION};
    PyObject *code = Py_CompileStringObject(src, st->str_string_filename,
                                            Py_file_input, &full, -1);
    if (code == NULL) {
        return -1;
    }
    Py_DECREF(code);
    return 0;
}

/* `from __future__ import annotations` among the future imports that open
 * the module (after its docstring; CPython's compiler, run for any source
 * that names __future__, refuses one anywhere else): sets
 * L->future_annotations.  0 / -1. */
static int
future_annotations(Lower *L, PyObject *body)
{
    if (!PyList_Check(body)) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(body); i++) {
        PyObject *st = PyList_GET_ITEM(body, i);
        const char *tn = Py_TYPE(st)->tp_name;
        if (i == 0 && strcmp(tn, "Expr") == 0) {
            continue; /* a docstring (any other expression ends the scan
                         at the next statement, which then is no future
                         import CPython accepts) */
        }
        if (strcmp(tn, "ImportFrom") != 0) {
            return 0;
        }
        PyObject *m = getf(L, st, F_module);
        int fut = m != NULL && PyUnicode_Check(m) &&
                  PyUnicode_CompareWithASCIIString(m, "__future__") == 0;
        Py_XDECREF(m);
        if (PyErr_Occurred()) {
            return -1;
        }
        if (!fut) {
            return 0;
        }
        PyObject *names = getf(L, st, F_names);
        if (names == NULL) {
            return -1;
        }
        for (Py_ssize_t k = 0; PyList_Check(names) && k < PyList_GET_SIZE(names); k++) {
            PyObject *nm = getf(L, PyList_GET_ITEM(names, k), F_name);
            if (nm == NULL) {
                Py_DECREF(names);
                return -1;
            }
            if (PyUnicode_Check(nm) &&
                PyUnicode_CompareWithASCIIString(nm, "annotations") == 0) {
                L->future_annotations = 1;
            }
            Py_DECREF(nm);
        }
        Py_DECREF(names);
    }
    return 0;
}

PyObject *
lower_program(ModState *st, Interp *in, PyObject *source)
{
    Lower L = {0};
    PyObject *tree = NULL;
    ProgramObject *p = NULL;
    PyObject *body = NULL;
    const char *src = PyUnicode_AsUTF8(source);
    if (src == NULL) {
        return NULL;
    }
    /* One parse.  The SyntaxErrors that only CPython's symbol table and
       code generator detect (duplicate match captures, misplaced nonlocal,
       star-unpacking targets...) must be ours too: whatever CPython refuses,
       we refuse the same way, first.  The lowering repeats the common
       checks itself (return/yield placement, break/continue outside a loop,
       duplicate parameters, import * placement) and marks the constructs
       whose other checks it leaves to CPython (needs_compile_check); only a
       source with one of them, or one the lowering refuses, pays for
       CPython's compiler as well (compile_check).  Costs once per
       source: lowered programs are cached. */
    tree = front_parse_ast(source, st->str_string_filename);
    if (tree == NULL) {
        return NULL;
    }
    if (limits_check_deadline(in) < 0) { /* the parse took the whole step */
        Py_DECREF(tree);
        return NULL;
    }
    p = PyObject_New(ProgramObject, st->ProgramType);
    if (p == NULL) {
        goto fail;
    }
    p->source = source;
    Py_INCREF(source);
    p->lines = NULL;
    p->consts = PyList_New(0);
    p->blocks = NULL;
    p->nblocks = p->capblocks = 0;
    p->cur = NULL;
    p->left = 0;
    p->scopes = NULL;
    p->nscopes = p->capscopes = 0;
    p->module = NULL;
    p->top = NULL;
    p->bytes = sizeof(ProgramObject);
    p->referenced = 0;
    if (p->consts == NULL) {
        goto fail;
    }
    p->lines = PyUnicode_Splitlines(source, 0);
    if (p->lines == NULL) {
        goto fail;
    }
    L.st = st;
    L.in = in;
    L.prog = p;
    /* names the compiler treats specially wherever they appear */
    if (PyUnicode_Find(source, st->str___debug__, 0, PY_SSIZE_T_MAX, 1) != -1 ||
        PyUnicode_Find(source, st->str___future__, 0, PY_SSIZE_T_MAX, 1) != -1) {
        L.needs_compile_check = 1;
    }
    if (PyErr_Occurred()) {
        goto fail;
    }
    L.stack_limit = stack_limit_for_lowering(in);
    if (L.stack_limit == NULL) {
        L.stack_limit =
            (char *)((uintptr_t)__builtin_frame_address(0) - (512 * 1024));
    }
    Node *mod = node_new(&L, K_Module, NULL);
    if (mod == NULL) {
        goto fail;
    }
    PyObject *mname = keep_steal(&L, PyUnicode_InternFromString("<module>"));
    if (mname == NULL) {
        goto fail;
    }
    Scope *top = scope_new(&L, SC_MODULE, mname, mod);
    if (top == NULL) {
        goto fail;
    }
    L.scope = top;
    body = PyObject_GetAttr(tree, fieldname(st, F_body));
    if (body == NULL) {
        goto fail;
    }
    if (future_annotations(&L, body) < 0 ||
        lower_stmt_list(&L, body, &top->body, &top->nbody) < 0) {
        goto fail;
    }
    mod->Module.scope = top;
    mod->Module.body = top->body;
    mod->Module.nbody = top->nbody;
    p->module = mod;
    p->top = top;
    {
        PyObject *f = PySet_New(NULL);
        if (f == NULL) {
            goto fail;
        }
        int r = analyze(&L, top, NULL, NULL, f);
        Py_DECREF(f);
        if (r < 0) {
            goto fail;
        }
    }
    for (Py_ssize_t i = 0; i < p->nscopes; i++) {
        if (((i & 63) == 0 && limits_check_deadline(in) < 0) ||
            assign_slots(&L, p->scopes[i]) < 0) {
            goto fail;
        }
    }
    /* symbols are no longer needed */
    for (Py_ssize_t i = 0; i < p->nscopes; i++) {
        Scope *s = p->scopes[i];
        Py_CLEAR(s->symbols);
        Py_CLEAR(s->kidfree);
        if (s->static_attrs_set != NULL) {
            PyObject *l = PySequence_List(s->static_attrs_set);
            Py_CLEAR(s->static_attrs_set);
            s->static_attributes =
                l && PyList_Sort(l) == 0 ? keep_steal(&L, PyList_AsTuple(l))
                                         : NULL;
            Py_XDECREF(l);
            if (s->static_attributes == NULL) {
                goto fail;
            }
        }
    }
    if (L.needs_compile_check &&
        (limits_check_deadline(in) < 0 || compile_check(st, src) < 0)) {
        goto fail_checked;
    }
    Py_XDECREF(L.str_consts);
    Py_XDECREF(L.tuple_consts);
    Py_DECREF(body);
    Py_DECREF(tree);
    /* the source and its lines (each line a str of its own), and the
       constants' references; the constants themselves are mostly shared */
    p->bytes += 2 * (size_t)PyUnicode_GET_LENGTH(source) *
                    (size_t)PyUnicode_KIND(source) +
                (size_t)PyList_GET_SIZE(p->lines) * 64 +
                (size_t)PyList_GET_SIZE(p->consts) * sizeof(PyObject *) +
                (size_t)p->nscopes * sizeof(Scope);
    return (PyObject *)p;
fail:
    /* a refusal or error of the lowering: an error CPython's compiler
       raises comes first, as it would if the compiler ran first; not after
       the deadline (the compiler cannot be interrupted) */
    if (tree != NULL && !(in != NULL && in_budget(in)->timeout_error != NULL &&
                          PyErr_ExceptionMatches(in_budget(in)->timeout_error))) {
        PyObject *t, *v, *tb;
        PyErr_Fetch(&t, &v, &tb);
        if (compile_check(st, src) < 0) {
            Py_XDECREF(t);
            Py_XDECREF(v);
            Py_XDECREF(tb);
        }
        else {
            PyErr_Restore(t, v, tb);
        }
    }
fail_checked:
    Py_XDECREF(L.str_consts);
    Py_XDECREF(L.tuple_consts);
    Py_XDECREF(body);
    Py_XDECREF(tree);
    Py_XDECREF(p);
    return NULL;
}

/* ------------------------------------------------------------ module init */

int
lower_init_state(PyObject *module, ModState *st)
{
    st->field_names_all = PyMem_Calloc(F__COUNT, sizeof(PyObject *));
    if (st->field_names_all == NULL) {
        PyErr_NoMemory();
        return -1;
    }
    for (int i = 0; i < F__COUNT; i++) {
        st->field_names_all[i] = PyUnicode_InternFromString(field_cstr[i]);
        if (st->field_names_all[i] == NULL) {
            return -1;
        }
    }
    st->n_field_names = F__COUNT;
    st->ast_module = PyImport_ImportModule("ast");
    if (st->ast_module == NULL) {
        return -1;
    }
    st->kind_of_class = PyDict_New();
    st->op_of_class = PyDict_New();
    if (!st->kind_of_class || !st->op_of_class) {
        return -1;
    }
    PyObject *kinds = PyList_New(0);
    PyObject *refused = PyList_New(0);
    if (!kinds || !refused) {
        Py_XDECREF(kinds);
        Py_XDECREF(refused);
        return -1;
    }
    int rc = -1;
    /* a node class this version's ast does not have (TryStar before
       3.11, TypeAlias before 3.12, TemplateStr before 3.14) is skipped:
       its parser never produces it */
#define ADD_KIND(nm, value, lst)                                            \
    do {                                                                    \
        PyObject *cls = NULL;                                               \
        if (PyObject_GetOptionalAttrString(st->ast_module, #nm, &cls) < 0) { \
            goto done;                                                      \
        }                                                                   \
        if (cls != NULL) {                                                  \
            PyObject *v = PyLong_FromLong(value);                           \
            PyObject *s = PyUnicode_FromString(#nm);                        \
            int bad = !v || !s ||                                           \
                      PyDict_SetItem(st->kind_of_class, cls, v) < 0 ||      \
                      PyList_Append(lst, s) < 0;                            \
            Py_DECREF(cls);                                                 \
            Py_XDECREF(v);                                                  \
            Py_XDECREF(s);                                                  \
            if (bad) {                                                      \
                goto done;                                                  \
            }                                                               \
        }                                                                   \
    } while (0)
#define STMT(n, f) ADD_KIND(n, K_##n, kinds);
#define EXPR(n, f) ADD_KIND(n, K_##n, kinds);
#define PAT(n, f) ADD_KIND(n, K_##n, kinds);
#define AUX(n, f) ADD_KIND(n, K_##n, kinds);
#include "ir/nodes.def"
    {
        int ri = 0;
#define REFUSED(n, w, y)           \
    ADD_KIND(n, -2 - ri, refused); \
    ri++;
#include "ir/nodes.def"
        (void)ri;
    }
#undef ADD_KIND
    {
        static const char *const opnames[] = {
            "Add",    "Sub",    "Mult",     "MatMult", "Div",
            "Mod",    "Pow",    "LShift",   "RShift",  "BitOr",
            "BitXor", "BitAnd", "FloorDiv", NULL};
        static const char *const unames[] = {"Invert", "Not", "UAdd", "USub",
                                             NULL};
        static const char *const bnames[] = {"And", "Or", NULL};
        static const char *const cnames[] = {"Eq", "NotEq", "Lt", "LtE",
                                             "Gt", "GtE",   "Is", "IsNot",
                                             "In", "NotIn", NULL};
        static const char *const xnames[] = {"Load", "Store", "Del", NULL};
        const char *const *tables[] = {opnames, unames, bnames, cnames,
                                       xnames};
        for (int t = 0; t < 5; t++) {
            for (int i = 0; tables[t][i]; i++) {
                PyObject *cls =
                    PyObject_GetAttrString(st->ast_module, tables[t][i]);
                PyObject *v = PyLong_FromLong(i);
                int bad =
                    !cls || !v || PyDict_SetItem(st->op_of_class, cls, v) < 0;
                Py_XDECREF(cls);
                Py_XDECREF(v);
                if (bad) {
                    goto done;
                }
            }
        }
    }
    {
        PyObject *t1 = PyList_AsTuple(kinds), *t2 = PyList_AsTuple(refused);
        if (!t1 || !t2 || PyModule_AddObject(module, "NODE_KINDS", t1) < 0) {
            Py_XDECREF(t1);
            Py_XDECREF(t2);
            goto done;
        }
        if (PyModule_AddObject(module, "REFUSED_NODES", t2) < 0) {
            Py_DECREF(t2);
            goto done;
        }
    }
    rc = 0;
done:
    Py_DECREF(kinds);
    Py_DECREF(refused);
    return rc;
}
