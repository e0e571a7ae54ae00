"""A budget means the same in process and in a worker: the worker runs with the host
executor's budgets (its copy of the module's constants, made when it was created, and its
budget attributes as they are at each step), never with the worker's own defaults.

Every budget of the table (`_budgets.BUDGETS`) is lowered on the host below what a program
needs, and the program must end with the same error in both modes."""

from __future__ import annotations

import re

import pytest

from smolagents_native import LocalPythonExecutor, executor
from smolagents_native._budgets import BUDGETS
from smolagents_native.errors import ExecutionTimeoutError, InterpreterError

GENERATOR_ON_ITS_STACK = (
    "def g():\n    try:\n        yield 1\n    finally:\n        pass\n"
    "gs = [g() for _ in range(8)]\n[next(x) for x in gs]"
)

# budget -> (the constant's lowered value or a constructor argument, a program over it)
CASES = {
    "max_operations": ({"MAX_OPERATIONS": 2_000}, "for i in range(100_000):\n    pass"),
    "max_while_iterations": ({"MAX_WHILE_ITERATIONS": 50},
                             "i = 0\nwhile i < 1000:\n    i += 1"),
    "timeout": ({"timeout_seconds": 1}, "while True:\n    pass"),
    "max_print_len": ({"MAX_PRINT_OUTPUTS_CHARS": 100}, "print('x' * 1000)"),
    "max_depth": ({"MAX_RECURSION_DEPTH": 40},
                  "def f(n):\n    return 0 if n == 0 else 1 + f(n - 1)\nf(200)"),
    "max_int_bits": ({"MAX_INT_BITS": 1_000}, "x = 3 ** 5000"),
    "max_result_bytes": ({"MAX_RESULT_BYTES": 10_000}, "s = 'ab' * 100_000"),
    "max_generators": ({"MAX_GENERATORS": 3}, GENERATOR_ON_ITS_STACK),
    "max_nesting": ({"MAX_NESTING": 20},
                    "m = [1]\nfor _ in range(100):\n    m = map(abs, m)"),
    "max_memory_bytes": ({"max_memory_bytes": 20_000_000}, "b = [bytearray(1000) for _ in "
                         "range(100_000)]"),
    "max_source_bytes": ({"max_source_bytes": 200}, "x = 1\n" * 100),
}


def test_every_budget_has_a_case():
    assert set(CASES) == {row[0] for row in BUDGETS}


def _outcome(ex, code):
    try:
        return "ok", ex(code).output
    except ExecutionTimeoutError as exc:
        return "timeout", str(exc)
    except InterpreterError as exc:
        return "error", str(exc)


@pytest.mark.parametrize("budget", list(CASES))
def test_a_budget_lowered_on_the_host_holds_in_the_worker(budget, monkeypatch, pool):
    settings, code = CASES[budget]
    kwargs = {"timeout_seconds": 20}
    for name, value in settings.items():
        if name.isupper():
            monkeypatch.setattr(executor, name, value)  # as a host configures its module
        else:
            kwargs[name] = value
    inproc = LocalPythonExecutor([], isolation="none", **kwargs)
    inproc.send_tools({})
    with LocalPythonExecutor([], isolation="process", pool=pool, **kwargs) as proc:
        proc.send_tools({})
        assert proc.budgets == inproc.budgets
        want = _outcome(inproc, code)
        got = _outcome(proc, code)
    assert want[0] != "ok", (budget, want)  # the program is over the lowered budget
    assert got[0] == want[0], (budget, got, want)
    # the same budget named in the message (the worker's may add the memory limit's note;
    # the size of the allocation the memory budget refused is the process's own)
    assert _message(got[1]) == _message(want[1]), budget


def _message(text):
    text = text.split(" (the worker")[0]
    return re.sub(r"an allocation of \d+ bytes", "an allocation of N bytes", text)


def test_budget_attributes_changed_after_creation_apply_in_the_worker(pool):
    with LocalPythonExecutor([], isolation="process", pool=pool) as proc:
        proc.send_tools({})
        assert proc("for i in range(5000):\n    pass\ni").output == 4999
        proc.max_operations = 1_000
        with pytest.raises(InterpreterError, match="max number of operations of 1000"):
            proc("for i in range(5000):\n    pass")
        proc.max_operations = None
        proc.max_while_iterations = 10
        with pytest.raises(InterpreterError, match="10 iterations in While loop"):
            proc("i = 0\nwhile i < 100:\n    i += 1")
        proc.max_while_iterations = None
        assert proc("i = 0\nwhile i < 100:\n    i += 1\ni").output == 100
