/* switch.c: C stack switching for generator bodies (see switch.h).
 *
 * The assembly below is the whole context switch on x86-64 and AArch64.
 * A suspended side is just its stack pointer: everything else it needs is
 * in a small record on top of its own stack,
 *
 *   x86-64 (SysV):  [sp+0] MXCSR (4 bytes), x87 control word (2 bytes, 2
 *                   unused), [sp+8] r15 r14 r13 r12 rbx rbp, then the
 *                   return address;
 *   AArch64:        [sp+0] x19..x28, x29 (fp), x30 (lr), d8..d15, FPCR,
 *                   8 bytes of padding (176 bytes, sp stays 16-aligned);
 *
 * i.e. the registers the ABI says a call preserves.  The caller-saved ones
 * need no saving: to the compiler, smolagents_native_switch is an ordinary
 * external function call.  Rounding mode and exception masks (MXCSR / x87
 * control word / FPCR) are callee-saved too; each side keeps its own, and a
 * new body starts with its creator's.  Status flags are not preserved, as
 * across any call.
 *
 * A fresh stack gets the same record with the boot code as the return
 * address and (arg, entry) in two callee-saved registers: the first switch
 * to it "returns" into smolagents_native_switch_boot, which calls
 * entry(arg) with the stack aligned as at any call (16 bytes before the
 * call instruction).  entry never returns; if it did, the boot code traps.
 * The boot code marks the return address as undefined in its unwind
 * information and the frame pointer chain ends with a zero, so debuggers,
 * profilers and the sanitizers' unwinders stop there.
 */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700 /* ucontext (some systems hide it otherwise) */
#endif

#include "switch.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* Control leaves some functions here by a stack switch, not by a return,
 * and comes back into others the same way: their profile in the
 * profile-guided build (setup.py) would not be consistent, and GCC refuses
 * it.  They are compiled without one. */
#if defined(__GNUC__) && !defined(__clang__)
#define SWITCH_NO_PROFILE __attribute__((no_profile_instrument_function))
#else
#define SWITCH_NO_PROFILE
#endif

/* Independent of Python (tests/engine/switch_harness.c builds it alone). */
static void SWITCH_NO_PROFILE __attribute__((noreturn))
switch_fatal(const char *msg)
{
    fprintf(stderr, "Fatal error: generator: %s\n", msg);
    abort();
}

/* ------------------------------------------------------------- x86-64 */

#if defined(SWITCH_ASM) && defined(__x86_64__)

#if defined(__CET__) && (__CET__ & 1)
#define SW_ENDBR "endbr64\n\t"
#else
#define SW_ENDBR ""
#endif

/* The control registers are loaded only when they differ from the current
 * ones (they nearly never do): LDMXCSR and FLDCW cost more than the
 * comparisons. */
// clang-format off
__asm__(
    ".text\n"
    ".p2align 4\n"
    ".globl smolagents_native_switch\n"
    ".hidden smolagents_native_switch\n"
    ".type smolagents_native_switch, @function\n"
    "smolagents_native_switch:\n\t"
    ".cfi_startproc\n\t"
    SW_ENDBR
    "pushq %rbp\n\t"
    ".cfi_adjust_cfa_offset 8\n\t"
    ".cfi_rel_offset %rbp, 0\n\t"
    "pushq %rbx\n\t"
    ".cfi_adjust_cfa_offset 8\n\t"
    ".cfi_rel_offset %rbx, 0\n\t"
    "pushq %r12\n\t"
    ".cfi_adjust_cfa_offset 8\n\t"
    ".cfi_rel_offset %r12, 0\n\t"
    "pushq %r13\n\t"
    ".cfi_adjust_cfa_offset 8\n\t"
    ".cfi_rel_offset %r13, 0\n\t"
    "pushq %r14\n\t"
    ".cfi_adjust_cfa_offset 8\n\t"
    ".cfi_rel_offset %r14, 0\n\t"
    "pushq %r15\n\t"
    ".cfi_adjust_cfa_offset 8\n\t"
    ".cfi_rel_offset %r15, 0\n\t"
    "subq $8, %rsp\n\t"
    ".cfi_adjust_cfa_offset 8\n\t"
    "stmxcsr (%rsp)\n\t"
    "fnstcw 4(%rsp)\n\t"
    /* two loads of the sizes just stored (one 8-byte load would wait for
       both stores to retire: no store forwarding) */
    "movl (%rsp), %eax\n\t"
    "movzwl 4(%rsp), %ecx\n\t"
    /* the switch: from here on, the record is the other side's (same
       layout, so the unwind information above stays true) */
    "movq %rsp, (%rdi)\n\t"
    "movq %rsi, %rsp\n\t"
    "cmpl (%rsp), %eax\n\t"
    "jne 2f\n\t"
    "cmpw 4(%rsp), %cx\n\t"
    "jne 2f\n"
    "1:\n\t"
    ".cfi_remember_state\n\t"
    "addq $8, %rsp\n\t"
    ".cfi_adjust_cfa_offset -8\n\t"
    "popq %r15\n\t"
    ".cfi_adjust_cfa_offset -8\n\t"
    ".cfi_restore %r15\n\t"
    "popq %r14\n\t"
    ".cfi_adjust_cfa_offset -8\n\t"
    ".cfi_restore %r14\n\t"
    "popq %r13\n\t"
    ".cfi_adjust_cfa_offset -8\n\t"
    ".cfi_restore %r13\n\t"
    "popq %r12\n\t"
    ".cfi_adjust_cfa_offset -8\n\t"
    ".cfi_restore %r12\n\t"
    "popq %rbx\n\t"
    ".cfi_adjust_cfa_offset -8\n\t"
    ".cfi_restore %rbx\n\t"
    "popq %rbp\n\t"
    ".cfi_adjust_cfa_offset -8\n\t"
    ".cfi_restore %rbp\n\t"
    "ret\n"
    "2:\n\t"
    ".cfi_restore_state\n\t"
    "ldmxcsr (%rsp)\n\t"
    "fldcw 4(%rsp)\n\t"
    "jmp 1b\n\t"
    ".cfi_endproc\n"
    ".size smolagents_native_switch, .-smolagents_native_switch\n"
    "\n"
    ".p2align 4\n"
    ".globl smolagents_native_switch_boot\n"
    ".hidden smolagents_native_switch_boot\n"
    ".type smolagents_native_switch_boot, @function\n"
    "smolagents_native_switch_boot:\n\t"
    ".cfi_startproc\n\t"
    ".cfi_undefined %rip\n\t"
    "movq %r12, %rdi\n\t"
    "callq *%r13\n\t"
    "ud2\n\t"
    ".cfi_endproc\n"
    ".size smolagents_native_switch_boot, .-smolagents_native_switch_boot\n");
// clang-format on

void smolagents_native_switch_boot(void) __attribute__((visibility("hidden")));

/* Build the first record of a body at the top of its stack; returns the
 * stack pointer to switch to. */
static void *
asm_make(char *high, SwitchEntry entry, void *arg)
{
    uint32_t mxcsr;
    uint16_t fpucw;
    __asm__ volatile("stmxcsr %0" : "=m"(mxcsr));
    __asm__ volatile("fnstcw %0" : "=m"(fpucw));
    uint64_t *sp = (uint64_t *)((uintptr_t)high & ~(uintptr_t)15);
    /* after the `ret` into the boot code, %rsp = sp - 16: 16-aligned at
       its call */
    *--sp = 0;
    *--sp = 0;
    *--sp = (uint64_t)(uintptr_t)smolagents_native_switch_boot;
    *--sp = 0;                          /* rbp: end of the frame chain */
    *--sp = 0;                          /* rbx */
    *--sp = (uint64_t)(uintptr_t)arg;   /* r12 */
    *--sp = (uint64_t)(uintptr_t)entry; /* r13 */
    *--sp = 0;                          /* r14 */
    *--sp = 0;                          /* r15 */
    *--sp = (uint64_t)mxcsr | ((uint64_t)fpucw << 32);
    return sp;
}

#if defined(SWITCH_UCONTEXT)
/* 1 when the thread runs with CET shadow stacks: RDSSP is a no-op (the
 * register keeps its 0) when they are off or unsupported. */
static int
shadow_stack_active(void)
{
    unsigned long long ssp = 0;
    __asm__ volatile("rdsspq %0" : "+r"(ssp));
    return ssp != 0;
}
#endif

#endif /* x86-64 */

/* ------------------------------------------------------------ AArch64 */

#if defined(SWITCH_ASM) && defined(__aarch64__)

#if defined(__ARM_FEATURE_BTI_DEFAULT) && __ARM_FEATURE_BTI_DEFAULT
#define SW_BTI_C "hint #34\n\t" /* bti c */
#else
#define SW_BTI_C ""
#endif

/* FPCR is written only when it differs (writing it may be slow). */
// clang-format off
__asm__(
    ".text\n"
    ".p2align 4\n"
    ".globl smolagents_native_switch\n"
    ".hidden smolagents_native_switch\n"
    ".type smolagents_native_switch, %function\n"
    "smolagents_native_switch:\n\t"
    ".cfi_startproc\n\t"
    SW_BTI_C
    "sub sp, sp, #176\n\t"
    ".cfi_def_cfa_offset 176\n\t"
    "stp x19, x20, [sp, #0]\n\t"
    "stp x21, x22, [sp, #16]\n\t"
    "stp x23, x24, [sp, #32]\n\t"
    "stp x25, x26, [sp, #48]\n\t"
    "stp x27, x28, [sp, #64]\n\t"
    "stp x29, x30, [sp, #80]\n\t"
    ".cfi_offset x29, -96\n\t"
    ".cfi_offset x30, -88\n\t"
    "stp d8, d9, [sp, #96]\n\t"
    "stp d10, d11, [sp, #112]\n\t"
    "stp d12, d13, [sp, #128]\n\t"
    "stp d14, d15, [sp, #144]\n\t"
    "mrs x9, fpcr\n\t"
    "str x9, [sp, #160]\n\t"
    "mov x10, sp\n\t"
    "str x10, [x0]\n\t"
    "mov sp, x1\n\t"
    "ldr x10, [sp, #160]\n\t"
    "cmp x9, x10\n\t"
    "b.eq 1f\n\t"
    "msr fpcr, x10\n"
    "1:\n\t"
    "ldp x19, x20, [sp, #0]\n\t"
    "ldp x21, x22, [sp, #16]\n\t"
    "ldp x23, x24, [sp, #32]\n\t"
    "ldp x25, x26, [sp, #48]\n\t"
    "ldp x27, x28, [sp, #64]\n\t"
    "ldp x29, x30, [sp, #80]\n\t"
    "ldp d8, d9, [sp, #96]\n\t"
    "ldp d10, d11, [sp, #112]\n\t"
    "ldp d12, d13, [sp, #128]\n\t"
    "ldp d14, d15, [sp, #144]\n\t"
    "add sp, sp, #176\n\t"
    ".cfi_def_cfa_offset 0\n\t"
    ".cfi_restore x29\n\t"
    ".cfi_restore x30\n\t"
    "ret\n\t"
    ".cfi_endproc\n"
    ".size smolagents_native_switch, .-smolagents_native_switch\n"
    "\n"
    ".p2align 4\n"
    ".globl smolagents_native_switch_boot\n"
    ".hidden smolagents_native_switch_boot\n"
    ".type smolagents_native_switch_boot, %function\n"
    "smolagents_native_switch_boot:\n\t"
    ".cfi_startproc\n\t"
    ".cfi_undefined x30\n\t"
    "mov x0, x19\n\t"
    "blr x20\n\t"
    "brk #1\n\t"
    ".cfi_endproc\n"
    ".size smolagents_native_switch_boot, .-smolagents_native_switch_boot\n");
// clang-format on

void smolagents_native_switch_boot(void) __attribute__((visibility("hidden")));

static void *
asm_make(char *high, SwitchEntry entry, void *arg)
{
    uint64_t fpcr;
    __asm__ volatile("mrs %0, fpcr" : "=r"(fpcr));
    /* 16 bytes of slack at the top, then the 176-byte record: after the
       switch pops it, sp is 16-aligned for the boot code's call */
    uint64_t *sp = (uint64_t *)(((uintptr_t)high & ~(uintptr_t)15) - 16 - 176);
    for (int i = 0; i < 22; i++) {
        sp[i] = 0;
    }
    sp[0] = (uint64_t)(uintptr_t)arg;   /* x19 */
    sp[1] = (uint64_t)(uintptr_t)entry; /* x20 */
    sp[10] = 0;                         /* x29: end of the frame chain */
    sp[11] = (uint64_t)(uintptr_t)smolagents_native_switch_boot; /* x30 */
    sp[20] = fpcr;
    return sp;
}

#endif /* AArch64 */

/* ----------------------------------------------------------- ucontext */

#ifdef SWITCH_UCONTEXT

/* makecontext passes ints: the pair's address comes in two halves. */
static void
uc_entry(unsigned int lo, unsigned int hi)
{
    uintptr_t a = ((uintptr_t)hi << 16 << 16) | (uintptr_t)lo;
    SwitchPair *p = (SwitchPair *)a;
    p->entry(p->arg);
    switch_fatal("a body returned from its stack");
}

/* getcontext() is "returns twice" for the compiler, which then worries
 * about the caller's locals; here it only fills a context for makecontext()
 * and never returns a second time.  0 / -1 (errno). */
static __attribute__((noinline)) int
context_init(ucontext_t *uc)
{
    return getcontext(uc);
}

void
switch_uc_swap(ucontext_t *save, ucontext_t *to)
{
    if (swapcontext(save, to) != 0) {
        switch_fatal("swapcontext failed");
    }
}

#endif

/* --------------------------------------------------------------- API */

int
switch_init(SwitchPair *p, char *low, char *high, SwitchEntry entry, void *arg)
{
#ifdef SWITCH_UCONTEXT
#ifdef SWITCH_ASM
    p->use_ucontext = shadow_stack_active();
    if (p->use_ucontext)
#endif
    {
        p->entry = entry;
        p->arg = arg;
        if (context_init(&p->body_uc) != 0) {
            return -1;
        }
        p->body_uc.uc_stack.ss_sp = low;
        p->body_uc.uc_stack.ss_size = (size_t)(high - low);
        p->body_uc.uc_link = NULL;
        uintptr_t a = (uintptr_t)p;
        makecontext(&p->body_uc, (void (*)(void))uc_entry, 2,
                    (unsigned int)(a & 0xffffffffu),
                    (unsigned int)(a >> 16 >> 16));
        return 0;
    }
#endif
#ifdef SWITCH_ASM
    (void)low;
    p->body_sp = asm_make(high, entry, arg);
    return 0;
#endif
}

void SWITCH_NO_PROFILE
switch_exit_body(SwitchPair *p)
{
#ifdef SWITCH_UCONTEXT
#ifdef SWITCH_ASM
    if (p->use_ucontext)
#endif
    {
        setcontext(&p->back_uc);
        switch_fatal("setcontext failed");
    }
#endif
#ifdef SWITCH_ASM
    void *dead;
    smolagents_native_switch(&dead, p->back_sp);
    switch_fatal("a finished body was resumed");
#endif
}
