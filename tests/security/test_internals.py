"""Internals are not values: counters, the print buffer, the authorized list and the tools live
in C; what callers see in `state` are copies written after the step."""

from __future__ import annotations

import pytest
from conftest import new_executor, refused

import smolagents_native.executor as executor_module
from smolagents_native import InterpreterError


def test_operation_counter_cannot_be_reset_by_the_code(monkeypatch):
    monkeypatch.setattr(executor_module, "MAX_OPERATIONS", 50_000)
    ex = new_executor()
    ex("_operations_count = {'counter': -10**9}\n_operations_count['counter'] = -10**9")
    assert ex.state["_operations_count"]["counter"] > 0
    # a fresh step still has exactly its budget, whatever the state says
    with pytest.raises(InterpreterError, match="max number of operations of 50000"):
        ex("_operations_count['counter'] = -10**9\nfor i in range(10**6): pass")


def test_print_outputs_are_a_copy():
    ex = new_executor()
    ex("print('one')\n_print_outputs = 'forged'")
    assert str(ex.state["_print_outputs"]) == "one\n"
    # the container is the host's: writing its attributes is refused
    refused(ex, "_print_outputs.value = 'forged'", match="not created by the code")
    out = ex("print('two')")
    assert out.logs == "two\n"


def test_editing_the_state_copies_changes_nothing_in_the_next_step(monkeypatch):
    monkeypatch.setattr(executor_module, "MAX_PRINT_OUTPUTS_CHARS", 1000)
    ex = new_executor()
    ex("_print_outputs = ''\n_operations_count = {'counter': 0}")
    with pytest.raises(InterpreterError, match="Print outputs exceeded"):
        ex("for i in range(100): print('x' * 50)")


def test_tools_getter_returns_a_copy():
    ex = new_executor()
    ex._sync()
    tools = ex._interp.tools
    tools.clear()
    refused(ex, "lookup = 1", match="Cannot assign")


def test_authorized_imports_getter_returns_a_copy():
    ex = new_executor()
    ex._sync()
    lst = ex._interp.authorized_imports
    lst.append("os")
    refused(ex, "import os", match="not allowed")


def test_guarded_builtins_do_not_lead_to_the_interpreter():
    ex = new_executor()
    for code in ["print.__self__", "getattr.__self__", "getattr(print, '__self__')",
                 "'{0.__self__}'.format(print)", "type(print).__self__"]:
        refused(ex, code, match="dunder")
    assert ex("type(print).__name__").output == "builtin_function_or_method"


def test_class_attribute_is_harmless():
    # `x.__class__` is allowed: it is `type(x)`, which the code has anyway, and every
    # attribute of a class is behind the same choke point
    ex = new_executor()
    assert ex("(1).__class__ is type(1)").output is True
    # __base__ is a reviewed read (csrc/guard/dunders.c); what lies beyond stays refused
    refused(ex, "(1).__class__.__base__.__subclasses__()", match="dunder")
    refused(ex, "(1).__class__.mro()", match="internal")


def test_state_given_by_the_host_is_shared_but_not_its_internals():
    ex = new_executor()
    data = {"k": [1, 2]}
    ex.send_variables({"data": data})
    ex("data['k'].append(3)")
    assert data["k"] == [1, 2, 3]  # the code may mutate what it was given
    refused(ex, "data.__class__.__subclasses__()", match="dunder")


def test_classes_of_the_host_main_are_read_only(monkeypatch):
    import sys

    main = sys.modules["__main__"]
    cls = type("HostMainTool", (), {"__module__": "__main__", "forward": lambda self: "ok"})
    monkeypatch.setattr(main, "HostMainTool", cls, raising=False)
    ex = new_executor()
    ex.send_variables({"t": cls()})
    refused(ex, "type(t).forward = lambda self: 'pwned'", match="not defined by the code")
    assert cls().forward() == "ok"
    # the code's own classes stay writable
    assert ex("class A:\n    n = 0\nA.n += 1\nA.n").output == 1


def test_code_classes_are_writable_whatever_the_state_name():
    from smolagents_native import evaluate_python_code

    assert evaluate_python_code("class A: pass\nA.x = 1\nA.x", state={"__name__": "job"})[0] == 1
