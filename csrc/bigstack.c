/* bigstack.c: run a step on a large C stack of its own.
 *
 * Why: a few C paths of CPython 3.11 itself recurse without any depth check.
 * The known one reachable from interpreted code is hashing a nested tuple:
 * `t = (t,)` repeated 150,000 times, then `hash(t)` (or using `t` as a dict
 * key) overflows the thread's 8 MiB stack and kills the host process.  The
 * interpreter cannot see such data structures grow, but it bounds how many
 * operations a step performs, and so how deep anything it builds can be.
 * Running the step on a stack large enough for that depth (BIG_STACK_SIZE
 * of address space; pages cost memory only when touched, and deep pages are
 * given back after the step) turns the crash into ordinary work.
 *
 * Our own recursion is still bounded by limits_check_stack(), which now
 * measures against this stack; generator bodies keep their own stacks.
 *
 * The switch itself is switch.c's (as for generators): the resumer is the
 * thread, the body runs `fn(arg)` to completion and switches back once, so
 * no per-thread interpreter state needs saving across it except the stack
 * bounds (in->stack_limit and the thread-local of stack.c).
 */
#include "interp.h"
#include "switch.h"

#include <sys/mman.h>
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
#define BIG_GUARD_SIZE ((size_t)64 * 1024)
#define BIG_STACK_MARGIN ((size_t)512 * 1024)
/* pages below this distance from the top are given back after a step */
#define BIG_STACK_KEEP ((size_t)4 * 1024 * 1024)
#define BIG_CANARY ((uintptr_t)0x6269677374616b31u)

struct BigStack {
    SwitchPair sw;
    char *map;
    size_t map_size;
    char *low, *high;
    uintptr_t *canary;
    void (*fn)(void *);
    void *arg;
    int busy;
#ifdef BIG_ASAN
    const void *asan_back_bottom;
    size_t asan_back_size;
#endif
};

/* Returns a new stack, or NULL with MemoryError set. */
static BigStack *
bigstack_new(void)
{
    size_t total;
    char *low;
    char *map = stack_map(BIG_GUARD_SIZE, BIG_STACK_SIZE, &total, &low);
    if (map == NULL) {
        return NULL;
    }
    BigStack *bs = PyMem_Calloc(1, sizeof(BigStack));
    if (bs == NULL) {
        munmap(map, total);
        PyErr_NoMemory();
        return NULL;
    }
    bs->map = map;
    bs->map_size = total;
    bs->low = low;
    bs->high = (char *)(((uintptr_t)(map + total)) & ~(uintptr_t)63);
    bs->canary = (uintptr_t *)(bs->high - BIG_STACK_KEEP);
    *bs->canary = BIG_CANARY;
    return bs;
}

void
bigstack_free(BigStack *bs)
{
    if (bs == NULL) {
        return;
    }
    munmap(bs->map, bs->map_size);
    PyMem_Free(bs);
}

/* Entry point on the big stack: run the function, switch back for good. */
static void
bigstack_entry(void *p)
{
    BigStack *bs = (BigStack *)p;
#ifdef BIG_ASAN
    __sanitizer_finish_switch_fiber(NULL, &bs->asan_back_bottom,
                                    &bs->asan_back_size);
#endif
    bs->fn(bs->arg);
#ifdef BIG_ASAN
    __sanitizer_start_switch_fiber(NULL, bs->asan_back_bottom,
                                   bs->asan_back_size);
#endif
    switch_exit_body(&bs->sw);
}

int
bigstack_run(Interp *in, void (*fn)(void *), void *arg)
{
    if (in->bigstack == NULL) {
        in->bigstack = bigstack_new();
        if (in->bigstack == NULL) {
            return -1;
        }
    }
    BigStack *bs = in->bigstack;
    if (bs->busy) {
        /* already on it (a hook of this interpreter called during its own
           step is run in place by the caller); run here */
        fn(arg);
        return 0;
    }
    if (switch_init(&bs->sw, bs->low, bs->high, bigstack_entry, bs) != 0) {
        PyErr_SetFromErrno(PyExc_OSError);
        return -1;
    }
    bs->fn = fn;
    bs->arg = arg;
    bs->busy = 1;
    char *limit = bs->low + BIG_STACK_MARGIN;
    char *outer_limit = in->stack_limit;
    char *outer_lo = in->stack_lo, *outer_hi = in->stack_hi;
    char *outer_current = stack_current_limit();
    stack_set_current_limit(limit);
    in->stack_limit = limit;
    in->stack_lo = bs->low;
    in->stack_hi = bs->high;
#ifdef BIG_ASAN
    void *fake = NULL;
    __sanitizer_start_switch_fiber(&fake, bs->low,
                                   (size_t)(bs->high - bs->low));
#endif
    switch_to_body(&bs->sw);
#ifdef BIG_ASAN
    __sanitizer_finish_switch_fiber(fake, NULL, NULL);
    /* the finished fiber's frames leave redzones behind */
    __asan_unpoison_memory_region(bs->low, (size_t)(bs->high - bs->low));
#endif
    in->stack_limit = outer_limit;
    in->stack_lo = outer_lo;
    in->stack_hi = outer_hi;
    stack_set_current_limit(outer_current);
    bs->busy = 0;
    if (*bs->canary != BIG_CANARY) {
        /* a deep step touched many pages: give them back */
        (void)madvise(bs->low, (size_t)((char *)bs->canary - bs->low),
                      MADV_DONTNEED);
        *bs->canary = BIG_CANARY;
    }
    return 0;
}
