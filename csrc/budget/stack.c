/* stack.c: the bounds of the C stack the current thread is running on.
 *
 * A thread runs either on its own stack or, inside a generator body, on one
 * of the generator stacks of generator.c, which records the lowest safe
 * address of that stack here at every switch (and puts the previous value
 * back when it switches back).  limits_start() reads it, so that a budget
 * window opened while on a generator stack (e.g. a hook of another
 * Interpreter called from a generator body) gets that stack's bound.
 *
 * Why a thread-local and not a field of Interp: which stack the CPU is on
 * is per-thread hardware state, shared by every interpreter that runs on
 * the thread; an interpreter can be entered on a stack that another
 * interpreter's generator switched to, and only the thread knows.
 */
#include "budget.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

/* Lowest safe address of the generator stack the thread runs on; NULL on
 * the thread's own stack.  Accessors: stack_current_limit() and
 * stack_set_current_limit() (budget.h). */
HOT_TLS char *stack_current_limit_tls;
#if COMPAT_STACK_PROTECTION
HOT_TLS CompatStack compat_stack_tls; /* compat.h */
#endif

/* MemoryError for a C stack that could not be mapped: the address space
 * (RLIMIT_AS) or the kernel's count of mappings (vm.max_map_count) ran out;
 * errno says which as best the kernel can. */
static void
stack_map_error(const char *what, size_t size)
{
    int e = errno;
    PyErr_Format(PyExc_MemoryError,
                 "could not map %s C stack of %zu KiB: %s (%s)", what,
                 size / 1024,
                 e == ENOMEM ? "address space (RLIMIT_AS) or the kernel's "
                               "map count (vm.max_map_count) exhausted"
                             : "mmap failed",
                 strerror(e));
}

/* 1 when `bytes` more of address space leave a sixteenth of RLIMIT_AS
 * (STACK_AS_RESERVE_SHARE) unmapped; always 1 when the limit is infinite or
 * the use unknown. */
#define STACK_AS_RESERVE_SHARE 16
static int
address_space_room(size_t bytes)
{
    struct rlimit rl;
    if (getrlimit(RLIMIT_AS, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) {
        return 1;
    }
    FILE *f = fopen("/proc/self/statm", "r");
    unsigned long pages = 0;
    int got = f != NULL && fscanf(f, "%lu", &pages) == 1;
    if (f != NULL) {
        fclose(f);
    }
    if (!got) {
        return 1;
    }
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    double used = (double)pages * (double)(page ? page : 4096);
    double limit = (double)rl.rlim_cur;
    return used + (double)bytes + limit / STACK_AS_RESERVE_SHARE <= limit;
}

/* Map a C stack of `size` bytes above a PROT_NONE guard area of `guard`
 * bytes (both rounded up to pages); address space only: pages cost memory
 * when touched.  Returns the start of the mapping (the guard), its total
 * size in *total and the lowest usable address in *low, or NULL with a
 * MemoryError that names the stack (`what`: "the step's", "a generator's")
 * and what ran out.  Release with munmap(map, *total).
 *
 * `keep_reserve`: refuse a mapping that would leave less than a
 * sixteenth of a finite RLIMIT_AS unmapped.  Generator stacks are kept by
 * the generators a step leaves in its state; without that reserve they can
 * take the whole address space, and the next step could not even be
 * parsed (the executor must stay usable after a MemoryError). */
char *
stack_map(size_t guard, size_t size, size_t *total, char **low,
          const char *what, int keep_reserve)
{
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    if (page == 0 || page == (size_t)-1) {
        page = 4096;
    }
    guard = (guard + page - 1) / page * page;
    *total = guard + (size + page - 1) / page * page;
    if (keep_reserve && !address_space_room(*total)) {
        PyErr_Format(PyExc_MemoryError,
                     "could not map %s C stack of %zu KiB: the address space "
                     "(RLIMIT_AS) is nearly exhausted (a sixteenth of it is "
                     "kept for the steps that follow)",
                     what, size / 1024);
        return NULL;
    }
    int flags = MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE;
#ifdef MAP_STACK
    flags |= MAP_STACK;
#endif
    char *map = mmap(NULL, *total, PROT_READ | PROT_WRITE, flags, -1, 0);
    if (map == MAP_FAILED) {
        stack_map_error(what, size);
        return NULL;
    }
    if (mprotect(map, guard, PROT_NONE) != 0) {
        munmap(map, *total);
        stack_map_error(what, size);
        return NULL;
    }
    *low = map + guard;
    return map;
}
