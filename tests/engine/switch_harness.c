/* switch_harness.c: csrc/budget/switch.c on its own (tests/engine/test_switch.py builds
 * and runs it, natively and, when a cross compiler and qemu are installed,
 * for AArch64).  A body and its resumer ping-pong on a fresh stack, three
 * times on the same stack; checked: values flow both ways, callee-saved
 * integer and floating-point registers survive the switches, the body's
 * stack is aligned as at any call, and each side keeps its own rounding
 * mode.  Prints the best time of a round trip, then OK. */
#define _GNU_SOURCE
#include <fenv.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <time.h>

#include "budget/switch.h"

#define STACK_SIZE (256 * 1024)
#define ROUNDS 5
#define SWITCHES 200000

static SwitchPair pair;
static volatile long shared;
static int failures;
static int same_fp;

#define CHECK(c)                                                          \
    do {                                                                  \
        if (!(c)) {                                                       \
            printf("FAIL line %d: %s\n", __LINE__, #c);                   \
            failures++;                                                   \
        }                                                                 \
    } while (0)

static void __attribute__((noinline))
check_alignment(void)
{
    /* placed by the compiler assuming an aligned stack pointer */
    double v __attribute__((aligned(16))) = 1.0;
    __asm__ volatile("" : "+m"(v));
    CHECK(((uintptr_t)&v & 15) == 0);
}

static void
body(void *arg)
{
    CHECK(arg == (void *)&pair);
    check_alignment();
    if (!same_fp) {
        fesetround(FE_UPWARD); /* the resumer must not see it */
    }
    long acc = 0;
    double dacc = 0.0;
    for (long i = 0; i < SWITCHES; i++) {
        acc += i;
        dacc += 0.5;
        shared = acc;
        switch_to_back(&pair);
        if (!same_fp && fegetround() != FE_UPWARD) {
            CHECK(fegetround() == FE_UPWARD);
            break;
        }
    }
    CHECK(dacc == SWITCHES * 0.5);
    shared = -1;
    switch_exit_body(&pair);
}

int
main(int argc, char **argv)
{
    (void)argv;
    same_fp = argc > 1; /* any argument: time the common case */
    char *stack = mmap(NULL, STACK_SIZE, PROT_READ | PROT_WRITE,
                       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (stack == MAP_FAILED) {
        perror("mmap");
        return 2;
    }
    double best = 0;
    for (int round = 0; round < ROUNDS; round++) {
        CHECK(switch_init(&pair, stack, stack + STACK_SIZE - 64, body,
                          &pair) == 0);
        fesetround(FE_TONEAREST);
        /* kept in callee-saved registers across the switches */
        long a = 11, b = 22, c = 33, d = 44, e = 55, f = 66;
        double fa = 0.5, fb = 1.25, fc = -3.0;
        long expect = 0;
        struct timespec t0, t1;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        for (long i = 0; i < SWITCHES; i++) {
            switch_to_body(&pair);
            expect += i;
            if (shared != expect || fegetround() != FE_TONEAREST) {
                CHECK(shared == expect);
                CHECK(fegetround() == FE_TONEAREST);
                break;
            }
            a += 1, b += 2, c += 3, d += 4, e += 5, f += 6;
            fa += 1.0, fb += 2.0, fc -= 1.0;
        }
        clock_gettime(CLOCK_MONOTONIC, &t1);
        switch_to_body(&pair);
        CHECK(shared == -1);
        CHECK(a == 11 + SWITCHES && b == 22 + 2L * SWITCHES &&
              c == 33 + 3L * SWITCHES);
        CHECK(d == 44 + 4L * SWITCHES && e == 55 + 5L * SWITCHES &&
              f == 66 + 6L * SWITCHES);
        CHECK(fa == 0.5 + SWITCHES && fb == 1.25 + 2.0 * SWITCHES &&
              fc == -3.0 - SWITCHES);
        double ns = ((double)(t1.tv_sec - t0.tv_sec) * 1e9 +
                     (double)(t1.tv_nsec - t0.tv_nsec)) / SWITCHES;
        if (round == 0 || ns < best) {
            best = ns;
        }
    }
    printf("round trip %.1f ns\n", best);
    printf(failures ? "FAILED\n" : "OK\n");
    return failures != 0;
}
