/* switch.h: C stack switching for generator bodies (generator.c).
 *
 * A SwitchPair holds the two sides of one generator: the body, which runs
 * on a stack of its own, and the resumer ("back"), which runs wherever it
 * was when it resumed the body.  switch_init() prepares a fresh stack whose
 * first switch_to_body() calls entry(arg); the body never returns from
 * entry: it ends with switch_exit_body().
 *
 * Implementations (switch.c):
 *   - x86-64 and AArch64 (ELF): about 25 instructions of our own that save
 *     the callee-saved registers and the floating-point control state on
 *     the current stack and load the other side's; no system call;
 *   - elsewhere (or with SMOLAGENTS_NATIVE_UCONTEXT defined):
 *     getcontext/makecontext/swapcontext.
 *
 * Signal masks are not part of a context: the interpreter never changes the
 * signal mask, let alone per generator, so both sides always have the
 * thread's mask and there is nothing to switch (this is what saves the
 * rt_sigprocmask system call that swapcontext makes at every switch).
 *
 * On x86-64 a build that marks the object as compatible with CET shadow
 * stacks (__CET__ bit 2, -fcf-protection) would fault at our `ret` onto
 * another stack if the process ran with shadow stacks enabled; such builds
 * check at run time (RDSSP reads 0 when shadow stacks are off) and fall back
 * to ucontext, whose glibc implementation switches shadow stacks too.
 */
#ifndef SMOLAGENTS_NATIVE_SWITCH_H
#define SMOLAGENTS_NATIVE_SWITCH_H

#include <stddef.h>

#if defined(__ELF__) && (defined(__x86_64__) || defined(__aarch64__)) && \
    !defined(SMOLAGENTS_NATIVE_UCONTEXT)
#define SWITCH_ASM 1
#if defined(__x86_64__) && defined(__CET__) && (__CET__ & 2)
#define SWITCH_UCONTEXT 1 /* chosen at run time: shadow stacks */
#endif
#else
#define SWITCH_UCONTEXT 1
#endif

#ifdef SWITCH_UCONTEXT
#include <ucontext.h>
#endif

typedef void (*SwitchEntry)(void *arg);

typedef struct SwitchPair {
#ifdef SWITCH_ASM
    void *body_sp; /* the body's saved stack pointer, while it is suspended */
    void *back_sp; /* the resumer's, while the body runs */
#endif
#ifdef SWITCH_UCONTEXT
    int use_ucontext;
    SwitchEntry entry;
    void *arg;
    ucontext_t body_uc;
    ucontext_t back_uc;
#endif
} SwitchPair;

/* Prepare the stack [low, high) so that the next switch_to_body() calls
 * entry(arg) on it.  0 / -1 with errno set (ucontext only). */
int switch_init(SwitchPair *p, char *low, char *high, SwitchEntry entry,
                void *arg);

#ifdef SWITCH_UCONTEXT
void switch_uc_swap(ucontext_t *save, ucontext_t *to);
#endif

#ifdef SWITCH_ASM
/* switch.c, assembly: save the callee-saved state on the current stack,
 * store the stack pointer in *save, load `to` and restore its state.
 * Returns when something switches back to *save. */
void smolagents_native_switch(void **save, void *to)
    __attribute__((visibility("hidden")));
#endif

/* Resumer side: run the body until it switches back. */
static inline void
switch_to_body(SwitchPair *p)
{
#ifdef SWITCH_UCONTEXT
#ifdef SWITCH_ASM
    if (__builtin_expect(p->use_ucontext, 0))
#endif
    {
        switch_uc_swap(&p->back_uc, &p->body_uc);
        return;
    }
#endif
#ifdef SWITCH_ASM
    smolagents_native_switch(&p->back_sp, p->body_sp);
#endif
}

/* Body side: hand control back; returns when resumed. */
static inline void
switch_to_back(SwitchPair *p)
{
#ifdef SWITCH_UCONTEXT
#ifdef SWITCH_ASM
    if (__builtin_expect(p->use_ucontext, 0))
#endif
    {
        switch_uc_swap(&p->body_uc, &p->back_uc);
        return;
    }
#endif
#ifdef SWITCH_ASM
    smolagents_native_switch(&p->body_sp, p->back_sp);
#endif
}

/* Body side, at the end: hand control back for the last time.  The body's
 * stack may be reused by switch_init() as soon as the resumer runs. */
__attribute__((noreturn)) void switch_exit_body(SwitchPair *p);

#endif
