"""Module namespaces never enter the code as values (docs/security.md, section 3).

The gate recognizes a namespace by its keys: `__builtins__` (some code's globals), or `__name__`
naming a loaded module whose `__dict__` it is.  Small dicts are scanned before those lookups
(csrc/policy.c, is_namespace_dict): these cases cover both sides of that scan.
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
