/* generator.c: interpreted generators.
 *
 * The evaluator is a recursive C tree-walker, so a suspended generator needs
 * a suspended C call chain.  Each generator body therefore runs on its own C
 * stack, switched by switch.c (a few instructions of assembly on x86-64 and
 * AArch64, ucontext elsewhere; no signal-mask changes, no system call):
 *
 *   resumer (send/__next__/throw/close)          generator body
 *   ------------------------------------         ---------------------------
 *   gen_send_ex2: put the message in `msg` and
 *   `transfer`, gen_switch() --switch_to_body--> gen_entry / yield_value
 *                                                runs until `yield` or the end:
 *                                                puts the result in `out` and
 *   <-----------------------------switch_to_back `transfer`, switches back
 *   reads `out` / `transfer`
 *
 * The exception in flight (a value thrown in, or the error that ended the
 * body) travels in the thread state, which both sides share.
 *
 * The C stack is mapped lazily at the first resume (an unstarted generator
 * costs no stack), has a PROT_NONE guard area at its low end, and is given
 * back to a small per-module pool when the body ends.  While the body runs,
 * Interp.stack_limit points into the generator's stack, so deep recursion in
 * a generator is a RecursionError, never a crash; the same bound is
 * published per thread (stack.c) for interpreters entered on this stack.
 *
 * Per-thread state that must not leak from one side to the other is swapped
 * in gen_switch(): the interpreter's call depth and CPython's recursion
 * counter (what the body consumed stays charged to the body while it is
 * suspended), the handled exception (sys.exc_info()), Interp.stack_limit
 * and the thread's current stack bound.  Each switch is annotated for
 * AddressSanitizer (__sanitizer_start/finish_switch_fiber), and stacks are
 * registered with valgrind when its header is available.
 *
 * Invariant: no CPython frame is live on a generator stack when it switches.
 * `yield` is only evaluated by our evaluator, in the generator's own frame,
 * and everything the body called (CPython functions included) has returned
 * before the yield is reached; so tstate->cframe, the frame data stack, the
 * thread's exception-stack entries and the C recursion of CPython's eval
 * loop need no special handling.  (CPython 3.14 has no C recursion counter
 * to swap -- compat.h makes the swap a no-op there -- and bounds C recursion
 * by comparing the stack pointer with the thread's own stack, which a
 * generator's stack and the step's big stack are not: to be handled when a
 * 3.14 interpreter is available, see docs/compatibility.md.)
 *
 * Two cases need no switch at all.  A generator expression contains no
 * `yield`, so it needs no stack of its own: it runs from the resumer's
 * side, one value per resume (genexp_step).  And resuming a
 * generator suspended in `yield from` another interpreted generator sends
 * directly to the subgenerator from the resumer's side (delegate_send),
 * without switching through every stack of a chain, when that is
 * indistinguishable from doing so.
 *
 * Semantics follow CPython 3.11's genobject.c (gen_send_ex2, _gen_throw,
 * gen_close, _PyGen_Finalize); `yield from` follows PEP 380 with throw and
 * close forwarded to the subiterator from the resumer's side, as 3.11 does.
 */
#include "eval.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

/* valgrind follows stack switches better when it knows the stacks; the
 * client requests cost a few instructions and do nothing natively. */
#if defined(__has_include)
#if __has_include(<valgrind/valgrind.h>) && \
    __has_include(<valgrind/memcheck.h>)
#include <valgrind/memcheck.h>
#include <valgrind/valgrind.h>
#define GEN_VALGRIND 1
#endif
#endif

#include "structmember.h"

#if defined(__SANITIZE_ADDRESS__)
#define GEN_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define GEN_ASAN 1
#endif
#endif
#ifdef GEN_ASAN
#include <sanitizer/asan_interface.h>
#include <sanitizer/common_interface_defs.h>
#endif

/* Stack geometry.  The body's own checks (limits_check_stack) stop at
 * low + GEN_STACK_MARGIN, which leaves the margin for host code called near
 * that limit, as limits.c does for the thread's stack.  Host code called
 * from the body may recurse in C without checks (hashing a nested tuple,
 * releasing a long chain): the stack is as large as the step's would be for
 * the same structures, GEN_STACK_SIZE of address space (MAP_NORESERVE: only
 * touched pages cost memory, and a pooled stack whose deep part was touched
 * gives it back, GEN_STACK_KEEP), or a 64th of RLIMIT_AS when that is
 * smaller, and no less than GEN_STACK_MIN, which holds the default
 * recursion limit of interpreted calls (about 1 KiB of C stack per level at
 * -O2).  A reservation the kernel refuses is retried at half the size down
 * to GEN_STACK_MIN.  Each stack is two kernel mappings (guard and stack),
 * so the max_generators budget also bounds the map count. */
#define GEN_STACK_MIN ((size_t)2 * 1024 * 1024)
/* C stack that interpreted recursion in a body may use (as before stacks
 * grew: the recursion limit, about 1,800 levels) */
#define GEN_INTERP_STACK (GEN_STACK_MIN - GEN_STACK_MARGIN)
#ifdef GEN_ASAN
/* AddressSanitizer unpoisons a whole stack when it is released: keep its
 * shadow small (deep structures in generators are for the normal build) */
#define GEN_STACK_SIZE GEN_STACK_MIN
#else
#define GEN_STACK_SIZE ((size_t)256 * 1024 * 1024)
#endif
#define GEN_STACK_MARGIN ((size_t)256 * 1024)
#define GEN_GUARD_SIZE ((size_t)64 * 1024)
#define GEN_STACK_KEEP ((size_t)128 * 1024)
#define GEN_STACK_CANARY ((uintptr_t)0x67656e7374616b31u)

#define RECURSION_MSG "maximum recursion depth exceeded"

/* Loops of a generator expression whose iterators fit in the object. */
#define GX_SMALL 4
/* Levels of a flat generator that fit in the object. */
#define FLAT_SMALL 3

/* One level of a flat generator's resume state (flat_step): a statement
 * list being run, the function body's or that of an if / for / while
 * statement enclosing a yield. */
typedef struct {
    Node *stmt;      /* the if / for / while; NULL for the function body */
    Node **body;     /* its statements being run: a body or the else clause */
    Py_ssize_t n, i; /* their number; the next to run (while suspended: the
                        yield) */
    LoopSource src;  /* for, in its body: its items (an iterator, owned, or
                        a count) */
    long long count; /* while: iterations so far */
    int in_else;     /* for / while: running the else clause */
} FlatLevel;

/* One C stack.  The struct lives at the top of its own mapping. */
typedef struct GenStack {
    char *map; /* start of the mapping (the guard area) */
    size_t map_size;
    char *low, *high;  /* usable stack: [low, high) */
    uintptr_t *canary; /* at high - GEN_STACK_KEEP: overwritten when a
                             body went deeper */
#ifdef GEN_VALGRIND
    unsigned int vg_id; /* VALGRIND_STACK_REGISTER */
#endif
    SwitchPair sw; /* the body and its resumer */
} GenStack;

typedef enum {
    GEN_CREATED,   /* body not started: no C stack yet */
    GEN_SUSPENDED, /* stopped at a yield */
    GEN_RUNNING,   /* body running, or a throw/close being forwarded */
    GEN_FINISHED,  /* returned, raised, closed or abandoned */
} GenState;

/* What the resumer asks of the body. */
typedef enum {
    MSG_SEND,    /* `transfer`: the value sent in (None for __next__;
                    NULL for __next__ on gen_lean_next's path, which only
                    flat_step and genexp_step read: None, known plain) */
    MSG_THROW,   /* raise the exception set in the thread state */
    MSG_SUBDONE, /* `yield from`: the subiterator ended, `transfer` is its
                    result (after a throw forwarded to it) */
} ResumeMsg;

/* How the body hands control back. */
typedef enum {
    OUT_YIELD,  /* `transfer`: the value yielded */
    OUT_RETURN, /* `transfer`: the value returned */
    OUT_ERROR,  /* the exception is set in the thread state */
} BodyOut;

typedef struct GenObject {
    PyObject_HEAD FunctionObject
        *func;          /* strong: program, globals, interpreter */
    ModState *st;       /* of our type's module, alive while we are */
    PyObject *name;     /* str */
    PyObject *qualname; /* str */
    PyObject *weakreflist;
    Frame frame; /* owns frame.fast (heap slots, cells after) */
    GenState state;
    ResumeMsg msg;
    BodyOut out;
    PyObject *transfer;  /* owned: value in flight between the sides */
    PyObject *yieldfrom; /* owned: subiterator while suspended in it */
    PyObject *exc_state; /* owned: the body's handled exception while
                              suspended, NULL when it has none */
    int depth_delta;     /* Interp.depth the body holds while suspended */
    int rec_delta;       /* CPython recursion the body holds */
    GenStack *stack;     /* NULL before the first resume and at the end;
                              always NULL for a generator expression */
    int is_genexp;       /* a generator expression: no C stack of its own
                              (genexp_step) */
    int gx_depth;        /* genexp: loops entered (0: not started) */
    PyObject **gx_iters; /* genexp: the iterator of each loop entered */
    PyObject *gx_small[GX_SMALL];
    int is_flat;     /* Scope.flat_levels > 0: no C stack (flat_step) */
    int flat_top;    /* flat: levels in use (0: not started or ended) */
    FlatLevel *flat; /* flat: flat_small, or Scope.flat_levels on the heap */
    FlatLevel flat_small[FLAT_SMALL];
    int ag_flags;          /* async generators: AG_* below */
    PyObject *ag_finalizer; /* async generators: the loop's finalizer hook
                               taken at the first iteration (owned) */
#ifdef GEN_ASAN
    const void *asan_back_bottom; /* the resumer's stack, for the switch */
    size_t asan_back_size;
#endif
} GenObject;

/* > 0 while gen_finalize closes a generator on this thread (a collection:
 * on another thread than its step's, interp_wrong_thread lets the step go
 * on) */
static HOT_TLS int gen_finalizing;

/* GenObject.ag_flags */
#define AG_YIELDED 1 /* the last suspension was the body's `yield` (not an
                        `await` passing a value through to the loop) */
#define AG_RUNNING_ASYNC 2 /* an asend / athrow awaitable is running it */
#define AG_CLOSED 4        /* finished or closed (CPython's ag_closed) */
#define AG_HOOKS 8         /* the loop's hooks were taken */

static PySendResult gen_send_ex2(GenObject *gen, PyObject *arg, ResumeMsg msg,
                                 PyObject **presult);
static PyObject *gen_close_impl(GenObject *gen);
static void genexp_release(GenObject *gen);
static void flat_release(GenObject *gen);
static PyObject *gen_throw_impl(GenObject *gen, PyObject *typ, PyObject *val,
                                PyObject *tb);

/* --------------------------------------------------- thread-state helpers */

/* CPython's C recursion budget as a "remaining" count: lower means deeper
 * (compat.h; always 0 on 3.14, which bounds C recursion by stack address). */
static inline int
tstate_recursion_get(PyThreadState *ts)
{
    return compat_c_recursion_get(ts);
}

static inline void
tstate_recursion_set(PyThreadState *ts, int remaining)
{
    compat_c_recursion_set(ts, remaining);
}

/* ------------------------------------------------------------ C stacks */

/* Returns a stack from the module's pool or a new mapping; NULL with
 * MemoryError set. */
static GenStack *
stack_acquire(ModState *st)
{
    if (st->n_gen_stacks > 0) {
        return (GenStack *)st->gen_stacks[--st->n_gen_stacks];
    }
    size_t total;
    char *low = NULL, *map = NULL;
    size_t size = GEN_STACK_SIZE;
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) == 0 && rl.rlim_cur != RLIM_INFINITY &&
        (size_t)(rl.rlim_cur / 64) < size) {
        size = (size_t)(rl.rlim_cur / 64);
        size = size < GEN_STACK_MIN ? GEN_STACK_MIN : size;
    }
    for (;;) {
        map =
            stack_map(GEN_GUARD_SIZE, size, &total, &low, "a generator's", 1);
        if (map != NULL || size / 2 < GEN_STACK_MIN) {
            break;
        }
        PyErr_Clear();
        size /= 2;
    }
    if (map == NULL) {
        return NULL;
    }
#ifdef MADV_NOHUGEPAGE
    /* a huge page would make every suspended generator cost 2 MiB */
    (void)madvise(low, (size_t)(map + total - low), MADV_NOHUGEPAGE);
#endif
    uintptr_t top = (uintptr_t)(map + total) - sizeof(GenStack);
    top &= ~(uintptr_t)63;
    GenStack *gs = (GenStack *)top;
    gs->map = map;
    gs->map_size = total;
    gs->low = low;
    gs->high = (char *)(top & ~(uintptr_t)15);
    gs->canary = (uintptr_t *)(gs->high - GEN_STACK_KEEP);
    *gs->canary = GEN_STACK_CANARY;
#ifdef GEN_VALGRIND
    gs->vg_id = VALGRIND_STACK_REGISTER(gs->low, gs->high);
#endif
    return gs;
}

static void
stack_unmap(GenStack *gs)
{
#ifdef GEN_VALGRIND
    VALGRIND_STACK_DEREGISTER(gs->vg_id);
#endif
    munmap(gs->map, gs->map_size);
}

/* Give a stack that no body runs on any more back to the pool (or unmap
 * it). */
static void
stack_release(ModState *st, GenStack *gs)
{
#ifdef GEN_ASAN
    /* an abandoned body leaves its frames' redzones poisoned */
    __asan_unpoison_memory_region(gs->low, (size_t)(gs->high - gs->low));
#endif
    if (st != NULL && st->n_gen_stacks < GEN_STACK_POOL) {
#ifdef GEN_VALGRIND
        /* below the body's last stack pointer: memcheck calls it dead */
        VALGRIND_MAKE_MEM_DEFINED(gs->canary, sizeof(*gs->canary));
#endif
        if (*gs->canary != GEN_STACK_CANARY) {
            /* a deep body touched many pages: do not keep them */
            (void)madvise(gs->low, (size_t)((char *)gs->canary - gs->low),
                          MADV_DONTNEED);
            *gs->canary = GEN_STACK_CANARY;
        }
        st->gen_stacks[st->n_gen_stacks++] = gs;
        return;
    }
    stack_unmap(gs);
}

void
generator_free_stacks(ModState *st)
{
    while (st->n_gen_stacks > 0) {
        GenStack *gs = (GenStack *)st->gen_stacks[--st->n_gen_stacks];
        stack_unmap(gs);
    }
}

/* ------------------------------------------------------------ switching */

/* Body side: hand control back to the resumer; returns when resumed.
 * `gen->out` and `gen->transfer` must be set. */
static void
switch_to_resumer(GenObject *gen)
{
    GenStack *gs = gen->stack;
#ifdef GEN_ASAN
    void *fake = NULL;
    __sanitizer_start_switch_fiber(&fake, gen->asan_back_bottom,
                                   gen->asan_back_size);
#endif
    switch_to_back(&gs->sw);
#ifdef GEN_ASAN
    __sanitizer_finish_switch_fiber(fake, &gen->asan_back_bottom,
                                    &gen->asan_back_size);
#endif
}

/* Entry point of a generator's C stack (switch.c calls it).  Never returns:
 * the end of the body switches back for good and the resumer recycles the
 * stack. */
static void
gen_entry(void *arg)
{
    GenObject *gen = (GenObject *)arg;
#ifdef GEN_ASAN
    __sanitizer_finish_switch_fiber(NULL, &gen->asan_back_bottom,
                                    &gen->asan_back_size);
#endif
    /* the first resume is always send(None): throw() and close() on an
       unstarted generator never start the body */
    Py_CLEAR(gen->transfer);
    PyObject *res = generator_run_body(&gen->frame, gen->func->def);
    gen->transfer = res;
    gen->out = res != NULL ? OUT_RETURN : OUT_ERROR;
    GenStack *gs = gen->stack;
#ifdef GEN_ASAN
    /* NULL: this fiber is finished, ASan may free its fake stack */
    __sanitizer_start_switch_fiber(NULL, gen->asan_back_bottom,
                                   gen->asan_back_size);
#endif
    switch_exit_body(&gs->sw);
}

/* Map the C stack and prepare the body's first switch.  0 / -1. */
static int
gen_start_stack(GenObject *gen)
{
    /* budget (budgets.def): each started body holds a C stack of address
       space and two kernel mappings until it ends */
    Interp *in = gen->frame.in;
    long long max = budget_max_generators(in);
    if (in_eval(in)->live_generators >= max) {
        limits_abort(in, ABORT_BUDGET,
                     budget_message(BUDGET_ID_max_generators), max);
        return -1;
    }
    GenStack *gs = stack_acquire(gen->st);
    if (gs == NULL) {
        return -1;
    }
    if (switch_init(&gs->sw, gs->low, gs->high, gen_entry, gen) != 0) {
        PyErr_SetFromErrno(PyExc_OSError);
        stack_release(gen->st, gs);
        return -1;
    }
    gen->stack = gs;
    in_eval(in)->live_generators++;
    return 0;
}

/* The handled exception (sys.exc_info()) while the body runs: its own,
 * saved when it was suspended inside an except block, else the resumer's,
 * which shows through as in CPython.  exc_enter returns what exc_leave must
 * put back (a reference it owns, or NULL). */
#if PY_VERSION_HEX >= 0x030B0000
/* 3.11+: the handled exception is the first exc_value other than NULL and
 * None on the thread's exception stack, from the top entry down; the body
 * gets the top entry for as long as it runs (by the invariant above, the
 * entry is the same when it switches back).  When nothing is being handled
 * this costs no more than a pointer comparison. */
static inline PyObject *
exc_enter(PyThreadState *ts, GenObject *gen)
{
    _PyErr_StackItem *ei = ts->exc_info;
    PyObject *outer = ei->exc_value; /* the entry's reference, now ours */
    PyObject *body = gen->exc_state;
    if (body != NULL) {
        gen->exc_state = NULL;
    }
    else {
        body = outer;
        Py_XINCREF(body);
    }
    ei->exc_value = body;
    return outer;
}

/* Borrowed: the exception handled below the top entry, or NULL. */
static PyObject *
exc_handled_below(_PyErr_StackItem *ei)
{
    for (ei = ei->previous_item; ei != NULL; ei = ei->previous_item) {
        if (ei->exc_value != NULL && ei->exc_value != Py_None) {
            return ei->exc_value;
        }
    }
    return NULL;
}

static inline void
exc_leave(PyThreadState *ts, GenObject *gen, PyObject *outer, int suspended)
{
    _PyErr_StackItem *ei = ts->exc_info;
    PyObject *now = ei->exc_value;
    ei->exc_value = outer;
    if (now == outer) {
        Py_XDECREF(now);
        return;
    }
    if (suspended && now != NULL && now != Py_None &&
        ((outer != NULL && outer != Py_None) ||
         now != exc_handled_below(ei))) {
        /* the body is suspended in an except block: keep its exception,
           unless it is just the resumer's (found below the top entry) */
        gen->exc_state = now;
        return;
    }
    Py_XDECREF(now);
}
#else
static inline PyObject *
exc_enter(PyThreadState *ts, GenObject *gen)
{
    PyObject *outer = compat_get_handled();
    if (gen->exc_state != NULL) {
        compat_set_handled(gen->exc_state);
        Py_CLEAR(gen->exc_state);
    }
    return outer;
}

static inline void
exc_leave(PyThreadState *ts, GenObject *gen, PyObject *outer, int suspended)
{
    if (suspended) {
        PyObject *inner = compat_get_handled();
        if (inner == outer) {
            /* nothing of the body's own: what is visible is the resumer's */
            Py_CLEAR(inner);
        }
        gen->exc_state = inner;
    }
    compat_set_handled(outer);
    Py_XDECREF(outer);
}
#endif

/* Resumer side: run the body until it yields or ends.  Installs the body's
 * view of the per-thread state, switches, and puts the resumer's view back.
 * `ts` is the current thread state. */
static void
gen_switch(GenObject *gen, PyThreadState *ts)
{
    Interp *in = gen->frame.in;
    GenStack *gs = gen->stack;
    /* interpreted code in the body (and interpreters entered on this
       stack) stops at GEN_INTERP_STACK below the top, as on a 2 MiB stack:
       the rest of the stack is for host code's own C recursion */
    char *body_limit = gs->low + GEN_STACK_MARGIN;
    if ((size_t)(gs->high - body_limit) > GEN_INTERP_STACK) {
        body_limit = gs->high - GEN_INTERP_STACK;
    }
    char *outer_limit = in_budget(in)->stack_limit;
    char *outer_lo = in_budget(in)->stack_lo, *outer_hi = in_budget(in)->stack_hi;
    /* the thread-local's address, computed once for both sides of the
       switch (each computation is a call to __tls_get_addr) */
    char **current = &stack_current_limit_tls;
    __asm__("" : "+r"(current));
    char *outer_current = *current;
    *current = body_limit;
    int outer_depth = in_budget(in)->depth;
    int outer_rec = tstate_recursion_get(ts);
    PyObject *outer_exc = exc_enter(ts, gen);

    in_budget(in)->stack_limit = body_limit;
    in_budget(in)->stack_lo = gs->low;
    in_budget(in)->stack_hi = gs->high;
    in_budget(in)->depth = outer_depth + gen->depth_delta;
    tstate_recursion_set(ts, outer_rec - gen->rec_delta);
    /* host calls of the body come back to the big stack below here */
    char *outer_resume = bigstack_note_switch_out();
    /* CPython 3.14+ measures C recursion against the body's stack meanwhile
       (compat.h) */
    CompatStack outer_stack;
    bigstack_protect_enter(ts, gs->low, gs->high, &outer_stack);
#ifdef GEN_ASAN
    void *fake = NULL;
    __sanitizer_start_switch_fiber(&fake, gs->low,
                                   (size_t)(gs->high - gs->low));
#endif
    switch_to_body(&gs->sw);
#ifdef GEN_ASAN
    __sanitizer_finish_switch_fiber(fake, NULL, NULL);
#endif
    compat_stack_leave(ts, &outer_stack);
    bigstack_note_switch_back(outer_resume);
    int suspended = gen->out == OUT_YIELD;
    if (suspended) {
        gen->depth_delta = in_budget(in)->depth - outer_depth;
        gen->rec_delta = outer_rec - tstate_recursion_get(ts);
    }
    else {
        gen->depth_delta = 0;
        gen->rec_delta = 0;
    }
    tstate_recursion_set(ts, outer_rec);
    in_budget(in)->depth = outer_depth;
    in_budget(in)->stack_limit = outer_limit;
    in_budget(in)->stack_lo = outer_lo;
    in_budget(in)->stack_hi = outer_hi;
    *current = outer_current;
    /* last: may drop the last reference to an exception */
    exc_leave(ts, gen, outer_exc, suspended);
}

/* -------------------------------------------------------- state changes */

/* Release the frame's references and its slot array. */
static void
gen_release_frame(GenObject *gen)
{
    if (gen->frame.fast == NULL && gen->frame.scope == NULL) {
        return;
    }
    /* detach first: decrefs below may run code that reaches us */
    Frame dead = gen->frame;
    gen->frame.fast = NULL;
    gen->frame.cells = NULL;
    gen->frame.retval = NULL;
    gen->frame.last_value = NULL;
    if (dead.scope != NULL) {
        frame_clear(&dead);
    }
    PyMem_Free(dead.fast);
}

/* The body is over, or will never run again.  A body still suspended on its
 * C stack is abandoned: the references held by its C frames leak, which is
 * the price of not running code we were asked not to run.  frame_clear may
 * run code: with an exception in flight, use gen_finish_keep_error. */
static void
gen_finish(GenObject *gen)
{
    gen->state = GEN_FINISHED;
    Py_CLEAR(gen->exc_state);
    Py_CLEAR(gen->yieldfrom);
    genexp_release(gen);
    flat_release(gen);
    if (gen->stack != NULL) {
        GenStack *gs = gen->stack;
        gen->stack = NULL;
        stack_release(gen->st, gs);
        in_eval(gen->frame.in)->live_generators--; /* alive: gen->func holds it */
    }
    gen->depth_delta = 0;
    gen->rec_delta = 0;
    gen_release_frame(gen);
}

/* gen_finish with the current exception (if any) kept aside. */
static void
gen_finish_keep_error(GenObject *gen)
{
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    gen_finish(gen);
    PyErr_Restore(t, v, tb);
}

/* PEP 479: a StopIteration leaving the body becomes RuntimeError with the
 * StopIteration as __cause__ and __context__ (and a StopAsyncIteration
 * leaving an async generator's, PEP 525).  `gen` names the kind in the
 * message (NULL: a generator). */
static void
stop_iteration_to_runtime_error(GenObject *gen)
{
    const char *msg;
    int coro = gen != NULL && Py_TYPE(gen) == gen->st->CoroutineType;
    int agen = gen != NULL && Py_TYPE(gen) == gen->st->AsyncGenType;
    if (PyErr_ExceptionMatches(PyExc_StopIteration)) {
        msg = coro   ? "coroutine raised StopIteration"
              : agen ? "async generator raised StopIteration"
                     : "generator raised StopIteration";
    }
    else if (agen && PyErr_ExceptionMatches(PyExc_StopAsyncIteration)) {
        msg = "async generator raised StopAsyncIteration";
    }
    else {
        return;
    }
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    PyErr_NormalizeException(&t, &v, &tb);
    if (tb != NULL && v != NULL) {
        PyException_SetTraceback(v, tb);
    }
    Py_XDECREF(t);
    Py_XDECREF(tb);
    PyErr_SetString(PyExc_RuntimeError, msg);
    if (v == NULL) {
        return;
    }
    PyObject *t2, *v2, *tb2;
    PyErr_Fetch(&t2, &v2, &tb2);
    PyErr_NormalizeException(&t2, &v2, &tb2);
    if (v2 != NULL) {
        Py_INCREF(v);
        PyException_SetCause(v2, v);   /* steals one reference */
        PyException_SetContext(v2, v); /* steals the other */
    }
    else {
        Py_DECREF(v);
    }
    PyErr_Restore(t2, v2, tb2);
}

/* Raise StopIteration(value), wrapping tuples and exceptions so that they
 * survive normalization (CPython's _PyGen_SetStopIterationValue). */
static void
set_stop_iteration_value(PyObject *value)
{
    if (!PyTuple_Check(value) && !PyExceptionInstance_Check(value)) {
        PyErr_SetObject(PyExc_StopIteration, value);
        return;
    }
    PyObject *e = PyObject_CallOneArg(PyExc_StopIteration, value);
    if (e == NULL) {
        return;
    }
    PyErr_SetObject(PyExc_StopIteration, e);
    Py_DECREF(e);
}

/* If StopIteration is set, clear it and store its value (new reference) in
 * *pvalue; with no exception set, store None.  Returns 0, or -1 leaving any
 * other exception set. */
static int
fetch_stop_iteration_value(PyObject **pvalue)
{
    PyObject *value = NULL;
    *pvalue = NULL;
    if (PyErr_ExceptionMatches(PyExc_StopIteration)) {
        PyObject *t, *v, *tb;
        PyErr_Fetch(&t, &v, &tb);
        if (v != NULL) {
            if (PyObject_TypeCheck(v, (PyTypeObject *)t)) {
                value = ((PyStopIterationObject *)v)->value;
                Py_XINCREF(value);
                Py_DECREF(v);
            }
            else if (t == PyExc_StopIteration && !PyTuple_Check(v)) {
                value = v; /* not normalized: v is the value itself */
            }
            else {
                PyErr_NormalizeException(&t, &v, &tb);
                if (!PyObject_TypeCheck(v,
                                        (PyTypeObject *)PyExc_StopIteration)) {
                    PyErr_Restore(t, v, tb);
                    return -1;
                }
                value = ((PyStopIterationObject *)v)->value;
                Py_XINCREF(value);
                Py_DECREF(v);
            }
        }
        Py_XDECREF(t);
        Py_XDECREF(tb);
    }
    else if (PyErr_Occurred()) {
        return -1;
    }
    if (value == NULL) {
        value = Py_None;
        Py_INCREF(value);
    }
    *pvalue = value;
    return 0;
}

/* ------------------------------------------------- generator expressions */

/* A generator expression cannot contain `yield`: between two values, its
 * state is the iterator of each loop entered and its frame's slots, and
 * nothing of it needs to stay on a C stack.  So it runs from the resumer's
 * side, one value per resume, with no stack switch: genexp_step() is the
 * loop of function.c's comp_loop, yielding (same evaluation order, same charges,
 * same gate on items and on values sent in) turned inside out.  Its
 * expressions run on the resumer's C stack, under the resumer's stack
 * bound, as everything does in CPython. */

/* Release the iterators of the loops entered, innermost first (as the
 * nested loops would on the way out). */
static void
genexp_release(GenObject *gen)
{
    while (gen->gx_depth > 0) {
        gen->gx_depth--;
        Py_CLEAR(gen->gx_iters[gen->gx_depth]);
    }
    if (gen->gx_iters != gen->gx_small) {
        PyMem_Free(gen->gx_iters);
        gen->gx_iters = gen->gx_small;
    }
}

/* Run the body of a generator expression (state GEN_RUNNING, `gen->msg`
 * and `gen->transfer` set as for a switch) to its next value, and set
 * `gen->out` and `gen->transfer` as the body does when it switches back. */
static void
genexp_step(GenObject *gen)
{
    Frame *cf = &gen->frame;
    Interp *in = cf->in;
    Node *e = gen->func->def;
    if (gen->msg == MSG_THROW) {
        /* raised where the body waits: nothing in it can catch */
        goto fail;
    }
    PyObject *sent = gen->transfer; /* NULL: None from gen_lean_next */
    gen->transfer = NULL;
    if (gen->gx_depth == 0) {
        /* first resume: the loop over `.0` */
        Py_XDECREF(sent);
        /* one level per loop, and (PEP 798) the unpacked element's */
        Py_ssize_t levels =
            e->Comp.ngenerators + ((e->flags & NF_HAS_STAR) ? 1 : 0);
        if (levels > GX_SMALL) {
            gen->gx_iters = PyMem_Calloc((size_t)levels, sizeof(PyObject *));
            if (gen->gx_iters == NULL) {
                gen->gx_iters = gen->gx_small;
                PyErr_NoMemory();
                goto fail;
            }
        }
        gen->gx_iters[0] = cf->fast[0];
        Py_INCREF(cf->fast[0]);
        gen->gx_depth = 1;
    }
    else if (sent != NULL) {
        /* a value sent by host code enters interpreted code (gen_yield) */
        int refused = gate_value(in, sent);
        Py_DECREF(sent);
        if (refused < 0) {
            goto fail;
        }
    }
    for (;;) {
        if (gen->gx_depth > e->Comp.ngenerators) {
            /* PEP 798: `(*x for ...)` yields the items of each element */
            PyObject *it = gen->gx_iters[gen->gx_depth - 1];
            PyObject *item = loop_iter_next(
                deadline_next_orig(Py_TYPE(it)), it);
            if (item == NULL) {
                if (PyErr_Occurred()) {
                    goto fail;
                }
                gen->gx_depth--;
                Py_CLEAR(gen->gx_iters[gen->gx_depth]);
                continue;
            }
            gen->transfer = item;
            gen->out = OUT_YIELD;
            return;
        }
        Node *g = e->Comp.generators[gen->gx_depth - 1];
        /* no charge per iteration: the element and conditions (or the next
           loop's iterable) are charged; nor for a range's items */
        PyObject *it = gen->gx_iters[gen->gx_depth - 1];
        PyObject *item = loop_iter_next(
            deadline_next_orig(Py_TYPE(it)), it);
        if (item == NULL) {
            if (PyErr_Occurred()) {
                goto fail;
            }
            /* this loop is over: back to the enclosing one, or the end */
            gen->gx_depth--;
            Py_CLEAR(gen->gx_iters[gen->gx_depth]);
            if (gen->gx_depth == 0) {
                genexp_release(gen);
                Py_INCREF(Py_None);
                gen->transfer = Py_None;
                gen->out = OUT_RETURN;
                return;
            }
            continue;
        }
        /* gate_value, the plain values first: they need not ask whose
           iterator gave them */
        if ((!value_is_plain(item) &&
             !generator_yields_gated(in, gen->gx_iters[gen->gx_depth - 1]) &&
             policy_check_value(in, item) < 0) ||
            store_target(cf, g->comprehension.target, item) < 0) {
            Py_DECREF(item);
            goto fail;
        }
        Py_DECREF(item);
        int keep = 1;
        for (Py_ssize_t k = 0; k < g->comprehension.nifs && keep > 0; k++) {
            keep = eval_cond(cf, g->comprehension.ifs[k]);
        }
        if (keep < 0) {
            goto fail;
        }
        if (!keep) {
            continue;
        }
        if (gen->gx_depth < e->Comp.ngenerators) {
            /* enter the next loop */
            PyObject *src = eval_expr(
                cf, e->Comp.generators[gen->gx_depth]->comprehension.iter);
            if (src == NULL) {
                goto fail;
            }
            PyObject *it = PyObject_GetIter(src);
            Py_DECREF(src);
            if (it == NULL) {
                goto fail;
            }
            gen->gx_iters[gen->gx_depth++] = it;
            continue;
        }
        PyObject *v = eval_expr(cf, e->Comp.elt);
        if (v == NULL) {
            goto fail;
        }
        if (e->flags & NF_HAS_STAR) {
            PyObject *it = hostcall_getiter(in, v); /* security: deadline.c */
            Py_DECREF(v);
            if (it == NULL) {
                goto fail;
            }
            gen->gx_iters[gen->gx_depth++] = it;
            continue;
        }
        gen->transfer = v;
        gen->out = OUT_YIELD;
        return;
    }

fail:
    genexp_release(gen);
    gen->out = OUT_ERROR;
}

/* ------------------------------------------------------ flat generators */

/* A generator whose yields are all statements of their own, reached only
 * through if / for / while bodies (lower.c's flat_levels), needs no C stack
 * either.  Between two values its state is the position in each statement
 * list entered, with a for loop's iterator and a while loop's count: a
 * list of levels, the function body first.  flat_step() runs the body from
 * the resumer's side up to the next yield statement, as eval_body /
 * eval_for / eval_while / st_if would (same order, same charges, the same
 * gate on items and on values sent in), and statements with no yield in
 * them through eval_stmt itself.  Nothing that could observe the
 * difference is suspended with the body: no try, with or match statement
 * encloses a yield (so the body has no handled exception of its own while
 * suspended, and a value thrown in at a yield leaves the body at once), and
 * no expression is half evaluated.  Its code runs on the resumer's C stack
 * under the resumer's bounds, as CPython runs a generator's frame. */

/* Release the levels' iterators, innermost first (as the nested loops would
 * on the way out), and the level array. */
static void
flat_release(GenObject *gen)
{
    while (gen->flat_top > 0) {
        gen->flat_top--;
        loop_source_clear(&gen->flat[gen->flat_top].src);
    }
    if (gen->flat != gen->flat_small) {
        PyMem_Free(gen->flat);
        gen->flat = gen->flat_small;
    }
}

/* Enter `body` (n statements, n > 0) of `stmt` as the innermost level. */
static inline FlatLevel *
flat_push(GenObject *gen, Node *stmt, Node **body, Py_ssize_t n, Py_ssize_t i,
          LoopSource *src)
{
    FlatLevel *L = &gen->flat[gen->flat_top];
    L->stmt = stmt;
    L->body = body;
    L->n = n;
    L->i = i;
    L->count = 0;
    L->in_else = 0;
    if (src != NULL) {
        L->src = *src; /* takes its iterator */
    }
    else { /* an if's body: no items (loop_source_clear sees no iterator) */
        L->src.it = NULL;
        L->src.n = L->src.k = 0;
    }
    gen->flat_top++;
    return L;
}

/* `break` (brk) or `continue` came out of a statement of the innermost
 * level: leave the levels of if statements and else clauses up to the
 * innermost loop body, then leave that loop or go to its next iteration.
 * 0 / -1. */
static int
flat_jump(GenObject *gen, int brk)
{
    for (;;) {
        FlatLevel *L = &gen->flat[gen->flat_top - 1];
        if (L->stmt == NULL) {
            PyErr_SetString(PyExc_SystemError, "break/continue outside loop");
            return -1;
        }
        if (L->stmt->kind != K_If && !L->in_else) {
            if (brk) {
                loop_source_clear(&L->src);
                gen->flat_top--;
            }
            else {
                L->i = L->n; /* the end of the body: the next iteration */
            }
            return 0;
        }
        gen->flat_top--; /* holds no iterator */
    }
}

/* Run a flat generator's body (state GEN_RUNNING, `gen->msg` and
 * `gen->transfer` set as for a switch) to its next yield or its end, and set
 * `gen->out` and `gen->transfer` as the body does when it switches back. */
static void
flat_step(GenObject *gen)
{
    Frame *cf = &gen->frame;
    Interp *in = cf->in;
    FlatLevel *L;
    if (gen->msg == MSG_THROW) {
        /* raised at the yield: nothing in the body encloses it */
        goto fail;
    }
    PyObject *sent = gen->transfer; /* NULL: None from gen_lean_next */
    gen->transfer = NULL;
    if (gen->flat_top == 0) {
        /* the first resume (its value is None): the function body */
        Py_XDECREF(sent);
        Scope *sc = cf->scope;
        if (sc->flat_levels > FLAT_SMALL) {
            gen->flat =
                PyMem_Malloc((size_t)sc->flat_levels * sizeof(FlatLevel));
            if (gen->flat == NULL) {
                gen->flat = gen->flat_small;
                PyErr_NoMemory();
                goto fail;
            }
        }
        L = flat_push(gen, NULL, sc->body, sc->nbody, 0, NULL);
    }
    else {
        /* back at the yield statement of the innermost level: the value
           sent in enters interpreted code (as in gen_yield), and is the
           value of the yield expression */
        L = &gen->flat[gen->flat_top - 1];
        Node *s = L->body[L->i];
        if (sent != NULL && gate_value(in, sent) < 0) {
            Py_DECREF(sent);
            goto fail;
        }
        if (s->kind == K_Assign) {
            PyObject *v = sent != NULL ? sent : Py_None;
            for (Py_ssize_t k = 0; k < s->Assign.ntargets; k++) {
                if (store_target(cf, s->Assign.targets[k], v) < 0) {
                    Py_XDECREF(sent);
                    goto fail;
                }
            }
        }
        Py_XDECREF(sent); /* a function's statement values are not kept */
        L->i++;
    }
    for (;;) {
        if (L->i < L->n) {
            Node *s = L->body[L->i];
            if (!(s->flags & NF_HAS_YIELD)) {
                Status st = eval_stmt(cf, s);
                if (st == ST_OK) {
                    L->i++;
                    continue;
                }
                if (st == ST_ERROR) {
                    goto fail;
                }
                if (st == ST_RETURN) {
                    PyObject *res = cf->retval;
                    cf->retval = NULL;
                    flat_release(gen);
                    gen->transfer = res;
                    gen->out = OUT_RETURN;
                    return;
                }
                if (flat_jump(gen, st == ST_BREAK) < 0) {
                    goto fail;
                }
                L = &gen->flat[gen->flat_top - 1];
                continue;
            }
            /* a statement with a yield in it: charged as by eval_stmt */
            if (charge(in) < 0) {
                goto fail;
            }
            switch (s->kind) {
            case K_Expr:
            case K_Assign: {
                Node *y = s->kind == K_Expr ? s->Expr.value : s->Assign.value;
                /* the yield expression, charged as by eval_expr, then its
                   value (eval_yield) */
                if (charge(in) < 0) {
                    goto fail;
                }
                PyObject *v = y->Yield.value ? eval_expr(cf, y->Yield.value)
                                             : Py_NewRef(Py_None);
                if (v == NULL) {
                    goto fail;
                }
                gen->transfer = v;
                gen->out = OUT_YIELD;
                return; /* L->i stays on this statement */
            }
            case K_If: {
                int b = eval_cond(cf, s->If.test);
                if (b < 0) {
                    goto fail;
                }
                L->i++; /* where this level goes on after the if */
                Node **body = b ? s->If.body : s->If.orelse;
                Py_ssize_t n = b ? s->If.nbody : s->If.norelse;
                if (n > 0) {
                    L = flat_push(gen, s, body, n, 0, NULL);
                }
                continue;
            }
            case K_For: {
                LoopSource ls;
                if (loop_source_init(cf, s->For.iter, &ls) < 0) {
                    goto fail;
                }
                L->i++;
                /* at the end of its body: the next item is fetched first */
                L = flat_push(gen, s, s->For.body, s->For.nbody, s->For.nbody,
                              &ls);
                continue;
            }
            case K_While:
                L->i++;
                /* at the end of its body: the test comes first */
                L = flat_push(gen, s, s->While.body, s->While.nbody,
                              s->While.nbody, NULL);
                continue;
            default:
                PyErr_SetString(PyExc_SystemError,
                                "flat generator: unexpected statement");
                goto fail;
            }
        }
        /* the end of this level's statements */
        Node *s = L->stmt;
        if (s == NULL) {
            /* the end of the function body */
            flat_release(gen);
            gen->transfer = Py_NewRef(Py_None);
            gen->out = OUT_RETURN;
            return;
        }
        if (!L->in_else && s->kind == K_For) {
            /* as eval_for: no charge per iteration (nor for a range's
               items: the body's statements are charged) */
            PyObject *item = loop_source_next(&L->src);
            if (item == NULL) {
                if (PyErr_Occurred()) {
                    goto fail;
                }
                /* released before the else clause, as by CPython */
                loop_source_clear(&L->src);
                L->in_else = 1;
                L->body = s->For.orelse;
                L->n = s->For.norelse;
                L->i = 0;
                continue;
            }
            if (loop_source_gate(in, &L->src, item) < 0 ||
                store_target(cf, s->For.target, item) < 0) {
                Py_DECREF(item);
                goto fail;
            }
            Py_DECREF(item);
            L->i = 0;
            continue;
        }
        if (!L->in_else && s->kind == K_While) {
            int b = eval_cond(cf, s->While.test);
            if (b < 0) {
                goto fail;
            }
            if (!b) {
                L->in_else = 1;
                L->body = s->While.orelse;
                L->n = s->While.norelse;
                L->i = 0;
                continue;
            }
            if (++L->count > budget_max_while_iterations(in)) {
                limits_abort(in, ABORT_BUDGET,
                             budget_message(BUDGET_ID_max_while_iterations),
                             budget_max_while_iterations(in));
                goto fail;
            }
            L->i = 0;
            continue;
        }
        /* the end of an if's branch or of an else clause */
        gen->flat_top--;
        L = &gen->flat[gen->flat_top - 1];
    }

fail:
    flat_release(gen);
    gen->out = OUT_ERROR;
}

/* Are the items of the iterator `it` values of `in`'s own code, which the
 * value gate already saw (or which the code made)?  True of a flat
 * generator or a generator expression of `in`: what they yield is the value
 * of an expression of their body.  (Not of other generators: `yield from`
 * passes a host iterator's items through unseen.) */
_Static_assert(offsetof(GenObject, func) == offsetof(GenHead, func),
               "GenObject begins with GenHead (guard.h)");

int
generator_yields_gated(Interp *in, PyObject *it)
{
    return generator_is_own(in, it) &&
           (((GenObject *)it)->is_flat || ((GenObject *)it)->is_genexp);
}

/* --------------------------------------------------------------- resume */

/* `gen` is being resumed with send() / __next__ (`gen->transfer`, state
 * GEN_RUNNING) while suspended in `yield from` another interpreted
 * generator.  Its body would charge one operation and send the value to
 * the subgenerator (gen_yield_from); if the subgenerator yields, all the
 * body would then do is yield the same value.  So do that from here,
 * without switching to the body's stack (nor, recursively, to the stack of
 * every generator of a `yield from` chain).  The subgenerator runs with the
 * interpreter depth, CPython recursion and handled exception it would have
 * had in the body: not attempted when the body has a handled exception of
 * its own, nor when the operation budget or the clock check is due, nor
 * near the end of the current C stack.
 *
 * Returns 1 when the subgenerator yielded: `gen->transfer` is the value,
 * `gen->out` OUT_YIELD.  Returns 0 when the body must run: either nothing
 * was done, or the subgenerator ended and `gen->msg` is MSG_SUBDONE with
 * its return value in `gen->transfer`, or MSG_THROW with its error set (as
 * gen_throw_impl forwards a throw()). */
static int
delegate_send(GenObject *gen, PyThreadState *ts)
{
    Interp *in = gen->frame.in;
    char *limit = stack_current_limit();
    if (limit == NULL) {
        limit = in_budget(in)->stack_limit;
    }
    if (gen->exc_state != NULL || in_budget(in)->tick < 2 ||
        (limit != NULL && (char *)__builtin_frame_address(0) < limit)) {
        return 0;
    }
    /* what charge() does when it does not reach limits_tick_slow */
    in_budget(in)->tick--;
    /* the body's loop holds no reference to the subgenerator in `yieldfrom`
       while it sends */
    GenObject *sub = (GenObject *)gen->yieldfrom;
    gen->yieldfrom = NULL;
    PyObject *v = gen->transfer;
    gen->transfer = NULL;
    int outer_rec = tstate_recursion_get(ts);
    in_budget(in)->depth += gen->depth_delta;
    tstate_recursion_set(ts, outer_rec - gen->rec_delta);
    PyObject *item;
    PySendResult r = gen_send_ex2(sub, v, MSG_SEND, &item);
    tstate_recursion_set(ts, outer_rec);
    in_budget(in)->depth -= gen->depth_delta;
    Py_DECREF(v);
    switch (r) {
    case PYGEN_NEXT:
        gen->yieldfrom = (PyObject *)sub;
        gen->transfer = item;
        gen->out = OUT_YIELD;
        return 1;
    case PYGEN_RETURN:
        gen->msg = MSG_SUBDONE;
        gen->transfer = item;
        break;
    case PYGEN_ERROR:
        gen->msg = MSG_THROW;
        break;
    }
    Py_DECREF(sub);
    return 0;
}

/* After the body ran (gen->out, gen->transfer): gen_send_ex2's result for
 * a resume with `arg` (NULL from __next__), the generator finished unless
 * it yielded. */
static PySendResult
gen_resume_end(GenObject *gen, PyObject *arg, PyObject **presult)
{
    PySendResult rc = PYGEN_ERROR;
    PyObject *res = gen->transfer;
    gen->transfer = NULL;
    switch (gen->out) {
    case OUT_YIELD:
        gen->state = GEN_SUSPENDED;
        rc = PYGEN_NEXT;
        break;
    case OUT_RETURN:
        gen_finish_keep_error(gen);
        if (res == Py_None && arg == NULL) {
            /* __next__: the end, with no StopIteration to build */
            Py_CLEAR(res);
            rc = PYGEN_ERROR;
        }
        else {
            rc = PYGEN_RETURN;
        }
        break;
    case OUT_ERROR:
        Py_CLEAR(res);
        gen_finish_keep_error(gen);
        stop_iteration_to_runtime_error(gen);
        rc = PYGEN_ERROR;
        break;
    }
    *presult = res;
    return rc;
}

/* The recursion bounds a resume passes before the body runs: the
 * interpreter's depth, then CPython's recursion counter (left with
 * compat_recursion_leave).  0, or -1 with RecursionError. */
static inline int
gen_bounds_enter(Interp *in, PyThreadState *ts)
{
    if (in_budget(in)->depth >= in_budget(in)->max_depth) {
        PyErr_SetString(PyExc_RecursionError, RECURSION_MSG);
        return -1;
    }
    return compat_recursion_enter(ts);
}

/* The resume itself (gen_send_ex2 past its checks), inside a budget
 * window.  Same returns as gen_send_ex2. */
static PySendResult
gen_resume(GenObject *gen, PyObject *arg, ResumeMsg msg, PyObject **presult)
{
    Interp *in = gen->frame.in;
    PySendResult rc = PYGEN_ERROR;
    PyThreadState *ts = in_budget(in)->run_ts;
    if (gen_bounds_enter(in, ts) < 0) {
        goto leave;
    }
    if (!gen->is_flat && !gen->is_genexp && gen->stack == NULL &&
        gen_start_stack(gen) < 0) {
        compat_recursion_leave(ts);
        goto leave;
    }
    Py_INCREF(gen); /* the body may drop the last other reference */
    in_budget(in)->depth++;
    gen->state = GEN_RUNNING;
    gen->msg = msg;
    gen->ag_flags &= ~AG_YIELDED;
    if (msg != MSG_THROW) {
        gen->transfer = arg != NULL ? arg : Py_None;
        Py_INCREF(gen->transfer);
    }
    if (gen->is_genexp) {
        genexp_step(gen);
    }
    else if (gen->is_flat) {
        flat_step(gen);
    }
    else if (msg != MSG_SEND || gen->yieldfrom == NULL ||
             Py_TYPE(gen->yieldfrom) != Py_TYPE(gen) ||
             !delegate_send(gen, ts)) {
        gen_switch(gen, ts);
    }
    in_budget(in)->depth--;
    compat_recursion_leave(ts);
    rc = gen_resume_end(gen, arg, presult);
    Py_DECREF(gen);
    return rc;

leave:
    return rc;
}

/* gen_iternext's common case, which gen_lean_next_applies says: __next__
 * of a flat generator or a generator expression, suspended or not started,
 * resumed by the step's own code (a for loop, sum(), list(), next()).
 * gen_send_ex2 and gen_resume for it without what cannot apply there (the
 * checks of a coroutine, an async generator, a value sent in or thrown, a
 * finished or running generator; a body on a C stack of its own, a `yield
 * from` to delegate): a for loop over such a generator cost about 40
 * instructions a resume more (callgrind, 3.14).  Flat generators and
 * generator expressions are plain generators (lower.c never makes an async
 * generator's body flat; an asynchronous generator expression is no
 * genexp here), and their body never suspends in `yield from`.  Returns
 * what gen_iternext returns. */
static inline int
gen_lean_next_applies(GenObject *gen)
{
    Interp *in = gen->frame.in;
    return (gen->is_flat || gen->is_genexp) &&
           (gen->state == GEN_SUSPENDED || gen->state == GEN_CREATED) &&
           in_budget(in)->running && !interp_needs_rearm(in) &&
           in_runtime(in)->run_thread == (unsigned long)pthread_self();
}

static PyObject *
gen_lean_next(GenObject *gen)
{
    Interp *in = gen->frame.in;
    PyThreadState *ts = in_budget(in)->run_ts;
    if (gen_bounds_enter(in, ts) < 0) {
        return NULL;
    }
    Py_INCREF(gen); /* the body may drop the last other reference */
    in_budget(in)->depth++;
    gen->state = GEN_RUNNING;
    gen->msg = MSG_SEND;
    gen->transfer = NULL; /* None: read so by flat_step and genexp_step */
    if (gen->is_genexp) {
        genexp_step(gen);
    }
    else {
        flat_step(gen);
    }
    in_budget(in)->depth--;
    compat_recursion_leave(ts);
    PyObject *res;
    if (gen->out == OUT_YIELD) {
        res = gen->transfer;
        gen->transfer = NULL;
        gen->state = GEN_SUSPENDED;
    }
    else if (gen_resume_end(gen, NULL, &res) == PYGEN_RETURN) {
        /* a value returned (return None is the end without one) */
        set_stop_iteration_value(res);
        Py_CLEAR(res);
    }
    Py_DECREF(gen);
    return res;
}


typedef struct {
    GenObject *gen;
    PyObject *arg;
    ResumeMsg msg;
    PyObject **presult;
    PySendResult rc;
} ResumeCall;

static void
gen_resume_on_big_stack(void *p)
{
    ResumeCall *c = (ResumeCall *)p;
    c->rc = gen_resume(c->gen, c->arg, c->msg, c->presult);
}

/* gen_send_ex2 past its checks, when the generator is not resumed by the
 * code of a step running on this thread with the gadget profile on. */
static NOINLINE PySendResult
gen_resume_other(GenObject *gen, PyObject *arg, ResumeMsg msg,
                 PyObject **presult)
{
    Interp *in = gen->frame.in;
    InterpSave
        save; /* only save.started is read unless interp_enter fills it */
    save.started = 0;
    if (interp_closing(in) < 0) {
        return PYGEN_ERROR;
    }
    /* another thread's step or hook: wait for a hook to end (then
       running may be 0: a window of this thread's own below) */
    if (in_budget(in)->running && interp_check_thread(in, gen_finalizing > 0) < 0) {
        return PYGEN_ERROR;
    }
    if (in_budget(in)->running) {
        if (interp_needs_rearm(in)) {
            /* resumed from a pure host call or a tool: the step's checks
               on again while the body runs (interp_rearm) */
            InterpRearm r;
            interp_rearm(in, &r);
            PySendResult rc = gen_resume(gen, arg, msg, presult);
            interp_rearm_done(in, &r);
            return rc;
        }
        return gen_resume(gen, arg, msg, presult);
    }
    /* resumed by host code after the step: a fresh budget window, on the
       thread's big stack (as a hook), so that host code the body calls
       (or a generator expression evaluates) has the step's stack depth */
    if (interp_enter(in, &save) < 0) {
        return PYGEN_ERROR;
    }
    ResumeCall rcall = {gen, arg, msg, presult, PYGEN_ERROR};
    if (bigstack_run(in, gen_resume_on_big_stack, &rcall) < 0) {
        rcall.rc = PYGEN_ERROR;
    }
    interp_leave(in, &save, NULL);
    return rcall.rc;
}

/* Resume the body (CPython's gen_send_ex2).  `arg` (borrowed) is the value
 * sent in, NULL from __next__; with MSG_THROW the exception to raise is set.
 * Returns PYGEN_NEXT with *presult the value yielded, PYGEN_RETURN with
 * *presult the value returned (new references), or PYGEN_ERROR with
 * *presult NULL and an exception set -- or none when __next__ reaches the
 * end (returned None, or already finished). */
static PySendResult
gen_send_ex2(GenObject *gen, PyObject *arg, ResumeMsg msg, PyObject **presult)
{
    *presult = NULL;
    int coro = Py_TYPE(gen) == gen->st->CoroutineType;
    int agen = Py_TYPE(gen) == gen->st->AsyncGenType;
    if (gen->state == GEN_CREATED && msg == MSG_SEND && arg != NULL &&
        arg != Py_None) {
        PyErr_SetString(
            PyExc_TypeError,
            coro   ? "can't send non-None value to a just-started coroutine"
            : agen ? "can't send non-None value to a just-started async "
                     "generator"
                   : "can't send non-None value to a just-started generator");
        return PYGEN_ERROR;
    }
    if (gen->state == GEN_RUNNING) {
        PyErr_SetString(PyExc_ValueError,
                        coro   ? "coroutine already executing"
                        : agen ? "async generator already executing"
                               : "generator already executing");
        return PYGEN_ERROR;
    }
    if (gen->state == GEN_FINISHED && coro) {
        /* send() and throw() alike (close() of a finished one returns
           before: gen_close_impl) */
        PyErr_SetString(PyExc_RuntimeError,
                        "cannot reuse already awaited coroutine");
        return PYGEN_ERROR;
    }
    if (gen->state == GEN_FINISHED) {
        if (arg != NULL && msg != MSG_THROW) {
            /* only send() returns a value from an exhausted generator */
            Py_INCREF(Py_None);
            *presult = Py_None;
            return PYGEN_RETURN;
        }
        return PYGEN_ERROR;
    }
    if (gen->state == GEN_CREATED && msg == MSG_THROW) {
        /* raised at the very start of the body, which never runs; up to
           3.11 PEP 479 applies there too, from 3.12 the body's
           StopIteration guard starts after that point (see
           docs/compatibility.md, per-version differences) */
        gen_finish_keep_error(gen);
#if PY_VERSION_HEX < 0x030C0000
        stop_iteration_to_runtime_error(gen);
#endif
        return PYGEN_ERROR;
    }

    Interp *in = gen->frame.in;
    if (in_budget(in)->running && !interp_needs_rearm(in) &&
        in_runtime(in)->run_thread == (unsigned long)pthread_self()) {
        /* resumed by the step's own code (the common case, kept lean) */
        return gen_resume(gen, arg, msg, presult);
    }
    return gen_resume_other(gen, arg, msg, presult);
}

/* gen_send_ex2 with the return value turned into StopIteration.  Returns a
 * new reference (the value yielded) or NULL. */
static PyObject *
gen_send_ex(GenObject *gen, PyObject *arg, ResumeMsg msg)
{
    PyObject *res;
    if (gen_send_ex2(gen, arg, msg, &res) == PYGEN_RETURN) {
        if (Py_TYPE(gen) == gen->st->AsyncGenType) {
            PyErr_SetNone(PyExc_StopAsyncIteration); /* returns None */
        }
        else if (res == Py_None) {
            PyErr_SetNone(PyExc_StopIteration);
        }
        else {
            set_stop_iteration_value(res);
        }
        Py_CLEAR(res);
    }
    return res;
}

/* ----------------------------------------------------- body-side API */

/* Hand `value` (stolen: the body keeps no reference while suspended) to
 * the resumer and wait.  Returns the value sent in (new reference) with
 * *pmsg MSG_SEND or MSG_SUBDONE, or NULL with the thrown exception set
 * (*pmsg MSG_THROW). */
static PyObject *
yield_value(GenObject *gen, PyObject *value, ResumeMsg *pmsg)
{
    gen->transfer = value;
    gen->out = OUT_YIELD;
    switch_to_resumer(gen);
    *pmsg = gen->msg;
    if (gen->msg == MSG_THROW) {
        return NULL;
    }
    PyObject *sent = gen->transfer;
    gen->transfer = NULL;
    return sent;
}

PyObject *
gen_yield(Frame *f, PyObject *value)
{
    GenObject *gen = f->gen;
    if (gen == NULL || gen->state != GEN_RUNNING || gen->stack == NULL) {
        Py_DECREF(value);
        PyErr_SetString(PyExc_SystemError,
                        "yield outside a running generator");
        return NULL;
    }
    ResumeMsg msg;
    if (Py_TYPE(gen) == gen->st->AsyncGenType) {
        /* an async generator's value, not one an `await` passes through
           to the loop (CPython wraps it: _PyAsyncGenWrappedValue) */
        gen->ag_flags |= AG_YIELDED;
    }
    PyObject *sent = yield_value(gen, value, &msg);
    if (sent == NULL) {
        return NULL;
    }
    if (msg != MSG_SEND) {
        Py_DECREF(sent);
        PyErr_SetString(PyExc_SystemError,
                        "generator resumed out of yield from");
        return NULL;
    }
    /* a value sent by host code enters interpreted code here */
    if (gate_value(f->in, sent) < 0) {
        Py_DECREF(sent);
        return NULL;
    }
    return sent;
}

/* Look up method `name` of `obj` for the delegation machinery.  Returns a
 * new reference, or NULL: *missing = 1 with no exception when there is no
 * such attribute, *missing = 0 with an exception on error. */
static PyObject *
lookup_method(Interp *in, PyObject *obj, PyObject *name, int *missing)
{
    *missing = 0;
    PyObject *meth = PyObject_GetAttr(obj, name);
    if (meth == NULL) {
        if (PyErr_ExceptionMatches(PyExc_AttributeError)) {
            PyErr_Clear();
            *missing = 1;
        }
        return NULL;
    }
    if (policy_check_call(in, meth) < 0) {
        Py_DECREF(meth);
        return NULL;
    }
    return meth;
}

/* One step of `yield from`: send `v` (borrowed) to the subiterator, as
 * 3.11's SEND does (PyIter_Send, with the policy's call gate on a `send`
 * method).  Results as gen_send_ex2. */
static PySendResult
subiter_send(GenObject *gen, PyObject *iter, PyObject *v, PyObject **presult)
{
    *presult = NULL;
    if (Py_TYPE(iter) == Py_TYPE(gen)) {
        return gen_send_ex2((GenObject *)iter, v, MSG_SEND, presult);
    }
    if (v == Py_None && PyIter_Check(iter)) {
        *presult = Py_TYPE(iter)->tp_iternext(iter);
    }
    else {
        int missing;
        PyObject *meth =
            lookup_method(gen->frame.in, iter, gen->st->str_send, &missing);
        if (meth == NULL) {
            if (missing) {
                /* what PyObject_CallMethodOneArg reports */
                PyErr_Format(PyExc_AttributeError,
                             "'%.100s' object has no attribute 'send'",
                             Py_TYPE(iter)->tp_name);
            }
            return PYGEN_ERROR;
        }
        /* security (hostcall.c): the one host-call entry point */
        *presult = hostcall_callv(gen->frame.in, meth, &v, 1);
        Py_DECREF(meth);
    }
    if (*presult != NULL) {
        return PYGEN_NEXT;
    }
    if (fetch_stop_iteration_value(presult) == 0) {
        return PYGEN_RETURN;
    }
    return PYGEN_ERROR;
}

static PyObject *gen_delegate(Frame *f, GenObject *gen, PyObject *iter);

PyObject *
gen_yield_from(Frame *f, PyObject *iterable)
{
    GenObject *gen = f->gen;
    PyObject *iter = NULL, *result = NULL;
    if (gen == NULL || gen->state != GEN_RUNNING || gen->stack == NULL) {
        PyErr_SetString(PyExc_SystemError,
                        "yield from outside a running generator");
        return NULL;
    }
    if (PyCoro_CheckExact(iterable) ||
        Py_TYPE(iterable) == gen->st->CoroutineType) {
        PyErr_SetString(PyExc_TypeError,
                        "cannot 'yield from' a coroutine object in a "
                        "non-coroutine generator");
        return NULL;
    }
    iter = PyObject_GetIter(iterable);
    if (iter == NULL) {
        return NULL;
    }
    result = gen_delegate(f, gen, iter);
    Py_DECREF(iter);
    return result;
}

/* `await x` in a coroutine (CPython's GET_AWAITABLE, then SEND): one of
 * ours is delegated to as a subgenerator; anything else gives its
 * iterator by __await__ (the type's am_await slot), which must not be a
 * coroutine. */
PyObject *
gen_await(Frame *f, PyObject *awaitable)
{
    GenObject *gen = f->gen;
    if (gen == NULL || gen->state != GEN_RUNNING || gen->stack == NULL ||
        (Py_TYPE(gen) != gen->st->CoroutineType &&
         Py_TYPE(gen) != gen->st->AsyncGenType)) {
        PyErr_SetString(PyExc_SystemError, "await outside a running coroutine");
        return NULL;
    }
    PyObject *iter;
    if (Py_TYPE(awaitable) == gen->st->CoroutineType) {
        GenObject *sub = (GenObject *)awaitable;
        if (sub->state == GEN_RUNNING || sub->yieldfrom != NULL) {
            PyErr_SetString(PyExc_RuntimeError,
                            "coroutine is being awaited already");
            return NULL;
        }
        iter = Py_NewRef(awaitable);
    }
    else {
        PyAsyncMethods *am = Py_TYPE(awaitable)->tp_as_async;
        if (am == NULL || am->am_await == NULL) {
            PyErr_Format(PyExc_TypeError, COMPAT_MSG_NOT_AWAITABLE,
                         Py_TYPE(awaitable)->tp_name);
            return NULL;
        }
        /* security: __await__ of the object's type, as CPython's
           GET_AWAITABLE calls it (a code class's is interpreted; a host
           awaitable gives its iterator, which the loop below drives as
           `yield from` drives a host iterator) */
        iter = am->am_await(awaitable);
        if (iter == NULL) {
            return NULL;
        }
        if (PyCoro_CheckExact(iter) ||
            Py_TYPE(iter) == gen->st->CoroutineType) {
            Py_DECREF(iter);
            PyErr_SetString(PyExc_TypeError,
                            "__await__() returned a coroutine");
            return NULL;
        }
        if (!PyIter_Check(iter)) {
            PyErr_Format(PyExc_TypeError,
                         "__await__() returned non-iterator of type '%.100s'",
                         Py_TYPE(iter)->tp_name);
            Py_DECREF(iter);
            return NULL;
        }
    }
    PyObject *result = gen_delegate(f, gen, iter);
    Py_DECREF(iter);
    return result;
}

/* The loop of `yield from` / `await`: send to `iter` until it returns,
 * yielding what it yields; its return value (new ref) or NULL. */
static PyObject *
gen_delegate(Frame *f, GenObject *gen, PyObject *iter)
{
    PyObject *sent = NULL, *result = NULL;
    sent = Py_None;
    Py_INCREF(sent);
    for (;;) {
        PyObject *item = NULL;
        if (charge(f->in) < 0) {
            break;
        }
        PySendResult r = subiter_send(gen, iter, sent, &item);
        Py_CLEAR(sent);
        if (r == PYGEN_RETURN) {
            result = item;
            break;
        }
        if (r == PYGEN_ERROR) {
            break;
        }
        /* while suspended here, throw() and close() go to `iter` first */
        Py_INCREF(iter);
        Py_XSETREF(gen->yieldfrom, iter);
        ResumeMsg msg;
        sent = yield_value(gen, item, &msg); /* steals `item` */
        Py_CLEAR(gen->yieldfrom);
        if (sent == NULL) {
            /* thrown in: already offered to the subiterator, or not
               forwardable; it is raised here */
            break;
        }
        if (msg == MSG_SUBDONE) {
            /* a forwarded throw() made the subiterator return */
            result = sent;
            sent = NULL;
            break;
        }
    }
    Py_XDECREF(sent);
    /* the subiterator's return value enters interpreted code */
    if (result != NULL && gate_value(f->in, result) < 0) {
        Py_CLEAR(result);
    }
    return result;
}

/* ----------------------------------------------------- throw and close */

/* Close the subiterator of a `yield from` (CPython's gen_close_iter).
 * 0 / -1. */
static int
close_subiterator(GenObject *gen, PyObject *yf)
{
    PyObject *ret = NULL;
    if (Py_TYPE(yf) == Py_TYPE(gen)) {
        ret = gen_close_impl((GenObject *)yf);
        if (ret == NULL) {
            return -1;
        }
    }
    else {
        int missing;
        PyObject *meth =
            lookup_method(gen->frame.in, yf, gen->st->str_close, &missing);
        if (meth == NULL && !missing) {
            if (in_budget(gen->frame.in)->abort != ABORT_NONE) {
                return -1;
            }
            PyErr_WriteUnraisable(yf);
        }
        if (meth != NULL) {
            ret = PyObject_CallNoArgs(meth);
            Py_DECREF(meth);
            if (ret == NULL) {
                return -1;
            }
        }
    }
    Py_XDECREF(ret);
    return 0;
}

/* Returns a new reference (the next value yielded) or NULL
 * (CPython's gen_close). */
static PyObject *
gen_close_impl(GenObject *gen)
{
    int err = 0;
    if (gen->state == GEN_FINISHED) {
        Py_RETURN_NONE; /* as CPython's gen_close: nothing to close */
    }
    if (gen->state == GEN_SUSPENDED && gen->yieldfrom != NULL) {
        PyObject *yf = gen->yieldfrom;
        Py_INCREF(yf);
        gen->state = GEN_RUNNING;
        err = close_subiterator(gen, yf);
        gen->state = GEN_SUSPENDED;
        Py_DECREF(yf);
    }
    if (err == 0) {
        PyErr_SetNone(PyExc_GeneratorExit);
    }
    PyObject *ret = gen_send_ex(gen, Py_None, MSG_THROW);
    if (ret != NULL) {
        Py_DECREF(ret);
        PyErr_SetString(PyExc_RuntimeError,
                        Py_TYPE(gen) == gen->st->CoroutineType
                            ? "coroutine ignored GeneratorExit"
                        : Py_TYPE(gen) == gen->st->AsyncGenType
                            ? "async generator ignored GeneratorExit"
                            : "generator ignored GeneratorExit");
        return NULL;
    }
#if PY_VERSION_HEX >= 0x030D0000
    /* 3.13+: close() returns the value the body returned while closing */
    if (PyErr_ExceptionMatches(PyExc_StopIteration)) {
        PyObject *t, *v, *tb;
        PyErr_Fetch(&t, &v, &tb);
        PyErr_NormalizeException(&t, &v, &tb);
        PyObject *value = v != NULL ? PyObject_GetAttrString(v, "value")
                                    : Py_NewRef(Py_None);
        Py_XDECREF(t);
        Py_XDECREF(v);
        Py_XDECREF(tb);
        return value;
    }
#endif
    if (PyErr_ExceptionMatches(PyExc_StopIteration) ||
        PyErr_ExceptionMatches(PyExc_GeneratorExit)) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    return NULL;
}

/* An exception thrown into a body suspended inside an exception handler
 * has that handled exception as its __context__, as CPython chains it
 * (_PyErr_ChainStackItem: the generator's exception state is the top of
 * the stack when the throw resumes it); a cycle through `v` is cut as
 * _PyErr_SetObject cuts it. */
static void
chain_handled(GenObject *gen, PyObject *v)
{
    PyObject *h = gen->exc_state;
    if (h == NULL || h == Py_None || v == NULL || h == v ||
        !PyExceptionInstance_Check(h) || !PyExceptionInstance_Check(v)) {
        return;
    }
    PyObject *o = h, *slow = h;
    int slow_step = 0;
    for (;;) {
        PyObject *ctx = PyException_GetContext(o); /* new reference */
        if (ctx == NULL) {
            break;
        }
        Py_DECREF(ctx); /* o's chain holds it */
        if (ctx == v) {
            PyException_SetContext(o, NULL);
            break;
        }
        o = ctx;
        if (o == slow) {
            break; /* a cycle already: leave it */
        }
        if (slow_step) {
            PyObject *s = PyException_GetContext(slow);
            Py_XDECREF(s);
            slow = s;
        }
        slow_step = !slow_step;
    }
    PyException_SetContext(v, Py_NewRef(h));
}

/* throw(typ[, val[, tb]]) (CPython's _gen_throw).  Arguments borrowed; `val`
 * and `tb` may be NULL.  A traceback is checked as CPython does but never
 * attached: interpreted code must not see traceback objects.  Returns a new
 * reference (the next value yielded) or NULL. */
static PyObject *
gen_throw_impl(GenObject *gen, PyObject *typ, PyObject *val, PyObject *tb)
{
    if (gen->state == GEN_SUSPENDED && gen->yieldfrom != NULL) {
        PyObject *yf = gen->yieldfrom;
        PyObject *ret = NULL;
        Py_INCREF(yf);
        if (PyErr_GivenExceptionMatches(typ, PyExc_GeneratorExit)) {
            gen->state = GEN_RUNNING;
            int err = close_subiterator(gen, yf);
            gen->state = GEN_SUSPENDED;
            Py_DECREF(yf);
            if (err < 0) {
                /* raise the close() error at the `yield from` */
                return gen_send_ex(gen, Py_None, MSG_THROW);
            }
            goto throw_here;
        }
        if (Py_TYPE(yf) == Py_TYPE(gen)) {
            gen->state = GEN_RUNNING;
            ret = gen_throw_impl((GenObject *)yf, typ, val, tb);
            gen->state = GEN_SUSPENDED;
        }
        else {
            int missing;
            PyObject *meth =
                lookup_method(gen->frame.in, yf, gen->st->str_throw, &missing);
            if (meth == NULL) {
                Py_DECREF(yf);
                if (missing) {
                    goto throw_here;
                }
                return NULL;
            }
            gen->state = GEN_RUNNING;
            /* same arity as given; a traceback is replaced by None */
            ret = PyObject_CallFunctionObjArgs(
                meth, typ, val, tb != NULL ? Py_None : NULL, NULL);
            gen->state = GEN_SUSPENDED;
            Py_DECREF(meth);
        }
        Py_DECREF(yf);
        if (ret == NULL) {
            PyObject *v;
            if (fetch_stop_iteration_value(&v) == 0) {
                /* the subiterator returned: that is the value of the
                   `yield from` expression */
                ret = gen_send_ex(gen, v, MSG_SUBDONE);
                Py_DECREF(v);
            }
            else {
                ret = gen_send_ex(gen, Py_None, MSG_THROW);
            }
        }
        return ret;
    }

throw_here:
    if (tb == Py_None) {
        tb = NULL;
    }
    else if (tb != NULL && !PyTraceBack_Check(tb)) {
        PyErr_SetString(PyExc_TypeError,
                        "throw() third argument must be a traceback object");
        return NULL;
    }
    PyObject *t = NULL, *v = NULL, *no_tb = NULL;
    if (PyExceptionClass_Check(typ)) {
        t = typ;
        Py_INCREF(t);
        v = val;
        Py_XINCREF(v);
        PyErr_NormalizeException(&t, &v, &no_tb);
    }
    else if (PyExceptionInstance_Check(typ)) {
        if (val != NULL && val != Py_None) {
            PyErr_SetString(
                PyExc_TypeError,
                "instance exception may not have a separate value");
            return NULL;
        }
        v = typ;
        Py_INCREF(v);
        t = (PyObject *)Py_TYPE(typ);
        Py_INCREF(t);
    }
    else {
        PyErr_Format(PyExc_TypeError,
                     "exceptions must be classes or instances deriving from "
                     "BaseException, not %s",
                     Py_TYPE(typ)->tp_name);
        return NULL;
    }
    Py_CLEAR(no_tb);
    chain_handled(gen, v);
    PyErr_Restore(t, v, NULL);
    return gen_send_ex(gen, Py_None, MSG_THROW);
}

/* ---------------------------------------------------------------- type */

PyObject *
generator_new(FunctionObject *fn, Frame *fr)
{
    Interp *in = interp_of(fn->interp);
    ModState *st = in_st(in);
    GenObject *gen = PyObject_GC_New(
        GenObject, fn->scope->is_async_gen   ? st->AsyncGenType
                   : fn->scope->is_coroutine ? st->CoroutineType
                                             : st->GeneratorType);
    if (gen == NULL) {
        return NULL;
    }
    memset((char *)gen + sizeof(PyObject), 0,
           sizeof(GenObject) - sizeof(PyObject));
    gen->func = fn;
    Py_INCREF(fn);
    gen->st = st;
    gen->name = fn->name;
    Py_INCREF(gen->name);
    gen->qualname = fn->qualname;
    Py_INCREF(gen->qualname);
    gen->frame = *fr; /* takes the slot array */
    gen->frame.in = in;
    gen->frame.gen = gen;
    gen->frame.back = NULL;
    gen->state = GEN_CREATED;
    /* an asynchronous generator expression runs as a body, on a stack of
       its own (generator_run_body) */
    gen->is_genexp =
        fn->def->kind == K_GeneratorExp && !fn->scope->is_async_gen;
    gen->gx_iters = gen->gx_small;
    gen->is_flat = !gen->is_genexp && fn->scope->flat_levels > 0;
    gen->flat = gen->flat_small;
    PyObject_GC_Track(gen);
    return (PyObject *)gen;
}

static int
gen_traverse(GenObject *gen, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(gen));
    Py_VISIT(gen->func);
    Py_VISIT(gen->name);
    Py_VISIT(gen->qualname);
    Py_VISIT(gen->transfer);
    Py_VISIT(gen->yieldfrom);
    Py_VISIT(gen->exc_state);
    for (int i = 0; i < gen->gx_depth; i++) {
        Py_VISIT(gen->gx_iters[i]);
    }
    for (int i = 0; i < gen->flat_top; i++) {
        Py_VISIT(gen->flat[i].src.it);
    }
    Scope *s = gen->frame.scope;
    if (gen->frame.fast != NULL && s != NULL) {
        for (int i = 0; i < s->nlocals; i++) {
            Py_VISIT(gen->frame.fast[i]);
        }
        for (int i = 0; i < s->ncells + s->nfree; i++) {
            Py_VISIT(gen->frame.cells[i]);
        }
    }
    Py_VISIT(gen->frame.retval);
    Py_VISIT(gen->frame.last_value);
    Py_VISIT(gen->ag_finalizer);
    return 0;
}

/* Break cycles.  Called by the GC after tp_finalize had its chance to close
 * a suspended body; one still suspended refused to close and is abandoned. */
static int
gen_clear(GenObject *gen)
{
    if (gen->state == GEN_RUNNING) {
        return 0; /* impossible for garbage: its resumer holds it */
    }
    gen_finish_keep_error(gen);
    Py_CLEAR(gen->transfer);
    Py_CLEAR(gen->func);
    Py_CLEAR(gen->ag_finalizer);
    return 0;
}

/* Close a suspended generator that is going away, like CPython's
 * _PyGen_Finalize, so that its finally blocks run and its C stack unwinds. */
static void
gen_finalize(PyObject *self)
{
    GenObject *gen = (GenObject *)self;
    if (gen->state != GEN_SUSPENDED) {
        return;
    }
    PyObject *t, *v, *tb;
    PyErr_Fetch(&t, &v, &tb);
    gen_finalizing++;
    PyObject *res = gen_close_impl(gen);
    gen_finalizing--;
    if (res != NULL) {
        Py_DECREF(res);
    }
    else if (PyErr_Occurred()) {
        if (gen->func != NULL && in_budget(gen->frame.in)->abort != ABORT_NONE) {
            /* the step is already failing on a limit: stay quiet */
            PyErr_Clear();
        }
        else {
            PyErr_WriteUnraisable(self);
        }
    }
    PyErr_Restore(t, v, tb);
}

static void
gen_dealloc(GenObject *gen)
{
    PyTypeObject *tp = Py_TYPE(gen);
    PyObject_GC_UnTrack(gen);
    if (gen->weakreflist != NULL) {
        PyObject_ClearWeakRefs((PyObject *)gen);
    }
    PyObject_GC_Track(gen);
    if (PyObject_CallFinalizerFromDealloc((PyObject *)gen) < 0) {
        return; /* resurrected */
    }
    PyObject_GC_UnTrack(gen);
    if (gen->state == GEN_RUNNING) {
        Py_FatalError("generator: deallocating a running generator");
    }
    gen_finish_keep_error(gen);
    Py_CLEAR(gen->transfer);
    Py_CLEAR(gen->func);
    Py_CLEAR(gen->name);
    Py_CLEAR(gen->qualname);
    Py_CLEAR(gen->ag_finalizer);
    tp->tp_free((PyObject *)gen);
    Py_DECREF(tp);
}

static PyObject *
gen_iternext(GenObject *gen)
{
    if (gen_lean_next_applies(gen)) {
        return gen_lean_next(gen);
    }
    PyObject *res;
    if (gen_send_ex2(gen, NULL, MSG_SEND, &res) == PYGEN_RETURN) {
        if (res != Py_None) {
            set_stop_iteration_value(res);
        }
        Py_CLEAR(res);
    }
    return res;
}

static PySendResult
gen_am_send(PyObject *self, PyObject *arg, PyObject **presult)
{
    return gen_send_ex2((GenObject *)self, arg, MSG_SEND, presult);
}

static PyObject *
gen_send_meth(GenObject *gen, PyObject *arg)
{
    return gen_send_ex(gen, arg, MSG_SEND);
}

static PyObject *
gen_throw_meth(GenObject *gen, PyObject *args)
{
    PyObject *typ, *val = NULL, *tb = NULL;
    if (!PyArg_UnpackTuple(args, "throw", 1, 3, &typ, &val, &tb)) {
        return NULL;
    }
    return gen_throw_impl(gen, typ, val, tb);
}

static PyObject *
gen_close_meth(GenObject *gen, PyObject *unused)
{
    return gen_close_impl(gen);
}

static PyObject *
gen_repr(GenObject *gen)
{
    return PyUnicode_FromFormat("<generator object %S at %p>", gen->qualname,
                                gen);
}

static PyObject *
gen_get_name(GenObject *gen, void *c)
{
    Py_INCREF(gen->name);
    return gen->name;
}

static int
gen_set_name(GenObject *gen, PyObject *v, void *c)
{
    if (v == NULL || !PyUnicode_Check(v)) {
        PyErr_SetString(PyExc_TypeError,
                        "__name__ must be set to a string object");
        return -1;
    }
    Py_INCREF(v);
    Py_SETREF(gen->name, v);
    return 0;
}

static PyObject *
gen_get_qualname(GenObject *gen, void *c)
{
    Py_INCREF(gen->qualname);
    return gen->qualname;
}

static int
gen_set_qualname(GenObject *gen, PyObject *v, void *c)
{
    if (v == NULL || !PyUnicode_Check(v)) {
        PyErr_SetString(PyExc_TypeError,
                        "__qualname__ must be set to a string object");
        return -1;
    }
    Py_INCREF(v);
    Py_SETREF(gen->qualname, v);
    return 0;
}

static PyMethodDef gen_methods[] = {
    {"send", (PyCFunction)gen_send_meth, METH_O,
     "send(arg) -> send 'arg' into generator,\n"
     "return next yielded value or raise StopIteration."},
    {"throw", (PyCFunction)gen_throw_meth, METH_VARARGS,
     "throw(value)\nthrow(type[,value[,tb]])\n\n"
     "Raise exception in generator, return next yielded value or raise\n"
     "StopIteration."},
    {"close", (PyCFunction)gen_close_meth, METH_NOARGS,
     "close() -> raise GeneratorExit inside generator."},
    {NULL, NULL},
};

/* gi_running, gi_suspended (3.11+) and gi_yieldfrom as CPython's (the code
 * reads the two booleans; gi_yieldfrom is for host code: policy.c's
 * internal names); no gi_frame (interpreted code has no frame). */
static PyObject *
gen_get_running(GenObject *gen, void *c)
{
    return PyBool_FromLong(gen->state == GEN_RUNNING);
}

#if PY_VERSION_HEX >= 0x030B0000
static PyObject *
gen_get_suspended(GenObject *gen, void *c)
{
    return PyBool_FromLong(gen->state == GEN_SUSPENDED);
}
#endif

#if PY_VERSION_HEX >= 0x030F0000
/* 3.15's gi_state / cr_state: the state's name, with `prefix` */
static PyObject *
gen_state_name(GenObject *gen, const char *prefix)
{
    static const char *const names[] = {"CREATED", "SUSPENDED", "RUNNING",
                                        "CLOSED"};
    return PyUnicode_FromFormat("%s_%s", prefix, names[gen->state]);
}

static PyObject *
gen_get_state(GenObject *gen, void *c)
{
    return gen_state_name(gen, "GEN");
}

static PyObject *
coro_get_state(GenObject *gen, void *c)
{
    return gen_state_name(gen, "CORO");
}
#endif

static PyObject *
gen_get_yieldfrom(GenObject *gen, void *c)
{
    /* the iterator it delegates to: what the code passed to `yield from` */
    if (gen->state != GEN_SUSPENDED || gen->yieldfrom == NULL) {
        Py_RETURN_NONE;
    }
    return Py_NewRef(gen->yieldfrom);
}

/* __class__: CPython's own type (types.GeneratorType, CoroutineType,
 * AsyncGeneratorType: the closure), so that isinstance() (which falls
 * back on __class__ when the type differs), inspect.isgenerator,
 * asyncio.iscoroutine, functools.singledispatch and `x.__class__ in
 * {...}` see what CPython's would; type(x) stays the core's type, named
 * as CPython's. */
static PyObject *
gen_get_class(PyObject *self, void *cpython_type)
{
    return Py_NewRef((PyObject *)cpython_type);
}

/* gi_code / cr_code / ag_code, for host code only (policy.c's internal
 * names; the value gate keeps code objects out of the code's values): the
 * body has no code object, so one made once per kind, whose co_flags say
 * what CPython's would (CO_GENERATOR, CO_COROUTINE, CO_ASYNC_GENERATOR; not
 * CO_ITERABLE_COROUTINE): types.coroutine reads `gi_code.co_flags` of a
 * generator whose __class__ is GeneratorType.  Its name and file say it is
 * none of the code's (`<smolagents_native generator>`). */
int
generator_init_state(ModState *st)
{
    static const char src[] = "def generator():\n    yield\n"
                              "async def coroutine():\n    pass\n"
                              "async def async_generator():\n    yield\n";
    static const char *const names[3] = {"generator", "coroutine",
                                         "async_generator"};
    PyObject *code = Py_CompileString(src, "<smolagents_native generator>",
                                      Py_file_input);
    if (code == NULL) {
        return -1;
    }
    int rc = -1;
    PyObject *consts = PyObject_GetAttrString(code, "co_consts");
    if (consts != NULL && PyTuple_Check(consts)) {
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(consts); i++) {
            PyObject *c = PyTuple_GET_ITEM(consts, i);
            if (!PyCode_Check(c)) {
                continue;
            }
            for (int k = 0; k < 3; k++) {
                if (PyUnicode_CompareWithASCIIString(
                        ((PyCodeObject *)c)->co_name, names[k]) == 0) {
                    Py_XSETREF(st->gen_code[k], Py_NewRef(c));
                }
            }
        }
        rc = st->gen_code[0] && st->gen_code[1] && st->gen_code[2] ? 0 : -1;
        if (rc < 0) {
            PyErr_SetString(PyExc_SystemError, "generator: no code templates");
        }
    }
    Py_XDECREF(consts);
    Py_DECREF(code);
    return rc;
}

static PyObject *
gen_get_code(GenObject *gen, void *kind)
{
    PyObject *c = gen->st->gen_code[(int)(intptr_t)kind];
    if (c == NULL) {
        PyErr_SetString(PyExc_AttributeError, "no code object");
        return NULL;
    }
    return Py_NewRef(c);
}

static PyGetSetDef gen_getset[] = {
    {"gi_code", (getter)gen_get_code, NULL, NULL, (void *)0},
    {"__class__", gen_get_class, NULL, NULL, (void *)&PyGen_Type},
    {"gi_running", (getter)gen_get_running, NULL, NULL, NULL},
#if PY_VERSION_HEX >= 0x030B0000
    {"gi_suspended", (getter)gen_get_suspended, NULL, NULL, NULL},
#endif
    {"gi_yieldfrom", (getter)gen_get_yieldfrom, NULL,
     "object being iterated by yield from, or None", NULL},
#if PY_VERSION_HEX >= 0x030F0000
    {"gi_state", (getter)gen_get_state, NULL, NULL, NULL},
#endif
    {"__name__", (getter)gen_get_name, (setter)gen_set_name,
     "name of the generator", NULL},
    {"__qualname__", (getter)gen_get_qualname, (setter)gen_set_qualname,
     "qualified name of the generator", NULL},
    {NULL},
};

static PyMemberDef gen_members[] = {
    {"__weaklistoffset__", T_PYSSIZET, offsetof(GenObject, weakreflist),
     READONLY},
    {NULL},
};

static PyType_Slot generator_slots[] = {
    {Py_tp_dealloc, gen_dealloc},   {Py_tp_traverse, gen_traverse},
    {Py_tp_clear, gen_clear},       {Py_tp_finalize, gen_finalize},
    {Py_tp_repr, gen_repr},         {Py_tp_iter, PyObject_SelfIter},
    {Py_tp_iternext, gen_iternext}, {Py_am_send, gen_am_send},
    {Py_tp_methods, gen_methods},   {Py_tp_getset, gen_getset},
    {Py_tp_members, gen_members},   {0, NULL},
};

PyType_Spec Generator_spec = {
    .name = "builtins.generator", /* named as CPython's (module.c) */
    .basicsize = sizeof(GenObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC |
             Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = generator_slots,
};

/* ------------------------------------------------------------ coroutines */

/* An `async def` called: the same object as a generator (the body runs as
 * a generator's, `await` delegating as `yield from`), of another type, as
 * CPython's: not iterable; send(), throw(), close() and __await__ (a
 * coroutine_wrapper iterator, for host code that awaits it), so that
 * collections.abc.Coroutine, asyncio.iscoroutine and any event loop take
 * it.  Never awaited and dropped: CPython's RuntimeWarning. */

static void
coro_finalize(PyObject *self)
{
    GenObject *gen = (GenObject *)self;
    if (gen->state == GEN_CREATED) {
        PyObject *t, *v, *tb;
        PyErr_Fetch(&t, &v, &tb);
        if (PyErr_WarnFormat(PyExc_RuntimeWarning, 1,
                             "coroutine '%S' was never awaited",
                             gen->qualname) < 0) {
            PyErr_WriteUnraisable(self);
        }
        PyErr_Restore(t, v, tb);
        return;
    }
    gen_finalize(self);
}

static PyObject *
coro_repr(GenObject *gen)
{
    return PyUnicode_FromFormat("<coroutine object %S at %p>", gen->qualname,
                                gen);
}

typedef struct {
    PyObject_HEAD GenObject *coro;
} CoroWrapperObject;

static PyObject *
coro_await(PyObject *self)
{
    GenObject *gen = (GenObject *)self;
    CoroWrapperObject *w =
        PyObject_GC_New(CoroWrapperObject, gen->st->CoroWrapperType);
    if (w == NULL) {
        return NULL;
    }
    w->coro = (GenObject *)Py_NewRef(self);
    PyObject_GC_Track(w);
    return (PyObject *)w;
}

static PyObject *
coro_await_meth(PyObject *self, PyObject *unused)
{
    return coro_await(self);
}

static PyMethodDef coro_methods[] = {
    {"send", (PyCFunction)gen_send_meth, METH_O,
     "send(arg) -> send 'arg' into coroutine,\n"
     "return next iterated value or raise StopIteration."},
    {"throw", (PyCFunction)gen_throw_meth, METH_VARARGS,
     "throw(value)\nthrow(type[,value[,traceback]])\n\n"
     "Raise exception in coroutine, return next iterated value or raise\n"
     "StopIteration."},
    {"close", (PyCFunction)gen_close_meth, METH_NOARGS,
     "close() -> raise GeneratorExit inside coroutine."},
    {"__await__", coro_await_meth, METH_NOARGS,
     "Return an iterator to be used in await expression."},
    {NULL, NULL},
};

static PyGetSetDef coro_getset[] = {
    {"cr_code", (getter)gen_get_code, NULL, NULL, (void *)1},
    {"__class__", gen_get_class, NULL, NULL, (void *)&PyCoro_Type},
    {"cr_running", (getter)gen_get_running, NULL, NULL, NULL},
#if PY_VERSION_HEX >= 0x030B0000
    {"cr_suspended", (getter)gen_get_suspended, NULL, NULL, NULL},
#endif
    {"cr_await", (getter)gen_get_yieldfrom, NULL,
     "object being awaited on, or None", NULL},
#if PY_VERSION_HEX >= 0x030F0000
    {"cr_state", (getter)coro_get_state, NULL, NULL, NULL},
#endif
    {"__name__", (getter)gen_get_name, (setter)gen_set_name,
     "name of the coroutine", NULL},
    {"__qualname__", (getter)gen_get_qualname, (setter)gen_set_qualname,
     "qualified name of the coroutine", NULL},
    {NULL},
};

static PyType_Slot coroutine_slots[] = {
    {Py_tp_dealloc, gen_dealloc},   {Py_tp_traverse, gen_traverse},
    {Py_tp_clear, gen_clear},       {Py_tp_finalize, coro_finalize},
    {Py_tp_repr, coro_repr},        {Py_am_await, coro_await},
    {Py_am_send, gen_am_send},      {Py_tp_methods, coro_methods},
    {Py_tp_getset, coro_getset},    {Py_tp_members, gen_members},
    {0, NULL},
};

PyType_Spec Coroutine_spec = {
    .name = "builtins.coroutine", /* named as CPython's (module.c) */
    .basicsize = sizeof(GenObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC |
             Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = coroutine_slots,
};

/* coroutine.__await__(): the iterator host code drives (CPython's
 * coroutine_wrapper). */

static PyObject *
cw_iternext(CoroWrapperObject *w)
{
    return gen_iternext(w->coro);
}

static PySendResult
cw_am_send(PyObject *self, PyObject *arg, PyObject **presult)
{
    return gen_send_ex2(((CoroWrapperObject *)self)->coro, arg, MSG_SEND,
                        presult);
}

static PyObject *
cw_send(CoroWrapperObject *w, PyObject *arg)
{
    return gen_send_ex(w->coro, arg, MSG_SEND);
}

static PyObject *
cw_throw(CoroWrapperObject *w, PyObject *args)
{
    return gen_throw_meth(w->coro, args);
}

static PyObject *
cw_close(CoroWrapperObject *w, PyObject *unused)
{
    return gen_close_impl(w->coro);
}

static int
cw_traverse(CoroWrapperObject *w, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(w));
    Py_VISIT(w->coro);
    return 0;
}

static void
cw_dealloc(CoroWrapperObject *w)
{
    PyTypeObject *tp = Py_TYPE(w);
    PyObject_GC_UnTrack(w);
    Py_CLEAR(w->coro);
    PyObject_GC_Del(w);
    Py_DECREF(tp);
}

static PyMethodDef cw_methods[] = {
    {"send", (PyCFunction)cw_send, METH_O, NULL},
    {"throw", (PyCFunction)cw_throw, METH_VARARGS, NULL},
    {"close", (PyCFunction)cw_close, METH_NOARGS, NULL},
    {NULL, NULL},
};

static PyType_Slot coro_wrapper_slots[] = {
    {Py_tp_dealloc, cw_dealloc},     {Py_tp_traverse, cw_traverse},
    {Py_tp_iter, PyObject_SelfIter}, {Py_tp_iternext, cw_iternext},
    {Py_am_send, cw_am_send},        {Py_tp_methods, cw_methods},
    {0, NULL},
};

PyType_Spec CoroWrapper_spec = {
    .name = "builtins.coroutine_wrapper",
    .basicsize = sizeof(CoroWrapperObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC |
             Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = coro_wrapper_slots,
};

/* ------------------------------------------------------ async generators */

/* An `async def` with `yield` called (PEP 525): the body runs as a
 * generator's, `await` delegating as in a coroutine; the body's `yield`
 * marks its suspension (AG_YIELDED) where CPython wraps the value.  Driven
 * only through awaitables, as CPython's: __anext__() / asend(v) give an
 * asend object, athrow() / aclose() an athrow object; awaiting one resumes
 * the body until it yields (the awaitable's StopIteration carries the
 * value), passes an `await`'s value through to the loop, or ends
 * (StopAsyncIteration).  The loop's hooks (sys.set_asyncgen_hooks: asyncio
 * keeps its async generators to close them at shutdown) are called at the
 * first iteration, the finalizer when one is dropped unfinished. */

enum { AW_INIT, AW_ITER, AW_CLOSED };

typedef struct {
    PyObject_HEAD GenObject *gen;
    PyObject *sendval; /* asend: the value to send first */
    PyObject *args;    /* athrow: the throw() arguments; NULL: aclose() */
    int state;         /* AW_* */
    int athrow;        /* an athrow / aclose awaitable, else asend */
} AgAwaitObject;

/* The loop's hooks, once: firstiter(agen) now, the finalizer kept for
 * agen_finalize.  0 / -1. */
static int
agen_init_hooks(GenObject *gen)
{
    if (gen->ag_flags & AG_HOOKS) {
        return 0;
    }
    gen->ag_flags |= AG_HOOKS;
    PyObject *get = PySys_GetObject("get_asyncgen_hooks"); /* borrowed */
    if (get == NULL) {
        return 0;
    }
    PyObject *hooks = PyObject_CallNoArgs(get);
    if (hooks == NULL) {
        return -1;
    }
    PyObject *firstiter = PySequence_GetItem(hooks, 0);
    PyObject *finalizer = firstiter ? PySequence_GetItem(hooks, 1) : NULL;
    Py_DECREF(hooks);
    if (finalizer == NULL) {
        Py_XDECREF(firstiter);
        return -1;
    }
    if (finalizer != Py_None) {
        Py_XSETREF(gen->ag_finalizer, finalizer);
    }
    else {
        Py_DECREF(finalizer);
    }
    int rc = 0;
    if (firstiter != Py_None) {
        PyObject *r = PyObject_CallOneArg(firstiter, (PyObject *)gen);
        rc = r != NULL ? 0 : -1;
        Py_XDECREF(r);
    }
    Py_DECREF(firstiter);
    return rc;
}

static PyObject *
agen_await_new(GenObject *gen, PyObject *sendval, PyObject *args, int athrow)
{
    if (agen_init_hooks(gen) < 0) {
        return NULL;
    }
    AgAwaitObject *o = PyObject_GC_New(
        AgAwaitObject, athrow ? gen->st->AsyncGenAThrowType
                              : gen->st->AsyncGenASendType);
    if (o == NULL) {
        return NULL;
    }
    o->gen = (GenObject *)Py_NewRef(gen);
    o->sendval = Py_XNewRef(sendval);
    o->args = Py_XNewRef(args);
    o->state = AW_INIT;
    o->athrow = athrow;
    PyObject_GC_Track(o);
    return (PyObject *)o;
}

/* CPython's async_gen_unwrap_value: the body's result seen through the
 * awaitable.  `res` (new reference or NULL) comes from resuming the body
 * with gen_send_ex (an end already made StopAsyncIteration). */
static PyObject *
agen_unwrap(GenObject *gen, PyObject *res)
{
    if (res == NULL) {
        if (!PyErr_Occurred()) {
            PyErr_SetNone(PyExc_StopAsyncIteration);
        }
        if (PyErr_ExceptionMatches(PyExc_StopAsyncIteration) ||
            PyErr_ExceptionMatches(PyExc_GeneratorExit)) {
            gen->ag_flags |= AG_CLOSED;
        }
        gen->ag_flags &= ~AG_RUNNING_ASYNC;
        return NULL;
    }
    if (gen->ag_flags & AG_YIELDED) {
        /* the body's `yield`: the awaitable is done, with that value */
        gen->ag_flags &= ~(AG_YIELDED | AG_RUNNING_ASYNC);
        set_stop_iteration_value(res);
        Py_DECREF(res);
        return NULL;
    }
    return res; /* an `await` in the body passes it to the loop */
}

static PyObject *
agen_anext(PyObject *self)
{
    return agen_await_new((GenObject *)self, Py_None, NULL, 0);
}

static PyObject *
agen_asend(PyObject *self, PyObject *arg)
{
    return agen_await_new((GenObject *)self, arg, NULL, 0);
}

static PyObject *
agen_athrow(PyObject *self, PyObject *args)
{
    PyObject *typ, *val = NULL, *tb = NULL;
    if (!PyArg_UnpackTuple(args, "athrow", 1, 3, &typ, &val, &tb)) {
        return NULL;
    }
    return agen_await_new((GenObject *)self, NULL, args, 1);
}

static PyObject *
agen_aclose(PyObject *self, PyObject *unused)
{
    return agen_await_new((GenObject *)self, NULL, NULL, 1);
}

static void
agen_finalize(PyObject *self)
{
    GenObject *gen = (GenObject *)self;
    if (gen->state != GEN_SUSPENDED) {
        return;
    }
    if (gen->ag_finalizer != NULL && !(gen->ag_flags & AG_CLOSED)) {
        /* the loop closes it (asyncio schedules aclose()) */
        PyObject *t, *v, *tb;
        PyErr_Fetch(&t, &v, &tb);
        PyObject *r = PyObject_CallOneArg(gen->ag_finalizer, self);
        if (r == NULL) {
            PyErr_WriteUnraisable(self);
        }
        Py_XDECREF(r);
        PyErr_Restore(t, v, tb);
        return;
    }
    gen_finalize(self);
}

static PyObject *
agen_repr(GenObject *gen)
{
    return PyUnicode_FromFormat("<async_generator object %S at %p>",
                                gen->qualname, gen);
}

static PyObject *
agen_get_running(GenObject *gen, void *c)
{
    return PyBool_FromLong((gen->ag_flags & AG_RUNNING_ASYNC) != 0);
}

static PyMethodDef agen_methods[] = {
    {"asend", (PyCFunction)agen_asend, METH_O,
     "asend(v) -> send 'v' in generator."},
    {"athrow", (PyCFunction)agen_athrow, METH_VARARGS,
     "athrow(value)\nathrow(type[,value[,tb]])\n\n"
     "raise exception in generator."},
    {"aclose", (PyCFunction)agen_aclose, METH_NOARGS,
     "aclose() -> raise GeneratorExit inside generator."},
    {NULL, NULL},
};

static PyGetSetDef agen_getset[] = {
    {"ag_code", (getter)gen_get_code, NULL, NULL, (void *)2},
    {"__class__", gen_get_class, NULL, NULL, (void *)&PyAsyncGen_Type},
    {"ag_running", (getter)agen_get_running, NULL, NULL, NULL},
#if PY_VERSION_HEX >= 0x030C0000
    {"ag_suspended", (getter)gen_get_suspended, NULL, NULL, NULL},
#endif
    {"ag_await", (getter)gen_get_yieldfrom, NULL,
     "object being awaited on, or None", NULL},
    {"__name__", (getter)gen_get_name, (setter)gen_set_name,
     "name of the async generator", NULL},
    {"__qualname__", (getter)gen_get_qualname, (setter)gen_set_qualname,
     "qualified name of the async generator", NULL},
    {NULL},
};

static PyType_Slot async_gen_slots[] = {
    {Py_tp_dealloc, gen_dealloc},
    {Py_tp_traverse, gen_traverse},
    {Py_tp_clear, gen_clear},
    {Py_tp_finalize, agen_finalize},
    {Py_tp_repr, agen_repr},
    {Py_am_aiter, PyObject_SelfIter},
    {Py_am_anext, agen_anext},
    {Py_tp_methods, agen_methods},
    {Py_tp_getset, agen_getset},
    {Py_tp_members, gen_members},
    {0, NULL},
};

PyType_Spec AsyncGen_spec = {
    .name = "builtins.async_generator", /* named as CPython's (module.c) */
    .basicsize = sizeof(GenObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC |
             Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = async_gen_slots,
};

/* asend: CPython's async_gen_asend_send / _throw. */
static PyObject *
asend_send(AgAwaitObject *o, PyObject *arg)
{
    GenObject *gen = o->gen;
    if (o->state == AW_CLOSED) {
        PyErr_SetString(PyExc_RuntimeError,
                        "cannot reuse already awaited __anext__()/asend()");
        return NULL;
    }
    if (o->state == AW_INIT) {
        if (gen->ag_flags & AG_RUNNING_ASYNC) {
            o->state = AW_CLOSED;
            PyErr_SetString(
                PyExc_RuntimeError,
                "anext(): asynchronous generator is already running");
            return NULL;
        }
        if (arg == NULL || arg == Py_None) {
            arg = o->sendval;
        }
        o->state = AW_ITER;
    }
    gen->ag_flags |= AG_RUNNING_ASYNC;
    PyObject *res = agen_unwrap(
        gen, gen_send_ex(gen, arg != NULL ? arg : Py_None, MSG_SEND));
    if (res == NULL) {
        o->state = AW_CLOSED;
    }
    return res;
}

static PyObject *
asend_throw(AgAwaitObject *o, PyObject *args)
{
    if (o->state == AW_CLOSED) {
        PyErr_SetString(PyExc_RuntimeError,
                        "cannot reuse already awaited __anext__()/asend()");
        return NULL;
    }
    o->gen->ag_flags |= AG_RUNNING_ASYNC;
    PyObject *res = agen_unwrap(o->gen, gen_throw_meth(o->gen, args));
    if (res == NULL) {
        o->state = AW_CLOSED;
    }
    return res;
}

static PyObject *
aw_close(AgAwaitObject *o, PyObject *unused)
{
    o->state = AW_CLOSED;
    Py_RETURN_NONE;
}

/* athrow / aclose: CPython's async_gen_athrow_send / _throw. */
static PyObject *
athrow_check_error(AgAwaitObject *o)
{
    o->gen->ag_flags &= ~AG_RUNNING_ASYNC;
    o->state = AW_CLOSED;
    if (o->args == NULL && (PyErr_ExceptionMatches(PyExc_StopAsyncIteration) ||
                            PyErr_ExceptionMatches(PyExc_GeneratorExit))) {
        /* aclose() of a generator that ended: done */
        PyErr_Clear();
        PyErr_SetNone(PyExc_StopIteration);
    }
    return NULL;
}

static PyObject *
athrow_ignored_exit(AgAwaitObject *o)
{
    o->gen->ag_flags &= ~AG_RUNNING_ASYNC;
    o->state = AW_CLOSED;
    PyErr_SetString(PyExc_RuntimeError,
                    "async generator ignored GeneratorExit");
    return NULL;
}

static PyObject *
athrow_send(AgAwaitObject *o, PyObject *arg)
{
    GenObject *gen = o->gen;
    PyObject *res;
    if (o->state == AW_CLOSED) {
        PyErr_SetString(PyExc_RuntimeError,
                        "cannot reuse already awaited aclose()/athrow()");
        return NULL;
    }
    if (gen->state == GEN_FINISHED) {
        o->state = AW_CLOSED;
        PyErr_SetNone(PyExc_StopIteration);
        return NULL;
    }
    if (o->state == AW_INIT) {
        if (gen->ag_flags & AG_RUNNING_ASYNC) {
            o->state = AW_CLOSED;
            PyErr_SetString(
                PyExc_RuntimeError,
                o->args == NULL
                    ? "aclose(): asynchronous generator is already running"
                    : "athrow(): asynchronous generator is already running");
            return NULL;
        }
        if (gen->ag_flags & AG_CLOSED) {
            o->state = AW_CLOSED;
            PyErr_SetNone(PyExc_StopAsyncIteration);
            return NULL;
        }
        if (arg != NULL && arg != Py_None) {
            PyErr_SetString(PyExc_RuntimeError,
                            "can't send non-None value to a just-started "
                            "coroutine");
            return NULL;
        }
        o->state = AW_ITER;
        gen->ag_flags |= AG_RUNNING_ASYNC;
        if (o->args == NULL) {
            /* aclose(): GeneratorExit in the body */
            gen->ag_flags |= AG_CLOSED;
            PyErr_SetNone(PyExc_GeneratorExit);
            res = gen_send_ex(gen, Py_None, MSG_THROW);
            if (res != NULL && (gen->ag_flags & AG_YIELDED)) {
                Py_DECREF(res);
                gen->ag_flags &= ~AG_YIELDED;
                return athrow_ignored_exit(o);
            }
        }
        else {
            res = agen_unwrap(gen, gen_throw_meth(gen, o->args));
        }
        return res != NULL ? res : athrow_check_error(o);
    }
    res = gen_send_ex(gen, arg != NULL ? arg : Py_None, MSG_SEND);
    if (o->args != NULL) {
        res = agen_unwrap(gen, res);
        return res != NULL ? res : athrow_check_error(o);
    }
    if (res != NULL) {
        if (gen->ag_flags & AG_YIELDED) {
            Py_DECREF(res);
            gen->ag_flags &= ~AG_YIELDED;
            return athrow_ignored_exit(o);
        }
        return res;
    }
    return athrow_check_error(o);
}

static PyObject *
athrow_throw(AgAwaitObject *o, PyObject *args)
{
    if (o->state == AW_CLOSED) {
        PyErr_SetString(PyExc_RuntimeError,
                        "cannot reuse already awaited aclose()/athrow()");
        return NULL;
    }
    PyObject *res = gen_throw_meth(o->gen, args);
    if (o->args != NULL) {
        res = agen_unwrap(o->gen, res);
        return res != NULL ? res : athrow_check_error(o);
    }
    if (res != NULL && (o->gen->ag_flags & AG_YIELDED)) {
        Py_DECREF(res);
        o->gen->ag_flags &= ~AG_YIELDED;
        return athrow_ignored_exit(o);
    }
    return res != NULL ? res : athrow_check_error(o);
}

/* The two awaitables' one protocol: each kind's send / throw. */
static PyObject *
aw_send(AgAwaitObject *o, PyObject *arg)
{
    return o->athrow ? athrow_send(o, arg) : asend_send(o, arg);
}

static PyObject *
aw_throw(AgAwaitObject *o, PyObject *args)
{
    return o->athrow ? athrow_throw(o, args) : asend_throw(o, args);
}

static PyObject *
aw_iternext(AgAwaitObject *o)
{
    return aw_send(o, NULL);
}

static int
aw_traverse(AgAwaitObject *o, visitproc visit, void *arg)
{
    Py_VISIT(Py_TYPE(o));
    Py_VISIT(o->gen);
    Py_VISIT(o->sendval);
    Py_VISIT(o->args);
    return 0;
}

static void
aw_dealloc(AgAwaitObject *o)
{
    PyTypeObject *tp = Py_TYPE(o);
    PyObject_GC_UnTrack(o);
    Py_CLEAR(o->gen);
    Py_CLEAR(o->sendval);
    Py_CLEAR(o->args);
    tp->tp_free((PyObject *)o);
    Py_DECREF(tp);
}

static PyMethodDef aw_methods[] = {
    {"send", (PyCFunction)aw_send, METH_O,
     "send(arg) -> send 'arg' into generator,\n"
     "return next yielded value or raise StopIteration."},
    {"throw", (PyCFunction)aw_throw, METH_VARARGS,
     "throw(value)\nthrow(type[,value[,traceback]])\n\n"
     "Raise exception in generator, return next yielded value or raise\n"
     "StopIteration."},
    {"close", (PyCFunction)aw_close, METH_NOARGS,
     "close() -> raise GeneratorExit inside generator."},
    {NULL, NULL},
};

/* two types, named as CPython's, of one layout and protocol */
static PyType_Slot aw_slots[] = {
    {Py_tp_dealloc, aw_dealloc},    {Py_tp_traverse, aw_traverse},
    {Py_am_await, PyObject_SelfIter}, {Py_tp_iter, PyObject_SelfIter},
    {Py_tp_iternext, aw_iternext},  {Py_tp_methods, aw_methods},
    {0, NULL},
};

PyType_Spec AsyncGenASend_spec = {
    .name = "builtins.async_generator_asend",
    .basicsize = sizeof(AgAwaitObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC |
             Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = aw_slots,
};

PyType_Spec AsyncGenAThrow_spec = {
    .name = "builtins.async_generator_athrow",
    .basicsize = sizeof(AgAwaitObject),
    .flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC |
             Py_TPFLAGS_DISALLOW_INSTANTIATION,
    .slots = aw_slots,
};
