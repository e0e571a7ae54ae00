/* compat.h: differences between CPython versions, in one place. */
#ifndef SMOLAGENTS_NATIVE_COMPAT_H
#define SMOLAGENTS_NATIVE_COMPAT_H

#include <Python.h>
#include <stdint.h>

#if PY_VERSION_HEX < 0x030A0000
#error "smolagents_native needs CPython 3.10 or newer"
#endif

#if PY_VERSION_HEX < 0x030B0000
#include <frameobject.h> /* PyFrame_Type: in Python.h from 3.11 */
#endif

/* Thread-locals read on hot paths (every host call, generator resume,
 * allocation): the initial-exec model reads them at a fixed offset from the
 * thread pointer instead of calling __tls_get_addr, which a shared object's
 * default (global-dynamic) model does on every access.  It takes room in
 * the static TLS block that glibc reserves for objects loaded later, so only
 * a few small variables use it (about 90 bytes in all). */
#if defined(__GNUC__) && defined(__ELF__)
#define HOT_TLS _Thread_local __attribute__((tls_model("initial-exec")))
#else
#define HOT_TLS _Thread_local
#endif

#ifdef Py_GIL_DISABLED
#error "smolagents_native does not support free-threaded CPython builds (3.13t, 3.14t): the interpreter relies on the GIL; use the default build of CPython"
#endif

/* Rule of this file: the extension uses only public or documented-unstable
 * C API.  Where a public function is newer than 3.10, it is used under its
 * public name and defined here for the older versions, from public API.
 * The helpers of compat.c replace private functions (_PyObject_GetMethod,
 * _PyType_Lookup, _PyObject_FunctionStr, _PyType_CalculateMetaclass,
 * _PyLong_NumBits, _PySet_NextEntry) with implementations on public API. */

#if PY_VERSION_HEX < 0x030D0000
/* PyObject_GetOptionalAttr (public in 3.13): 1 and a new reference in
 * *result when found, 0 and NULL when the attribute does not exist
 * (AttributeError swallowed), -1 and NULL on other errors. */
static inline int
PyObject_GetOptionalAttr(PyObject *obj, PyObject *name, PyObject **result)
{
    *result = PyObject_GetAttr(obj, name);
    if (*result != NULL) {
        return 1;
    }
    if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
        PyErr_Clear();
        return 0;
    }
    return -1;
}
static inline int
PyObject_GetOptionalAttrString(PyObject *obj, const char *name,
                               PyObject **result)
{
    PyObject *n = PyUnicode_FromString(name);
    if (n == NULL) {
        *result = NULL;
        return -1;
    }
    int r = PyObject_GetOptionalAttr(obj, n, result);
    Py_DECREF(n);
    return r;
}
#endif

#if PY_VERSION_HEX < 0x030B0000
/* PyType_GetModuleByDef (public in 3.11): the module of the first heap type
 * in the MRO of `tp` created from a module with `def`; borrowed, or NULL
 * with TypeError. */
static inline PyObject *
PyType_GetModuleByDef(PyTypeObject *tp, PyModuleDef *def)
{
    PyObject *mro = tp->tp_mro;
    for (Py_ssize_t i = 0; mro != NULL && i < PyTuple_GET_SIZE(mro); i++) {
        PyTypeObject *t = (PyTypeObject *)PyTuple_GET_ITEM(mro, i);
        if (!PyType_HasFeature(t, Py_TPFLAGS_HEAPTYPE)) {
            continue;
        }
        PyObject *m = ((PyHeapTypeObject *)t)->ht_module;
        if (m != NULL && PyModule_GetDef(m) == def) {
            return m;
        }
    }
    PyErr_Format(PyExc_TypeError,
                 "PyType_GetModuleByDef: No superclass of '%s' has the given "
                 "module", tp->tp_name);
    return NULL;
}
#endif

#if PY_VERSION_HEX < 0x030D0000
/* PyUnicode_EqualToUTF8 (public in 3.13): 1 when equal, else 0; never
 * fails. */
static inline int
PyUnicode_EqualToUTF8(PyObject *u, const char *s)
{
    return PyUnicode_CompareWithASCIIString(u, s) == 0;
}
#endif

/* Thread-state fields that have no public accessor.  PyThreadState is
 * declared in the non-limited header Include/cpython/pystate.h; each field
 * read or written here is listed with the versions whose headers have it
 * (3.14: checked against v3.14.0's header).  Nothing else in the extension
 * touches PyThreadState fields (generator.c's ts->exc_info on 3.11+, in the
 * 3.11 to 3.14 headers, aside). */

/* CPython's C recursion counter as a "remaining" count (lower: deeper), so
 * that generator.c can keep what a suspended generator body consumed
 * charged to that body.  No public API reads or sets it (Py_Enter/
 * LeaveRecursiveCall only step it): recursion_depth (3.10, counts up),
 * recursion_remaining (3.11), c_recursion_remaining (3.12, 3.13).  3.14
 * has no counter: C recursion is bounded by the address of the stack
 * pointer (PyThreadState lost c_recursion_remaining), so there is nothing to
 * carry between the two sides of a switch; COMPAT_C_RECURSION_COUNTER is 0
 * and the accessors do nothing.  COMPAT_C_RECURSION_REMAINING: the counter
 * is a "remaining" count that Py_EnterRecursiveCall decrements (3.11 to
 * 3.13), which generator.c's fast path steps itself. */
#if PY_VERSION_HEX >= 0x030E0000
#define COMPAT_C_RECURSION_COUNTER 0
#define COMPAT_C_RECURSION_REMAINING 0
static inline int
compat_c_recursion_get(PyThreadState *ts)
{
    (void)ts;
    return 0;
}
static inline void
compat_c_recursion_set(PyThreadState *ts, int remaining)
{
    (void)ts;
    (void)remaining;
}
#else
#define COMPAT_C_RECURSION_COUNTER 1
#if PY_VERSION_HEX >= 0x030B0000
#define COMPAT_C_RECURSION_REMAINING 1
#else
#define COMPAT_C_RECURSION_REMAINING 0
#endif
static inline int
compat_c_recursion_get(PyThreadState *ts)
{
#if PY_VERSION_HEX >= 0x030C0000
    return ts->c_recursion_remaining;
#elif PY_VERSION_HEX >= 0x030B0000
    return ts->recursion_remaining;
#else
    return -ts->recursion_depth;
#endif
}
static inline void
compat_c_recursion_set(PyThreadState *ts, int remaining)
{
#if PY_VERSION_HEX >= 0x030C0000
    ts->c_recursion_remaining = remaining;
#elif PY_VERSION_HEX >= 0x030B0000
    ts->recursion_remaining = remaining;
#else
    ts->recursion_depth = -remaining;
#endif
}
#endif

/* The C stack CPython measures against (3.14+).  3.14 bounds C recursion
 * by the address of the stack pointer: Py_EnterRecursiveCall, and the
 * trashcan that every GC object's deallocation goes through, compare it
 * with the thread's stack as the thread state records it.  The step's big
 * stack (bigstack.c) and the generators' stacks (generator.c) are other
 * mappings, usually below the thread's stack: there every deallocation
 * looked "too deep" to CPython and was deferred to the trashcan's list
 * until the step ended (an interpreted __del__ ran late, in another order),
 * and CPython's own checks on C recursion did not apply.  So every switch
 * onto one of our stacks tells CPython where it is
 * (PyUnstable_ThreadState_SetStackProtection) and the switch back restores
 * what was there: the stack switched from, or the thread's own
 * (PyUnstable_ThreadState_ResetStackProtection).  The thread-local records
 * which of our stacks, if any, the thread is on.  Both functions appeared
 * in a 3.14 maintenance release: they are weak references, so that a
 * build runs on an interpreter that lacks them (where nothing is switched
 * for CPython: the behaviour described above). */
typedef struct {
    char *lo; /* NULL: the thread's own stack */
    char *hi;
} CompatStack;
#if PY_VERSION_HEX >= 0x030E0000
#define COMPAT_STACK_PROTECTION 1
PyAPI_FUNC(int) PyUnstable_ThreadState_SetStackProtection(
    PyThreadState *tstate, void *stack_start_addr, size_t stack_size);
PyAPI_FUNC(void) PyUnstable_ThreadState_ResetStackProtection(
    PyThreadState *tstate);
#pragma weak PyUnstable_ThreadState_SetStackProtection
#pragma weak PyUnstable_ThreadState_ResetStackProtection
extern HOT_TLS CompatStack compat_stack_tls; /* stack.c */

static inline void
compat_stack_protect(PyThreadState *ts, const CompatStack *s)
{
    if (PyUnstable_ThreadState_SetStackProtection == NULL) {
        return;
    }
    if (s->lo == NULL) {
        PyUnstable_ThreadState_ResetStackProtection(ts);
    }
    else if (PyUnstable_ThreadState_SetStackProtection(
                 ts, s->lo, (size_t)(s->hi - s->lo)) < 0) {
        /* smaller than CPython's minimum: our stacks never are */
        PyErr_Clear();
    }
}

/* Before switching to the stack [lo, hi): *saved receives what to restore. */
static inline void
compat_stack_enter(PyThreadState *ts, char *lo, char *hi, CompatStack *saved)
{
    *saved = compat_stack_tls;
    compat_stack_tls.lo = lo;
    compat_stack_tls.hi = hi;
    compat_stack_protect(ts, &compat_stack_tls);
}

/* After switching back. */
static inline void
compat_stack_leave(PyThreadState *ts, const CompatStack *saved)
{
    compat_stack_tls = *saved;
    compat_stack_protect(ts, saved);
}
#else
#define COMPAT_STACK_PROTECTION 0
static inline void
compat_stack_enter(PyThreadState *ts, char *lo, char *hi, CompatStack *saved)
{
    (void)ts;
    (void)lo;
    (void)hi;
    (void)saved;
}
static inline void
compat_stack_leave(PyThreadState *ts, const CompatStack *saved)
{
    (void)ts;
    (void)saved;
}
#endif

/* Py_EnterRecursiveCall / Py_LeaveRecursiveCall with the thread state at
 * hand (Interp.run_ts: interpreted code runs only on the thread of its step
 * or hook): the counter itself, and CPython's function only near the limit,
 * where it raises (3.11 to 3.13: the same decrement-then-check as CPython's
 * inline _Py_EnterRecursiveCallTstate).  On 3.12 and later the exported
 * functions find the thread state in thread-local storage, which costs a
 * __tls_get_addr call each from an extension; on every interpreted call.
 * 0 / -1.  (Py_EnterRecursiveCall itself returns "nonzero" on error: 1 on
 * 3.10, whose inline version is `check && _Py_CheckRecursiveCall()`; never
 * compare it with `< 0`.) */
static inline int
compat_recursion_enter(PyThreadState *ts)
{
#if COMPAT_C_RECURSION_REMAINING
    int remaining = compat_c_recursion_get(ts);
    if (remaining > 1) {
        compat_c_recursion_set(ts, remaining - 1);
        return 0;
    }
#else
    (void)ts;
#endif
    /* an interpreted call is a Python call: CPython's message for those
       has no suffix ("maximum recursion depth exceeded") */
    return Py_EnterRecursiveCall("") ? -1 : 0;
}

static inline void
compat_recursion_leave(PyThreadState *ts)
{
#if COMPAT_C_RECURSION_REMAINING
    compat_c_recursion_set(ts, compat_c_recursion_get(ts) + 1);
#else
    (void)ts;
    Py_LeaveRecursiveCall();
#endif
}

/* The thread's C-level profile function and its argument, as
 * PyEval_SetProfile installed them (gadgets.c saves and restores the host's
 * profiler around a step).  No public getter exists: sys.getprofile() gives
 * only the argument, which cannot tell a sys.setprofile() callable from a C
 * profiler's own object.  c_profilefunc and c_profileobj are in
 * PyThreadState from 3.10 to 3.14. */
static inline Py_tracefunc
compat_profile_func(PyThreadState *ts)
{
    return ts->c_profilefunc;
}
/* Borrowed, or NULL. */
static inline PyObject *
compat_profile_obj(PyThreadState *ts)
{
    return ts->c_profileobj;
}

/* A frame's locals are released when it ends: first one first up to 3.13,
 * last one first from 3.14 (_PyFrame_ClearLocals walks down from the stack
 * pointer), which __del__ can observe. */
#if PY_VERSION_HEX >= 0x030E0000
#define COMPAT_LOCALS_CLEARED_LAST_FIRST 1
#else
#define COMPAT_LOCALS_CLEARED_LAST_FIRST 0
#endif

/* Messages that changed between versions (the differential corpus
 * compares them with the running CPython). */
#if PY_VERSION_HEX < 0x030B0000
#define COMPAT_MSG_UNBOUND_LOCAL \
    "local variable '%U' referenced before assignment"
#define COMPAT_MSG_UNBOUND_FREE                                       \
    "free variable '%U' referenced before assignment in enclosing " \
    "scope"
/* getattr() and hasattr() check the name themselves in 3.10 */
#define COMPAT_BUILTIN_CHECKS_ATTR_NAME 1
/* 3.10's caller keeps its own references to a call's arguments on its
   value stack until the call returns, then drops them last one first; from
   3.11 the arguments move into the callee's frame, whose locals are
   cleared first one first (observable through __del__) */
#define COMPAT_CALLER_HOLDS_ARGS 1
#else
#define COMPAT_CALLER_HOLDS_ARGS 0
#define COMPAT_MSG_UNBOUND_LOCAL \
    "cannot access local variable '%U' where it is not associated with a value"
#define COMPAT_MSG_UNBOUND_FREE                                          \
    "cannot access free variable '%U' where it is not associated with a " \
    "value in enclosing scope"
#define COMPAT_BUILTIN_CHECKS_ATTR_NAME 0
#endif

/* Raise the error of a `with` statement whose manager lacks __enter__
 * (missing_exit 0) or __exit__ (1), as the running version words it. */
void compat_with_protocol_error(PyObject *mgr, int missing_exit);
/* The same for `async with` (__aenter__ / __aexit__). */
void compat_async_with_protocol_error(PyObject *mgr, int missing_exit);
/* `case C():` where C is not a class */
#if PY_VERSION_HEX >= 0x030F0000
#define COMPAT_MSG_MATCH_CLASS "class pattern must refer to a class"
#elif PY_VERSION_HEX >= 0x030E0000
#define COMPAT_MSG_MATCH_CLASS "called match pattern must be a class"
#else
#define COMPAT_MSG_MATCH_CLASS "called match pattern must be a type"
#endif
/* print() given a keyword it does not take (%U: the keyword) */
#if PY_VERSION_HEX >= 0x030D0000
#define COMPAT_MSG_PRINT_KEYWORD \
    "print() got an unexpected keyword argument '%U'"
#else
#define COMPAT_MSG_PRINT_KEYWORD \
    "'%U' is an invalid keyword argument for print()"
#endif
/* `await x` of an object that is not awaitable (%.100s: its type's name) */
#if PY_VERSION_HEX >= 0x030E0000
#define COMPAT_MSG_NOT_AWAITABLE "'%.100s' object can't be awaited"
#else
#define COMPAT_MSG_NOT_AWAITABLE \
    "object %.100s can't be used in 'await' expression"
#endif

/* compat.c: CPython behaviour rebuilt on public API (and, past it, where a
 * managed instance dict lives: compat_managed_dict, checked at import). */

/* Attribute `name` of the type or its bases (MRO order, no metaclass, no
 * descriptor call): a new reference, or NULL with or without an exception
 * set (NULL and no exception: not found). */
PyObject *compat_type_lookup(PyTypeObject *tp, PyObject *name);
/* Can instances of tp hold attributes of their own (an instance dict,
 * managed or at tp_dictoffset)? */
int compat_type_has_instance_dict(PyTypeObject *tp);

/* The instance dict of an object whose type has a managed dict (3.11+),
 * as CPython made it, or NULL while CPython keeps the attributes as values
 * without a dict object (borrowed; read from where CPython keeps it, the
 * word three before the object: Include/internal/pycore_object.h).
 * PyObject_GenericGetDict makes the dict object (for good: an allocation
 * per instance, freed with it); the evaluator makes it at an instance's
 * first read at a learned site where it cannot use the inline slots
 * (compat_inline_values below: 3.11, or a name a 3.13+ site could not place
 * in them), after which an item access of the dict costs less than
 * PyObject_GenericSetAttr / GenericGetAttr (their type lookup on every
 * access); the method call's shadowing check makes it too, except on
 * 3.13+ for an instance whose attributes are still in its inline slots
 * (compat_inline_has_name).  Used only where
 * compat_managed_dict_known(tp): the type has a managed dict and a check at
 * module exec (compat_managed_dict_check, on a class of its own) found the
 * pointer there, NULL before and the dict after PyObject_GenericGetDict
 * (3.11, 3.13, 3.14, 3.15; 3.12 keeps a tagged dict-or-values word there,
 * which the check refuses). */
extern int compat_managed_dict_layout;
static inline int
compat_managed_dict_known(PyTypeObject *tp)
{
#if PY_VERSION_HEX >= 0x030B0000
    return compat_managed_dict_layout &&
           PyType_HasFeature(tp, Py_TPFLAGS_MANAGED_DICT);
#else
    (void)tp;
    return 0;
#endif
}
static inline PyObject *
compat_managed_dict(PyObject *obj)
{
    return ((PyObject **)obj)[-3];
}
/* Sets compat_managed_dict_layout (module exec).  0 / -1. */
int compat_managed_dict_check(void);

/* 3.13+: the attributes of an instance whose type has
 * Py_TPFLAGS_INLINE_VALUES, kept by CPython right after the object
 * (tp_basicsize) in this layout (Include/internal/pycore_dict.h, struct
 * _dictvalues): `valid` is 0 once they no longer are the instance's
 * attributes (its __dict__ replaced, its dict grown into a table of its
 * own); while valid, slot i holds the value of the type's shared key i
 * (ht_cached_keys, to which keys are only ever added), NULL when the
 * instance has no such attribute; a dict object CPython made for the
 * instance reads and writes these same slots.  CPython's own
 * LOAD_ATTR_INSTANCE_VALUE / STORE_ATTR_INSTANCE_VALUE read and write a
 * slot under the same conditions as compat_inline_get /
 * compat_inline_store.  Used only where a check at module exec
 * (compat_inline_values_check, on a class of its own: the slots, their
 * order, valid; stores seen through getattr, through the dict object's
 * key order and values; a deleted attribute; a replaced __dict__) found
 * this layout: compat_inline_values_layout, _core.INLINE_VALUES_LAYOUT. */
#define COMPAT_INLINE_VALUES (PY_VERSION_HEX >= 0x030D0000)
typedef struct {
    uint8_t capacity;
    uint8_t size;
    uint8_t embedded;
    uint8_t valid;
    PyObject *values[1];
} CompatInlineValues;
extern int compat_inline_values_layout;
static inline CompatInlineValues *
compat_inline_values(PyObject *obj)
{
#if PY_VERSION_HEX >= 0x030D0000
    PyTypeObject *tp = Py_TYPE(obj);
    if (!compat_inline_values_layout ||
        !PyType_HasFeature(tp, Py_TPFLAGS_INLINE_VALUES)) {
        return NULL;
    }
    CompatInlineValues *v =
        (CompatInlineValues *)((char *)obj + tp->tp_basicsize);
    return v->valid ? v : NULL;
#else
    (void)obj;
    return NULL;
#endif
}
/* The value in slot `i` of obj's valid inline values (borrowed), or NULL:
 * none, `i` past them, or the slot empty. */
static inline PyObject *
compat_inline_get(PyObject *obj, uint32_t i)
{
    CompatInlineValues *v = compat_inline_values(obj);
    return v != NULL && i < v->capacity ? v->values[i] : NULL;
}
/* Put `value` in slot `i` of obj's valid inline values as CPython's
 * STORE_ATTR_INSTANCE_VALUE does: in place of the value there (released
 * after: it may run code), or in an empty slot, which then comes last in
 * the values' order (the order array after the `capacity` slots, `size`
 * of it used), when CPython has made no dict object for the instance.  1
 * when done, 0 when not possible here: no valid values, `i` past them, or
 * a dict object made for the instance whose store this would skip (on
 * 3.13 its version tag; on 3.14+, where the dict reads these same slots,
 * a watcher's event, and any added key). */
static inline int
compat_inline_store(PyObject *obj, uint32_t i, PyObject *value)
{
    CompatInlineValues *v = compat_inline_values(obj);
    if (v == NULL || i >= v->capacity) {
        return 0;
    }
    PyObject *old = v->values[i];
#if PY_VERSION_HEX >= 0x030E0000
    extern int compat_watch_bits_direct; /* dictwatch.c */
    PyDictObject *d = (PyDictObject *)compat_managed_dict(obj);
    if (d != NULL && (old == NULL || !compat_watch_bits_direct ||
                      (d->_ma_watcher_tag & 0xFF) != 0 ||
                      (void *)d->ma_values != (void *)v)) {
        return 0;
    }
#else
    if (compat_managed_dict(obj) != NULL) {
        return 0;
    }
#endif
    v->values[i] = Py_NewRef(value);
    if (old == NULL) {
        /* the slot was empty: a new key of the instance, last in order
           (each slot is in the order at most once: size < capacity) */
        ((uint8_t *)&v->values[v->capacity])[v->size] = (uint8_t)i;
        v->size++;
        return 1;
    }
    Py_DECREF(old);
    return 1;
}
/* 1 + the one slot of obj's valid inline values that holds `value`, or 0
 * (no valid values, no slot, or several: the slot a value read by name
 * came from, when no code ran between the read and this call). */
uint32_t compat_inline_find(PyObject *obj, PyObject *value);
/* 1 + the slot of obj's valid inline values where a store just put `value`
 * under `name`, or 0: the name read back gives `value` and one slot alone
 * holds it (a store's release of the old value may have run code since:
 * the read is what says where the name's value is now).  Clears any error
 * of the read. */
uint32_t compat_inline_slot_of(PyObject *obj, PyObject *name, PyObject *value);
/* 3.13+: whether `obj`, whose valid inline values are its attributes (no
 * dict object made for it: compat_managed_dict is NULL), has an attribute
 * `name` of its own: 1 yes, 0 no, -1 when this cannot tell (no such
 * values, a dict object, a layout check that failed, a name that is not an
 * exact str).  Reads the names of the slots where CPython's own method
 * load reads them (LOAD_ATTR_METHOD_WITH_VALUES): the type's shared keys
 * (ht_cached_keys, in slot order, keys only ever added; a key's slot holds
 * the instance's value, NULL when it has none), as
 * Include/internal/pycore_dict.h lays them out (struct _dictkeysobject,
 * PyDictUnicodeEntry: CompatDictKeys below), found at import by
 * compat_inline_values_check (compat_shared_keys_layout,
 * _core.SHARED_KEYS_LAYOUT).  No code runs and nothing is made: asking
 * PyObject_GenericGetDict instead makes the instance a dict object for
 * good.  `absent`: a call site's memory for obj's type, 1 + how many shared
 * keys the name was not among at its last look, 0 when not known (its
 * owner sets it to 0 whenever the type it remembers changes): keys are only
 * added, so while their count is that one the name is still not among them,
 * and the keys are not read again.  *learn (or learn NULL): what the site
 * may remember now (specialize.c writes it), 0 for nothing new. */
#if COMPAT_INLINE_VALUES && !defined(Py_GIL_DISABLED)
typedef struct {
    Py_ssize_t dk_refcnt;
    uint8_t dk_log2_size;
    uint8_t dk_log2_index_bytes;
    uint8_t dk_kind;
    uint32_t dk_version;
    Py_ssize_t dk_usable;
    Py_ssize_t dk_nentries;
    char dk_indices[];
} CompatDictKeys;
#define COMPAT_SHARED_KEYS 1
#else
#define COMPAT_SHARED_KEYS 0
#endif
extern int compat_shared_keys_layout;
int compat_inline_has_name_scan(PyObject *obj, PyObject *name,
                                uint8_t *learn);
static inline int
compat_inline_has_name(PyObject *obj, PyObject *name, uint8_t absent,
                       uint8_t *learn)
{
#if COMPAT_SHARED_KEYS
    if (absent != 0 && compat_inline_values(obj) != NULL &&
        compat_managed_dict(obj) == NULL) {
        const CompatDictKeys *dk =
            (const CompatDictKeys *)((PyHeapTypeObject *)Py_TYPE(obj))
                ->ht_cached_keys;
        if (dk != NULL && dk->dk_nentries == (Py_ssize_t)absent - 1) {
            return 0;
        }
    }
#else
    (void)absent;
#endif
    return compat_inline_has_name_scan(obj, name, learn);
}
/* Sets compat_inline_values_layout and compat_shared_keys_layout (module
 * exec, after compat_managed_dict_check).  0 / -1. */
int compat_inline_values_check(void);

/* Method lookup for a call `obj.name(...)`: returns a new reference; sets
 * *unbound to 1 when the result is a plain function or method descriptor
 * found on the type that must be called with obj as first argument, to 0
 * when it is the attribute's value, to be called as is.  NULL with an
 * exception on error. */
PyObject *compat_get_method(PyObject *obj, PyObject *name, int *unbound);

/* A one-entry cache of a type lookup, kept by the caller (an AST node):
 * the descriptor found for `name` on type `tp` while tp's version tag is
 * `tag`.  CPython gives a type a new tag whenever it or a base changes (and
 * tags are never reused), so the entry holds while the tag matches;
 * `value` is borrowed from the type's MRO dicts, which keep it as long. */
typedef struct {
    PyTypeObject *tp; /* identity only, never dereferenced */
    unsigned int tag;
    PyObject *value;
} CompatTypeCache;

#if PY_VERSION_HEX < 0x030C0000
/* 3.10 and 3.11 have no call that assigns a tag: compat.c asks the type
 * for a name through _PyType_Lookup, which assigns one to a type that can
 * have one.  The tag after it, or 0. */
unsigned int compat_type_assign_version(PyTypeObject *tp);
#endif

/* The type's version tag when it is valid (assigned first when it has
 * none), else 0: no caching.  Up to 3.12 a valid tag has
 * Py_TPFLAGS_VALID_VERSION_TAG; 3.13 no longer sets that flag (checking it
 * turned every type cache off there): from 3.12 a modified type's tag is
 * set to 0, so a nonzero tag is a valid one.  A type's tag is dropped when
 * it or a base changes and, without the assignment here, would stay
 * dropped until host code looked up an attribute of it generically: the
 * caches keyed by it would miss on every use meanwhile (a class without
 * __init__, or one whose class attribute a loop updates). */
static inline unsigned int
compat_type_version(PyTypeObject *tp)
{
#if PY_VERSION_HEX >= 0x030C0000
    if (tp->tp_version_tag == 0) {
        (void)PyUnstable_Type_AssignVersionTag(tp);
    }
#endif
#if PY_VERSION_HEX >= 0x030D0000
    return tp->tp_version_tag;
#else
    if (!PyType_HasFeature(tp, Py_TPFLAGS_VALID_VERSION_TAG)) {
#if PY_VERSION_HEX < 0x030C0000
        return compat_type_assign_version(tp);
#else
        return 0;
#endif
    }
    return tp->tp_version_tag;
#endif
}

/* compat_get_method with a type cache (may be NULL). */
PyObject *compat_get_method_cached(PyObject *obj, PyObject *name,
                                   int *unbound, CompatTypeCache *cache);

/* "qualname()" or "module.qualname()" for error messages, as CPython names
 * a callable: new reference, or NULL with an exception set. */
PyObject *compat_function_str(PyObject *func);

/* The most derived metaclass of `meta` and the metaclasses of `bases`
 * (borrowed), or NULL with TypeError on a metaclass conflict. */
PyTypeObject *compat_calculate_metaclass(PyTypeObject *meta, PyObject *bases);

/* Number of digits (PyLong_SHIFT bits each) of |v| for an int, read from
 * its header with no call: up to 3.11 the signed ob_size, from 3.12 the
 * count above the sign and flag bits of lv_tag (cpython/longintrepr.h).
 * The one place that reads that layout. */
static inline Py_ssize_t
compat_long_ndigits(PyObject *v)
{
#if PY_VERSION_HEX >= 0x030C0000
    return (Py_ssize_t)(((PyLongObject *)v)->long_value.lv_tag >>
                        _PyLong_NON_SIZE_BITS);
#else
    return Py_ABS(Py_SIZE(v));
#endif
}

/* 1 when the int `v` is certainly outside a long long (its top digit alone
 * is worth 2**63 or more), so that PyLong_AsLongLongAndOverflow, which
 * walks every digit first, need not be asked. */
static inline int
compat_long_beyond_ll(PyObject *v)
{
    return (compat_long_ndigits(v) - 1) * PyLong_SHIFT >= 63;
}

/* 1 with *out = v when the int `v` has at most two digits (|v| < 2**60 with
 * 30-bit digits), read from its digits as compat_long_ndigits reads their
 * count; 0 otherwise.  What PyLong_AsLongLongAndOverflow answers for it,
 * without that function's walk (the medium ints of a running sum). */
static inline int
compat_long_two_digits(PyObject *v, long long *out)
{
    Py_ssize_t n = compat_long_ndigits(v);
    if (n > 2) {
        return 0;
    }
#if PY_VERSION_HEX >= 0x030C0000
    const digit *d = ((PyLongObject *)v)->long_value.ob_digit;
    long long sign = 1 - (long long)(((PyLongObject *)v)->long_value.lv_tag &
                                     _PyLong_SIGN_MASK);
#else
    const digit *d = ((PyLongObject *)v)->ob_digit;
    long long sign = Py_SIZE(v) < 0 ? -1 : 1;
#endif
    unsigned long long m = n == 0 ? 0 : d[0];
    if (n == 2) {
        m |= (unsigned long long)d[1] << PyLong_SHIFT;
    }
    *out = sign * (long long)m;
    return 1;
}

/* Number of bits of |v| for an int (0 for 0); (size_t)-1 with an exception
 * set on error. */
/* Bits in the magnitude `m` (0 for 0): int.bit_length() of a value that
 * fits 64 bits. */
static inline int
compat_u64_bits(unsigned long long m)
{
    return m == 0 ? 0 : 64 - __builtin_clzll(m);
}

size_t compat_long_num_bits(PyObject *v);

/* Writes the int `v` as `n` bytes of little-endian two's complement at
 * `buf`: 0, or -1 with an exception (OverflowError when `n` bytes are too
 * few).  From 3.13 PyLong_AsNativeBytes, before it int.to_bytes. */
int compat_long_to_le_bytes(PyObject *v, unsigned char *buf, size_t n);

/* The int of the `n` (>= 1) bytes of little-endian two's complement at
 * `buf`: new reference, or NULL with an exception.  From 3.13
 * PyLong_FromNativeBytes, before it int.from_bytes. */
PyObject *compat_long_from_le_bytes(const unsigned char *buf, size_t n);

#if PY_VERSION_HEX < 0x030B0000
/* 3.10 has no public handled-exception API; emulate with exc_info. */
static inline PyObject *
compat_get_handled(void)
{
    PyObject *t, *v, *tb;
    PyErr_GetExcInfo(&t, &v, &tb);
    Py_XDECREF(t);
    Py_XDECREF(tb);
    if (v == Py_None) {
        Py_DECREF(v);
        return NULL;
    }
    return v;
}
static inline void
compat_set_handled(PyObject *exc)
{
    if (exc == NULL || exc == Py_None) {
        PyErr_SetExcInfo(NULL, NULL, NULL);
        return;
    }
    Py_INCREF(Py_TYPE(exc));
    Py_INCREF(exc);
    PyErr_SetExcInfo((PyObject *)Py_TYPE(exc), exc,
                     PyException_GetTraceback(exc));
}
#else
/* Returns a new reference or NULL (no exception set) when none. */
static inline PyObject *
compat_get_handled(void)
{
    PyObject *v = PyErr_GetHandledException();
    if (v == Py_None) {
        Py_DECREF(v);
        return NULL;
    }
    return v;
}
static inline void
compat_set_handled(PyObject *exc)
{
    PyErr_SetHandledException(exc);
}
#endif

/* Value of an int (exact or subclass) that fits in one digit ("compact");
 * 1 when it does.  Up to 3.11 ob_size is the signed digit count; 3.12+
 * says it with PyUnstable_Long_IsCompact (one digit, |v| < 2**30). */
static inline int
compat_small_int(PyObject *v, long long *out)
{
#if PY_VERSION_HEX < 0x030C0000
    Py_ssize_t size = Py_SIZE(v);
    if (size >= -1 && size <= 1) {
        *out = (long long)size * (long long)((PyLongObject *)v)->ob_digit[0];
        return 1;
    }
    return 0;
#else
    if (PyUnstable_Long_IsCompact((PyLongObject *)v)) {
        *out = (long long)PyUnstable_Long_CompactValue((PyLongObject *)v);
        return 1;
    }
    return 0;
#endif
}

/* Versions for the global-name cache (globalcache.c).
 *
 * compat_watched_version(kind, d) is a number that changes whenever the dict
 * `d` is modified, for a dict that is exact and, from 3.12, watched by the
 * module's watcher of that kind (COMPAT_WATCH_GLOBALS for globals dicts,
 * COMPAT_WATCH_BUILTINS for builtins dicts, COMPAT_WATCH_TOOLS for the
 * tool dicts the shim compares before each step, COMPAT_WATCH_MODULES for
 * the dicts of the modules whose values Attribute nodes remember;
 * compat_dict_watch).  Up to 3.11
 * it is the dict's PEP 509 version tag (ma_version_tag, unique across all
 * dicts).  From 3.12 that field is deprecated: each kind's watcher
 * (PyDict_AddWatcher, dictwatch.c) advances a process-wide epoch of its
 * kind on every event of every dict it watches (insertion, change,
 * deletion, clear, clone, deallocation), and the version is that epoch.  A
 * cache entry must therefore also record which dicts it describes
 * (Interp.g_dict / g_builtins); sharing the epoch only costs misses. */
enum {
    COMPAT_WATCH_GLOBALS = 0,
    COMPAT_WATCH_BUILTINS = 1,
    COMPAT_WATCH_TOOLS = 2,
    COMPAT_WATCH_MODULES = 3,
    COMPAT_WATCH_KINDS = 4
};
/* 3.12 and 3.13 deprecate the tag but still keep it (3.14 removed it), and
 * globals dicts use it there rather than a watcher
 * (COMPAT_GLOBALS_BY_TAG): on a watched dict every store that changes a
 * value goes through CPython's watcher dispatch (on 3.13 about 80
 * instructions, and at module level, where agent code runs its loops, that
 * is every assignment), while the tag moves on every change of any dict
 * for free.  compat_dict_watcher_add(COMPAT_WATCH_GLOBALS) then registers
 * nothing and returns COMPAT_WATCHER_TAG, which compat_dict_watch accepts
 * for an exact dict without watching it. */
#define COMPAT_WATCHER_TAG 0x7fffffff
#if PY_VERSION_HEX >= 0x030C0000 && PY_VERSION_HEX < 0x030E0000
#define COMPAT_GLOBALS_BY_TAG 1
#else
#define COMPAT_GLOBALS_BY_TAG 0
#endif
/* COMPAT_HAS_DICT_TAG: the PEP 509 tag exists (up to 3.13).  It is unique
 * across all dicts of an interpreter and all their states: a new dict
 * takes the next value of a counter, and every change (insertion,
 * deletion, a changed value, clear, update) takes the next one again.
 * Equal tags mean the same dict, unchanged since, within one interpreter
 * (up to 3.11 the counter is the process's; from 3.12 each interpreter has
 * its own, so tables of tags are kept per interpreter: in the module's
 * state). */
#define COMPAT_HAS_DICT_TAG (PY_VERSION_HEX < 0x030E0000)
static inline uint64_t
compat_dict_version_tag(PyObject *d)
{
#if PY_VERSION_HEX < 0x030E0000
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
    return ((PyDictObject *)d)->ma_version_tag;
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
#else
    (void)d;
    return 0; /* no tag: never called (COMPAT_GLOBALS_BY_TAG is 0) */
#endif
}
/* The tag of an exact dict when it names the dict's state (equal tags: the
 * same dict, unchanged), else 0.  3.13 is the exception: a dict whose values
 * live in its object (an instance's materialized __dict__, ma_values set)
 * changes without a new tag when the object's attributes are stored
 * (store_instance_attr_lock_held notifies watchers but keeps the tag). */
static inline uint64_t
compat_dict_state_tag(PyObject *d)
{
#if PY_VERSION_HEX >= 0x030D0000 && PY_VERSION_HEX < 0x030E0000
    if (((PyDictObject *)d)->ma_values != NULL) {
        return 0;
    }
#endif
    return compat_dict_version_tag(d);
}
#if PY_VERSION_HEX < 0x030C0000
static inline uint64_t
compat_watched_version(int kind, PyObject *d)
{
    (void)kind;
    return compat_dict_version_tag(d);
}
#else
extern uint64_t compat_watch_epoch[COMPAT_WATCH_KINDS]; /* dictwatch.c */
static inline uint64_t
compat_watched_version(int kind, PyObject *d)
{
    if (COMPAT_GLOBALS_BY_TAG && kind == COMPAT_WATCH_GLOBALS) {
        return compat_dict_version_tag(d);
    }
    return compat_watch_epoch[kind];
}
#endif
/* Watch an exact dict with the watcher `wid` (no-op before 3.12 and for
 * COMPAT_WATCHER_TAG).  0 / -1;
 * 1 when watched (always before 3.12), 0 when it cannot be (no watcher, or
 * a dict subclass): the dict is then never cached. */
int compat_dict_watch(int wid, PyObject *d);
/* Register the module's watcher of `kind` at module exec: the id, or -1 (no
 * caching) when the interpreter has no watcher slot left; clear it at
 * module free. */
int compat_dict_watcher_add(int kind);
void compat_dict_watcher_clear(int wid);
/* A change of a watched globals dict that the interpreter makes and adopts
 * itself (its own stores and deletes of module-level names,
 * globalcache.c).  Between compat_globals_quiet and compat_globals_loud the
 * dict's bit for the globals watcher `wid` is clear, so CPython dispatches
 * no event to it (on 3.14 about 85 instructions a store: every assignment
 * of a module-level loop); compat_globals_loud then advances the globals
 * epoch as the event would have, so every cache of every interpreter sees
 * the change as before, and sets the bit again.  Sound only for a change
 * during which no code runs (the caller's guarantee: exact str keys, the
 * old value held): nothing else can change the dict unseen meanwhile.
 * Other watchers of the dict still get their events.  Done only where a
 * check at module exec found the watcher bits in the low byte of
 * _ma_watcher_tag, where PyDict_Watch sets them (3.14, 3.15:
 * cpython/dictobject.h; PyDict_Unwatch / PyDict_Watch instead cost about
 * as much as the event); elsewhere, and where globals are versioned by
 * their tag (3.12, 3.13; before 3.12 there are no watchers),
 * compat_globals_quiet returns -1 and the store is a plain one. */
#if PY_VERSION_HEX >= 0x030E0000
extern int compat_watch_bits_direct; /* dictwatch.c, check_watch_bits */
#endif
static inline int
compat_globals_quiet(int wid, PyObject *d)
{
#if PY_VERSION_HEX >= 0x030E0000
    if (compat_watch_bits_direct && wid >= 0 && wid != COMPAT_WATCHER_TAG) {
        uint64_t bit = (uint64_t)1 << wid;
        if (((PyDictObject *)d)->_ma_watcher_tag & bit) {
            ((PyDictObject *)d)->_ma_watcher_tag &= ~bit;
            return wid;
        }
    }
#else
    (void)wid;
    (void)d;
#endif
    return -1; /* not watched by `wid`, or not this way: nothing done */
}
static inline void
compat_globals_loud(int quiet, PyObject *d)
{
#if PY_VERSION_HEX >= 0x030E0000
    if (quiet >= 0) {
        /* the event compat_globals_quiet kept CPython from dispatching */
        compat_watch_epoch[COMPAT_WATCH_GLOBALS]++;
        ((PyDictObject *)d)->_ma_watcher_tag |= (uint64_t)1 << quiet;
    }
#else
    (void)quiet;
    (void)d;
#endif
}

#endif
