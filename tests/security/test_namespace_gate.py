"""Module namespaces never enter the code as values (docs/security.md, section 3).

The gate recognizes a namespace by its keys: `__builtins__` (some code's globals), or `__name__`
naming a loaded module whose `__dict__` it is.  Small dicts are scanned before those lookups
(csrc/guard/policy.c, is_namespace_dict): these cases cover both sides of that scan.
"""

from __future__ import annotations

import sys
import types

import pytest
from conftest import refused

from smolagents_native import LocalPythonExecutor


def executor_with(value):
    ex = LocalPythonExecutor(additional_authorized_imports=[], timeout_seconds=5)
    ex.send_tools({"get": lambda: value})
    return ex


def small_module_dict():
    mod = types.ModuleType("snx_gate_probe")
    sys.modules["snx_gate_probe"] = mod
    assert len(mod.__dict__) <= 8
    return mod.__dict__


NAMESPACES = {
    "globals_one_key": lambda: {"__builtins__": {}},
    "globals_small": lambda: {"__builtins__": {}, "x": 1, "y": 2},
    "globals_large": lambda: {"__builtins__": {}, **{f"k{i}": i for i in range(20)}},
    "small_module_dict": small_module_dict,
    "large_module_dict": lambda: sys.modules["json"].__dict__,
}


@pytest.mark.parametrize("name", sorted(NAMESPACES))
def test_namespaces_are_refused(name):
    ns = NAMESPACES[name]()
    before = dict(ns)
    ex = executor_with(ns)
    refused(ex, "d = get()\nd['x'] = 2", match="namespace")
    assert ns == before


@pytest.mark.parametrize(
    "value",
    [
        {},
        {"a": 1},
        {"_abcdefg": 1, "_abcdefghijk": 2},  # the lengths of both keys: looked up, not found
        {"__name__": "json"},  # a __name__, but not that module's dict
        {1: 2, (3,): 4},
        {f"k{i}": i for i in range(20)},
    ],
)
def test_ordinary_dicts_pass(value):
    ex = executor_with(value)
    assert ex("d = get()\nlen(d)").output == len(value)


# The gate's "no" is remembered for the dict's state (its PEP 509 version tag, up to 3.13; the
# module table's tag too): a dict that passed and then became a namespace, or a new dict at a
# freed one's address, is checked again.


def test_a_dict_that_passed_is_refused_once_it_holds_builtins():
    d = {"a": 1}
    ex = LocalPythonExecutor(additional_authorized_imports=[], timeout_seconds=5)
    ex.send_tools({"get": lambda: d, "poison": lambda: d.__setitem__("__builtins__", {})})
    assert ex("n = 0\nfor _ in range(50):\n    n += len(get())\nn").output == 50
    refused(ex, "poison()\nget()", match="namespace")
    assert ex("1 + 1").output == 2


def test_a_module_dict_that_passed_is_refused_once_its_module_is_loaded():
    mod = types.ModuleType("snx_gate_late")
    ex = LocalPythonExecutor(additional_authorized_imports=[], timeout_seconds=5)
    ex.send_tools(
        {"get": lambda: mod.__dict__, "load": lambda: sys.modules.__setitem__("snx_gate_late", mod)}
    )
    try:
        assert ex("for _ in range(50):\n    d = get()\nlen(d)").output == len(mod.__dict__)
        refused(ex, "load()\nget()", match="namespace")
    finally:
        sys.modules.pop("snx_gate_late", None)


def test_fresh_dicts_at_reused_addresses_are_checked_each():
    made = []

    def fresh():
        made.append(None)
        # the code drops each before it asks for the next: CPython's free list hands the
        # next dict the same address
        return {"__builtins__": None} if len(made) == 300 else {"a": 1}

    ex = LocalPythonExecutor(additional_authorized_imports=[], timeout_seconds=5)
    ex.send_tools({"fresh": fresh})
    refused(ex, "for i in range(1000):\n    d = fresh()\n    len(d)\n    del d", match="namespace")
    assert len(made) == 300


def test_an_instance_dict_that_passed_is_refused_once_host_code_gives_it_builtins():
    # on 3.13 a store through the object into its materialized __dict__ leaves the dict's
    # version tag as it was: such dicts are checked every time
    ex = LocalPythonExecutor(additional_authorized_imports=[], timeout_seconds=5)
    ex.send_tools({"poke": lambda o: setattr(o, "__builtins__", {})})
    code = "class C:\n    pass\no = C()\no.a = 1\nfor _ in range(50):\n    d = o.__dict__\nlen(d)"
    assert ex(code).output == 1
    refused(ex, "poke(o)\no.__dict__", match="namespace")
