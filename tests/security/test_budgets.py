"""One test per budget (docs/security.md, "Budgets"): each ends the step with InterpreterError
(ExecutionTimeoutError for the deadline), cannot be swallowed by the code's own
`try/except BaseException`, nor delayed by `finally`, `__exit__` or `__del__`, nor swallowed by
host code, and leaves the executor healthy.

Budgets are lowered through the executor's module constants (read at call time), so the tests
stay fast.
"""

from __future__ import annotations

import gc
import time

import pytest
import hostside
from conftest import mark_slow, new_executor, refused

import smolagents_native.executor as executor_module
from smolagents_native import ExecutionTimeoutError, InterpreterError

SWALLOW = "try:\n{body}\nexcept BaseException:\n    pass\n'swallowed'"


def indent(code):
    return "\n".join("    " + line for line in code.splitlines())


def swallowing(code):
    return SWALLOW.format(body=indent(code))


def in_finally_and_exit(code):
    """`code` in a try whose finally and a with whose __exit__ try to keep running."""
    return (
        "class CM:\n"
        "    def __enter__(self): return self\n"
        "    def __exit__(self, *a):\n"
        "        print('EXIT RAN')\n"
        "        return True\n"
        "try:\n"
        "    with CM():\n"
        f"{indent(indent(code))}\n"
        "finally:\n"
        "    print('FINALLY RAN')\n"
        "    while True: pass\n"
    )


@pytest.fixture
def budgets(monkeypatch):
    """Small budgets for the duration of a test."""

    def set_(**kw):
        for k, v in kw.items():
            monkeypatch.setattr(executor_module, k, v)

    return set_


def assert_budget(ex, code, match, timeout_ok=False):
    refused(ex, code, match=match, timeout_ok=timeout_ok)
    refused(ex, swallowing(code), match=match, timeout_ok=timeout_ok)
    err = refused(ex, in_finally_and_exit(code), match=match, timeout_ok=timeout_ok)
    logs = str(ex.state["_print_outputs"])
    assert "FINALLY RAN" not in logs and "EXIT RAN" not in logs, logs
    return err


# --- operations -------------------------------------------------------------------------------


def test_operations_budget(budgets):
    budgets(MAX_OPERATIONS=200_000)
    ex = new_executor()
    assert_budget(ex, "for i in range(10**9):\n    pass", "max number of operations of 200000")


def test_operations_budget_counts_host_callbacks(budgets):
    budgets(MAX_OPERATIONS=200_000)
    ex = new_executor()
    code = "sorted(range(10**6), key=lambda x: -x)"
    assert_budget(ex, code, "max number of operations")


def test_operations_budget_in_a_generator(budgets):
    budgets(MAX_OPERATIONS=200_000)
    ex = new_executor()
    assert_budget(ex, "def g():\n    while True:\n        yield 1\nsum(g())", "max number of operations")


@pytest.mark.parametrize("code", [
    "sum(x for x in range(10**18))",
    "any(x < 0 for x in range(10**18))",
    "def g():\n    for i in range(10**18):\n        yield i\nmax(g())",
    "[x for x in range(10**18) if x < 0]",
    "g = (x for x in range(10**18))\nfor _ in range(50):\n    g = (x for x in g)\nsum(g)",
])
def test_operations_budget_own_generators_and_range_loops(budgets, code):
    """A consumer that keeps no item takes the code's own generator unwrapped, and the loops of
    comprehensions and generators read a range's own next: the bodies' charges end them."""
    budgets(MAX_OPERATIONS=200_000)
    ex = new_executor()
    assert_budget(ex, code, "max number of operations")


# --- while iterations -------------------------------------------------------------------------


def test_while_iterations_budget(budgets):
    budgets(MAX_WHILE_ITERATIONS=1000)
    ex = new_executor()
    assert_budget(ex, "n = 0\nwhile True:\n    n += 1", "Maximum number of 1000 iterations in While loop")
    assert ex.state["n"] <= 1000


# --- deadline -----------------------------------------------------------------------------------


DEADLINE_CASES = {
    "while": "while True:\n    pass",
    "for": "x = 0\nfor i in range(10**12):\n    x += i",
    "host calls": "for i in range(10**6):\n    y = sorted(range(20000), reverse=True)",
    "sleep": "import time\ntime.sleep(100)",
    "host C loop": "import itertools\nsum(itertools.count())",
}


@pytest.mark.parametrize("name", list(DEADLINE_CASES))
def test_deadline(budgets, name):
    budgets(MAX_OPERATIONS=10**12, MAX_WHILE_ITERATIONS=10**12)
    ex = new_executor(timeout=0.5)
    t0 = time.perf_counter()
    with pytest.raises(ExecutionTimeoutError, match="maximum execution time of 0.5 seconds"):
        ex(DEADLINE_CASES[name])
    elapsed = time.perf_counter() - t0
    # the interpreter checks the clock every few thousand operations (and after a few host
    # calls): it returns within ~10 ms of the deadline; the margin here is for slow CI hosts
    assert elapsed < 0.5 + 0.4, elapsed
    assert ex("1 + 1").output == 2


@mark_slow
def test_deadline_cannot_be_swallowed_or_delayed(budgets):
    budgets(MAX_OPERATIONS=10**12, MAX_WHILE_ITERATIONS=10**12)
    ex = new_executor(timeout=0.3)
    for code in DEADLINE_CASES.values():
        t0 = time.perf_counter()
        assert_budget(ex, code, "maximum execution time", timeout_ok=True)
        # three steps (plain, swallowed, finally/__exit__) each bounded by the deadline
        assert time.perf_counter() - t0 < 3 * (0.3 + 0.4)


def test_deadline_with_a_huge_sleep_in_a_host_callback(budgets):
    budgets(MAX_OPERATIONS=10**12)
    ex = new_executor(timeout=0.3)
    t0 = time.perf_counter()
    with pytest.raises(ExecutionTimeoutError):
        ex("import time\nsorted([1, 2], key=lambda x: time.sleep(1000))")
    assert time.perf_counter() - t0 < 1.0


# --- sizes --------------------------------------------------------------------------------------


def test_int_size_budget(budgets):
    budgets(MAX_INT_BITS=10_000)
    ex = new_executor()
    assert ex("x = 2 ** 9000\nx.bit_length()").output == 9001
    assert_budget(ex, "x = 2 ** 20000", "too large")
    assert_budget(ex, "x = 1 << 20000", "too large")
    assert_budget(ex, "x = (2 ** 6000) * (2 ** 6000)", "too large")
    assert_budget(ex, "x = pow(3, 20000)", "too large")


@pytest.mark.parametrize(
    "bits",
    [1, 2, 29, 30, 31, 59, 60, 61, 89, 90, 91, 119, 120, 121, 200]
    + [149, 150, 151, 3_000, 3_001, 4_199, 4_200, 4_201, 9_989, 9_990, 9_991, 9_999],
)
@pytest.mark.parametrize("sign", [1, -1])
def test_int_size_budget_counts_bits_exactly(budgets, bits, sign):
    """The size check reads an int's bit length from its digits, without a call, at any size
    (compat_long_num_bits): `x << n` is allowed exactly up to MAX_INT_BITS, at every digit
    boundary (30-bit digits), for negative ints too."""
    budgets(MAX_INT_BITS=10_000)
    ex = new_executor()
    x = sign * ((1 << bits) - 1) if bits > 1 else sign
    assert abs(x).bit_length() == bits
    ok = ex(f"x = ({x}) << {10_000 - bits}\nx.bit_length()").output
    assert ok == 10_000
    assert_budget(ex, f"x = ({x}) << {10_001 - bits}", "too large")
    # and the product rule: the sum of the factors' bit lengths bounds the product's
    # (1 << k has k + 1 bits)
    ok = ex(f"y = ({x}) * (1 << {9_999 - bits})\ny.bit_length()").output
    assert ok == 9_999
    assert_budget(ex, f"y = ({x}) * (1 << {10_000 - bits})", "too large")


@pytest.mark.parametrize("bits", [1, 29, 30, 31, 60, 61, 299, 300, 301, 599, 600, 601, 998])
def test_int_size_budget_holds_for_products_of_ints_of_a_few_digits(budgets, bits):
    """Exact ints of up to 100 digits are multiplied by int's own slot, without the size
    check's call, when their digit counts alone put the product within MAX_INT_BITS
    (limits_product_within): with a budget of 1,000 bits, factors of a few digits reach the
    limit, and the product rule still holds exactly at it."""
    budgets(MAX_INT_BITS=1_000)
    ex = new_executor()
    x = (1 << bits) - 1
    ok = ex(f"y = {x} * (1 << {999 - bits})\ny.bit_length()").output
    assert ok == 999
    assert_budget(ex, f"y = {x} * (1 << {1_000 - bits})", "too large")
    assert_budget(ex, f"y = {x}\ny *= (1 << {1_000 - bits})", "too large")
    # sums and differences are not size-checked (one bit more than the larger operand)
    assert ex(f"({x} << {1_000 - bits}) + ({x} << {1_000 - bits})").output.bit_length() == 1_001


@pytest.mark.parametrize("base", [2, 3, -3, 7, 1000, -(2**29), 2**29 + 1])
def test_int_size_budget_holds_for_powers_of_small_ints(budgets, base):
    """`b ** e` of one-digit ints is computed by int's own slot, without the size check's
    call, when its rule (limits_power_within: (bits(b) - 1) * e <= MAX_INT_BITS) passes and the
    deadline would charge nothing: with a budget of 1,000 bits the rule's boundary lies on that
    path, and it holds exactly there, for the operator and in place."""
    budgets(MAX_INT_BITS=1_000)
    ex = new_executor()
    bits = abs(base).bit_length()
    e = 1_000 // (bits - 1)  # the largest exponent the rule allows
    assert ex(f"x = ({base}) ** {e}\nx == {base ** e}").output is True
    assert ex(f"x = {base}\nx **= {e}\nx == {base ** e}").output is True
    assert_budget(ex, f"x = ({base}) ** {e + 1}", "too large")
    assert_budget(ex, f"x = {base}\nx **= {e + 1}", "too large")
    # bases of one bit or none: any exponent of a digit
    assert ex(f"(1 ** {2**29}, (-1) ** {2**29 + 1}, 0 ** {2**29})").output == (1, -1, 0)


def test_int_size_budget_ignores_an_overridden_bit_length(budgets):
    """An int subclass's own `bit_length` is not what the size check asks: the digits are read
    (before, ints above 64 bits were measured by calling `bit_length`, the sandboxed code's
    method when it overrides it)."""
    budgets(MAX_INT_BITS=10_000)
    ex = new_executor()
    cls = "class I(int):\n    def bit_length(self):\n        return 1\n"
    assert_budget(ex, cls + "x = I(1 << 5_000) << 6_000", "too large")
    assert_budget(ex, cls + "x = I(1 << 5_000) * I(1 << 5_000)", "too large")
    assert ex(cls + "x = I(1 << 5_000) << 4_000\nint.bit_length(x)").output == 9_001


def test_result_size_budget(budgets):
    budgets(MAX_RESULT_BYTES=100_000)
    ex = new_executor()
    assert len(ex("'a' * 50_000").output) == 50_000
    assert_budget(ex, "x = 'a' * 200_000", "too large")
    assert_budget(ex, "x = [0] * 20_000", "too large")
    assert_budget(ex, "x = ''.join(['ab'] * 60_000)", "too large")
    assert_budget(ex, "x = list(range(100_000))", "too large")
    assert_budget(ex, "x = 'a'.ljust(200_000)", "too large")


def test_result_size_budget_concatenation(budgets):
    # with the default budgets this doubling would exhaust the host's memory; here the budget is
    # tiny, so the test is harmless whether or not the check exists
    budgets(MAX_RESULT_BYTES=100_000)
    ex = new_executor()
    refused(ex, "s = 'a'\nfor i in range(20):\n    s = s + s", match="too large")
    refused(ex, "x = [0]\nfor i in range(20):\n    x += x", match="too large")


# --- recursion depth ----------------------------------------------------------------------------


def test_recursion_depth_budget(budgets):
    budgets(MAX_RECURSION_DEPTH=50)
    ex = new_executor()
    assert ex("def f(n): return 0 if n == 0 else 1 + f(n - 1)\nf(40)").output == 40
    refused(ex, "def f(n): return 0 if n == 0 else 1 + f(n - 1)\nf(100)", match="RecursionError")


def test_recursion_error_is_catchable_like_cpython_but_bounded(budgets):
    # RecursionError is an ordinary, catchable error (as in CPython); a program that catches it
    # and recurses again ends as in CPython (a RecursionError out of a handler), or at a budget
    budgets(MAX_OPERATIONS=100_000)
    ex = new_executor()
    assert ex("def f(): return f()\ntry:\n    f()\nexcept RecursionError:\n    r = 'caught'\nr").output == (
        "caught"
    )
    refused(
        ex,
        "def f(n):\n    try:\n        return f(n + 1)\n    except RecursionError:\n        return f(n + 1)\nf(0)",
        match="max number of operations|RecursionError",
    )


@pytest.mark.parametrize("depth", [10_000, 100_000])
def test_deep_recursion_never_crashes(depth):
    ex = new_executor()
    for code in [
        f"def f(n): return 0 if n == 0 else 1 + f(n - 1)\nf({depth})",
        f"def a(n): return 0 if n == 0 else b(n - 1)\ndef b(n): return a(n)\na({depth})",
        f"class R:\n    def __init__(self, n): self.n = n\n"
        f"    def __repr__(self): return repr(R(self.n - 1)) if self.n else 'x'\nrepr(R({depth}))",
        f"class E:\n    def __init__(self, n): self.n = n\n"
        f"    def __eq__(self, o): return E(self.n - 1) == o if self.n else True\nE({depth}) == 1",
        f"def g(n):\n    if n:\n        yield from g(n - 1)\n    yield n\nsum(g({depth}))",
        f"def g(n):\n    yield (list(g(n - 1)) if n else 0)\nlist(g({depth}))",
    ]:
        refused(ex, code, match="RecursionError")


# --- output length ------------------------------------------------------------------------------


def test_print_budget(budgets):
    budgets(MAX_PRINT_OUTPUTS_CHARS=10_000)
    ex = new_executor()
    assert_budget(ex, "while True:\n    print('x' * 100)", "Print outputs exceeded the limit of 10000")


# --- aborts swallowed by host code ---------------------------------------------------------------


def swallow_tool(fn):
    """A host tool that swallows every exception of the callback it is given."""
    try:
        return fn()
    except BaseException:
        return "swallowed by the host"


def test_budget_swallowed_by_host_code_still_ends_the_step(budgets):
    budgets(MAX_WHILE_ITERATIONS=1000)
    ex = new_executor()
    ex.send_tools({**hostside.SECURITY_TOOLS, "swallow": swallow_tool})
    for code in [
        "def f():\n    while True: pass\nr = swallow(f)\nr",
        "def f():\n    while True: pass\nr = swallow(f)\nfor i in range(10): pass",
        "def f():\n    lookup.__globals__\nswallow(f)\nx = 1",
    ]:
        with pytest.raises(InterpreterError, match="Maximum number|Forbidden") as info:
            ex(code)
        assert "swallowed" not in str(info.value)
        assert ex("1 + 1").output == 2


def test_policy_refusal_inside_getattr_default_is_not_swallowed():
    ex = new_executor()
    refused(ex, "getattr(lookup, '__globals__', 'fallback')", match="dunder")
    refused(ex, "hasattr(lookup, '__code__')", match="dunder")
    refused(ex, "next(iter(()), lookup.__globals__)", match="dunder")


@pytest.mark.filterwarnings("ignore::pytest.PytestUnraisableExceptionWarning")
def test_del_cannot_delay_an_abort(budgets):
    budgets(MAX_WHILE_ITERATIONS=1000)
    ex = new_executor()
    code = (
        "class D:\n"
        "    def __del__(self):\n"
        "        while True: pass\n"
        "d = D()\n"
        "def f():\n"
        "    x = D()\n"
        "    while True: pass\n"
        "f()\n"
    )
    t0 = time.perf_counter()
    refused(ex, code, match="Maximum number of")
    assert time.perf_counter() - t0 < 5
    # the D left in the state dies here, under a hook budget (its error is unraisable)
    ex.state.clear()
    gc.collect()


# --- source size and the lowering (issue 37, point 4) --------------------------------------------


def _dense_source(lines):
    return "\n".join(f"x{i} = {i} + y * 2" for i in range(lines))


def test_source_size_budget_is_checked_before_parsing():
    from smolagents_native import LocalPythonExecutor

    ex = LocalPythonExecutor([], max_source_bytes=10_000)
    ex.send_tools({})
    ex.send_variables({"y": 1})
    src = _dense_source(2000)  # some 40 KB: refused before CPython's parser sees it
    t0 = time.perf_counter()
    with pytest.raises(InterpreterError, match=r"too long.*more than 10000 bytes.*max_source_bytes"):
        ex(src)
    assert time.perf_counter() - t0 < 0.05
    assert str(ex.state["_print_outputs"]) == "" and ex.state["_operations_count"] == {"counter": 0}
    # the bytes are the UTF-8 bytes: 11 + 2,497 characters of 4 bytes are 9,999 bytes
    assert ex("s='" + "\U0001f600" * 2497 + "'\nlen(s)").output == 2497
    with pytest.raises(InterpreterError, match="max_source_bytes"):
        ex("s='" + "\U0001f600" * 2498 + "'\nlen(s)")
    # a lone surrogate counts 3 bytes, as process mode's "surrogatepass" encoding sends it
    # (such a source fails to parse, but after the size check)
    with pytest.raises(InterpreterError, match="max_source_bytes"):
        ex("#" * 9_998 + "\ud800")
    with pytest.raises(InterpreterError) as info:
        ex("#" * 9_997 + "\ud800")
    assert "max_source_bytes" not in str(info.value)
    # the same verdict for a cached program, and the executor is healthy
    with pytest.raises(InterpreterError, match="max_source_bytes"):
        ex(src)
    assert ex("1 + 1").output == 2


def test_source_size_budget_is_an_executor_argument():
    from smolagents_native import LocalPythonExecutor
    from smolagents_native.executor import MAX_SOURCE_BYTES

    assert MAX_SOURCE_BYTES == 1 << 20
    ex = LocalPythonExecutor([], max_source_bytes=100)
    ex.send_tools({})
    assert ex.budgets["max_source_bytes"] == 100
    with pytest.raises(InterpreterError, match="more than 100 bytes"):
        ex("x = 1\n" * 20)
    unlimited = LocalPythonExecutor([], max_source_bytes=None)
    unlimited.send_tools({})
    assert unlimited(("x = 1\n" * 200_000) + "x").output == 1


@pytest.mark.parametrize("kind", ["assignments", "functions", "nested scopes"])
def test_a_long_source_ends_near_its_deadline(kind):
    """Parsing is one uninterruptible C call bounded by max_source_bytes; the lowering after it
    reads the clock every few hundred nodes and every scope."""
    from smolagents_native import LocalPythonExecutor

    n = 6_000
    src = {
        "assignments": _dense_source(n * 3),
        "functions": "\n".join(f"def f{i}(a, b=1):\n    return a + b + y" for i in range(n)),
        "nested scopes": "\n".join(
            f"def f{i}(a):\n    def g(b):\n        return lambda c: a + b + c + y\n    return g"
            for i in range(n // 2)),
    }[kind]
    import ast

    # CPU time, not the wall clock: on a loaded machine (a CI runner sharing its cores) the
    # wall clock between two readings grows with other processes' work, by seconds
    parse = 0.0
    for _ in range(2):  # the slower of two
        t0 = time.process_time()
        ast.parse(src)
        parse = max(parse, time.process_time() - t0)
    ex = LocalPythonExecutor([], timeout_seconds=0.05, max_source_bytes=None)
    ex.send_tools({})
    ex.send_variables({"y": 1})
    t0 = time.process_time()
    with pytest.raises(ExecutionTimeoutError, match="maximum execution time of 0.05 seconds"):
        ex(src)
    elapsed = time.process_time() - t0
    # the parse (CPython's, measured above) and a little: never the whole lowering
    assert elapsed < parse * 2 + 0.5, (elapsed, parse)
    # nothing was cached: the same source with time to spare runs
    ex.timeout_seconds = None
    assert ex(src + "\n'done'").output == "done"
    ex.timeout_seconds = 0.05
    assert ex("1 + 1").output == 2


def test_the_lowering_deadline_is_not_a_parse_error():
    from smolagents_native import LocalPythonExecutor

    ex = LocalPythonExecutor([], timeout_seconds=0.001, max_source_bytes=None)
    ex.send_tools({})
    ex.send_variables({"y": 1})
    with pytest.raises(ExecutionTimeoutError) as info:
        ex(_dense_source(20_000))
    assert "parsing" not in str(info.value)
    assert str(ex.state["_print_outputs"]) == ""


def test_a_memory_budget_refusing_the_entry_frame_is_the_budgets_error():
    """With every allocation counted (PYTHONMALLOC=malloc: no pymalloc pools to draw on, as
    under the sanitizers), a budget too small for the step's entry frame refuses an
    allocation before the body runs: the step still ends with the budget's InterpreterError,
    never a bare MemoryError, and the executor stays usable (module.c, after the window)."""
    import os
    import subprocess
    import sys

    script = (
        "from smolagents_native import LocalPythonExecutor\n"
        "from smolagents_native.errors import InterpreterError\n"
        "ex = LocalPythonExecutor([], max_memory_bytes=0)\n"
        "ex.send_tools({})\n"
        "for _ in range(3):\n"
        "    try:\n"
        "        ex('x = [1, 2, 3]')\n"
        "    except InterpreterError as e:\n"
        "        assert 'Memory budget exceeded' in str(e), e\n"
        "    else:\n"
        "        raise SystemExit('the step ran')\n"
        "ex.max_memory_bytes = None\n"
        "ok = LocalPythonExecutor([], max_memory_bytes=None)\n"
        "ok.send_tools({})\n"
        "assert ok('y = [1, 2, 3]\\ny').output == [1, 2, 3]\n"
        "print('ok')\n"
    )
    env = dict(os.environ, PYTHONMALLOC="malloc")
    r = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "ok", r.stdout + r.stderr
