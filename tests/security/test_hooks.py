"""Interpreted special methods that host code calls *after* the step (smolagents issue #2395:
"time bombs" left in the state) run under the same policy and under a fresh budget window: an
infinite loop ends in InterpreterError, not a hang; SystemExit, KeyboardInterrupt or a final
answer raised by them become InterpreterError instead of ending the host's control flow."""

from __future__ import annotations

import gc
import sys
import time

import hostside
import pytest
from conftest import new_executor

import smolagents_native.executor as executor_module
from smolagents_native import InterpreterError

LOOP = "        while True: pass\n"


@pytest.fixture
def small_budgets(monkeypatch):
    monkeypatch.setattr(executor_module, "MAX_WHILE_ITERATIONS", 10_000)
    monkeypatch.setattr(executor_module, "MAX_OPERATIONS", 1_000_000)


def bomb(method, body=LOOP, extra=""):
    return f"class B:\n    def {method}:\n{body}{extra}\nb = B()\nb"


HOST_CALLS = {
    "__repr__(self)": repr,
    "__str__(self)": str,
    "__eq__(self, o)": lambda o: o == 1,
    "__hash__(self)": hash,
    "__len__(self)": len,
    "__bool__(self)": bool,
    "__iter__(self)": list,
    "__format__(self, spec)": lambda o: format(o, "x"),
    "__lt__(self, o)": lambda o: sorted([o, o]),
    "__index__(self)": lambda o: [1, 2][o],
    "__getattr__(self, name)": lambda o: o.anything,
    "__call__(self)": lambda o: o(),
    "__contains__(self, x)": lambda o: 1 in o,
}


@pytest.mark.parametrize("method", list(HOST_CALLS))
def test_infinite_loop_in_a_hook_called_after_the_step(small_budgets, method):
    ex = new_executor(timeout=2)
    out = ex(bomb(method)).output
    t0 = time.perf_counter()
    with pytest.raises(InterpreterError, match="Maximum number of 10000 iterations"):
        HOST_CALLS[method](out)
    assert time.perf_counter() - t0 < 2
    assert ex("1 + 1").output == 2


def test_hook_windows_are_fresh_and_bounded_each_time(small_budgets):
    ex = new_executor(timeout=2)
    out = ex(bomb("__repr__(self)")).output
    for _ in range(3):
        with pytest.raises(InterpreterError):
            repr(out)


def test_hook_timeout(monkeypatch):
    monkeypatch.setattr(executor_module, "MAX_WHILE_ITERATIONS", 10**12)
    monkeypatch.setattr(executor_module, "MAX_OPERATIONS", 10**12)
    ex = new_executor(timeout=0.5)
    out = ex(bomb("__repr__(self)")).output
    t0 = time.perf_counter()
    with pytest.raises(Exception, match="maximum execution time"):
        repr(out)
    assert time.perf_counter() - t0 < 1.5


@pytest.mark.parametrize(
    "raise_", ["raise SystemExit(3)", "raise KeyboardInterrupt", "final_answer('stolen')"]
    # exception groups exist from CPython 3.11
    + (["raise BaseExceptionGroup('g', [SystemExit(1)])"] if sys.version_info >= (3, 11) else [])
)
def test_base_exceptions_raised_by_hooks_become_interpreter_errors(raise_):
    ex = new_executor()
    ex.send_tools({**hostside.SECURITY_TOOLS, "final_answer": lambda x: x})
    out = ex(bomb("__repr__(self)", body=f"        {raise_}\n")).output
    with pytest.raises(InterpreterError):
        repr(out)


def test_hooks_run_under_the_same_policy():
    ex = new_executor()
    out = ex(bomb("__repr__(self)", body="        return str(lookup.__globals__)\n")).output
    with pytest.raises(InterpreterError, match="dunder"):
        repr(out)
    out = ex(bomb("__str__(self)", body="        import os\n        return os.getcwd()\n")).output
    with pytest.raises(InterpreterError, match="Import of os is not allowed"):
        str(out)


def test_del_called_by_the_host_gc_is_bounded(small_budgets):
    ex = new_executor()
    ex("class D:\n    def __del__(self):\n        while True: pass\nd = D()")
    seen = []
    old = sys.unraisablehook
    sys.unraisablehook = lambda u: seen.append(u.exc_type)
    try:
        t0 = time.perf_counter()
        del ex.state["d"]
        gc.collect()
        assert time.perf_counter() - t0 < 2
    finally:
        sys.unraisablehook = old
    assert seen and all(issubclass(t, InterpreterError) for t in seen)


def test_generator_resumed_by_the_host_after_the_step(small_budgets):
    ex = new_executor()
    gen = ex("def g():\n    yield 1\n    while True: pass\nx = g()\nx").output
    assert next(gen) == 1
    with pytest.raises(InterpreterError, match="Maximum number of"):
        next(gen)


def test_exit_receives_no_traceback():
    ex = new_executor()
    out = ex(
        "class CM:\n"
        "    def __enter__(self): return self\n"
        "    def __exit__(self, t, v, tb):\n"
        "        self.seen = (t, tb)\n"
        "        return True\n"
        "cm = CM()\n"
        "with cm:\n"
        "    1 / 0\n"
        "cm.seen"
    ).output
    assert out == (ZeroDivisionError, None)
