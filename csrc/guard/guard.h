/* guard.h: the public header of the `guard` layer (docs/design.md, section
 * 6.1): the policy and its state (GuardState, in_guard): the attribute choke
 * point, value gates, host calls, gadgets, provenance, the tripwire, the
 * executor's own process-wide state.
 *
 * A file includes its own layer's header and, through it, the layers below;
 * never a header of a layer above (scripts/check_layers.py).
 */
#ifndef SMOLAGENTS_NATIVE_GUARD_H
#define SMOLAGENTS_NATIVE_GUARD_H

#include "budget/budget.h"

/* The guard layer's part of the interpreter state: what the code may reach
 * (the tools, the authorized imports, the grants), the entry frame, and the
 * process-wide state the executor keeps its own. */
typedef struct GuardState {
    PyObject *owner;        /* borrowed: the InterpreterObject */
    PyObject *tools;        /* dict: protected names */
    /* the values of `tools` (identities, held by the dict), for is_tool;
       ntool_objs < 0: not built (scan the dict) */
    PyObject **tool_objs;
    Py_ssize_t ntool_objs;
    PyObject *authorized;   /* list of str */
    int gadgets_paused;  /* gadgets.c: > 0 while a pure call runs with the
                            gadget profile off (interpreted code entered
                            then turns it back on) */
    int pure_ok;         /* gadgets.c: pure calls allowed this step: -1
                            not decided yet, 0 no (signal authorized), 1 */
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
} GuardState;

/* The interpreter as the guard layer sees it (budget.h, in_budget). */
typedef struct InterpGuardView {
    BudgetState budget;
    GuardState guard;
} InterpGuardView;

static inline GuardState *
in_guard(const Interp *in)
{
    return &((InterpGuardView *)in)->guard;
}

/* gadgets.c: what arming replaced on this thread, restored by disarming:
 * the thread's profile function (profile mode), or the interpreter whose
 * step the thread ran before (monitoring mode, 3.12+). */
typedef struct {
    Py_tracefunc func;
    PyObject *obj; /* owned */
    struct Interp *prev; /* monitoring mode */
    int armed;           /* 1: profile mode, 2: monitoring mode */
} GadgetSave;

struct GenObject;

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
    int keep_last;        /* module level, while the step's last top-level
                             statement runs: the values its statements give
                             are kept in last_value (the step's output);
                             otherwise they are released as CPython
                             releases them */
    PyObject *ann_done;   /* class body, 3.14+: set of the indices of the
                             annotated names it ran (owned; annotate.c) */
} Frame;

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

static inline int
annotate_check(ModState *st, PyObject *o)
{
    return Py_TYPE(o) == st->AnnotateType;
}

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
/* A verdict on plain-name attribute access to the instances of one type at
 * one version tag, which a site may remember (an Attribute node's itype,
 * itag, stag: eval/specialize.c writes them; the guards only return
 * verdicts).  type NULL: nothing to remember.  dict_only_tag: for a store,
 * the tag at which the type has no attribute of the name and its instances
 * have a dict (0: not known).  slot, with dict_only_tag: 1 + the name's slot
 * in the values CPython keeps inline (compat_inline_values, 3.13+), 0 when
 * not known; in `cached`, slot_learn: whether the store may look for it
 * (compat_inline_slot_of) while it is not known, and in `learned`, 1 when
 * it looked. */
typedef struct {
    PyTypeObject *type;
    uint32_t tag;
    uint32_t dict_only_tag;
    uint8_t slot;
    uint8_t slot_learn;
} AttrVerdict;

/* Plain-name loads from instances (an Attribute node's itype / itag).  A
 * load of a name policy_attr_name_plain accepted, from an object that is
 * neither a module nor an internal object, passes the attribute check on the
 * object's type alone (policy_check_attr_plain); and when the type's lookup
 * of the name is the generic one (provenance_getattr_is_generic), the load
 * is PyObject_GenericGetAttr.  Both facts depend only on the type and its
 * bases, which get a new version tag whenever they change (tags are never
 * reused; provenance_adopt gives one when it installs its guard), so
 * policy_getattr_verdict gives the type and tag it found them for (from
 * facts that ran no code, before the load), and a load from an object of
 * that type at that tag is PyObject_GenericGetAttr then policy_attr_result
 * (eval_attribute). */
AttrVerdict policy_getattr_verdict(PyObject *obj, PyObject *name);
/* policy_setattr_plain with a verdict a site remembered (`cached`: an
 * Attribute node's itype / itag / stag) and the one it may remember next
 * (`*learned`, zeroed by the caller): a store to an instance whose type's verdict was
 * "allowed" (it depends on the type alone for an instance that is not a
 * class, a super() proxy, a module or an internal object, and not a tool)
 * and whose type's store is the generic one, at the same version tag, is
 * PyObject_GenericSetAttr after the tool check.  cached->dict_only_tag: the tag at which
 * the type was also seen, when the site remembered it, to have no
 * attribute of the name while its instances have a dict: the store is then
 * what PyObject_GenericSetAttr does in that case, an item store in the
 * instance's dict. */
int policy_setattr_plain_cached(Interp *in, PyObject *obj, PyObject *name,
                                PyObject *value, const AttrVerdict *cached,
                                AttrVerdict *learned);
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
/* policy_check_extend's check for `self` an exact list and `arg` an exact
 * list or tuple, whose sizes are their pointers (list_extend_fast): the
 * comparison inline, the error out of line.  0 / -1. */
static inline int
policy_check_extend_seq(Interp *in, PyObject *self, PyObject *arg)
{
    double bytes = ((double)Py_SIZE(self) + (double)Py_SIZE(arg)) *
                   (double)sizeof(PyObject *);
    if (budget_limited(budget_max_result_bytes(in)) &&
        bytes > (double)budget_max_result_bytes(in)) {
        return policy_check_result_bytes(in, bytes, "call");
    }
    return 0;
}
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

/* RecursionError (catchable, as in CPython) when the C stack is nearly
 * exhausted.  0 / -1. */
static inline int
limits_check_stack(Interp *in)
{
    char *sp = (char *)__builtin_frame_address(0);
    if ((in_budget(in)->stack_limit != NULL && sp < in_budget(in)->stack_limit) ||
        (in_budget(in)->stack_hi != NULL && sp > in_budget(in)->stack_hi)) {
        return limits_check_stack_slow(in, sp);
    }
    return 0;
}

/* Bring the clock check `n` operations nearer without spending budget. */
static inline void
limits_clock_spend(Interp *in, long long n)
{
    in_budget(in)->tick -= n;
    in_budget(in)->ops_extra += n;
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

/* The value an attribute load gives interpreted code: `v` (stolen, the
 * attribute's value) with the substitutes and the value gate applied.  New
 * reference, or NULL with an exception. */
PyObject *policy_attr_result_slow(Interp *in, PyObject *v);
static inline PyObject *
policy_attr_result(Interp *in, PyObject *v)
{
    return value_is_plain(v) ? v : policy_attr_result_slow(in, v);
}

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
    return Py_TYPE(it) == in_st(in)->GeneratorType &&
           ((GenHead *)it)->func != NULL &&
           ((GenHead *)it)->func->interp == in_guard(in)->owner;
}

/* deadline.c: the deadline at its sources (budget iterators over
 * unbounded iterators, weights of big-int arithmetic). */
int deadline_charge_binop(Interp *in, int op, PyObject *l, PyObject *r);
/* Int operands (and, for a power, results) below this many bits cost about
 * as much as any operation: deadline_charge_binop charges nothing for them. */
#define DEADLINE_HEAVY_BITS 4096
/* 1 when `b ** e` is light for the deadline, `b` an int of `bbits` bits
 * and `e` an int: deadline_charge_binop charges nothing for it (its OP_Pow
 * case asks this), and the evaluator need not call that function for the
 * small powers of ordinary code (`i ** 2`, `10 ** 9`). */
static inline int
deadline_power_light(double bbits, double e)
{
    return e <= 1 || bbits <= 1 || bbits * e < (double)DEADLINE_HEAVY_BITS;
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
/* The call gate for host callable `func` at a call site that has not
 * remembered it: -1 when the call is refused, else HC_CHECKED (the flag to
 * pass to hostcall_vectorcall), with the verdict a site may remember
 * (specialize_call_gate) when `site` has HC_SITE_LEARNS: HC_REMEMBER when
 * the pass may stand for the next calls of this very object there (it is
 * not dangerous, and its identity is stable or, HC_SITE_HOLDS, the site
 * keeps it alive anyway; never a pass the tool exemption gave), and
 * HC_REMEMBER_PLAIN when policy_prepare_call and the bridge have nothing to
 * do for it either.  A call site that remembered `func` passes HC_CHECKED,
 * with HC_PLAIN for a plain one, without asking. */
#define HC_SITE_LEARNS 0x1    /* the site may still learn a callable */
#define HC_SITE_HOLDS 0x2     /* the site's callee node holds func */
#define HC_REMEMBER 0x100      /* verdict: may be remembered by identity */
#define HC_REMEMBER_PLAIN 0x200 /* verdict: remembered as plain */
int hostcall_gate(Interp *in, PyObject *func, int site);
/* 1 when `func` is an interpreted function or a method bound to one: not a
 * host call (its arguments and results stay inside the interpreter). */
static inline int
hostcall_is_interpreted(Interp *in, PyObject *func)
{
    PyTypeObject *ft = in_st(in)->FunctionType;
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
/* hostcall_vectorcall(in, pfunc, args, nargs | offset, NULL, HC_CHECKED |
 * HC_PLAIN) for a callable the call site's gate remembered as plain, at a
 * site written `isinstance(a, b)` or `len(a)` (args[-1] free): the real
 * builtins' answers that run no code (hostcall_fast_builtin) without the
 * entry point's tests of flags and keywords; any other callable or case is
 * the entry point's full path. */
PyObject *hostcall_builtin_plain(Interp *in, PyObject **pfunc,
                                 PyObject **args, Py_ssize_t nargs);
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

/* dunders.c: 1 when the reviewed allowlist lets the code read the dunder
 * `name` on `obj` (NULL: the object is not known yet), else 0.  No error. */
int dunder_read_allowed(Interp *in, PyObject *obj, PyObject *name);

/* provenance.c: which classes the code made (recorded at creation while
 * a step runs on the thread), protocols they may not define, id(). */
int provenance_init(void);
int provenance_adopt(Interp *in, PyTypeObject *tp); /* 0 / -1 (abort) */
int provenance_is_code_type(PyTypeObject *tp);      /* 1 / 0, no error */
/* A live class of the code binds a special method to something else than
 * the code's own function (provenance.c): no pure calls then.  1 / 0. */
int provenance_foreign_special_methods(void);
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
 * finds), 0 otherwise: no dict, an entry, or an error (cleared).  On 3.13+
 * attributes CPython keeps in the inline slots are read by name there,
 * without making a dict object (compat_inline_has_name: `absent` its call
 * site's memory, 0 for none, *learn what the site may remember now). */
int provenance_method_unshadowed(PyObject *obj, PyObject *name, uint8_t absent,
                                 uint8_t *learn);
/* 1 when reading attribute `name` of an instance of `tp` is exactly
 * PyObject_GenericGetAttr(obj, name): tp's tp_getattro is the generic one,
 * or the code's-class guard over the generic one and `name` is not a
 * protocol name.  Runs no code. */
int provenance_getattr_is_generic(PyTypeObject *tp, PyObject *name);

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
/* A host call of a reviewed pure function or class with inert arguments
 * (pure.def): 1 when it may run with the gadget profile off, 0 otherwise.
 * `self`: the object of an unbound method call (args do not hold it), or
 * NULL.  Never raises. */
int gadgets_pure_call(Interp *in, PyObject *func, PyObject *self,
                      PyObject *const *args, Py_ssize_t n);
/* What gadgets_pure_call may answer 1 for, tested inline first: a Python
 * function, a bound method, a Python class, or a C function whose
 * PyMethodDef has its bit in gadgets_pure_cbloom (the PURE_C entries'):
 * most host calls are of C functions, which this keeps at a few
 * instructions. */
extern uint64_t gadgets_pure_cbloom;
static inline uint64_t
gadgets_pure_cbit(const void *ml)
{
    return (uint64_t)1 << (((uintptr_t)ml >> 4) & 63);
}
static inline int
gadgets_maybe_pure(PyObject *func)
{
    PyTypeObject *ft = Py_TYPE(func);
    if (ft == &PyCFunction_Type || ft == &PyCMethod_Type) {
        return (gadgets_pure_cbloom &
                gadgets_pure_cbit(((PyCFunctionObject *)func)->m_ml)) != 0;
    }
    return ft == &PyFunction_Type || ft == &PyMethod_Type ||
           (PyType_Check(func) &&
            (((PyTypeObject *)func)->tp_flags & Py_TPFLAGS_HEAPTYPE));
}
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

#include "tripwire.h"

#endif /* SMOLAGENTS_NATIVE_GUARD_H */
