"""The one list of budgets (csrc/budget/budgets.def) and what is generated from it."""

from __future__ import annotations

import math
import subprocess
import sys
from pathlib import Path

import pytest

import smolagents_native._core as core
from smolagents_native import InterpreterError, LocalPythonExecutor
from smolagents_native import _budgets
from smolagents_native import executor as executor_module

ROOT = Path(__file__).resolve().parents[2]


def test_generated_files_are_up_to_date():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_budgets.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr


def test_c_table_equals_the_generated_python_table():
    assert core.BUDGETS == _budgets.BUDGETS
    names = [row[0] for row in core.BUDGETS]
    assert len(set(names)) == len(names)
    for name, default, _unit, const, _what, _msg in core.BUDGETS:
        assert getattr(executor_module, const) == default, const
        assert const in executor_module.__all__ or const in (
            "MAX_PRINT_OUTPUTS_CHARS", "MAX_RECURSION_DEPTH", "MAX_INT_BITS", "MAX_RESULT_BYTES",
        )


def test_the_doc_table_lists_every_budget():
    doc = (ROOT / "docs" / "security.md").read_text()
    table = doc[doc.index("<!-- budgets:begin -->") : doc.index("<!-- budgets:end -->")]
    for name, _d, _u, const, _w, _m in core.BUDGETS:
        assert f"`{name}`" in table and f"`{const}`" in table


def test_executor_budgets_are_copied_at_creation(monkeypatch):
    monkeypatch.setattr(executor_module, "MAX_OPERATIONS", 1000)
    ex = LocalPythonExecutor([])
    ex.send_tools({})
    # rebinding the module's globals later (as code reaching the module could) changes nothing
    monkeypatch.setattr(executor_module, "MAX_OPERATIONS", 10**12)
    monkeypatch.setattr(executor_module, "MAX_WHILE_ITERATIONS", 10**12)
    monkeypatch.setattr(executor_module, "MAX_PRINT_OUTPUTS_CHARS", None)
    with pytest.raises(InterpreterError, match="max number of operations of 1000"):
        ex("for i in range(10**6): pass")
    assert ex.budgets["max_operations"] == 1000
    assert ex.budgets["max_while_iterations"] == 1_000_000
    with pytest.raises(TypeError):
        ex.budgets["max_operations"] = 5  # read-only view
    # a new executor takes the new defaults
    ex2 = LocalPythonExecutor([])
    assert ex2.budgets["max_operations"] == 10**12


def test_constructor_arguments_override_the_copy():
    ex = LocalPythonExecutor([], max_operations=500, timeout_seconds=None)
    ex.send_tools({})
    assert ex.budgets["max_operations"] == 500 and ex.budgets["timeout"] is None
    with pytest.raises(InterpreterError, match="max number of operations of 500"):
        ex("for i in range(10**6): pass")


def _interp():
    return executor_module._new_interpreter([])


@pytest.mark.parametrize(
    "kw, exc",
    [
        ({"timeout": math.nan}, ValueError),
        ({"timeout": math.inf}, ValueError),
        ({"timeout": -1}, ValueError),
        ({"timeout": "1"}, TypeError),
        ({"max_operations": -5}, ValueError),
        ({"max_operations": 1.5}, TypeError),
        ({"max_operations": True}, TypeError),
        ({"max_generators": "x"}, TypeError),
        ({"no_such_budget": 1}, TypeError),
    ],
)
def test_run_rejects_bad_budget_values(kw, exc):
    with pytest.raises(exc):
        _interp().run("1", {}, **kw)
    with pytest.raises(exc):  # the parsed form refuses what run() refuses
        core.Budgets(**kw)


def test_budgets_object_is_the_keywords_parsed_once():
    """`_core.Budgets(**kw)` holds what run()'s keywords would configure: every budget of
    the list as an attribute (None: no limit), the same defaults, and the same effect when
    passed as run()'s third argument (how the executor runs each step)."""
    b = core.Budgets(max_operations=10, timeout=2)
    assert b.max_operations == 10 and b.timeout == 2.0 and b.max_depth is None
    for name, default, _u, _c, _w, _m in core.BUDGETS:
        if name not in ("max_operations", "timeout"):
            assert getattr(b, name) == default, name
    assert repr(b).startswith("Budgets(max_operations=10, ")
    with pytest.raises(AttributeError):
        b.max_operations = 5  # immutable: one object may serve many steps
    it = _interp()
    with pytest.raises(InterpreterError, match="max number of operations of 10"):
        it.run("for i in range(100): pass", {}, b)
    assert it.run("for i in range(100): pass\n7", {}, core.Budgets(max_operations=None)) == (
        7, False
    )
    with pytest.raises(TypeError, match="not both"):
        it.run("1", {}, b, max_operations=5)
    with pytest.raises(TypeError, match="must be a Budgets"):
        it.run("1", {}, {"max_operations": 5})
    with pytest.raises(TypeError, match="argument 2 must be dict"):
        it.run("1", [], b)
    with pytest.raises(TypeError, match="keyword arguments only"):
        core.Budgets(5)


def test_executor_sees_budget_attributes_changed_between_steps():
    """The executor parses its budgets once per configuration; changing `max_operations`,
    `max_while_iterations` or `timeout_seconds` between steps still applies at the next."""
    ex = LocalPythonExecutor([], max_operations=10_000)
    ex.send_tools({})
    assert ex("for i in range(100): pass\n1").output == 1
    ex.max_operations = 50
    with pytest.raises(InterpreterError, match="max number of operations of 50"):
        ex("for i in range(100): pass")
    ex.max_operations = None
    ex.max_while_iterations = 5
    with pytest.raises(InterpreterError, match="Maximum number of 5 iterations"):
        ex("i = 0\nwhile i < 10: i += 1")
    ex.max_while_iterations = ex.max_operations = 10**12
    ex.timeout_seconds = 0.2
    with pytest.raises(Exception, match="maximum execution time of 0.2 seconds"):
        ex("while True: pass")


def test_run_defaults_come_from_the_list():
    it = _interp()
    assert it.run("1 + 1", {}) == (2, False)
    # None: no limit (here, on the operation count)
    assert it.run("s = 0\nfor i in range(10**5):\n    s += i\ns", {}, max_operations=None)[0] == 4999950000
    with pytest.raises(InterpreterError, match="max number of operations of 10"):
        it.run("for i in range(100): pass", {}, max_operations=10)


# A program over each COUNT budget at 0, and that program's error: with the budget None the
# same program runs (None is no limit), with 0 it ends with the budget's error (0 is a limit of
# zero, for every budget alike: csrc/budget/budgets.def, one encoding of "no limit").
ZERO_CASES = {
    "max_operations": ("x = 1", "max number of operations of 0"),
    "max_while_iterations": ("i = 0\nwhile i < 1:\n    i += 1", "Maximum number of 0 iterations"),
    "max_print_len": ("print('x')", "limit of 0 characters"),
    "max_depth": ("def f():\n    return 1\nf()", "maximum recursion depth"),
    "max_int_bits": ("x = 3 ** 5", "too large"),
    "max_result_bytes": ("s = 'ab' * 3", "too large"),
    "max_generators": ("def g():\n    try:\n        yield 1\n    finally:\n        pass\n"
                       "x = g()\nnext(x)", "max number of 0 live generators"),
    "max_nesting": ("m = map(abs, map(abs, [1]))", "max nesting depth of 0"),
    "max_memory_bytes": ("b = [bytearray(1000) for _ in range(100)]", "Memory budget exceeded"),
    "max_source_bytes": ("x = 1", "more than 0 bytes of source"),
}


def test_zero_is_a_limit_and_none_is_none_for_every_count_budget():
    counts = [row[0] for row in core.BUDGETS if row[2] != "seconds"]
    assert set(ZERO_CASES) == set(counts)
    for name in counts:
        code, message = ZERO_CASES[name]
        assert getattr(core.Budgets(**{name: 0}), name) == 0
        assert getattr(core.Budgets(**{name: None}), name) is None
        assert getattr(core.Budgets(**{name: 2**80}), name) is None  # beyond any: none
        none = core.Budgets(**{"timeout": None, name: None})
        _interp().run(code, {}, none)  # runs
        zero = core.Budgets(**{"timeout": None, name: 0})
        with pytest.raises((InterpreterError, RecursionError), match=message):
            _interp().run(code, {}, zero)
