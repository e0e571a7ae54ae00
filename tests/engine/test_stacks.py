"""Step stacks, generator stacks, deep structures and threads (csrc/budget/bigstack.c, generator.c,
nesting.c; docs/security.md, "Stacks and deep structures").

Everything that could crash the process runs in a subprocess, so that a crash is reported as
a failure (with the child's output) instead of killing pytest.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
import threading
import time

import pytest

import smolagents_native._core as core
from smolagents_native import InterpreterError, LocalPythonExecutor
from smolagents_native import executor as executor_module

SANITIZED = os.environ.get("SMOLAGENTS_NATIVE_SANITIZE", "") not in ("", "0")


def run_child(code: str, timeout: float = 300) -> str:
    """Run PRELUDE + `code` in a fresh interpreter; return its stdout. Fails on a crash (signal) or a
    non-zero exit, with the child's output."""
    proc = subprocess.run(
        [sys.executable, "-c", PRELUDE + textwrap.dedent(code)],
        capture_output=True,
        text=True,
        timeout=timeout,
    )
    if proc.returncode != 0:
        how = f"signal {-proc.returncode}" if proc.returncode < 0 else f"status {proc.returncode}"
        pytest.fail(f"child died ({how})\nstdout:\n{proc.stdout[-3000:]}\nstderr:\n{proc.stderr[-3000:]}")
    return proc.stdout


def new_ex(imports=()):
    ex = LocalPythonExecutor(list(imports))
    ex.send_tools({})
    return ex


PRELUDE = """
from smolagents_native import LocalPythonExecutor, InterpreterError, ExecutionTimeoutError
def new_ex(imports=()):
    ex = LocalPythonExecutor(list(imports)); ex.send_tools({}); return ex
def outcome(ex, code):
    try:
        return "ok", ex(code).output
    except InterpreterError as e:
        return "error", " ".join(str(e).split())
    except ExecutionTimeoutError as e:  # only the slow sanitizer build gets there
        return "timeout", str(e)
"""


# --- the step stack: per thread, lazy, released -----------------------------------------


def test_step_stack_is_per_thread_lazy_and_released():
    def work(out):
        out.append(core.thread_stack_size())
        exs = [new_ex() for _ in range(20)]
        out.append(core.thread_stack_size())  # creating executors maps nothing
        for ex in exs:
            assert ex("1 + 1").output == 2
        out.append(core.thread_stack_size())  # one stack, shared by the 20
        out.append(core.release_thread_stack())
        out.append(core.thread_stack_size())
        assert exs[0]("2 + 2").output == 4  # mapped again on demand
        out.append(core.thread_stack_size())

    out: list = []
    t = threading.Thread(target=work, args=(out,))
    t.start()
    t.join()
    assert out[0] == 0 and out[1] == 0
    assert out[2] >= 16 << 20
    assert out[3] is True and out[4] == 0
    assert out[5] == out[2]
    assert core.release_thread_stack() in (True, False)


def test_thread_exit_releases_the_step_stack():
    out = run_child(
        """
        import threading, smolagents_native._core as core
        def maps():  # mappings of at least a step stack's size (1 GiB): glibc's arenas,
            # which a loaded machine may add, are 64 MiB
            size = core.thread_stack_size() or (1 << 30)
            count = 0
            with open("/proc/self/maps") as f:
                for line in f:
                    low, high = (int(x, 16) for x in line.split()[0].split("-"))
                    count += high - low >= size // 2
            return count
        def work(sizes):
            ex = new_ex()
            assert ex("sum(range(10))").output == 45
            sizes.append(core.thread_stack_size())
        base = None
        for i in range(30):
            sizes = []
            t = threading.Thread(target=work, args=(sizes,))
            t.start(); t.join()
            assert sizes[0] > 0
            if i == 4:
                base = maps()
        # 25 more threads each mapped a stack: none is left behind
        print("growth", maps() - base)
        """
    )
    growth = int(out.split()[-1])
    assert growth < 3, out


@pytest.mark.no_sanitizer
@pytest.mark.skipif(SANITIZED, reason="ASan reserves terabytes of shadow memory")
def test_1000_executors_under_rlimit_as_2gib():
    out = run_child(
        """
        import resource, smolagents_native._core as core
        lim = 2 << 30
        resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
        exs = []
        for i in range(1000):
            ex = new_ex()
            exs.append(ex)
            assert ex(f"x = {i}\\ndef g():\\n    yield x\\nnext(g())").output == i
        print("executors", len(exs), "stack_mib", core.thread_stack_size() >> 20)
        """
    )
    assert "executors 1000" in out, out


@pytest.mark.no_sanitizer
@pytest.mark.skipif(SANITIZED, reason="ASan reserves terabytes of shadow memory")
def test_steps_run_under_rlimit_as_512mib():
    out = run_child(
        """
        import resource
        lim = 512 << 20
        resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
        ex = new_ex()
        print(ex("sum(i * i for i in range(1000))").output)
        print(ex("def g(n):\\n    for i in range(n):\\n        yield i\\nsum(sum(g(10)) for _ in range(100))").output)
        print(ex("t = ()\\nfor i in range(50000):\\n    t = (t,)\\nhash(t) != 0").output)
        # many generators: they fit, or a MemoryError says what ran out
        kind, msg = outcome(ex, "def g():\\n    try:\\n        yield 1\\n        yield 2\\n    finally:\\n        pass\\ngs = [g() for i in range(5000)]\\nfor x in gs:\\n    next(x)\\nlen(gs)")
        print(kind, msg)
        print(ex("1 + 1").output)
        """
    )
    lines = out.splitlines()
    assert lines[0] == "332833500" and lines[1] == "4500" and lines[2] == "True", out
    assert lines[3] == "ok 5000" or ("generator's C stack" in lines[3] and "RLIMIT_AS" in lines[3]), out
    assert lines[-1] == "2"


# --- generator stacks: pooled, budgeted -------------------------------------------------------

# A generator that needs a C stack of its own: its yields are inside a try statement.  (One whose
# yields are all statements reached through if / for / while bodies runs without one.)
STACK_GEN = "def g():\n    try:\n        yield 1\n        yield 2\n    finally:\n        pass\n"


def test_flat_generators_hold_no_stack_and_are_not_counted():
    ex = new_ex()
    code = (
        "def g(n):\n    for i in range(n):\n        if i % 2:\n            yield i\n        else:\n"
        "            x = yield -i\ngs = [g(5) for i in range(40000)]\nfor x in gs:\n    next(x)\n"
        "len(gs)"
    )
    assert ex(code).output == 40000
    # the same generators with their yields in a try statement hold stacks: the budget stops them
    with pytest.raises(InterpreterError, match=r"max number of 10000 live generators"):
        ex(STACK_GEN + "hs = [g() for i in range(40000)]\nfor x in hs:\n    next(x)")


@pytest.mark.no_sanitizer  # ASan's shadow of 10,000 stacks
def test_40000_suspended_generators_end_in_the_budget_error():
    ex = new_ex()
    code = STACK_GEN + "gs = [g() for i in range(40000)]\nfor x in gs:\n    next(x)"
    with pytest.raises(InterpreterError, match=r"max number of 10000 live generators \(max_generators\)"):
        ex(code)
    del ex.state["gs"]
    assert ex("def g():\n    yield 1\nsum(next(g()) for _ in range(20000))").output == 20000


def test_max_generators_is_the_executors_own_copy(monkeypatch):
    monkeypatch.setattr(executor_module, "MAX_GENERATORS", 50)
    ex = new_ex()
    monkeypatch.setattr(executor_module, "MAX_GENERATORS", 10**6)  # too late for `ex`
    code = STACK_GEN + "gs = [g() for i in range({n})]\nfor x in gs:\n    next(x)\nlen(gs)"
    assert ex(code.format(n=50)).output == 50
    with pytest.raises(InterpreterError, match="max number of 50 live generators"):
        ex(code.format(n=51))
    # finished generators give their stacks back: no leak in the count
    ex.state.clear()
    for _ in range(5):
        assert ex("def g():\n    yield 1\nsum(list(g())[0] for _ in range(200))").output == 200


def test_generator_stacks_are_reused_and_counted_once():
    ex = new_ex()
    ex.state["n"] = 0
    code = "def g():\n    x = yield 1\n    yield x\nfor i in range(3000):\n    it = g()\n    next(it)\n    n += it.send(1)\nn"
    assert ex(code).output == 3000
    assert ex(code).output == 6000


# --- deep structures: no crash in generators, bounded chains --------------------------------


CRASH_CASES = {
    "hash_in_generator": (
        "def g():\n    t = ()\n    for i in range(60000):\n        t = (t,)\n    yield hash(t)\n"
        "r = list(g())\nlen(r)",
        "ok 1",
    ),
    "dict_key_in_generator": (
        "def g():\n    t = ()\n    for i in range(60000):\n        t = (t,)\n    yield {t: 1}\n"
        "len(list(g()))",
        "ok 1",
    ),
    "hash_in_stack_generator": (
        "def g():\n    t = ()\n    for i in range(60000):\n        t = (t,)\n    try:\n"
        "        yield hash(t)\n    finally:\n        pass\nr = list(g())\nlen(r)",
        "ok 1",
    ),
    "dict_key_in_stack_generator": (
        "def g():\n    t = ()\n    for i in range(60000):\n        t = (t,)\n    try:\n"
        "        yield {t: 1}\n    finally:\n        pass\nlen(list(g()))",
        "ok 1",
    ),
    "hash_in_nested_generators": (
        "def inner(t):\n    yield hash(t)\ndef outer():\n    t = ()\n    for i in range(60000):\n"
        "        t = (t,)\n    yield from inner(t)\nlen(list(outer()))",
        "ok 1",
    ),
    "repeat_chain_in_generator": (
        "import itertools\ndef g():\n    r = 0\n    for i in range(300000):\n"
        "        r = itertools.repeat(r)\n    r = None\n    yield 1\nlist(g())",
        "max_nesting",
    ),
    "property_chain": ("p = None\nfor i in range(1000000):\n    p = property(p)\n1", "max_nesting"),
    "property_chain_in_second_slot": (
        "p = None\nfor i in range(1000000):\n    p = property(None, p)\n1",
        "max_nesting",
    ),
    "alternating_wrappers": (
        "p = None\nfor i in range(600000):\n    p = staticmethod(classmethod(p))\n1",
        "max_nesting",
    ),
    "map_chain": ("m = iter([1])\nfor i in range(300000):\n    m = map(abs, m)\n1", "max_nesting"),
}


@pytest.mark.parametrize("name", sorted(CRASH_CASES))
def test_deep_structures_do_not_crash(name):
    if SANITIZED and name == "dict_key_in_stack_generator":
        pytest.skip("generator stacks are 2 MiB in the ASan build")
    code, expected = CRASH_CASES[name]
    out = run_child(
        f"""
        ex = new_ex(["itertools"])
        kind, msg = outcome(ex, {code!r})
        print(kind, msg)
        print(ex("1 + 1").output)
        # what is left in state is released by the host: no crash either
        ex.state.clear()
        del ex
        import gc; gc.collect()
        print("alive")
        """
    )
    first = out.splitlines()[0]
    if SANITIZED and first.startswith("timeout"):
        pass  # too slow under ASan to reach the budget: the point is that nothing crashed
    elif expected == "max_nesting":
        assert first.startswith("error") and "max_nesting" in first, out
    else:
        assert first == expected, out
    assert out.splitlines()[1:] == ["2", "alive"], out


def test_host_drives_objects_after_the_step():
    out = run_child(
        """
        ex = new_ex()
        def adv(g):
            # CPython 3.14 bounds hash()'s recursion by the C stack (a RecursionError, as the
            # same code gives in CPython there); 3.10 to 3.13 do not bound it at all
            try:
                return next(g)
            except (RecursionError, StopIteration) as e:
                return type(e).__name__
        # a generator expression returned by a step, advanced by the host
        ge = ex("t = ()\\nfor i in range(200000):\\n    t = (t,)\\n(hash(x) != 0 for x in [t, t])").output
        print(adv(ge), adv(ge))
        # a generator function's generator, advanced by the host
        g = ex("def gen(t):\\n    yield hash(t) != 0\\ngen(t)").output
        print(adv(g))
        # and one that runs on a C stack of its own
        g = ex("def gen(t):\\n    try:\\n        yield hash(t) != 0\\n    finally:\\n        pass\\ngen(t)").output
        print(adv(g))
        # the deepest map chain the budget allows, iterated and dropped by the host
        kind, _ = outcome(ex, "m = iter([1, 2])\\nfor i in range(100000):\\n    m = map(abs, m)")
        print(kind, sum(ex.state["m"]))
        ex.state.clear()
        print("alive")
        """
    )
    if sys.version_info >= (3, 14):
        hashed = ["RecursionError", "StopIteration", "RecursionError", "RecursionError"]
    else:
        hashed = ["True", "True", "True", "True"]
    assert out.split() == hashed + ["error", "3", "alive"], out


def test_dropping_the_executor_releases_deep_state():
    out = run_child(
        """
        import gc
        ex = new_ex()
        # as deep as the budget allows, in several shapes, left in state
        for code in ["p = None\\nfor i in range(10**6):\\n    p = property(p)",
                     "c = None\\nfor i in range(10**6):\\n    c = classmethod(c)",
                     "t = ()\\nfor i in range(10**6):\\n    t = (t,)"]:
            print(outcome(ex, code)[0])
        del ex
        gc.collect()
        print("alive")
        """
    )
    assert out.split()[-1] == "alive", out


def test_nesting_budget_allows_ordinary_nesting():
    ex = new_ex(["functools", "itertools"])
    code = (
        "import functools, itertools\n"
        "p = None\nfor i in range(500):\n    p = property(p)\n"
        "r = 1\nfor i in range(500):\n    r = itertools.repeat(r, 1)\n"
        "f = abs\nfor i in range(200):\n    f = functools.partial(f)\n"
        "m = iter(range(3))\nfor i in range(300):\n    m = map(abs, m)\n"
        "list(m)"
    )
    assert ex(code).output == [0, 1, 2]


def test_nesting_budget_is_configurable(monkeypatch):
    monkeypatch.setattr(executor_module, "MAX_NESTING", 100)
    ex = new_ex()
    assert ex("p = None\nfor i in range(99):\n    p = property(p)\n1").output == 1
    with pytest.raises(InterpreterError, match="max nesting depth of 100 levels"):
        ex("p = None\nfor i in range(101):\n    p = property(p)")
    monkeypatch.setattr(executor_module, "MAX_NESTING", None)
    ex = new_ex()
    assert ex("p = None\nfor i in range(20000):\n    p = property(p)\n1").output == 1
    ex.state.clear()


# --- threads ---------------------------------------------------------------------------------


def test_interpreted_functions_called_from_8_threads_after_the_step():
    ex = new_ex()
    ex("def fib(n):\n    return n if n < 2 else fib(n - 1) + fib(n - 2)\n"
       "def deep(n):\n    return 0 if n == 0 else 1 + deep(n - 1)\n"
       "def gen(n):\n    for i in range(n):\n        yield i * i")
    fib, deep, gen = ex.state["fib"], ex.state["deep"], ex.state["gen"]
    results: dict = {}
    errors: list = []

    def work(i):
        try:
            results[i] = (fib(15), deep(300), sum(gen(100)))
            try:
                deep(10**6)
            except RecursionError:
                results[i] += ("RecursionError",)
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    old = threading.stack_size()
    threading.stack_size(512 * 1024)  # small thread stacks: the bounds must be theirs
    try:
        threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    finally:
        threading.stack_size(old)
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors, errors
    assert all(r == (610, 300, 328350, "RecursionError") for r in results.values()), results
    assert len(results) == 8


def test_stack_bounds_are_asked_once_per_thread():
    """A thread's stack bounds are asked of the system once per thread, not once per executor
    (for the main thread glibc parses /proc/self/maps: about 150 µs of every new executor's
    first step). Each thread asks for its own, and its steps still end deep recursion."""
    out: list = []
    errors: list = []

    def work(size):
        try:
            before = core.stack_bound_queries()
            for _ in range(5):
                ex = new_ex()
                r = ex("def deep(n):\n    return 0 if n == 0 else 1 + deep(n - 1)\n"
                       "try:\n    deep(10**6)\n    r = 'no error'\n"
                       "except RecursionError:\n    r = 'RecursionError'\nr").output
                out.append((size, r))
            out.append((size, core.stack_bound_queries() - before))
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(repr(e))

    old = threading.stack_size()
    try:
        for size in (512 * 1024, 64 * 2**20, 512 * 1024, 2 * 2**20):
            threading.stack_size(size)
            t = threading.Thread(target=work, args=(size,))
            t.start()
            t.join()
    finally:
        threading.stack_size(old)
    assert not errors, errors
    for size in (512 * 1024, 64 * 2**20, 2 * 2**20):
        assert (size, "no error") not in out
        assert out.count((size, "RecursionError")) == (10 if size == 512 * 1024 else 5)
    assert [q for _s, q in out if isinstance(q, int)] == [1, 1, 1, 1], out


def test_interpreted_function_called_from_other_threads_while_a_step_runs():
    ex = new_ex(["time"])
    ex("def f(x):\n    return x * 2")
    f = ex.state["f"]
    started = threading.Event()
    outcomes: list = []

    def caller():
        started.wait(10)
        for _ in range(20):
            try:
                outcomes.append(("ok", f(21)))
            except InterpreterError as e:
                outcomes.append(("error", str(e)))

    threads = [threading.Thread(target=caller) for _ in range(8)]
    for t in threads:
        t.start()
    ex.state["go"] = started.set
    program = "go()\nimport time\ntotal = 0\nfor i in range(20):\n    time.sleep(0.01)\n    total += f(i)\ntotal"
    try:
        out = ex(program)
    except InterpreterError as e:
        # a call from another thread that came while the step ran ends the step (never a
        # silent wrong result: tests/engine/test_code_threads.py); the thread's call failed too
        assert "runs only on its step's thread" in str(e)
        out = None
    for t in threads:
        t.join()
    assert len(outcomes) == 160
    for kind, value in outcomes:
        assert (kind, value) == ("ok", 42) or (kind == "error" and "step's thread" in value), value
    if out is not None:  # every call came after the step
        assert out.output == 380
        assert all(kind == "ok" for kind, _ in outcomes)
    else:
        assert any(kind == "error" for kind, _ in outcomes)
    assert f(5) == 10  # usable afterwards
    assert ex("f(3)").output == 6


def test_a_generator_resumed_while_another_thread_runs_a_hook_waits_then_runs_in_its_own_window():
    """A hook of the executor (an interpreted function host code calls after the step) runs on
    another thread; resuming one of the executor's generators meanwhile waits for the hook to
    end, then runs the body in a budget window of this thread's own (its thread state, its
    stack bounds), not in the ended hook's."""
    ex = new_ex(["time"])
    ex("import time\n"
       "def slow():\n    time.sleep(0.3)\n    return 'hook'\n"
       "def gen():\n    for i in range(3):\n        time.sleep(0.02)\n        yield i * i\n"
       "g = gen()")
    slow, g = ex.state["slow"], ex.state["g"]
    out: dict = {}
    hook = threading.Thread(target=lambda: out.__setitem__("hook", slow()))
    hook.start()
    time.sleep(0.05)
    out["gen"] = list(g)
    hook.join()
    assert out == {"hook": "hook", "gen": [0, 1, 4]}
    assert ex("1 + 1").output == 2


# --- memory errors say what ran out ----------------------------------------------------------


@pytest.mark.no_sanitizer
@pytest.mark.skipif(SANITIZED, reason="ASan reserves terabytes of shadow memory")
def test_memory_errors_name_what_ran_out():
    out = run_child(
        """
        import resource
        ex = new_ex()
        ex("1")
        lim = 300 << 20
        resource.setrlimit(resource.RLIMIT_AS, (lim, lim))
        kind, msg = outcome(ex, "def g():\\n    try:\\n        yield 1\\n        yield 2\\n    finally:\\n        pass\\ngs = [g() for i in range(9000)]\\nfor x in gs:\\n    next(x)\\nlen(gs)")
        print(kind, msg)
        """
    )
    assert out.startswith("ok 9000") or "could not map a generator's C stack" in out or (
        "MemoryError: out of memory" in out and "RLIMIT_AS" in out
    ), out


def test_state_is_released_on_the_step_stack_when_the_executor_goes():
    # with the nesting budget off, a chain deep enough to overflow the host's 8 MiB stack when
    # released: dropping the executor releases its state on the step's stack
    out = run_child(
        """
        import gc
        from smolagents_native import executor as em
        em.MAX_NESTING = None
        ex = new_ex()
        print(outcome(ex, "p = None\\nfor i in range(1500000):\\n    p = property(p)\\n1")[0])
        del ex
        gc.collect()
        print("alive")
        """
    )
    assert out.split() == ["ok", "alive"], out


def test_state_held_by_the_host_is_left_alone():
    ex = new_ex()
    ex("x = [1, 2]")
    state = ex.state
    del ex
    assert state["x"] == [1, 2]
    d = {"a": 1}
    core.release_on_step_stack(d)
    assert d == {}
