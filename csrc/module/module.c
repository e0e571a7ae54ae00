/* module.c: module initialisation (multi-phase, module state) and the
 * Interpreter type, the Python-visible entry point (docs/core-api.md).
 */
#include "module.h"

#ifndef SMOLAGENTS_NATIVE_BUILD
#define SMOLAGENTS_NATIVE_BUILD "unknown (not built by setup.py)"
#endif
#include "sandbox.h"
#include "wire.h"

#include <stddef.h>

static struct PyModuleDef coremodule;

ModState *
get_modstate_from_type(PyTypeObject *tp)
{
    PyObject *m = PyType_GetModuleByDef(tp, &coremodule);
    if (m == NULL) {
        return NULL;
    }
    return (ModState *)PyModule_GetState(m);
}

/* ------------------------------------------------------ fork server image */

/* fork_image_prepare(): compute now, in a process that will fork workers
 * (the fork server, once its modules are loaded), what every process
 * computes once, on its first step: the installation's real paths
 * (tripwire.c) and the calling thread's stack extent (limits.c, which
 * reads /proc/self/maps for the main thread).  Forked from this thread,
 * a worker inherits both and its first step skips them. */
static PyObject *
module_fork_image_prepare(PyObject *module, PyObject *unused)
{
    (void)unused;
    if (tripwire_install_dirs_ready((ModState *)PyModule_GetState(module)) < 0) {
        return NULL;
    }
    limits_prime_stack_extent();
    Py_RETURN_NONE;
}

/* parse_ast(source): ast.parse(source) as the lowering parses (parse.c):
 * one thread at a time where CPython's ast construction needs it. */
static PyObject *
module_parse_ast(PyObject *module, PyObject *source)
{
    if (!PyUnicode_Check(source)) {
        PyErr_Format(PyExc_TypeError, "parse_ast() takes a str, not %.100s",
                     Py_TYPE(source)->tp_name);
        return NULL;
    }
    return front_parse_ast(
        source, ((ModState *)PyModule_GetState(module))->str_string_filename);
}

static PyMethodDef module_functions[] = {
    {"parse_ast", module_parse_ast, METH_O,
     "parse_ast(source): ast.parse(source), one thread at a time where "
     "CPython's ast construction needs it (csrc/front/parse.c)."},
    {"fork_image_prepare", module_fork_image_prepare, METH_NOARGS,
     "fork_image_prepare(): compute what each forked worker would on its first "
     "step (the installation's real paths, the thread's stack extent)."},
    {NULL, NULL, 0, NULL},
};

/* -------------------------------------------------------- guarded builtins */

/* The guarded builtins are bound to a small module named "builtins" whose
 * state holds a strong reference to their interpreter: CPython then names
 * them as it names the real ones ("print()", not "Interpreter.print()"). */
typedef struct {
    PyObject *interp;
} GuardedBuiltinsState;

static int
guard_traverse(PyObject *m, visitproc visit, void *arg)
{
    GuardedBuiltinsState *gs = PyModule_GetState(m);
    Py_VISIT(gs ? gs->interp : NULL);
    return 0;
}

static int
guard_clear(PyObject *m)
{
    GuardedBuiltinsState *gs = PyModule_GetState(m);
    if (gs) {
        Py_CLEAR(gs->interp);
    }
    return 0;
}

static void
guard_free(void *m)
{
    guard_clear((PyObject *)m);
}

static struct PyModuleDef guard_module_def = {
    PyModuleDef_HEAD_INIT,
    .m_name = "builtins",
    .m_doc = "Guarded builtins of one smolagents_native interpreter.",
    .m_size = sizeof(GuardedBuiltinsState),
    .m_traverse = guard_traverse,
    .m_clear = guard_clear,
    .m_free = guard_free,
};

static Interp *
guarded_interp_of(PyObject *self)
{
    GuardedBuiltinsState *gs = PyModule_GetState(self);
    return &((InterpreterObject *)gs->interp)->in;
}

/* Write one piece of print()'s output: to `file` (through the attribute
 * choke point) when given, else into the step's print buffer, charged to
 * the print budget.  0, or -1 with an exception. */
static int
print_piece(Interp *in, PyObject *file, PyObject *text)
{
    if (file != NULL) {
        PyObject *w = policy_getattr(in, file, in_st(in)->str_write);
        if (w == NULL) {
            return -1;
        }
        PyObject *r = PyObject_CallOneArg(w, text);
        Py_DECREF(w);
        Py_XDECREF(r);
        return r ? 0 : -1;
    }
    if (PyUnicode_GET_LENGTH(text) == 0) {
        return 0;
    }
    in_module(in)->print_len += PyUnicode_GET_LENGTH(text);
    if (PyList_Append(in_module(in)->print_chunks, text) < 0) {
        return -1;
    }
    if (in_module(in)->print_len > budget_max_print_len(in)) {
        limits_abort(in, ABORT_BUDGET,
                     budget_message(BUDGET_ID_max_print_len),
                     budget_max_print_len(in));
        return -1;
    }
    return 0;
}

/* print(*args, sep=' ', end='\n', file=None, flush=False) into the buffer. */
static PyObject *
builtin_print(PyObject *self, PyObject *const *args, Py_ssize_t nargs,
              PyObject *kwnames)
{
    Interp *in = guarded_interp_of(self);
    PyObject *sep = NULL, *end = NULL, *file = NULL;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *k = PyTuple_GET_ITEM(kwnames, i);
        PyObject *v = args[nargs + i];
        if (PyUnicode_CompareWithASCIIString(k, "sep") == 0) {
            sep = v;
        }
        else if (PyUnicode_CompareWithASCIIString(k, "end") == 0) {
            end = v;
        }
        else if (PyUnicode_CompareWithASCIIString(k, "file") == 0) {
            file = v;
        }
        else if (PyUnicode_CompareWithASCIIString(k, "flush") == 0) {
            /* nothing to flush */
        }
        else {
            PyErr_Format(PyExc_TypeError, COMPAT_MSG_PRINT_KEYWORD, k);
            return NULL;
        }
    }
    if (sep == Py_None) {
        sep = NULL;
    }
    if (end == Py_None) {
        end = NULL;
    }
    if (sep && !PyUnicode_Check(sep)) {
        PyErr_Format(PyExc_TypeError,
                     "sep must be None or a string, not %.200s",
                     Py_TYPE(sep)->tp_name);
        return NULL;
    }
    if (end && !PyUnicode_Check(end)) {
        PyErr_Format(PyExc_TypeError,
                     "end must be None or a string, not %.200s",
                     Py_TYPE(end)->tp_name);
        return NULL;
    }
    /* piece by piece, as CPython writes them: what was written before a
       failing str() stays written.  The process's standard output named
       as the file (print(..., file=sys.stdout), `sys` authorized) is the
       step's logs too, as print() without a file: what the code prints to
       standard output is what the agent reads. */
    if (file == Py_None || (file != NULL && file == PySys_GetObject("stdout"))) {
        file = NULL;
    }
    for (Py_ssize_t i = 0; i < nargs; i++) {
        if (i > 0 && print_piece(in, file, sep ? sep : in_st(in)->str_space) < 0) {
            return NULL;
        }
        PyObject *s = PyObject_Str(args[i]);
        int r = s ? print_piece(in, file, s) : -1;
        Py_XDECREF(s);
        if (r < 0) {
            return NULL;
        }
    }
    if (print_piece(in, file, end ? end : in_st(in)->str_newline) < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

/* Exact str copy of an attribute name: a str subclass gets no say. */
static PyObject *
exact_name(PyObject *name, const char *fn)
{
    if (!PyUnicode_Check(name)) {
        if (COMPAT_BUILTIN_CHECKS_ATTR_NAME && fn[0] != 's' && fn[0] != 'd') {
            /* 3.10: getattr() and hasattr() word it themselves */
            PyErr_Format(PyExc_TypeError,
                         "%s(): attribute name must be string", fn);
            return NULL;
        }
        PyErr_Format(PyExc_TypeError,
                     "attribute name must be string, not '%.200s'",
                     Py_TYPE(name)->tp_name);
        return NULL;
    }
    if (PyUnicode_CheckExact(name)) {
        Py_INCREF(name);
        return name;
    }
    return PyUnicode_FromKindAndData(PyUnicode_KIND(name),
                                     PyUnicode_DATA(name),
                                     PyUnicode_GET_LENGTH(name));
}

static PyObject *
builtin_getattr(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs < 2 || nargs > 3) {
        PyErr_Format(PyExc_TypeError, "getattr expected at %s arguments, got %zd",
                     nargs < 2 ? "least 2" : "most 3", nargs);
        return NULL;
    }
    Interp *in = guarded_interp_of(self);
    PyObject *name = exact_name(args[1], "getattr");
    if (name == NULL) {
        return NULL;
    }
    PyObject *v = policy_getattr(in, args[0], name);
    Py_DECREF(name);
    if (v == NULL && nargs == 3 && in_budget(in)->abort == ABORT_NONE &&
        PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        v = args[2];
        Py_INCREF(v);
    }
    return v;
}

static PyObject *
builtin_hasattr(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "hasattr expected 2 arguments, got %zd",
                     nargs);
        return NULL;
    }
    Interp *in = guarded_interp_of(self);
    PyObject *name = exact_name(args[1], "hasattr");
    if (name == NULL) {
        return NULL;
    }
    PyObject *v = policy_getattr(in, args[0], name);
    Py_DECREF(name);
    if (v == NULL) {
        if (in_budget(in)->abort == ABORT_NONE &&
            PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
            Py_RETURN_FALSE;
        }
        return NULL;
    }
    Py_DECREF(v);
    Py_RETURN_TRUE;
}

static PyObject *
builtin_setattr(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 3) {
        PyErr_Format(PyExc_TypeError, "setattr expected 3 arguments, got %zd",
                     nargs);
        return NULL;
    }
    PyObject *name = exact_name(args[1], "setattr");
    if (name == NULL) {
        return NULL;
    }
    int r = policy_setattr(guarded_interp_of(self), args[0], name, args[2]);
    Py_DECREF(name);
    if (r < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

static PyObject *
builtin_delattr(PyObject *self, PyObject *const *args, Py_ssize_t nargs)
{
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "delattr expected 2 arguments, got %zd",
                     nargs);
        return NULL;
    }
    PyObject *name = exact_name(args[1], "delattr");
    if (name == NULL) {
        return NULL;
    }
    int r = policy_delattr(guarded_interp_of(self), args[0], name);
    Py_DECREF(name);
    if (r < 0) {
        return NULL;
    }
    Py_RETURN_NONE;
}

/* id(obj): a stable number per object that is not its address
 * (provenance.c). */
static PyObject *
builtin_id(PyObject *self, PyObject *obj)
{
    (void)self;
    return provenance_id(obj);
}

static PyMethodDef guarded_builtins[] = {
    {"id", (PyCFunction)builtin_id, METH_O,
     "Return a number identifying the object (not its address)."},
    {"dir", (PyCFunction)(void (*)(void))eval_builtin_dir, METH_FASTCALL,
     "dir([object]) -> list of strings"},
    {"print", (PyCFunction)(void (*)(void))builtin_print,
     METH_FASTCALL | METH_KEYWORDS, "print(*values, sep=' ', end='\\n')"},
    {"getattr", (PyCFunction)(void (*)(void))builtin_getattr, METH_FASTCALL,
     "getattr(object, name[, default])"},
    {"hasattr", (PyCFunction)(void (*)(void))builtin_hasattr, METH_FASTCALL,
     "hasattr(object, name)"},
    {"setattr", (PyCFunction)(void (*)(void))builtin_setattr, METH_FASTCALL,
     "setattr(object, name, value)"},
    {"delattr", (PyCFunction)(void (*)(void))builtin_delattr, METH_FASTCALL,
     "delattr(object, name)"},
    {NULL},
};

/* ------------------------------------------------------------- Interpreter */

/* b.update({k: proxy_wrap(v) for k, v in src.items()}).  0 / -1. */
static int
update_proxied(ModState *st, PyObject *b, PyObject *src)
{
    PyObject *k, *v;
    Py_ssize_t pos = 0;
    while (PyDict_Next(src, &pos, &k, &v)) {
        PyObject *w = proxy_wrap(st, v);
        if (w == NULL || PyDict_SetItem(b, k, w) < 0) {
            Py_XDECREF(w);
            return -1;
        }
        Py_DECREF(w);
    }
    return 0;
}

static int
interpreter_rebuild_builtins(InterpreterObject *self)
{
    Interp *in = &self->in;
    PyObject *b = PyDict_Copy(in_st(in)->safe_builtins);
    if (b == NULL) {
        return -1;
    }
    /* the code gets call-only proxies of host callables (proxy.c) */
    if ((self->extra_builtins &&
         update_proxied(in_st(in), b, self->extra_builtins) < 0) ||
        (in_guard(in)->tools && update_proxied(in_st(in), b, in_guard(in)->tools) < 0)) {
        Py_DECREF(b);
        return -1;
    }
    PyObject *gm = PyModule_Create(&guard_module_def);
    if (gm == NULL) {
        Py_DECREF(b);
        return -1;
    }
    ((GuardedBuiltinsState *)PyModule_GetState(gm))->interp =
        Py_NewRef((PyObject *)self);
    for (PyMethodDef *m = guarded_builtins; m->ml_name; m++) {
        PyObject *fn = PyCFunction_NewEx(m, gm, NULL);
        if (fn == NULL || PyDict_SetItemString(b, m->ml_name, fn) < 0) {
            Py_XDECREF(fn);
            Py_DECREF(gm);
            Py_DECREF(b);
            return -1;
        }
        Py_DECREF(fn);
    }
    Py_DECREF(gm);
    Py_XSETREF(in_module(in)->builtins, b);
    self->builtins_stale = 0;
    return 0;
}

/* The tools or the extra builtins changed: the code's builtins are built
 * again by the next step (once, however many setters ran before it), and
 * the old ones are dropped now, so that nothing keeps the old tools'
 * proxies alive.  While a step or a hook runs they are built at once, as
 * when every setter built them (the running step keeps the ones it started
 * with: its frame and its global-name cache hold them). */
static int
interpreter_builtins_changed(InterpreterObject *self)
{
    if (in_budget(&self->in)->running) {
        return interpreter_rebuild_builtins(self);
    }
    Py_CLEAR(in_module(&self->in)->builtins);
    self->builtins_stale = 1;
    return 0;
}

static PyObject *
interpreter_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    InterpreterObject *self = (InterpreterObject *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    in_budget(&self->in)->st = get_modstate_from_type(type);
    if (in_st(&self->in) == NULL) {
        Py_DECREF(self);
        return NULL;
    }
    in_guard(&self->in)->owner = (PyObject *)self;
    in_guard(&self->in)->py_interp = PyInterpreterState_Get();
    in_eval(&self->in)->tools_epoch = 1;
    Budgets defaults; /* budgets.def, until a run gives its own */
    PyObject *none = NULL;
    if (budgets_parse(NULL, &defaults, &none) < 0) {
        Py_DECREF(self);
        return NULL;
    }
    budgets_apply(&self->in, &defaults);
    return (PyObject *)self;
}

static int
interpreter_init(InterpreterObject *self, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"authorized_imports", "interpreter_error",
                             "final_answer_exception", "timeout_error", NULL};
    PyObject *auth = NULL, *ie = NULL, *fa = NULL, *te = NULL;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "|$OOOO", kwlist, &auth, &ie,
                                     &fa, &te)) {
        return -1;
    }
    Interp *in = &self->in;
    PyObject *l = auth ? PySequence_List(auth) : PyList_New(0);
    if (l == NULL) {
        return -1;
    }
    Py_XSETREF(in_guard(in)->authorized, l);
    limits_new_window_epoch(in); /* module verdicts depend on the
                                     authorized list */
    if (ie == NULL) {
        ie = PyExc_RuntimeError;
    }
    if (fa == NULL) {
        fa = PyExc_BaseException;
    }
    if (te == NULL) {
        te = PyExc_TimeoutError;
    }
    Py_INCREF(ie);
    Py_XSETREF(in_budget(in)->interpreter_error, ie);
    Py_INCREF(fa);
    Py_XSETREF(in_eval(in)->final_answer_exc, fa);
    Py_INCREF(te);
    Py_XSETREF(in_budget(in)->timeout_error, te);
    if (in_guard(in)->tools == NULL && (in_guard(in)->tools = PyDict_New()) == NULL) {
        return -1;
    }
    if (self->extra_builtins == NULL &&
        (self->extra_builtins = PyDict_New()) == NULL) {
        return -1;
    }
    if (in_module(in)->print_chunks == NULL &&
        (in_module(in)->print_chunks = PyList_New(0)) == NULL) {
        return -1;
    }
    if (self->cache == NULL && (self->cache = PyDict_New()) == NULL) {
        return -1;
    }
    self->builtins_stale = 1; /* built by the first step */
    return 0;
}

static int
interpreter_traverse(InterpreterObject *self, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(self));
    Py_VISIT(in_module(&self->in)->builtins);
    Py_VISIT(in_guard(&self->in)->tools);
    Py_VISIT(in_guard(&self->in)->authorized);
    Py_VISIT(in_module(&self->in)->print_chunks);
    Py_VISIT(in_budget(&self->in)->interpreter_error);
    Py_VISIT(in_eval(&self->in)->final_answer_exc);
    Py_VISIT(in_budget(&self->in)->timeout_error);
    Py_VISIT(in_eval(&self->in)->err_site_exc);
    Py_VISIT(in_guard(&self->in)->own_random);
    Py_VISIT(in_guard(&self->in)->own_decimal);
    Py_VISIT(in_guard(&self->in)->host_decimal);
    Py_VISIT(in_guard(&self->in)->host_random);
    for (int i = 0; i < OWN_RANDOM_CACHE; i++) {
        Py_VISIT(in_guard(&self->in)->random_cache[i].func);
        Py_VISIT(in_guard(&self->in)->random_cache[i].own);
    }
    Py_VISIT(self->cache);
    Py_VISIT(self->extra_builtins);
    if (gcache_traverse(&self->in, visit, arg) < 0) {
        return -1;
    }
    return tripwire_traverse(&self->in, visit, arg);
}

static int
interpreter_clear(InterpreterObject *self)
{
    Py_CLEAR(in_module(&self->in)->builtins);
    Py_CLEAR(in_guard(&self->in)->tools);
    PyMem_Free(in_guard(&self->in)->tool_objs);
    in_guard(&self->in)->tool_objs = NULL;
    in_guard(&self->in)->ntool_objs = 0;
    Py_CLEAR(in_guard(&self->in)->authorized);
    Py_CLEAR(in_module(&self->in)->print_chunks);
    Py_CLEAR(in_budget(&self->in)->interpreter_error);
    Py_CLEAR(in_eval(&self->in)->final_answer_exc);
    Py_CLEAR(in_budget(&self->in)->timeout_error);
    Py_CLEAR(in_eval(&self->in)->err_site_exc);
    ownstate_clear(&self->in);
    Py_CLEAR(self->cache);
    Py_CLEAR(self->extra_builtins);
    gcache_clear(&self->in);
    tripwire_clear(&self->in);
    return 0;
}

static void
interpreter_dealloc(InterpreterObject *self)
{
    PyTypeObject *tp = Py_TYPE(self);
    PyObject_GC_UnTrack(self);
    interpreter_clear(self);
    nesting_forget(&self->in);
    tp->tp_free(self);
    Py_DECREF(tp);
}

/* Format a SyntaxError as smolagents does and raise the interpreter error:
 *   Code parsing failed on line {lineno} due to: {Type}: {str(e)}\n{text}{' ' * offset}^
 * For errors found by CPython's compiler rather than its parser, `text` is
 * not set; the line is taken from the source. */
static void
raise_parse_error(Interp *in, PyObject *source)
{
    PyObject *exc = NULL, *t, *tb;
    PyErr_Fetch(&t, &exc, &tb);
    PyErr_NormalizeException(&t, &exc, &tb);
    Py_XDECREF(tb);
    if (exc == NULL || !PyErr_GivenExceptionMatches(t, PyExc_SyntaxError)) {
        PyErr_Restore(t, exc, NULL);
        return;
    }
    PyObject *lineno = PyObject_GetAttrString(exc, "lineno");
    PyObject *text = PyObject_GetAttrString(exc, "text");
    PyObject *offset = PyObject_GetAttrString(exc, "offset");
    PyObject *str = PyObject_Str(exc);
    PyObject *caret = NULL, *msg = NULL;
    PyErr_Clear();
    long off = (offset && PyLong_Check(offset)) ? PyLong_AsLong(offset) : 0;
    if (off < 0 || off > 100000) {
        off = 0;
    }
    if (text == Py_None && lineno && PyLong_Check(lineno)) {
        long ln = PyLong_AsLong(lineno);
        PyObject *lines = PyUnicode_Splitlines(source, 1);
        if (lines && ln >= 1 && ln <= PyList_GET_SIZE(lines)) {
            PyObject *line = PyList_GET_ITEM(lines, ln - 1);
            Py_ssize_t n = PyUnicode_GET_LENGTH(line);
            if (n == 0 || PyUnicode_READ_CHAR(line, n - 1) != '\n') {
                Py_SETREF(text, PyUnicode_FromFormat("%U\n", line));
            }
            else {
                Py_SETREF(text, Py_NewRef(line));
            }
        }
        Py_XDECREF(lines);
        PyErr_Clear();
    }
    PyObject *space = PyUnicode_FromString(" ");
    PyObject *pad = space ? PySequence_Repeat(space, off) : NULL;
    Py_XDECREF(space);
    if (pad) {
        caret = PyUnicode_FromFormat("%U^", pad);
        Py_DECREF(pad);
    }
    if (caret && str) {
        msg = PyUnicode_FromFormat(
            "Code parsing failed on line %S due to: %s: %U\n%S%U",
            lineno ? lineno : Py_None, ((PyTypeObject *)t)->tp_name, str,
            text ? text : Py_None, caret);
    }
    if (msg != NULL) {
        PyObject *e = PyObject_CallOneArg(in_budget(in)->interpreter_error, msg);
        if (e != NULL && lineno && PyLong_Check(lineno) &&
            PyObject_SetAttrString(e, "lineno", lineno) < 0) {
            Py_CLEAR(e);
        }
        if (e != NULL) {
            PyException_SetCause(e, exc);
            exc = NULL;
            PyErr_SetObject((PyObject *)Py_TYPE(e), e);
            Py_DECREF(e);
        }
    }
    Py_XDECREF(msg);
    Py_XDECREF(caret);
    Py_XDECREF(lineno);
    Py_XDECREF(text);
    Py_XDECREF(offset);
    Py_XDECREF(str);
    Py_XDECREF(exc);
    Py_XDECREF(t);
}

/* The step's InterpreterError carries the line it failed on (1-based, in
 * the step's source) as `lineno`, for callers that show where (the CLI). */
static int
set_error_lineno(PyObject *e, long line)
{
    PyObject *n = PyLong_FromLong(line);
    int r = n ? PyObject_SetAttrString(e, "lineno", n) : -1;
    Py_XDECREF(n);
    return r;
}

/* Wrap the pending error of a failed top-level statement. */
static void
raise_step_error(Interp *in, ProgramObject *p, Node *stmt)
{
    int unchanged = citizen_claim_error(in); /* Ctrl-C, signal handlers */
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    PyErr_NormalizeException(&t, &v, &tb);
    if (tb && v) {
        PyException_SetTraceback(v, tb);
    }
    Py_XDECREF(tb);
    if (v == NULL) {
        Py_XDECREF(t);
        PyErr_SetString(PyExc_SystemError, "error without exception");
        return;
    }
    if (in_budget(in)->abort == ABORT_TIMEOUT || unchanged) {
        PyErr_Restore(t, v, NULL);
        return;
    }
    if (in_budget(in)->abort != ABORT_NONE &&
        !PyErr_GivenExceptionMatches(t, in_budget(in)->interpreter_error)) {
        /* host code turned the abort's error into its own (numpy wraps a
           tripwire refusal in UnpicklingError; C code reports a refused
           allocation as MemoryError, memlimit.c): report the abort */
        Py_DECREF(t);
        Py_DECREF(v);
        limits_reraise_abort(in);
        PyErr_Fetch(&t, &v, &tb);
        PyErr_NormalizeException(&t, &v, &tb);
        Py_XDECREF(tb);
        if (v == NULL) {
            Py_XDECREF(t);
            return;
        }
    }
    PyObject *seg = source_segment(p, stmt);
    PyObject *s = PyObject_Str(v);
    if (s == NULL && seg != NULL) {
        /* str() of the exception failed (its message recurses too deep,
           its __str__ raises): still the step's error, worded as
           CPython's traceback words it */
        PyErr_Clear();
        s = PyUnicode_FromString("<exception str() failed>");
    }
    if (seg == NULL || s == NULL) {
        Py_XDECREF(seg);
        Py_XDECREF(s);
        PyErr_Clear();
        PyErr_Restore(t, v, NULL);
        return;
    }
    if (PyUnicode_GET_LENGTH(s) == 0 &&
        PyErr_GivenExceptionMatches(t, PyExc_MemoryError)) {
        /* CPython's allocators raise a bare MemoryError: say what ran out */
        Py_SETREF(s, PyUnicode_FromString(
                         "out of memory: an allocation failed (the host's "
                         "memory, or its address-space limit RLIMIT_AS, is "
                         "exhausted)"));
        if (s == NULL) {
            Py_DECREF(seg);
            PyErr_Clear();
            PyErr_Restore(t, v, NULL);
            return;
        }
    }
    PyObject *msg = PyUnicode_FromFormat(
        "Code execution failed at line '%U' due to: %s: %U", seg,
        ((PyTypeObject *)t)->tp_name, s);
    Py_DECREF(seg);
    Py_DECREF(s);
    PyObject *e = msg ? PyObject_CallOneArg(in_budget(in)->interpreter_error, msg) : NULL;
    Py_XDECREF(msg);
    /* `lineno`: the line of the innermost statement the error left (the
       statement's own when it arose in an expression of it) */
    if (e != NULL &&
        set_error_lineno(e, in_eval(in)->err_site_exc == v ? in_eval(in)->err_site_line
                                                  : stmt->lineno) < 0) {
        Py_CLEAR(e);
    }
    if (e == NULL) {
        Py_DECREF(t);
        Py_DECREF(v);
        return;
    }
    PyException_SetCause(e, v); /* steals v */
    Py_DECREF(t);
    PyErr_SetObject((PyObject *)Py_TYPE(e), e);
    Py_DECREF(e);
}

/* The lowered programs an interpreter keeps, by the memory they hold
 * (ProgramObject.bytes): a 30-line step holds about 60 KiB, a one-line step
 * 16 KiB (one arena block). */
#define CACHE_BYTES ((size_t)16 * 1024 * 1024)

/* Make room for `need` more bytes in the cache: evict programs, oldest
 * first, but a program served since the hand last passed (referenced) goes
 * to the back instead, once (the CLOCK policy: one store per hit, no
 * reordering then).  0 / -1. */
static int
cache_make_room(InterpreterObject *self, size_t need)
{
    PyObject *cache = self->cache;
    /* each entry is looked at most twice: referenced, then not */
    Py_ssize_t turns = 2 * PyDict_GET_SIZE(cache) + 1;
    while (PyDict_GET_SIZE(cache) > 0 &&
           self->cache_bytes + need > CACHE_BYTES && turns-- > 0) {
        Py_ssize_t pos = 0;
        PyObject *k, *v;
        if (!PyDict_Next(cache, &pos, &k, &v)) {
            break;
        }
        ProgramObject *p = (ProgramObject *)v;
        Py_INCREF(k);
        Py_INCREF(p);
        int r = PyDict_DelItem(cache, k);
        if (r == 0 && p->referenced) {
            p->referenced = 0;
            r = PyDict_SetItem(cache, k, (PyObject *)p); /* to the back */
            if (r < 0) {
                self->cache_bytes -= p->bytes; /* it is out all the same */
            }
        }
        else if (r == 0) {
            self->cache_bytes -= p->bytes;
            self->cache_evictions++;
        }
        Py_DECREF(p);
        Py_DECREF(k);
        if (r < 0) {
            return -1;
        }
    }
    return 0;
}

/* The statements of a step, run on the interpreter's big stack
 * (bigstack.c).  Sets rc->ok on success; on failure an exception is set. */
typedef struct {
    Interp *in;
    ProgramObject *p;
    Frame *fr;
    PyObject *output; /* owned */
    int is_final;
    int ok;
} RunCtx;

/* The step's output, as smolagents defines it from the last top-level
 * statement: its value for expression statements and assignments (the
 * last value that is not None for if/for), the new object for def and
 * class, None otherwise.  New reference, or NULL with an exception. */
static PyObject *
step_output(Frame *fr, Node *last)
{
    int k = last->kind;
    if (k == K_Expr || k == K_Assign || k == K_AugAssign || k == K_AnnAssign ||
        k == K_If || k == K_For) {
        return Py_NewRef(fr->last_value != NULL ? fr->last_value : Py_None);
    }
    if (k == K_FunctionDef || k == K_ClassDef) {
        PyObject *v =
            load_name(fr, k == K_FunctionDef ? last->Function.target
                                             : last->ClassDef.target);
        if (v == NULL) {
            PyErr_Clear();
            v = Py_NewRef(Py_None);
        }
        return v;
    }
    return Py_NewRef(Py_None);
}

static void
run_module_statements(RunCtx *rc)
{
    Interp *in = rc->in;
    ProgramObject *p = rc->p;
    Frame *frp = rc->fr;
    Node *mod = p->module;
    Node *last_stmt = NULL;
    for (Py_ssize_t i = 0; i < mod->Module.nbody; i++) {
        Py_CLEAR(frp->last_value);
        /* only the last statement's values can be the output */
        frp->keep_last = i == mod->Module.nbody - 1;
        last_stmt = mod->Module.body[i];
        Status st = eval_stmt(frp, mod->Module.body[i]);
        if (st == ST_ERROR) {
            PyObject *et = PyErr_Occurred();
            if (in_budget(in)->abort == ABORT_NONE && et &&
                PyErr_GivenExceptionMatches(et, in_eval(in)->final_answer_exc)) {
                PyObject *t, *v, *tb;
                PyErr_Fetch(&t, &v, &tb);
                PyErr_NormalizeException(&t, &v, &tb);
                PyObject *val = v ? PyObject_GetAttrString(v, "value") : NULL;
                if (val == NULL) {
                    PyErr_Clear();
                    PyObject *a = v ? PyObject_GetAttrString(v, "args") : NULL;
                    PyErr_Clear();
                    if (a && PyTuple_Check(a) && PyTuple_GET_SIZE(a) > 0) {
                        val = PyTuple_GET_ITEM(a, 0);
                        Py_INCREF(val);
                    }
                    else {
                        val = Py_None;
                        Py_INCREF(val);
                    }
                    Py_XDECREF(a);
                }
                Py_XDECREF(t);
                Py_XDECREF(v);
                Py_XDECREF(tb);
                Py_SETREF(rc->output, val);
                rc->is_final = 1;
                break;
            }
            raise_step_error(in, p, mod->Module.body[i]);
            return;
        }
        if (st != ST_OK) {
            PyErr_SetString(PyExc_SystemError,
                            "bad control flow at module level");
            return;
        }
        error_site_done(in);
        if (i == mod->Module.nbody - 1) {
            Py_SETREF(rc->output, step_output(frp, mod->Module.body[i]));
            if (rc->output == NULL) {
                return;
            }
        }
    }
    if (in_budget(in)->abort != ABORT_NONE && last_stmt != NULL) {
        /* security (limits.c): a budget or policy abort that host code
           swallowed (e.g. an authorized module's `except Exception`) still
           fails the step */
        limits_reraise_abort(in);
        raise_step_error(in, p, last_stmt);
        return;
    }
    rc->ok = 1;
}

static void
run_module_body(void *arg)
{
    RunCtx *rc = (RunCtx *)arg;
    run_module_statements(rc);
    /* released inside the step's window: a finalizer this runs is the
       code's, under the step's policy */
    Py_CLEAR(in_eval(rc->in)->err_site_exc);
}

static PyObject *interpreter_run_budgets(InterpreterObject *self,
                                         PyObject *code, PyObject *state,
                                         Budgets *bp);

static PyObject *
interpreter_run(InterpreterObject *self, PyObject *args, PyObject *kwds)
{
    /* budgets (budgets.def): parsed into the interpreter's own copy */
    static char *kwlist[] = {"code", "state", NULL};
    PyObject *code, *state, *rest = NULL;
    Budgets budgets;
    Interp *in = &self->in;
    if (PyTuple_GET_SIZE(args) == 3) {
        /* run(code, state, budgets): a _core.Budgets, parsed once */
        code = PyTuple_GET_ITEM(args, 0);
        state = PyTuple_GET_ITEM(args, 1);
        PyObject *given = PyTuple_GET_ITEM(args, 2);
        if (kwds != NULL && PyDict_GET_SIZE(kwds) != 0) {
            PyErr_SetString(PyExc_TypeError,
                            "run() takes budgets either as a Budgets object "
                            "or as keywords, not both");
            return NULL;
        }
        if (!PyUnicode_Check(code) || !PyDict_Check(state)) {
            PyErr_Format(
                PyExc_TypeError, "run() argument %d must be %s, not %.100s",
                PyUnicode_Check(code) ? 2 : 1,
                PyUnicode_Check(code) ? "dict" : "str",
                Py_TYPE(PyUnicode_Check(code) ? state : code)->tp_name);
            return NULL;
        }
        if (!budgets_from_object(in_st(in), given, &budgets)) {
            PyErr_Format(
                PyExc_TypeError,
                "run()'s third argument must be a Budgets, not %.100s",
                Py_TYPE(given)->tp_name);
            return NULL;
        }
    }
    else {
        if (budgets_parse(kwds, &budgets, &rest) < 0) {
            return NULL;
        }
        int ok = PyArg_ParseTupleAndKeywords(args, rest, "UO!", kwlist, &code,
                                             &PyDict_Type, &state);
        Py_XDECREF(rest);
        if (!ok) {
            return NULL;
        }
    }
    return interpreter_run_budgets(self, code, state, &budgets);
}

/* Is the UTF-8 form of `code` longer than `limit` bytes?  Counted without
 * encoding (a lone surrogate counts 3 bytes, as the "surrogatepass" encoding
 * process mode sends); an ASCII string is its length, and a string that
 * could not exceed the limit even at 4 bytes per character is not scanned. */
static int
source_bytes_over(PyObject *code, long long limit)
{
    Py_ssize_t n = PyUnicode_GET_LENGTH(code);
    if (PyUnicode_IS_ASCII(code)) {
        return (long long)n > limit;
    }
    if ((long long)n > limit) {
        return 1; /* at least one byte per character */
    }
    if ((long long)n * 4 <= limit) {
        return 0;
    }
    int kind = PyUnicode_KIND(code);
    const void *data = PyUnicode_DATA(code);
    long long total = 0;
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_UCS4 c = PyUnicode_READ(kind, data, i);
        total += c < 0x80 ? 1 : c < 0x800 ? 2 : c < 0x10000 ? 3 : 4;
        if (total > limit) {
            return 1;
        }
    }
    return 0;
}

/* run() after its arguments were checked: lower `code` (through the
 * cache) and run it with `state` as globals under `budgets`. */
static PyObject *
interpreter_run_budgets(InterpreterObject *self, PyObject *code,
                        PyObject *state, Budgets *bp)
{
    Interp *in = &self->in;
    if (in_budget(in)->running && interp_wait_for_hook(in, bp->timeout) < 0) {
        return NULL;
    }
    if (in_budget(in)->running) {
        PyErr_SetString(PyExc_RuntimeError,
                        "this interpreter is already running a step");
        return NULL;
    }
    if (in_guard(in)->tools == NULL) {
        PyErr_SetString(PyExc_RuntimeError,
                        "Interpreter.__init__ was not called");
        return NULL;
    }
    if (self->builtins_stale && interpreter_rebuild_builtins(self) < 0) {
        return NULL;
    }
    budgets_apply(in, bp);
    PyObject *chunks = PyList_New(0);
    if (chunks == NULL) {
        return NULL;
    }
    Py_XSETREF(in_module(in)->print_chunks, chunks);
    in_module(in)->print_len = 0;
    limits_start(in);
    /* the source's size first: CPython's parser cannot be interrupted, so
       the time it takes is bounded by this budget (whether the program is
       cached or not, for the same verdict at every step) */
    if (budget_limited(budget_max_source_bytes(in)) &&
        source_bytes_over(code, budget_max_source_bytes(in))) {
        raise_interp_error(in, budget_message(BUDGET_ID_max_source_bytes),
                           budget_max_source_bytes(in));
        return NULL;
    }
    /* lower, through the cache */
    ProgramObject *p =
        (ProgramObject *)PyDict_GetItemWithError(self->cache, code);
    if (p != NULL) {
        Py_INCREF(p);
        p->referenced = 1;
        self->cache_hits++;
    }
    else {
        if (PyErr_Occurred()) {
            return NULL;
        }
        self->cache_misses++;
        p = (ProgramObject *)lower_program(in_st(in), in, code);
        if (p == NULL) {
            if (PyErr_ExceptionMatches(PyExc_SyntaxError)) {
                raise_parse_error(in, code);
            }
            else if (!PyErr_ExceptionMatches(in_budget(in)->interpreter_error) &&
                     !(in_budget(in)->timeout_error != NULL &&
                       PyErr_ExceptionMatches(in_budget(in)->timeout_error))) {
                /* the parser or the lowering gave up (nesting too deep,
                   out of memory): report it as a parse failure */
                PyObject *t, *v, *tb;
                PyErr_Fetch(&t, &v, &tb);
                PyErr_NormalizeException(&t, &v, &tb);
                Py_XDECREF(tb);
                PyObject *str = v ? PyObject_Str(v) : NULL;
                if (str == NULL) {
                    PyErr_Clear();
                }
                /* a ValueError is the parser's own refusal of the source
                   (3.10: a NUL byte), not a limit */
                int limit = !PyErr_GivenExceptionMatches(t, PyExc_ValueError);
                raise_interp_error(
                    in, "Code parsing failed due to: %s: %S%s",
                    ((PyTypeObject *)t)->tp_name, str ? str : Py_None,
                    limit ? " (the code is nested too deeply or too large)"
                          : "");
                Py_XDECREF(str);
                Py_XDECREF(t);
                Py_XDECREF(v);
            }
            return NULL;
        }
        if (cache_make_room(self, p->bytes) < 0 ||
            PyDict_SetItem(self->cache, code, (PyObject *)p) < 0) {
            Py_DECREF(p);
            return NULL;
        }
        self->cache_bytes += p->bytes;
    }
    /* evaluate */
    Frame fr = {0};
    fr.in = in;
    fr.scope = p->top;
    fr.globals = state;
    fr.builtins = in_module(in)->builtins;
    int gw = compat_dict_watch(in_st(in)->dict_watcher, state);
    int bw =
        gw < 0 ? -1 : compat_dict_watch(in_st(in)->bdict_watcher, in_module(in)->builtins);
    if (gw < 0 || bw < 0) {
        Py_DECREF(p);
        return NULL;
    }
    if (gw && bw) {
        gcache_begin(in, state, in_module(in)->builtins);
    }
    else {
        gcache_end(in); /* unwatched: no slot describes these dicts */
    }
    fr.locals = state;
    fr.program = (PyObject *)p;
    in_module(in)->current_program = (PyObject *)p;
    PyObject *output = Py_None;
    Py_INCREF(output);
    PyObject *result = NULL;
    int is_final = 0;
    RunCtx rc = {in, p, &fr, output, 0, 0};
    output = NULL;
    /* the entry frame first (tripwire.c: our own imports and objects, made
       before the window opens), then the window: the per-thread mechanisms
       of window.def armed while the body runs (window.c) */
    window_begin(in, 0);
    WindowSave w;
    if (tripwire_prepare_step(in, state) < 0 || window_open(in, &w) < 0) {
        output = rc.output;
        goto done;
    }
    int run_ok = tripwire_enter_step(in, state, run_module_body, &rc) == 0 &&
                 rc.ok;
    window_close(in, &w);
    if (!run_ok) {
        /* a limit that fired before the body could report it (the memory
           budget refusing the entry frame's own allocation) */
        window_abort_takes_over(in, NULL);
    }
    if (!run_ok) {
        output = rc.output;
        goto done;
    }
    output = rc.output;
    is_final = rc.is_final;
    result = PyTuple_Pack(2, output, is_final ? Py_True : Py_False);
done:
    gcache_end(in); /* the step's dicts are not held past it */
    Py_XDECREF(fr.last_value);
    Py_XDECREF(output);
    window_end(in);
    in_module(in)->current_program = NULL;
    Py_DECREF(p);
    return result;
}

static PyObject *
interpreter_get_tools(InterpreterObject *self, void *c)
{
    /* a copy: the protected set changes only through the setter */
    return PyDict_Copy(in_guard(&self->in)->tools);
}

static int
interpreter_set_tools(InterpreterObject *self, PyObject *v, void *c)
{
    if (v == NULL || !PyDict_Check(v)) {
        PyErr_SetString(PyExc_TypeError, "tools must be a dict");
        return -1;
    }
    PyObject *copy = PyDict_Copy(v);
    if (copy == NULL) {
        return -1;
    }
    Py_XSETREF(in_guard(&self->in)->tools, copy);
    PyMem_Free(in_guard(&self->in)->tool_objs);
    in_guard(&self->in)->tool_objs = NULL;
    in_guard(&self->in)->ntool_objs = -1;
    Py_ssize_t n = PyDict_GET_SIZE(copy);
    PyObject **objs = PyMem_Malloc((n ? n : 1) * sizeof(PyObject *));
    if (objs != NULL) {
        Py_ssize_t pos = 0, i = 0;
        PyObject *k, *t;
        while (PyDict_Next(copy, &pos, &k, &t)) {
            objs[i++] = t;
        }
        in_guard(&self->in)->tool_objs = objs;
        in_guard(&self->in)->ntool_objs = i;
    }
    if (++in_eval(&self->in)->tools_epoch == 0) {
        in_eval(&self->in)->tools_epoch = 1;
    }
    /* value verdicts depend on the tools (the tool exemption): verdicts
       remembered for the window (Attribute.mod_ok, mval) are asked again,
       even when the host changes the tools in the middle of a step */
    limits_new_window_epoch(&self->in);
    return interpreter_builtins_changed(self);
}

static PyObject *
interpreter_get_extra(InterpreterObject *self, void *c)
{
    Py_INCREF(self->extra_builtins);
    return self->extra_builtins;
}

static int
interpreter_set_extra(InterpreterObject *self, PyObject *v, void *c)
{
    if (v == NULL || !PyDict_Check(v)) {
        PyErr_SetString(PyExc_TypeError, "extra_builtins must be a dict");
        return -1;
    }
    PyObject *copy = PyDict_Copy(v);
    if (copy == NULL) {
        return -1;
    }
    Py_XSETREF(self->extra_builtins, copy);
    return interpreter_builtins_changed(self);
}

static PyObject *
interpreter_get_authorized(InterpreterObject *self, void *c)
{
    return PyList_GetSlice(in_guard(&self->in)->authorized, 0, PY_SSIZE_T_MAX);
}

static PyObject *
interpreter_get_prints(InterpreterObject *self, void *c)
{
    PyObject *empty = PyUnicode_New(0, 0);
    if (empty == NULL) {
        return NULL;
    }
    PyObject *r = PyUnicode_Join(empty, in_module(&self->in)->print_chunks);
    Py_DECREF(empty);
    return r;
}

static PyObject *
interpreter_get_ops(InterpreterObject *self, void *c)
{
    long long used = limits_ops_budget(&self->in) - limits_ops_left(&self->in);
    if (used < 0) {
        used = 0;
    }
    return PyLong_FromLongLong(used);
}

static PyObject *
interpreter_get_grants(InterpreterObject *self, void *c)
{
    return tripwire_get_grants(&self->in);
}

static int
interpreter_set_grants(InterpreterObject *self, PyObject *v, void *c)
{
    return tripwire_set_grants(&self->in, v);
}

static PyObject *
interpreter_get_mem(InterpreterObject *self, void *c)
{
    return PyLong_FromLongLong(in_budget(&self->in)->mem_last);
}

/* What a step leaves in its state whether it succeeds or fails, as the
 * shim's executors report it (smolagents' names): "_print_outputs", the
 * step's prints, cut by `truncate(logs, max_length=limit)` when longer than
 * `limit` (None: never), in a new instance of the class `container` whose
 * attribute `value` is the text (made by its __new__, without its
 * __init__: the shim's PrintContainer keeps nothing else); and
 * "_operations_count", {"counter": operations charged}.  0, or -1 with an
 * exception. */
static int
step_record(InterpreterObject *self, PyObject *state, PyObject *limit,
            PyObject *container, PyObject *truncate)
{
    PyObject *logs = interpreter_get_prints(self, NULL);
    if (logs == NULL) {
        return -1;
    }
    if (limit != Py_None) {
        /* an int past long long: longer than anything when positive */
        int overflow;
        long long max = PyLong_AsLongLongAndOverflow(limit, &overflow);
        if (max == -1 && PyErr_Occurred()) {
            Py_DECREF(logs);
            return -1;
        }
        if (overflow < 0 ||
            (overflow == 0 && (long long)PyUnicode_GET_LENGTH(logs) > max)) {
            PyObject *args[2] = {logs, limit};
            PyObject *kw = Py_BuildValue("(s)", "max_length");
            PyObject *cut =
                kw ? PyObject_Vectorcall(truncate, args, 1, kw) : NULL;
            Py_XDECREF(kw);
            Py_SETREF(logs, cut);
            if (logs == NULL) {
                return -1;
            }
        }
    }
    /* container.__new__(container), then .value = logs: what the shim's
       PrintContainer(logs) does, without running its __init__ in Python */
    ModState *st = in_st(&self->in);
    PyTypeObject *tp = (PyTypeObject *)container;
    PyObject *printed = NULL;
    PyObject *none = PyTuple_New(0);
    if (none != NULL) {
        printed = tp->tp_new(tp, none, NULL);
        Py_DECREF(none);
    }
    if (printed != NULL &&
        PyObject_SetAttr(printed, st->str_value, logs) < 0) {
        Py_CLEAR(printed);
    }
    Py_DECREF(logs);
    if (printed == NULL) {
        return -1;
    }
    PyObject *ops = interpreter_get_ops(self, NULL);
    PyObject *count = ops ? PyDict_New() : NULL;
    if (count == NULL || PyDict_SetItem(count, st->str_counter, ops) < 0) {
        Py_XDECREF(ops);
        Py_XDECREF(count);
        Py_DECREF(printed);
        return -1;
    }
    Py_DECREF(ops);
    /* Two stores of exact str keys.  When the step left the state's keys
       known to be all exact str (globalcache.c, strkeys_dict), they keep
       that verdict for the next step: its version is adopted after them.
       The replaced values are held until then (their deallocation may run
       code, which then moves the version: the next step scans). */
    Interp *in = &self->in;
    int keep = (const void *)state == in_eval(in)->strkeys_dict &&
               compat_watched_version(COMPAT_WATCH_GLOBALS, state) ==
                   in_eval(in)->strkeys_version;
    PyObject *old_printed = NULL, *old_count = NULL;
    if (keep) {
        /* exact str keys only: these lookups run no code */
        old_printed =
            Py_XNewRef(PyDict_GetItemWithError(state, st->str_print_outputs));
        old_count = Py_XNewRef(
            PyDict_GetItemWithError(state, st->str_operations_count));
        keep = !PyErr_Occurred();
        PyErr_Clear();
    }
    int rc = PyDict_SetItem(state, st->str_print_outputs, printed);
    Py_DECREF(printed);
    if (rc == 0) {
        rc = PyDict_SetItem(state, st->str_operations_count, count);
    }
    Py_DECREF(count);
    if (keep && rc == 0) {
        in_eval(in)->strkeys_version =
            compat_watched_version(COMPAT_WATCH_GLOBALS, state);
    }
    else {
        in_eval(in)->strkeys_dict = NULL;
    }
    Py_XDECREF(old_printed);
    Py_XDECREF(old_count);
    return rc;
}

/* The step's timeout error as the executors report it: a new
 * timeout_error, "Code execution exceeded the maximum execution time of
 * {timeout} seconds" (smolagents' message, with the timeout as the caller
 * gave it), raised `from None` over the core's own. */
static void
step_timeout_message(Interp *in, PyObject *timeout)
{
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    PyErr_NormalizeException(&t, &v, &tb);
    if (tb != NULL) {
        PyException_SetTraceback(v, tb);
    }
    PyObject *msg = PyUnicode_FromFormat(
        "Code execution exceeded the maximum execution time of %S seconds",
        timeout);
    PyObject *e = msg ? PyObject_CallOneArg(in_budget(in)->timeout_error, msg) : NULL;
    Py_XDECREF(msg);
    if (e == NULL) {
        /* out of memory: the core's own error stands */
        PyErr_Clear();
        PyErr_Restore(t, v, tb);
        return;
    }
    PyException_SetContext(e, v);  /* steals v */
    PyException_SetCause(e, NULL); /* `from None` */
    Py_XDECREF(tb);
    Py_DECREF(t);
    PyErr_SetObject((PyObject *)Py_TYPE(e), e);
    Py_DECREF(e);
}

/* step(code, state, budgets, max_print_outputs_length, container,
 * truncate, timeout) -> (output, is_final_answer): run(code, state,
 * budgets); a timeout error worded with `timeout` (step_timeout_message);
 * then, whether the step succeeded or failed, step_record: the executors'
 * step in one call (_engine.py).  An error of the record replaces the
 * step's own, which becomes its __context__, as a `finally` clause would. */
static PyObject *
interpreter_step(InterpreterObject *self, PyObject *const *args,
                 Py_ssize_t nargs)
{
    if (nargs != 7) {
        PyErr_Format(PyExc_TypeError, "step() takes 7 arguments (%zd given)",
                     nargs);
        return NULL;
    }
    PyObject *code = args[0], *state = args[1], *limit = args[3];
    Budgets budgets;
    if (!PyUnicode_Check(code) || !PyDict_Check(state)) {
        PyErr_Format(PyExc_TypeError,
                     "step() argument %d must be %s, not %.100s",
                     PyUnicode_Check(code) ? 2 : 1,
                     PyUnicode_Check(code) ? "dict" : "str",
                     Py_TYPE(PyUnicode_Check(code) ? state : code)->tp_name);
        return NULL;
    }
    if (!budgets_from_object(in_st(&self->in), args[2], &budgets)) {
        PyErr_Format(PyExc_TypeError,
                     "step()'s third argument must be a Budgets, not %.100s",
                     Py_TYPE(args[2])->tp_name);
        return NULL;
    }
    if (!PyType_Check(args[4]) || ((PyTypeObject *)args[4])->tp_new == NULL) {
        PyErr_Format(PyExc_TypeError,
                     "step()'s container must be a class that can make "
                     "instances, not %.100s",
                     PyType_Check(args[4]) ? ((PyTypeObject *)args[4])->tp_name
                                           : Py_TYPE(args[4])->tp_name);
        return NULL;
    }
    if (limit != Py_None && !PyLong_Check(limit)) {
        PyErr_Format(PyExc_TypeError,
                     "step()'s max_print_outputs_length must be an int or "
                     "None, not %.100s",
                     Py_TYPE(limit)->tp_name);
        return NULL;
    }
    PyObject *result = interpreter_run_budgets(self, code, state, &budgets);
    PyObject *t = NULL, *v = NULL, *tb = NULL;
    if (result == NULL) {
        if (in_budget(&self->in)->timeout_error != NULL &&
            PyErr_ExceptionMatches(in_budget(&self->in)->timeout_error)) {
            step_timeout_message(&self->in, args[6]);
        }
        PyErr_Fetch(&t, &v, &tb);
    }
    if (step_record(self, state, limit, args[4], args[5]) < 0) {
        Py_CLEAR(result);
        if (t != NULL) {
            /* the record's error, with the step's as its context */
            PyObject *t2, *v2, *tb2;
            PyErr_Fetch(&t2, &v2, &tb2);
            PyErr_NormalizeException(&t, &v, &tb);
            PyErr_NormalizeException(&t2, &v2, &tb2);
            if (tb != NULL) {
                PyException_SetTraceback(v, tb);
            }
            PyException_SetContext(v2, v); /* steals v */
            v = NULL;
            Py_CLEAR(t);
            Py_CLEAR(tb);
            PyErr_Restore(t2, v2, tb2);
        }
        return NULL;
    }
    if (t != NULL) {
        PyErr_Restore(t, v, tb);
    }
    return result;
}

static PyGetSetDef interpreter_getset[] = {
    {"grants", (getter)interpreter_get_grants, (setter)interpreter_set_grants,
     "What host code acting for the code may do (tripwire.c): a dict with "
     "readable_dirs, writable_dirs (None: unrestricted), allow_network, "
     "allow_processes.",
     NULL},
    {"tools", (getter)interpreter_get_tools, (setter)interpreter_set_tools,
     "Protected names (tools): looked up after state; cannot be rebound.",
     NULL},
    {"extra_builtins", (getter)interpreter_get_extra,
     (setter)interpreter_set_extra,
     "Extra names visible like builtins; code may shadow them.", NULL},
    {"authorized_imports", (getter)interpreter_get_authorized, NULL,
     "The authorized import list (a copy).", NULL},
    {"print_outputs", (getter)interpreter_get_prints, NULL,
     "Everything print() wrote during the most recent run().", NULL},
    {"operations_count", (getter)interpreter_get_ops, NULL,
     "Operations charged during the most recent run().", NULL},
    {"memory_used", (getter)interpreter_get_mem, NULL,
     "Net bytes allocated during the most recent run() (memlimit.c).",
     NULL},
    {NULL},
};

static PyObject *
interpreter_touched_names(InterpreterObject *self, PyObject *Py_UNUSED(arg))
{
    if (in_budget(&self->in)->running) {
        PyErr_SetString(PyExc_RuntimeError, "a step is running");
        return NULL;
    }
    return gcache_touched(&self->in);
}

/* cache_info(): the cache of lowered programs, as a dict. */
static PyObject *
interpreter_cache_info(InterpreterObject *self, PyObject *unused)
{
    (void)unused;
    return Py_BuildValue(
        "{snsnsnsLsLsL}", "programs",
        self->cache ? PyDict_GET_SIZE(self->cache) : (Py_ssize_t)0, "bytes",
        (Py_ssize_t)self->cache_bytes, "limit", (Py_ssize_t)CACHE_BYTES,
        "hits", self->cache_hits, "misses", self->cache_misses, "evictions",
        self->cache_evictions);
}

static PyMethodDef interpreter_methods[] = {
    {"cache_info", (PyCFunction)interpreter_cache_info, METH_NOARGS,
     "cache_info() -> dict: the interpreter's cache of lowered programs "
     "(programs, bytes, limit, hits, misses, evictions): bounded by the "
     "memory the programs hold, the least recently served evicted first"},
    {"touched_names", (PyCFunction)interpreter_touched_names, METH_NOARGS,
     "touched_names() -> set | None: the names the last step read, wrote or "
     "deleted in its globals by name (its functions' reads included; "
     "builtins' names too), or None when one access could not be noted "
     "(globalcache.c)"},
    {"run", (PyCFunction)(void (*)(void))interpreter_run,
     METH_VARARGS | METH_KEYWORDS,
     "run(code, state[, budgets], *, max_operations, max_while_iterations, "
     "timeout, ...) -> (output, is_final_answer); budgets: a Budgets object, "
     "or the budget keywords (not both)"},
    {"step", (PyCFunction)(void (*)(void))interpreter_step, METH_FASTCALL,
     "step(code, state, budgets, max_print_outputs_length, container, "
     "truncate, timeout) -> (output, is_final_answer): run(code, state, "
     "budgets), a timeout error worded with `timeout` as smolagents does; "
     "then, whether it succeeds or fails, state['_print_outputs'] = "
     "container instance whose .value is the logs (made without __init__; "
     "cut by truncate(logs, max_length=...) when "
     "longer; None: never) and state['_operations_count'] = {'counter': "
     "operations}"},
    {NULL},
};

static PyType_Slot interpreter_slots[] = {
    {Py_tp_new, interpreter_new},
    {Py_tp_init, interpreter_init},
    {Py_tp_dealloc, interpreter_dealloc},
    {Py_tp_traverse, interpreter_traverse},
    {Py_tp_clear, interpreter_clear},
    {Py_tp_methods, interpreter_methods},
    {Py_tp_getset, interpreter_getset},
    {Py_tp_doc, "Interpreter(*, authorized_imports, interpreter_error, "
                "final_answer_exception, timeout_error): runs code in the "
                "sandbox. See docs/core-api.md."},
    {0, NULL},
};

static PyType_Spec interpreter_spec = {
    .name = "smolagents_native._core.Interpreter",
    .basicsize = sizeof(InterpreterObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_BASETYPE,
    .slots = interpreter_slots,
};

/* ------------------------------------------------------------------ module */

static int
intern(PyObject **slot, const char *s)
{
    *slot = PyUnicode_InternFromString(s);
    return *slot ? 0 : -1;
}

/* The types of interpreted functions and generators are named as
 * CPython's own, "function" and "generator" in module builtins, so that
 * messages built from tp_name ("'function' object is not subscriptable",
 * "__init__() should return None, not 'generator'") and reprs read as
 * they do under CPython.  Their specs are named "builtins.function" and
 * "builtins.generator" (the module comes from the part before the dot);
 * tp_name, which the type only reads, is then pointed past the dot into
 * the same string. */
static void
module_builtins_names(ModState *st)
{
    PyTypeObject *types[] = {st->FunctionType, st->GeneratorType,
                             st->CoroutineType, st->CoroWrapperType,
                             st->AsyncGenType,  st->AsyncGenASendType,
                             st->AsyncGenAThrowType};
    for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
        const char *dot = strrchr(types[i]->tp_name, '.');
        if (dot != NULL) {
            types[i]->tp_name = dot + 1;
        }
    }
}

/* copy.copy() and copy.deepcopy() of an interpreted function return it, as
 * they do a CPython function (copy lists types.FunctionType as atomic; ours
 * is another type, which copy would try to pickle): the type joins copy's
 * atomic sets (3.14; 3.15's frozensets are replaced by ones with it) or its
 * dispatch tables (up to 3.13).  Best effort: a
 * copy module with neither is left alone.  0 / -1. */
static int
copy_treats_as_atomic(PyTypeObject *tp)
{
    PyObject *copy = PyImport_ImportModule("copy");
    if (copy == NULL) {
        return -1;
    }
    /* {atomic set, dispatch table, its atomic function} per operation */
    static const char *const ways[][3] = {
        {"_copy_atomic_types", "_copy_dispatch", "_copy_immutable"},
        {"_atomic_types", "_deepcopy_dispatch", "_deepcopy_atomic"},
    };
    int rc = 0;
    for (size_t i = 0; i < 2 && rc == 0; i++) {
        PyObject *set = PyObject_GetAttrString(copy, ways[i][0]);
        if (set != NULL && PyAnySet_CheckExact(set)) {
            if (PyFrozenSet_CheckExact(set)) {
                /* 3.15: a frozenset, replaced by one with the type */
                PyObject *more = PyFrozenSet_New(set);
                rc = more == NULL || PySet_Add(more, (PyObject *)tp) < 0 ||
                             PyObject_SetAttrString(copy, ways[i][0], more) < 0
                         ? -1
                         : 0;
                Py_XDECREF(more);
            }
            else {
                rc = PySet_Add(set, (PyObject *)tp);
            }
            Py_DECREF(set);
            continue;
        }
        Py_XDECREF(set);
        PyErr_Clear();
        PyObject *table = PyObject_GetAttrString(copy, ways[i][1]);
        PyObject *fn = table ? PyObject_GetAttrString(copy, ways[i][2]) : NULL;
        if (fn != NULL && PyDict_Check(table)) {
            rc = PyDict_SetItem(table, (PyObject *)tp, fn);
        }
        else {
            PyErr_Clear();
        }
        Py_XDECREF(table);
        Py_XDECREF(fn);
    }
    Py_DECREF(copy);
    return rc;
}

static int
core_exec(PyObject *m)
{
    ModState *st = PyModule_GetState(m);
    st->dict_watcher = -1; /* before any failure: core_free reads them */
    st->bdict_watcher = -1;
    st->tools_watcher = -1;
    st->modules_watcher = -1;
    if (intern(&st->str_dunder_class, "__class__") < 0 ||
        intern(&st->str_init, "__init__") < 0 ||
        intern(&st->str_del, "__del__") < 0 ||
        intern(&st->str_dot0, ".0") < 0 ||
        intern(&st->str_super, "super") < 0 ||
        intern(&st->str___debug__, "__debug__") < 0 ||
        intern(&st->str___future__, "__future__") < 0 ||
        intern(&st->str_name, "__name__") < 0 ||
        intern(&st->str_qualname, "__qualname__") < 0 ||
        intern(&st->str_module, "__module__") < 0 ||
        intern(&st->str_doc, "__doc__") < 0 ||
        intern(&st->str_classcell, "__classcell__") < 0 ||
        intern(&st->str_classdict, "__classdict__") < 0 ||
        intern(&st->str_annotations, "__annotations__") < 0 ||
        intern(&st->str_main, "__main__") < 0 ||
        intern(&st->str_match_args, "__match_args__") < 0 ||
        intern(&st->str_mro_entries, "__mro_entries__") < 0 ||
        intern(&st->str_orig_bases, "__orig_bases__") < 0 ||
        intern(&st->str_prepare, "__prepare__") < 0 ||
        intern(&st->str_metaclass, "metaclass") < 0 ||
        intern(&st->str_all, "__all__") < 0 ||
        intern(&st->str_enter, "__enter__") < 0 ||
        intern(&st->str_exit, "__exit__") < 0 ||
        intern(&st->str_aenter, "__aenter__") < 0 ||
        intern(&st->str_aexit, "__aexit__") < 0 ||
        intern(&st->str_aiter, "__aiter__") < 0 ||
        intern(&st->str_anext, "__anext__") < 0 ||
        intern(&st->str_send, "send") < 0 ||
        intern(&st->str_throw, "throw") < 0 ||
        intern(&st->str_close, "close") < 0 ||
        intern(&st->str_write, "write") < 0 ||
        intern(&st->str_keys, "keys") < 0 || intern(&st->str_get, "get") < 0 ||
        intern(&st->str_dot, ".") < 0 ||
        intern(&st->str_string_filename, "<unknown>") < 0 ||
        intern(&st->str_dot0_suffix, ".0") < 0 ||
        intern(&st->str_space, " ") < 0 ||
        intern(&st->str_newline, "\n") < 0 ||
        intern(&st->str_print_outputs, "_print_outputs") < 0 ||
        intern(&st->str_operations_count, "_operations_count") < 0 ||
        intern(&st->str_counter, "counter") < 0 ||
        intern(&st->str_value, "value") < 0) {
        return -1;
    }
    if (lower_init_state(m, st) < 0 || eval_expr_table_check() < 0 ||
        eval_stmt_table_check() < 0) {
        return -1;
    }
    st->ProgramType =
        (PyTypeObject *)PyType_FromModuleAndSpec(m, &Program_spec, NULL);
    st->FunctionType =
        (PyTypeObject *)PyType_FromModuleAndSpec(m, &Function_spec, NULL);
    st->GeneratorType =
        (PyTypeObject *)PyType_FromModuleAndSpec(m, &Generator_spec, NULL);
    st->InterpreterType =
        (PyTypeObject *)PyType_FromModuleAndSpec(m, &interpreter_spec, NULL);
    st->ProxyType =
        (PyTypeObject *)PyType_FromModuleAndSpec(m, &Proxy_spec, NULL);
    st->RunnerType =
        (PyTypeObject *)PyType_FromModuleAndSpec(m, &Runner_spec, NULL);
    st->LazyImportType =
        (PyTypeObject *)PyType_FromModuleAndSpec(m, &LazyImport_spec, NULL);
    st->AnnotateType =
        (PyTypeObject *)PyType_FromModuleAndSpec(m, &Annotate_spec, NULL);
    st->CoroutineType =
        (PyTypeObject *)PyType_FromModuleAndSpec(m, &Coroutine_spec, NULL);
    st->CoroWrapperType =
        (PyTypeObject *)PyType_FromModuleAndSpec(m, &CoroWrapper_spec, NULL);
    st->AsyncGenType =
        (PyTypeObject *)PyType_FromModuleAndSpec(m, &AsyncGen_spec, NULL);
    st->AsyncGenASendType = (PyTypeObject *)PyType_FromModuleAndSpec(
        m, &AsyncGenASend_spec, NULL);
    st->AsyncGenAThrowType = (PyTypeObject *)PyType_FromModuleAndSpec(
        m, &AsyncGenAThrow_spec, NULL);
    if (!st->ProgramType || !st->FunctionType || !st->GeneratorType ||
        !st->InterpreterType || !st->ProxyType || !st->RunnerType ||
        !st->LazyImportType || !st->AnnotateType || !st->CoroutineType ||
        !st->CoroWrapperType || !st->AsyncGenType ||
        !st->AsyncGenASendType || !st->AsyncGenAThrowType ||
        tripwire_install() < 0) {
        return -1;
    }
    module_builtins_names(st);
    if (copy_treats_as_atomic(st->FunctionType) < 0) {
        return -1;
    }
    if (PyModule_AddType(m, st->InterpreterType) < 0 ||
        funcbridge_init_state(st) < 0 || generator_init_state(st) < 0) {
        return -1;
    }
    memlimit_install(); /* security: the memory budget (once per process) */
    (void)policy_plain_types_init();
    if (deadline_install_sources() < 0) {
        return -1; /* security: iterators with no end check the deadline */
    }
    if (PyModule_AddIntConstant(m, "MEMORY_BUDGET", memlimit_available()) <
        0) {
        return -1;
    }
    st->safe_builtins = policy_build_safe_builtins(m, st);
    if (st->safe_builtins != NULL) {
        st->builtin_isinstance =
            Py_XNewRef(PyDict_GetItemString(st->safe_builtins, "isinstance"));
        st->builtin_len =
            Py_XNewRef(PyDict_GetItemString(st->safe_builtins, "len"));
        st->list_append =
            PyObject_GetAttrString((PyObject *)&PyList_Type, "append");
        st->list_extend =
            PyObject_GetAttrString((PyObject *)&PyList_Type, "extend");
        st->empty_tuple = PyTuple_New(0);
        PyObject *zero = PyLong_FromLong(0);
        PyObject *r0 =
            zero ? PyObject_CallOneArg((PyObject *)&PyRange_Type, zero) : NULL;
        st->empty_range_iter = r0 ? PyObject_GetIter(r0) : NULL;
        Py_XDECREF(r0);
        Py_XDECREF(zero);
#if PY_VERSION_HEX >= 0x030E0000
        {
            /* PEP 750's types, as string.templatelib takes them: from a
               template CPython's compiler makes (no import) */
            PyObject *code = Py_CompileString("t'{0}'", "<templatelib>",
                                              Py_eval_input);
            PyObject *g = code ? PyDict_New() : NULL;
            PyObject *t = g ? PyEval_EvalCode(code, g, g) : NULL;
            PyObject *ips =
                t ? PyObject_GetAttrString(t, "interpolations") : NULL;
            if (ips != NULL && PyTuple_Check(ips) && PyTuple_GET_SIZE(ips)) {
                st->template_type = Py_NewRef((PyObject *)Py_TYPE(t));
                st->interpolation_type =
                    Py_NewRef((PyObject *)Py_TYPE(PyTuple_GET_ITEM(ips, 0)));
            }
            Py_XDECREF(ips);
            Py_XDECREF(t);
            Py_XDECREF(g);
            Py_XDECREF(code);
            if (st->template_type == NULL) {
                if (!PyErr_Occurred()) {
                    PyErr_SetString(PyExc_SystemError, "no template type");
                }
                return -1;
            }
        }
#endif
        if (st->list_append == NULL || st->list_extend == NULL ||
            st->empty_tuple == NULL || st->empty_range_iter == NULL) {
            return -1;
        }
    }
    if (st->safe_builtins == NULL) {
        return -1;
    }
    if (budgets_add_to_module(m) < 0 || bigstack_add_to_module(m) < 0 ||
        nesting_init(st) < 0 || fuzzcov_add_to_module(m) < 0 ||
        PyModule_AddFunctions(m, module_functions) < 0 ||
        sandbox_add_functions(m) < 0 || wire_add_functions(m) < 0 ||
        shim_add_functions(m) < 0 || inprocess_add_to_module(m) < 0 ||
        provenance_init() < 0 ||
        gadgets_init() < 0) {
        return -1;
    }
    /* how setup.py optimized this build (compiler, flags, profile) */
    if (PyModule_AddStringConstant(m, "BUILD", SMOLAGENTS_NATIVE_BUILD) < 0) {
        return -1;
    }
    /* how gadget frames are seen (gadgets.c): "monitoring" (the table's
       code objects carry sys.monitoring events, 3.12+) or "profile" */
    if (PyModule_AddStringConstant(
            m, "GADGET_HOOK",
            gadgets_monitoring_tool() >= 0 ? "monitoring" : "profile") < 0) {
        return -1;
    }
    /* where CPython keeps a managed instance dict, if its layout is the one
       we know (compat.h, compat_managed_dict_known) */
    if (compat_managed_dict_check() < 0 ||
        PyModule_AddIntConstant(m, "MANAGED_DICT_LAYOUT",
                                compat_managed_dict_layout) < 0) {
        return -1;
    }
    st->dict_watcher = compat_dict_watcher_add(COMPAT_WATCH_GLOBALS);
    st->bdict_watcher = compat_dict_watcher_add(COMPAT_WATCH_BUILTINS);
    st->tools_watcher = compat_dict_watcher_add(COMPAT_WATCH_TOOLS);
    st->modules_watcher = compat_dict_watcher_add(COMPAT_WATCH_MODULES);
    /* where CPython keeps an instance's attributes without a dict object
       (3.13+), if its layout is the one we know (compat.h,
       compat_inline_values): after the watchers, whose bits it reads */
    if (compat_inline_values_check() < 0 ||
        PyModule_AddIntConstant(m, "INLINE_VALUES_LAYOUT",
                                compat_inline_values_layout) < 0 ||
        PyModule_AddIntConstant(m, "SHARED_KEYS_LAYOUT",
                                compat_shared_keys_layout) < 0) {
        return -1;
    }
    return 0;
}

static int
core_traverse(PyObject *m, visitproc visit, void *arg)
{
    ModState *st = PyModule_GetState(m);
    Py_VISIT(st->ProgramType);
    Py_VISIT(st->FunctionType);
    Py_VISIT(st->GeneratorType);
    Py_VISIT(st->InterpreterType);
    Py_VISIT(st->ProxyType);
    Py_VISIT(st->RunnerType);
    Py_VISIT(st->LazyImportType);
    Py_VISIT(st->AnnotateType);
    Py_VISIT(st->CoroutineType);
    Py_VISIT(st->CoroWrapperType);
    Py_VISIT(st->AsyncGenType);
    Py_VISIT(st->AsyncGenASendType);
    Py_VISIT(st->AsyncGenAThrowType);
    Py_VISIT(st->BudgetsType);
    Py_VISIT(st->safe_builtins);
    Py_VISIT(st->builtin_isinstance);
    Py_VISIT(st->builtin_len);
    Py_VISIT(st->list_append);
    Py_VISIT(st->list_extend);
    Py_VISIT(st->empty_tuple);
    Py_VISIT(st->empty_range_iter);
    Py_VISIT(st->template_type);
    Py_VISIT(st->interpolation_type);
    Py_VISIT(st->matcher_code);
    for (int i = 0; i < 3; i++) {
        Py_VISIT(st->gen_code[i]);
    }
    Py_VISIT(st->install_dirs);
    Py_VISIT(st->entry_template);
    Py_VISIT(st->kind_of_class);
    Py_VISIT(st->op_of_class);
    Py_VISIT(st->ast_module);
    Py_VISIT(st->gname_ids);
    Py_VISIT(st->gname_list);
    return 0;
}

static int
core_clear(PyObject *m)
{
    ModState *st = PyModule_GetState(m);
    st->closing = 1; /* interp_enter refuses from now on */
    Py_CLEAR(st->ProgramType);
    Py_CLEAR(st->FunctionType);
    Py_CLEAR(st->GeneratorType);
    Py_CLEAR(st->InterpreterType);
    Py_CLEAR(st->ProxyType);
    Py_CLEAR(st->RunnerType);
    Py_CLEAR(st->LazyImportType);
    Py_CLEAR(st->AnnotateType);
    Py_CLEAR(st->CoroutineType);
    Py_CLEAR(st->CoroWrapperType);
    Py_CLEAR(st->AsyncGenType);
    Py_CLEAR(st->AsyncGenASendType);
    Py_CLEAR(st->AsyncGenAThrowType);
    Py_CLEAR(st->BudgetsType);
    Py_CLEAR(st->safe_builtins);
    Py_CLEAR(st->builtin_isinstance);
    Py_CLEAR(st->builtin_len);
    Py_CLEAR(st->list_append);
    Py_CLEAR(st->list_extend);
    Py_CLEAR(st->empty_tuple);
    Py_CLEAR(st->empty_range_iter);
    Py_CLEAR(st->template_type);
    Py_CLEAR(st->interpolation_type);
    Py_CLEAR(st->matcher_code);
    for (int i = 0; i < 3; i++) {
        Py_CLEAR(st->gen_code[i]);
    }
    Py_CLEAR(st->install_dirs);
    Py_CLEAR(st->entry_template);
    Py_CLEAR(st->kind_of_class);
    Py_CLEAR(st->op_of_class);
    Py_CLEAR(st->ast_module);
    Py_CLEAR(st->gname_ids);
    Py_CLEAR(st->gname_list);
    for (int i = 0; i < st->ndangerous; i++) {
        Py_CLEAR(st->dangerous[i]);
    }
    st->ndangerous = 0;
    if (st->field_names_all) {
        for (int i = 0; i < st->n_field_names; i++) {
            Py_CLEAR(st->field_names_all[i]);
        }
        PyMem_Free(st->field_names_all);
        st->field_names_all = NULL;
    }
    return 0;
}

static void
core_free(void *m)
{
    ModState *st = PyModule_GetState((PyObject *)m);
    core_clear((PyObject *)m);
    generator_free_stacks(st);
    compat_dict_watcher_clear(st->dict_watcher);
    compat_dict_watcher_clear(st->bdict_watcher);
    compat_dict_watcher_clear(st->tools_watcher);
    compat_dict_watcher_clear(st->modules_watcher);
    st->dict_watcher = -1;
    st->bdict_watcher = -1;
    st->tools_watcher = -1;
    st->modules_watcher = -1;
}

static PyModuleDef_Slot core_slots[] = {
    {Py_mod_exec, core_exec},
    {0, NULL},
};

static struct PyModuleDef coremodule = {
    PyModuleDef_HEAD_INIT,
    .m_name = "smolagents_native._core",
    .m_doc = "Native sandboxed Python interpreter (see docs/core-api.md).",
    .m_size = sizeof(ModState),
    .m_slots = core_slots,
    .m_traverse = core_traverse,
    .m_clear = core_clear,
    .m_free = core_free,
};

PyMODINIT_FUNC
PyInit__core(void)
{
    return PyModuleDef_Init(&coremodule);
}
