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
#include "interp.h"

/* Lowest safe address of the generator stack the thread runs on; NULL on
 * the thread's own stack.  Accessors: stack_current_limit() and
 * stack_set_current_limit() (interp.h). */
_Thread_local char *stack_current_limit_tls;
