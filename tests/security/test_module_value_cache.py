"""An Attribute node remembers the value a module gave it (csrc/eval/eval_expr.c, module_attr_load).

The node keeps the module's value for its name while the module's dict is unchanged (its PEP
509 version up to 3.11, a dict watcher from 3.12) and the budget window is the one that let the
value through. These tests change the module's dict between two loads of one node -- from a
tool in the middle of a step, and from the host between steps -- and check that the node sees
the new value and that a value the gate refuses stays refused.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys
import types

import pytest
from conftest import refused

from smolagents_native import LocalPythonExecutor

# the probe module lives in this process: the executor runs here too (an unknown module would
# otherwise make process isolation the default, docs/isolation.md)

MOD = "snx_module_value_probe"

pytestmark = pytest.mark.filterwarnings("ignore:isolation='none' with snx_module_value_probe")


@pytest.fixture
def probe():
    mod = types.ModuleType(MOD)
    mod.__spec__ = importlib.machinery.ModuleSpec(MOD, None)
    mod.f = len
    mod.k = 1
    sys.modules[MOD] = mod
    yield mod
    del sys.modules[MOD]


def executor(probe, **tools):
    ex = LocalPythonExecutor(
        additional_authorized_imports=[MOD], timeout_seconds=5, isolation="none"
    )
    ex.send_tools(tools)
    return ex


def swapper(probe, name, value):
    def swap():
        setattr(probe, name, value)
        return None

    return swap


@pytest.mark.parametrize("form", ["v = m.f", "v = m.f('ab')"])
def test_a_dangerous_value_put_in_the_module_mid_step_is_refused(probe, form):
    ex = executor(probe, swap=swapper(probe, "f", os.system))
    code = f"import {MOD} as m\nfor i in range(6):\n    if i == 4:\n        swap()\n    {form}\n"
    refused(ex, code, match="Forbidden")
    assert probe.f is os.system  # the swap happened: the refusal is the gate's


@pytest.mark.parametrize("form", ["v = m.f", "v = m.f('ab')"])
def test_a_dangerous_value_put_in_the_module_between_steps_is_refused(probe, form):
    ex = executor(probe)
    assert ex(f"import {MOD} as m\nfor i in range(3):\n    {form}\nv").output in (len, 2)
    probe.f = os.system
    refused(ex, f"import {MOD} as m\nfor i in range(3):\n    {form}\n", match="Forbidden")


def test_the_node_sees_every_new_value(probe):
    values = iter([abs, max, min, sum, sorted, 5, "s", None])

    def swap():
        probe.f = next(values)
        return None

    ex = executor(probe, swap=swap)
    out = ex(
        f"import {MOD} as m\nseen = []\nfor i in range(16):\n    if i % 2:\n        swap()\n"
        "    seen.append(m.f)\nseen"
    ).output
    assert out == [len, abs, abs, max, max, min, min, sum, sum, sorted, sorted, 5, 5, "s", "s", None]


def test_a_deleted_value_raises_attribute_error(probe):
    def drop():
        del probe.k
        return None

    ex = executor(probe, drop=drop)
    out = ex(
        f"import {MOD} as m\nr = []\nfor i in range(4):\n    if i == 2:\n        drop()\n"
        "    try:\n        r.append(m.k)\n    except AttributeError:\n        r.append('gone')\nr"
    ).output
    assert out == [1, 1, "gone", "gone"]


def test_a_value_a_tool_exempted_is_refused_once_the_tool_is_gone(probe):
    probe.f = os.system
    ex = executor(probe, system=os.system)
    code = f"import {MOD} as m\nfor i in range(3):\n    v = m.f\n"  # one program, one node
    ex(code)
    assert ex.state["v"] is os.system
    ex.send_tools({})
    refused(ex, code, match="Forbidden")


def test_a_value_refused_now_but_replaced_since_is_not_held_against_the_step(probe):
    probe.f = os.system
    ex = executor(probe, system=os.system)
    code = f"import {MOD} as m\nfor i in range(3):\n    v = m.f\n"
    ex(code)
    ex.send_tools({})
    probe.f = len
    ex(code)
    assert ex.state["v"] is len


def test_tools_changed_in_the_middle_of_a_step_are_seen_by_a_warm_site(probe):
    # only the core's own Interpreter lets the host change the tools during a step (the
    # executor's send_tools takes effect at the next one); found by a red-team pass
    from smolagents_native import _core

    probe.f = os.system
    it = _core.Interpreter(
        authorized_imports=[MOD],
        interpreter_error=RuntimeError,
        final_answer_exception=BaseException,
        timeout_error=TimeoutError,
    )

    def drop():
        it.tools = {}

    it.tools = {"system": os.system, "drop": drop}
    it.extra_builtins = {}
    state = {}
    with pytest.raises(RuntimeError, match="Forbidden access to function"):
        it.run(f"import {MOD} as m\nfor i in range(5):\n    if i == 3:\n        drop()\n    v = m.f\n",
               state)
    assert state.get("v") is os.system  # the warm loads before the drop passed
