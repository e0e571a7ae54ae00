/* memlimit.c: the memory budget (docs/security.md, "Memory budget").
 *
 * CPython's allocators are wrapped once per process (PyMem_SetAllocator,
 * PyObject_SetArenaAllocator), each wrapper chaining to whatever was
 * installed before.  While a step (or a hook of the host's) runs interpreted
 * code on a thread, a thread-local points at its interpreter: every
 * allocation made on that thread adds the size of the block to
 * in->mem_used, every free on that thread subtracts it, and an allocation
 * that would take the net total past budget_max_memory_bytes fails (returns NULL).
 * The C code that asked for it raises MemoryError as it would when the
 * system runs out; the wrapper has already made the step's abort pending
 * (in->abort, limits.c), so the error is uncatchable by interpreted code and
 * becomes the interpreter error naming the budget at the step's end.
 *
 * Sizes at free time: the free hooks get no size, so blocks are measured
 * with malloc_usable_size() both when allocated and when freed, which is
 * only valid for blocks that come straight from the C library's malloc.
 * Which domains are wrapped is decided at install time from what was
 * installed before:
 * - RAW: wrapped when it is the stock system allocator (ctx == NULL).
 * - MEM, OBJ: wrapped when they are the same system allocator as RAW
 *   (PYTHONMALLOC=malloc, the sanitizer run).  Under pymalloc they are not
 *   wrapped at all (no cost on the small-object path): pymalloc takes its
 *   memory from arenas (wrapped: the arena hooks get the size) and hands
 *   blocks over 512 bytes to PyMem_RawMalloc (wrapped), so everything it
 *   holds is counted once, at arena granularity for small objects.
 * - RAW under tracemalloc (started before this module was imported):
 *   tracemalloc adds no header, so RAW is wrapped as above.
 * - If RAW is any other hook (the debug hooks: PYTHONMALLOC=*_debug, -X dev,
 *   a debug build), nothing is wrapped and the budget is not enforced
 *   (memlimit_available() and _core.MEMORY_BUDGET say so; tests skip).
 *
 * What is counted: the net bytes obtained on the step's thread while it
 * runs interpreted code or host code called from it (including the GC's
 * work and finalizers that run there).  A block allocated on the step's
 * thread and freed on another thread is not subtracted (the count errs on
 * the high side); a block allocated before the step and freed during it is
 * subtracted (net: the process really got that memory back).
 *
 * After the budget trips, a small headroom (MEM_SLACK) lets the unwinding
 * (exception objects, tracebacks, the error message) allocate; past it,
 * allocations fail again.  The abort is sticky (limits.c), so nothing of
 * the code runs after the first failure.
 *
 * Cost: every wrapped call loads one thread-local; only while a step runs
 * does it also call malloc_usable_size and add.
 *
 * The saved previous allocators are process-wide C globals (the one
 * exception to DESIGN.md's "no mutable C globals"): the allocator itself is
 * process-wide, and the hooks must be installed once, whatever number of
 * module instances (sub-interpreters) exist.
 */
#include "budget.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MEM_SLACK ((long long)64 * 1024 * 1024)

static PyMemAllocatorEx prev_raw, prev_mem, prev_obj;
static PyObjectArenaAllocator prev_arena;
static int installed;   /* 1: hooks in place */
static int available;   /* 1: the budget is enforced */
static HOT_TLS Interp *mem_active;

/* Record the trip: make the step's abort pending with a message that names
 * the budget.  Runs inside an allocation: no Python API, no PyMem. */
static void
mem_trip(Interp *in, size_t asked)
{
    in_budget(in)->mem_tripped = 1;
    if (in_budget(in)->abort == ABORT_NONE) {
        snprintf(in_budget(in)->abort_msg, sizeof(in_budget(in)->abort_msg),
                 "Memory budget exceeded: this step would hold more than "
                 "%lld bytes (max_memory_bytes); an allocation of %llu "
                 "bytes was refused",
                 budget_max_memory_bytes(in), (unsigned long long)asked);
        in_budget(in)->abort = ABORT_BUDGET;
        limits_force_slow(in); /* the next charge() takes the slow path */
    }
}

/* 1 when an allocation of `n` more bytes must fail. */
static inline int
mem_refuse(Interp *in, size_t n)
{
    long long limit = budget_max_memory_bytes(in);
    if (!budget_limited(limit)) {
        return 0; /* no budget */
    }
    long long cap = limit + (in_budget(in)->mem_tripped ? MEM_SLACK : 0);
    if (n > (size_t)LLONG_MAX / 2 || in_budget(in)->mem_used + (long long)n > cap) {
        mem_trip(in, n);
        return 1;
    }
    return 0;
}

static void *
mem_malloc(void *ctx, size_t n)
{
    PyMemAllocatorEx *prev = (PyMemAllocatorEx *)ctx;
    Interp *in = mem_active;
    if (in == NULL) {
        return prev->malloc(prev->ctx, n);
    }
    if (mem_refuse(in, n)) {
        return NULL;
    }
    void *p = prev->malloc(prev->ctx, n);
    if (p != NULL) {
        in_budget(in)->mem_used += (long long)malloc_usable_size(p);
    }
    return p;
}

static void *
mem_calloc(void *ctx, size_t nelem, size_t elsize)
{
    PyMemAllocatorEx *prev = (PyMemAllocatorEx *)ctx;
    Interp *in = mem_active;
    if (in == NULL) {
        return prev->calloc(prev->ctx, nelem, elsize);
    }
    if (elsize != 0 && nelem > (size_t)LLONG_MAX / 2 / elsize) {
        mem_trip(in, (size_t)LLONG_MAX);
        return NULL;
    }
    if (mem_refuse(in, nelem * elsize)) {
        return NULL;
    }
    void *p = prev->calloc(prev->ctx, nelem, elsize);
    if (p != NULL) {
        in_budget(in)->mem_used += (long long)malloc_usable_size(p);
    }
    return p;
}

static void *
mem_realloc(void *ctx, void *ptr, size_t n)
{
    PyMemAllocatorEx *prev = (PyMemAllocatorEx *)ctx;
    Interp *in = mem_active;
    if (in == NULL) {
        return prev->realloc(prev->ctx, ptr, n);
    }
    size_t old = ptr != NULL ? malloc_usable_size(ptr) : 0;
    if (n > old && mem_refuse(in, n - old)) {
        return NULL;
    }
    void *p = prev->realloc(prev->ctx, ptr, n);
    if (p != NULL) {
        in_budget(in)->mem_used += (long long)malloc_usable_size(p) - (long long)old;
    }
    return p;
}

static void
mem_free(void *ctx, void *ptr)
{
    PyMemAllocatorEx *prev = (PyMemAllocatorEx *)ctx;
    Interp *in = mem_active;
    if (in != NULL && ptr != NULL) {
        in_budget(in)->mem_used -= (long long)malloc_usable_size(ptr);
    }
    prev->free(prev->ctx, ptr);
}

static void *
arena_alloc(void *ctx, size_t n)
{
    Interp *in = mem_active;
    if (in != NULL && mem_refuse(in, n)) {
        return NULL;
    }
    void *p = prev_arena.alloc(prev_arena.ctx, n);
    if (p != NULL && in != NULL) {
        in_budget(in)->mem_used += (long long)n;
    }
    return p;
}

static void
arena_free(void *ctx, void *ptr, size_t n)
{
    Interp *in = mem_active;
    if (in != NULL && ptr != NULL) {
        in_budget(in)->mem_used -= (long long)n;
    }
    prev_arena.free(prev_arena.ctx, ptr, n);
}

static int
same_allocator(const PyMemAllocatorEx *a, const PyMemAllocatorEx *b)
{
    return a->ctx == b->ctx && a->malloc == b->malloc &&
           a->calloc == b->calloc && a->realloc == b->realloc &&
           a->free == b->free;
}

/* 1 when the hook below RAW is tracemalloc's over the system allocator
 * (tracemalloc started before this module was imported, `-X tracemalloc`):
 * tracemalloc adds no header, so malloc_usable_size() stays valid.  The
 * debug hooks (PYTHONMALLOC=*debug, -X dev, debug builds) add headers: 0
 * then.  Errors are cleared (0: the budget is not enforced). */
static int
only_tracemalloc_below(void)
{
    int ok = 0;
    PyObject *tm = NULL, *tracing = NULL, *sys = NULL, *flags = NULL,
             *dev = NULL;
    const char *env = getenv("PYTHONMALLOC");
    if (env != NULL && strstr(env, "debug") != NULL) {
        goto done;
    }
    sys = PyImport_ImportModule("sys");
    if (sys == NULL || PyObject_HasAttrString(sys, "gettotalrefcount")) {
        goto done; /* a debug build: debug hooks by default */
    }
    flags = PyObject_GetAttrString(sys, "flags");
    dev = flags ? PyObject_GetAttrString(flags, "dev_mode") : NULL;
    if (dev == NULL || PyObject_IsTrue(dev) != 0) {
        goto done;
    }
    tm = PyImport_ImportModule("tracemalloc");
    tracing = tm ? PyObject_CallMethod(tm, "is_tracing", NULL) : NULL;
    ok = tracing != NULL && PyObject_IsTrue(tracing) == 1;
done:
    PyErr_Clear();
    Py_XDECREF(tm);
    Py_XDECREF(tracing);
    Py_XDECREF(sys);
    Py_XDECREF(flags);
    Py_XDECREF(dev);
    return ok;
}

void
memlimit_install(void)
{
    if (installed) {
        return;
    }
    installed = 1;
    /* a domain whose current allocator is already ours keeps its saved
       previous one (re-installation, see memlimit_begin) */
    PyMemAllocatorEx raw, mem, obj;
    PyObjectArenaAllocator arena;
    PyMem_GetAllocator(PYMEM_DOMAIN_RAW, &raw);
    PyMem_GetAllocator(PYMEM_DOMAIN_MEM, &mem);
    PyMem_GetAllocator(PYMEM_DOMAIN_OBJ, &obj);
    PyObject_GetArenaAllocator(&arena);
    if (raw.malloc == mem_malloc) {
        return;
    }
    if (raw.ctx != NULL && !only_tracemalloc_below()) {
        available = 0;
        return; /* debug hooks below us: sizes unknown */
    }
    available = 1;
    prev_raw = raw;
    PyMemAllocatorEx w = {NULL, mem_malloc, mem_calloc, mem_realloc,
                          mem_free};
    if (mem.malloc != mem_malloc && same_allocator(&mem, &raw)) {
        prev_mem = mem;
        w.ctx = &prev_mem;
        PyMem_SetAllocator(PYMEM_DOMAIN_MEM, &w);
    }
    if (obj.malloc != mem_malloc && same_allocator(&obj, &raw)) {
        prev_obj = obj;
        w.ctx = &prev_obj;
        PyMem_SetAllocator(PYMEM_DOMAIN_OBJ, &w);
    }
    w.ctx = &prev_raw;
    PyMem_SetAllocator(PYMEM_DOMAIN_RAW, &w);
    if (arena.alloc != arena_alloc) {
        prev_arena = arena;
        PyObjectArenaAllocator a = {NULL, arena_alloc, arena_free};
        PyObject_SetArenaAllocator(&a);
    }
}

int
memlimit_available(void)
{
    return available;
}

void
memlimit_begin(Interp *in, MemSave *save)
{
    if (available) {
        /* a hook installed below ours and removed since (tracemalloc
           started before import, then stopped) took ours away and left the
           system allocator: again.  Not when another hook is on top (a
           tracemalloc started after ours chains to ours: installing ours
           over it would save it as our "previous" one, a cycle through
           both, an endless loop or a stack overflow at the next
           allocation) */
        PyMemAllocatorEx cur;
        PyMem_GetAllocator(PYMEM_DOMAIN_RAW, &cur);
        if (cur.malloc != mem_malloc && cur.ctx == NULL) {
            installed = 0;
            memlimit_install();
        }
    }
    save->prev = mem_active;
    save->prev_used = in_budget(in)->mem_used;
    save->prev_tripped = in_budget(in)->mem_tripped;
    in_budget(in)->mem_used = 0;
    in_budget(in)->mem_tripped = 0;
    mem_active = available ? in : NULL;
}

void
memlimit_end(Interp *in, MemSave *save)
{
    mem_active = save->prev;
    in_budget(in)->mem_last = in_budget(in)->mem_used;
    in_budget(in)->mem_used = save->prev_used;
    in_budget(in)->mem_tripped = save->prev_tripped;
}

void
memlimit_suspend(MemSave *save)
{
    save->prev = mem_active;
    mem_active = NULL;
}

void
memlimit_resume(MemSave *save)
{
    mem_active = save->prev;
}

void
memlimit_rejoin(Interp *in, MemSave *save)
{
    save->prev = mem_active;
    mem_active = available ? in : NULL;
}
