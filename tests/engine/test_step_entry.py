"""`Interpreter.step`: the executors' step in one C call (csrc/module/module.c).

It runs the code as `run` does, rewords a timeout as smolagents does (`from None`), and, whether
the step succeeds or fails, leaves `_print_outputs` (a PrintContainer, cut by truncate_content
when longer than the limit) and `_operations_count` in the state. These tests hold it to what
the Python it replaced did (a try/except/finally around `run`).
"""

from __future__ import annotations

import pytest

import smolagents_native.executor as executor_module
from smolagents_native import _core
from smolagents_native.errors import ExecutionTimeoutError, InterpreterError
from smolagents_native.executor import PrintContainer, truncate_content


@pytest.fixture
def interp():
    it = _core.Interpreter(
        authorized_imports=[],
        interpreter_error=InterpreterError,
        final_answer_exception=executor_module.FinalAnswerException,
        timeout_error=ExecutionTimeoutError,
    )
    it.tools = {}
    it.extra_builtins = {}
    return it


def budgets(**kw):
    kw.setdefault("timeout", None)
    return _core.Budgets(**{**executor_module._budget_defaults(), **kw})


def step(interp, code, state, limit=None, truncate=truncate_content, timeout=None, **kw):
    return interp.step(code, state, budgets(timeout=timeout, **kw), limit, PrintContainer,
                       truncate, timeout)


def test_success_leaves_the_prints_and_the_count(interp):
    state = {}
    assert step(interp, "print('a', 1)\nx = 2\nx * 3", state) == (6, False)
    printed = state["_print_outputs"]
    assert type(printed) is PrintContainer and str(printed) == "a 1\n"
    assert printed.value == "a 1\n" and len(printed) == 4
    printed += "more"  # a usable PrintContainer, although made without __init__
    assert str(printed) == "a 1\nmore"
    assert state["_operations_count"] == {"counter": interp.operations_count}
    assert state["_operations_count"]["counter"] > 0


def test_failure_leaves_them_too_and_raises_the_steps_error(interp):
    state = {"_print_outputs": "stale", "_operations_count": "stale"}
    with pytest.raises(InterpreterError, match="division by zero"):
        step(interp, "print('before')\n1 / 0", state)
    assert str(state["_print_outputs"]) == "before\n"
    assert state["_operations_count"]["counter"] > 0


def test_prints_longer_than_the_limit_are_cut_by_the_given_function(interp):
    state = {}
    step(interp, "print('x' * 50)", state, limit=20)
    assert str(state["_print_outputs"]) == truncate_content("x" * 50 + "\n", max_length=20)
    seen = []

    def cut(text, max_length):
        seen.append((text, max_length))
        return text[:max_length]

    step(interp, "print('y' * 50)", state, limit=10, truncate=cut)
    assert seen == [("y" * 50 + "\n", 10)]
    assert str(state["_print_outputs"]) == "y" * 10
    seen.clear()
    step(interp, "print('z' * 5)", state, limit=10, truncate=cut)  # short enough: not called
    step(interp, "print('z' * 50)", state, limit=None, truncate=cut)  # no limit
    assert seen == []
    assert str(state["_print_outputs"]) == "z" * 50 + "\n"


def test_an_error_of_the_record_replaces_the_steps_own_as_finally_would(interp):
    def broken(text, max_length):
        raise ValueError("cannot cut")

    state = {}
    with pytest.raises(ValueError, match="cannot cut") as info:
        step(interp, "print('w' * 50)\n1 / 0", state, limit=10, truncate=broken)
    context = info.value.__context__
    assert isinstance(context, InterpreterError) and "division by zero" in str(context)
    with pytest.raises(ValueError, match="cannot cut") as info:
        step(interp, "print('w' * 50)", state, limit=10, truncate=broken)
    assert info.value.__context__ is None
    # the interpreter is still usable
    assert step(interp, "1 + 1", state) == (2, False)


def test_a_timeout_is_worded_with_the_callers_value_from_none(interp):
    state = {}
    with pytest.raises(ExecutionTimeoutError) as info:
        step(interp, "print('t')\nwhile True:\n    pass", state, timeout=0.2,
             max_operations=10**12, max_while_iterations=10**12)
    assert str(info.value) == (
        "Code execution exceeded the maximum execution time of 0.2 seconds"
    )
    assert info.value.__suppress_context__ and info.value.__cause__ is None
    assert isinstance(info.value.__context__, ExecutionTimeoutError)  # the core's own
    assert str(state["_print_outputs"]) == "t\n"


def test_bad_arguments_are_refused_before_anything_runs(interp):
    state = {}
    b = budgets()
    with pytest.raises(TypeError, match="7 arguments"):
        interp.step("x = 1", state, b)
    with pytest.raises(TypeError, match="argument 1 must be str"):
        interp.step(b"x = 1", state, b, None, PrintContainer, truncate_content, None)
    with pytest.raises(TypeError, match="argument 2 must be dict"):
        interp.step("x = 1", [], b, None, PrintContainer, truncate_content, None)
    with pytest.raises(TypeError, match="must be a Budgets"):
        interp.step("x = 1", state, {}, None, PrintContainer, truncate_content, None)
    with pytest.raises(TypeError, match="container must be a class"):
        interp.step("x = 1", state, b, None, PrintContainer(), truncate_content, None)
    # a class without instances of its own making (no tp_new): refused, not called
    with pytest.raises(TypeError, match="container must be a class that can make"):
        interp.step("x = 1", state, b, None, type(iter([])), truncate_content, None)
    with pytest.raises(TypeError, match="max_print_outputs_length must be an int"):
        interp.step("x = 1", state, b, "10", PrintContainer, truncate_content, None)
    assert state == {}


def test_limits_past_a_machine_word_compare_as_python_ints_do(interp):
    state = {}
    step(interp, "print('v' * 50)", state, limit=10**30)
    assert str(state["_print_outputs"]) == "v" * 50 + "\n"
    seen = []
    step(interp, "print('v')", state, limit=-(10**30), truncate=lambda t, max_length: seen.append(t) or "")
    assert seen == ["v\n"]
