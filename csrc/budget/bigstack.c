/* bigstack.c: run steps (and hooks, and host calls made from generator
 * bodies) on a large C stack, one per thread.
 *
 * Why: a few C paths of CPython 3.11 itself recurse without any depth check.
 * The known one reachable from interpreted code is hashing a nested tuple:
 * `t = (t,)` repeated 150,000 times, then `hash(t)` (or using `t` as a dict
 * key) overflows the thread's 8 MiB stack and kills the host process.  The
 * interpreter cannot see such data structures grow, but it bounds how many
 * operations a step performs, and so how deep anything it builds can be.
 * Running the step on a stack large enough for that depth turns the crash
 * into ordinary work.
 *
 * One stack per thread, shared by every interpreter that runs there:
 *
 *   - mapped lazily: address space is reserved at the first step of the
 *     thread, never at interpreter creation (1,000 executors cost nothing
 *     here); pages cost memory only when touched, and deep pages are given
 *     back after each outermost use (BIG_STACK_KEEP);
 *   - sized to the address space the process may use: BIG_STACK_SIZE, or
 *     an eighth of RLIMIT_AS when that is smaller (never below
 *     BIG_STACK_MIN), halved again while the reservation fails; a stack
 *     that cannot be had at all is a MemoryError that says so;
 *   - released deterministically: when the thread exits (the destructor of
 *     a pthread key), or by release_thread_stack() (module.c exposes it as
 *     `_core.release_thread_stack()`), which unmaps the calling thread's
 *     stack when nothing runs on it.
 *
 * The key is the one process-wide object of this file: created once
 * (pthread_once), it only names the per-thread slot, which is what holds
 * state.  Thread-exit destructors run without the GIL, so the stack record
 * is allocated with malloc and the destructor calls no Python API.
 *
 * Our own recursion is still bounded by limits_check_stack(), which measures
 * against this stack while on it.
 *
 * Generator bodies run on their own, smaller stacks (generator.c).  A host
 * call made from a generator body is brought back to this stack, below the
 * lowest frame that waits on it (bigstack_call_from_generator): when a
 * generator is resumed from this stack, everything below the resumer's
 * stack pointer is free until the body switches back, and switches nest
 * like calls.  generator.c records that point around each resume with
 * bigstack_note_switch_out() / bigstack_note_switch_back().
 *
 * The switch itself is switch.c's (as for generators): the resumer is the
 * thread, the body runs `fn(arg)` to completion and switches back once, so
 * no per-thread interpreter state needs saving across it except the stack
 * bounds (in->stack_limit and the thread-local of stack.c).  The switch
 * points are bigstack_switch() below (one function, for the hooks of
 * CPython versions that track C stack bounds themselves).
 */
#include "budget.h"
#include "bigstack.h"
#include "switch.h"

#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#if defined(__SANITIZE_ADDRESS__)
#define BIG_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define BIG_ASAN 1
#endif
#endif
#ifdef BIG_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

/* 1 GiB holds a nested tuple as deep as the default operation budget can
 * build (about 3 million levels at well under 300 bytes of C stack each). */
#define BIG_STACK_SIZE ((size_t)1 << 30)
/* smallest reservation worth having (deeper than a thread's own stack) */
#define BIG_STACK_MIN ((size_t)16 << 20)
#define BIG_GUARD_SIZE ((size_t)64 * 1024)
#define BIG_STACK_MARGIN ((size_t)512 * 1024)
/* pages below this distance from the top are given back after a step */
#define BIG_STACK_KEEP ((size_t)4 * 1024 * 1024)
/* left free below a suspended resumer before a host call's frames */
#define BIG_RESUME_GAP ((size_t)4096)
#define BIG_CANARY ((uintptr_t)0x6269677374616b31u)
#define BIG_ASAN_UNPOISON ((size_t)64 * 1024)

/* One switch onto the big stack: the resumer's side and what the body
 * runs.  Lives on the resumer's stack. */
typedef struct {
    SwitchPair sw;
    void (*fn)(void *);
    void *arg;
#ifdef BIG_ASAN
    const void *asan_back_bottom;
    size_t asan_back_size;
#endif
} BigRun;

static pthread_key_t big_key;
static pthread_once_t big_once = PTHREAD_ONCE_INIT;
static int big_key_ok;
/* bigstack.h: the mirror of the thread-specific value every host call reads. */
HOT_TLS BigStack *bigstack_tls;

static void
bigstack_unmap(BigStack *bs)
{
    munmap(bs->map, bs->map_size);
    free(bs);
}

/* Thread exit (no GIL, no Python API). */
static void
bigstack_thread_exit(void *p)
{
    BigStack *bs = (BigStack *)p;
    if (bs != NULL && bs->busy == 0) {
        bigstack_unmap(bs);
    }
}

static void
bigstack_make_key(void)
{
    big_key_ok = pthread_key_create(&big_key, bigstack_thread_exit) == 0;
}

/* The calling thread's stack record, or NULL (none yet, or no key). */
static inline BigStack *
thread_stack(void)
{
    return bigstack_tls;
}

/* Size to reserve: BIG_STACK_SIZE, or an eighth of the address-space
 * limit when one is set. */
static size_t
bigstack_wanted(void)
{
    size_t want = BIG_STACK_SIZE;
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY) {
        size_t cap = (size_t)(rl.rlim_cur / 8);
        if (cap < want) {
            want = cap < BIG_STACK_MIN ? BIG_STACK_MIN : cap;
        }
    }
    return want;
}

/* The size of the calling thread's own stack as CPython finds it
 * (pthread_getattr_np, as 3.14's hardware_stack_limits), 8 MiB when
 * unknown; 0 before 3.14 (unused). */
#define BIG_CPYTHON_DEFAULT ((size_t)8 << 20)
static size_t
thread_cpython_size(void)
{
#if COMPAT_STACK_PROTECTION
    size_t size = 0;
    void *addr = NULL;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        if (pthread_attr_getstack(&attr, &addr, &size) != 0) {
            size = 0;
        }
        pthread_attr_destroy(&attr);
    }
    return size >= ((size_t)256 << 10) && size <= ((size_t)1 << 30)
               ? size
               : BIG_CPYTHON_DEFAULT;
#else
    return 0;
#endif
}

#if COMPAT_STACK_PROTECTION
void
bigstack_protect_enter(PyThreadState *ts, char *lo, char *hi,
                       CompatStack *saved)
{
    BigStack *bs = thread_stack();
    size_t size = bs != NULL ? bs->cpython_size : BIG_CPYTHON_DEFAULT;
    if ((size_t)(hi - lo) > size) {
        lo = hi - size;
    }
    compat_stack_enter(ts, lo, hi, saved);
}
#endif

/* The calling thread's stack, mapped on first use.  Borrowed record, or
 * NULL with MemoryError set (saying what could not be had). */
static BigStack *
thread_stack_get(void)
{
    BigStack *bs = thread_stack();
    if (bs != NULL) {
        return bs;
    }
    if (pthread_once(&big_once, bigstack_make_key) != 0 || !big_key_ok) {
        PyErr_SetString(PyExc_MemoryError,
                        "no thread-specific slot for the step's C stack "
                        "(pthread_key_create failed)");
        return NULL;
    }
    size_t size = bigstack_wanted();
    size_t total = 0;
    char *low = NULL, *map = NULL;
    for (;;) {
        map = stack_map(BIG_GUARD_SIZE, size, &total, &low, "the step's", 0);
        if (map != NULL || size / 2 < BIG_STACK_MIN) {
            break;
        }
        PyErr_Clear();
        size /= 2;
    }
    if (map == NULL) {
        return NULL;
    }
    bs = calloc(1, sizeof(BigStack));
    if (bs == NULL) {
        munmap(map, total);
        PyErr_SetString(PyExc_MemoryError,
                        "out of memory for the record of the step's C stack");
        return NULL;
    }
    bs->map = map;
    bs->map_size = total;
    bs->cpython_size = thread_cpython_size();
    bs->low = low;
    bs->high = (char *)(((uintptr_t)(map + total)) & ~(uintptr_t)63);
    bs->canary = (uintptr_t *)(bs->high - BIG_STACK_KEEP);
    *bs->canary = BIG_CANARY;
    if (pthread_setspecific(big_key, bs) != 0) {
        bigstack_unmap(bs);
        PyErr_SetString(PyExc_MemoryError,
                        "could not record the step's C stack for this thread");
        return NULL;
    }
    bigstack_tls = bs;
    return bs;
}

int
bigstack_release_thread(void)
{
    BigStack *bs = thread_stack();
    if (bs == NULL || bs->busy) {
        return 0;
    }
    (void)pthread_setspecific(big_key, NULL);
    bigstack_tls = NULL;
    bigstack_unmap(bs);
    return 1;
}

size_t
bigstack_thread_size(void)
{
    BigStack *bs = thread_stack();
    return bs != NULL ? (size_t)(bs->high - bs->low) : 0;
}

/* Entry point on the big stack: run the function, switch back for good. */
static void
bigstack_entry(void *p)
{
    BigRun *br = (BigRun *)p;
#ifdef BIG_ASAN
    __sanitizer_finish_switch_fiber(NULL, &br->asan_back_bottom,
                                    &br->asan_back_size);
#endif
    br->fn(br->arg);
#ifdef BIG_ASAN
    __sanitizer_start_switch_fiber(NULL, br->asan_back_bottom,
                                   br->asan_back_size);
#endif
    switch_exit_body(&br->sw);
}

/* Run fn(arg) on the big stack in [bs->low, top), with the interpreter's
 * (if any) and the thread's stack bound moved there for the duration.
 * 0 / -1. */
static int
bigstack_switch(Interp *in, BigStack *bs, char *top, void (*fn)(void *),
                void *arg)
{
    BigRun br;
    top = (char *)((uintptr_t)top & ~(uintptr_t)63);
    if (switch_init(&br.sw, bs->low, top, bigstack_entry, &br) != 0) {
        PyErr_SetFromErrno(PyExc_OSError);
        return -1;
    }
    br.fn = fn;
    br.arg = arg;
    bs->busy++;
    char *limit = bs->low + BIG_STACK_MARGIN;
    char *outer_limit = NULL, *outer_lo = NULL, *outer_hi = NULL;
    char *outer_current = stack_current_limit();
    stack_set_current_limit(limit);
    if (in != NULL) {
        outer_limit = in_budget(in)->stack_limit;
        outer_lo = in_budget(in)->stack_lo;
        outer_hi = in_budget(in)->stack_hi;
        in_budget(in)->stack_limit = limit;
        in_budget(in)->stack_lo = bs->low;
        in_budget(in)->stack_hi = top;
    }
    /* CPython 3.14+ measures C recursion against this stack meanwhile
       (compat.h); the GIL is held */
    PyThreadState *ts = PyThreadState_Get();
    CompatStack outer_stack;
    bigstack_protect_enter(ts, bs->low, top, &outer_stack);
#ifdef BIG_ASAN
    void *fake = NULL;
    __sanitizer_start_switch_fiber(&fake, bs->low, (size_t)(top - bs->low));
#endif
    switch_to_body(&br.sw);
#ifdef BIG_ASAN
    __sanitizer_finish_switch_fiber(fake, NULL, NULL);
    /* the finished fiber's last frames (bigstack_entry's, which switches
       away instead of returning) leave redzones behind; every deeper frame
       returned normally and cleaned up after itself.  Only the top is
       unpoisoned: the whole stack's shadow would cost 1/8 of its size in
       memset at every switch. */
    {
        char *from = top - BIG_ASAN_UNPOISON;
        if (from < bs->low) {
            from = bs->low;
        }
        __asan_unpoison_memory_region(from, (size_t)(top - from));
    }
#endif
    compat_stack_leave(ts, &outer_stack);
    if (in != NULL) {
        in_budget(in)->stack_limit = outer_limit;
        in_budget(in)->stack_lo = outer_lo;
        in_budget(in)->stack_hi = outer_hi;
    }
    stack_set_current_limit(outer_current);
    bs->busy--;
    if (bs->busy == 0 && *bs->canary != BIG_CANARY) {
        /* a deep step touched many pages: give them back */
        (void)madvise(bs->low, (size_t)((char *)bs->canary - bs->low),
                      MADV_DONTNEED);
        *bs->canary = BIG_CANARY;
    }
    return 0;
}

int
bigstack_run(Interp *in, void (*fn)(void *), void *arg)
{
    BigStack *bs = thread_stack_get();
    if (bs == NULL) {
        return -1;
    }
    if (bs->busy) {
        /* already in use on this thread (an interpreter entered from a
           step, a hook, a tool...): we run on it, or on a generator stack
           whose host calls come back to it; run here */
        fn(arg);
        return 0;
    }
    return bigstack_switch(in, bs, bs->high, fn, arg);
}

int
bigstack_call_from_generator(Interp *in, void (*fn)(void *), void *arg)
{
    BigStack *bs = thread_stack();
    char *sp = (char *)__builtin_frame_address(0);
    if (bs == NULL || bs->resume_sp == NULL ||
        (sp >= bs->low && sp < bs->high) ||
        bs->resume_sp - BIG_RESUME_GAP <
            bs->low + BIG_STACK_MARGIN + BIG_STACK_MARGIN) {
        /* not resumed from the big stack (a generator driven by the host,
           or from another stack), or no room left there: run here */
        fn(arg);
        return 0;
    }
    char *saved = bs->resume_sp;
    int r = bigstack_switch(in, bs, saved - BIG_RESUME_GAP, fn, arg);
    bs->resume_sp = saved;
    return r;
}

char *
bigstack_note_switch_out(void)
{
    BigStack *bs = thread_stack();
    if (bs == NULL) {
        return NULL;
    }
    char *saved = bs->resume_sp;
    char *sp = (char *)__builtin_frame_address(0);
    if (sp >= bs->low && sp < bs->high) {
        bs->resume_sp = sp;
    }
    return saved;
}

void
bigstack_note_switch_back(char *saved)
{
    BigStack *bs = thread_stack();
    if (bs != NULL) {
        bs->resume_sp = saved;
    }
}

/* ------------------------------------------------------ module functions */

static PyObject *
release_thread_stack(PyObject *m, PyObject *noargs)
{
    return PyBool_FromLong(bigstack_release_thread());
}

static PyObject *
thread_stack_size(PyObject *m, PyObject *noargs)
{
    return PyLong_FromSize_t(bigstack_thread_size());
}

static PyObject *
stack_bound_queries(PyObject *m, PyObject *noargs)
{
    return PyLong_FromUnsignedLong(limits_stack_bound_queries());
}

static void
clear_dict(void *d)
{
    PyDict_Clear((PyObject *)d);
}

/* Clear a dict (an executor's state) on the thread's big stack: releasing
 * what the code left there may recurse deeply in C. */
static PyObject *
release_on_step_stack(PyObject *m, PyObject *d)
{
    if (!PyDict_Check(d)) {
        PyErr_SetString(PyExc_TypeError, "release_on_step_stack() needs a dict");
        return NULL;
    }
    BigStack *bs = thread_stack_get();
    if (bs == NULL) {
        return NULL;
    }
    char *sp = (char *)__builtin_frame_address(0);
    Py_INCREF(d);
    if (bs->busy || (sp >= bs->low && sp < bs->high)) {
        PyDict_Clear(d); /* on it already, or it is in use below us */
    }
    else if (bigstack_switch(NULL, bs, bs->high, clear_dict, d) < 0) {
        Py_DECREF(d);
        return NULL;
    }
    Py_DECREF(d);
    Py_RETURN_NONE;
}

static PyMethodDef bigstack_functions[] = {
    {"release_on_step_stack", release_on_step_stack, METH_O,
     "release_on_step_stack(d) -> None: clear the dict d on the calling "
     "thread's step stack (what an executor's state holds may be deeply "
     "nested)."},
    {"release_thread_stack", release_thread_stack, METH_NOARGS,
     "release_thread_stack() -> bool: unmap the calling thread's step stack "
     "now (it is mapped again by the next step); False if the thread has "
     "none or is running on it.  Thread exit releases it too."},
    {"thread_stack_size", thread_stack_size, METH_NOARGS,
     "thread_stack_size() -> int: bytes of address space reserved for the "
     "calling thread's step stack (0: none mapped)."},
    {"stack_bound_queries", stack_bound_queries, METH_NOARGS,
     "stack_bound_queries() -> int: how many times the calling thread has "
     "asked the system for its own stack's bounds (once per thread, see "
     "limits.c)."},
    {NULL, NULL, 0, NULL},
};

int
bigstack_add_to_module(PyObject *m)
{
    return PyModule_AddFunctions(m, bigstack_functions);
}

/* ------------------------------------------- host calls from generators */

typedef struct {
    PyObject *func;
    PyObject *const *args; /* vectorcall form, or NULL */
    size_t nargsf;
    PyObject *kwnames;
    PyObject *tuple, *kw; /* PyObject_Call form */
    PyObject *res;
    PyThreadState *ts; /* the step's (compat_recursion_enter) */
} BigCall;

static void
bigcall_run(void *p)
{
    BigCall *c = (BigCall *)p;
    if (c->tuple == NULL) {
        c->res =
            host_vectorcall(c->func, c->args, c->nargsf, c->kwnames, c->ts);
    }
    else {
        c->res = PyObject_Call(c->func, c->tuple, c->kw);
    }
}

/* Is the stack pointer on a generator's stack (off the thread's big stack
 * while that one has a resumer waiting)?  Then a host call is better made
 * on the big stack. */
static inline int
on_generator_stack(BigStack **pbs)
{
    BigStack *bs = thread_stack();
    char *sp = (char *)__builtin_frame_address(0);
    *pbs = bs;
    return bs != NULL && bs->resume_sp != NULL &&
           !(sp >= bs->low && sp < bs->high);
}

NOINLINE PyObject *
bigstack_vectorcall_slow(Interp *in, PyObject *func, PyObject *const *args,
                         size_t nargsf, PyObject *kwnames)
{
    BigStack *bs;
    if (!on_generator_stack(&bs)) {
        return host_vectorcall(func, args, nargsf, kwnames, in_budget(in)->run_ts);
    }
    BigCall c = {func, args, nargsf, kwnames, NULL, NULL, NULL, in_budget(in)->run_ts};
    if (bigstack_call_from_generator(in, bigcall_run, &c) < 0) {
        return NULL;
    }
    return c.res;
}

PyObject *
bigstack_call(Interp *in, PyObject *func, PyObject *args, PyObject *kw)
{
    BigStack *bs;
    if (!on_generator_stack(&bs)) {
        return PyObject_Call(func, args, kw);
    }
    BigCall c = {func, NULL, 0, NULL, args, kw, NULL, in_budget(in)->run_ts};
    if (bigstack_call_from_generator(in, bigcall_run, &c) < 0) {
        return NULL;
    }
    return c.res;
}
