/* fuzzcov.c: edge coverage of the C code for the coverage-guided fuzzer
 * (scripts/fuzz.py).  Compiled to nothing unless the extension is built
 * with SMOLAGENTS_NATIVE_FUZZ=1 (setup.py), which also compiles every file
 * with GCC's -fsanitize-coverage=trace-pc: each basic block then calls
 * __sanitizer_cov_trace_pc(), defined here (hidden, so it binds to this
 * module), which bumps an 8-bit counter chosen by the caller's address.
 * scripts/fuzz.py hands the counter array to libFuzzer (atheris) through
 * __sanitizer_cov_8bit_counters_init, the interface clang's inline 8-bit
 * counters use, so libFuzzer keeps the inputs that reach new C code.
 *
 * The counter array is the one mutable C global of the package, by nature
 * (it is what the compiler's own instrumentation would allocate), and it
 * exists only in that build.
 */
#include "module.h"

#ifdef SMOLAGENTS_NATIVE_FUZZ

#define FUZZ_COUNTERS 65536

static uint8_t fuzz_counters[FUZZ_COUNTERS] __attribute__((aligned(4096)));

__attribute__((no_sanitize_coverage, visibility("hidden"))) void
__sanitizer_cov_trace_pc(void)
{
    uintptr_t pc = (uintptr_t)__builtin_return_address(0);
    uintptr_t h = (pc ^ (pc >> 16)) * (uintptr_t)0x9E3779B97F4A7C15u;
    uint8_t *c = &fuzz_counters[(h >> 48) & (FUZZ_COUNTERS - 1)];
    if (*c != 255) {
        (*c)++;
    }
}

static PyObject *
fuzz_counters_info(PyObject *m, PyObject *noargs)
{
    return Py_BuildValue("(nn)", (Py_ssize_t)(uintptr_t)fuzz_counters,
                         (Py_ssize_t)FUZZ_COUNTERS);
}

static PyMethodDef fuzz_functions[] = {
    {"_fuzz_counters", fuzz_counters_info, METH_NOARGS,
     "_fuzz_counters() -> (address, size) of the coverage counters (fuzz "
     "build only)."},
    {NULL, NULL, 0, NULL},
};

int
fuzzcov_add_to_module(PyObject *m)
{
    return PyModule_AddFunctions(m, fuzz_functions);
}

#else

int
fuzzcov_add_to_module(PyObject *m)
{
    return 0;
}

#endif
