"""`patch_smolagents()` / `unpatch_smolagents()`: what they replace, idempotence,
reversibility, thread safety."""

from __future__ import annotations

import threading

import pytest

pytest.importorskip("smolagents")

import smolagents  # noqa: E402
from smolagents import agents as smol_agents  # noqa: E402
from smolagents import default_tools as smol_tools  # noqa: E402
from smolagents import local_python_executor as smol  # noqa: E402

import smolagents_native  # noqa: E402
from smolagents_native import compat  # noqa: E402
from smolagents_native import executor as ours  # noqa: E402

ORIGINAL = {
    (smol_agents, "LocalPythonExecutor"): smol_agents.LocalPythonExecutor,
    (smol_tools, "evaluate_python_code"): smol_tools.evaluate_python_code,
    (smol, "LocalPythonExecutor"): smol.LocalPythonExecutor,
    (smol, "evaluate_python_code"): smol.evaluate_python_code,
    (smolagents, "LocalPythonExecutor"): smolagents.LocalPythonExecutor,
    (smolagents, "evaluate_python_code"): smolagents.evaluate_python_code,
}


@pytest.fixture(autouse=True)
def _always_unpatched():
    smolagents_native.unpatch_smolagents()
    yield
    smolagents_native.unpatch_smolagents()
    for (module, name), value in ORIGINAL.items():
        assert getattr(module, name) is value, f"{module.__name__}.{name} left patched"


def test_patch_replaces_every_entry_point_and_unpatch_restores_them():
    assert smolagents_native.patch_smolagents() is True
    assert compat.is_smolagents_patched()
    for module, name in ORIGINAL:
        assert getattr(module, name) is getattr(ours, name), (module.__name__, name)
    assert smolagents_native.unpatch_smolagents() is True
    assert not compat.is_smolagents_patched()
    for (module, name), value in ORIGINAL.items():
        assert getattr(module, name) is value


def test_patch_and_unpatch_are_idempotent():
    assert smolagents_native.unpatch_smolagents() is False
    assert smolagents_native.patch_smolagents() is True
    assert smolagents_native.patch_smolagents() is False
    assert smol_agents.LocalPythonExecutor is ours.LocalPythonExecutor
    assert smolagents_native.unpatch_smolagents() is True
    assert smolagents_native.unpatch_smolagents() is False
    assert smol_agents.LocalPythonExecutor is ORIGINAL[(smol_agents, "LocalPythonExecutor")]


def test_code_agent_default_executor_is_ours_only_while_patched():
    from smolagents import CodeAgent
    from smolagents.models import Model

    model = Model(model_id="unused")
    smolagents_native.patch_smolagents()
    patched = CodeAgent(tools=[], model=model, verbosity_level=-1,
                        additional_authorized_imports=["json"], max_print_outputs_length=77)
    smolagents_native.unpatch_smolagents()
    plain = CodeAgent(tools=[], model=model, verbosity_level=-1)
    assert type(patched.python_executor) is ours.LocalPythonExecutor
    assert "json" in patched.python_executor.authorized_imports
    assert patched.python_executor.max_print_outputs_length == 77
    assert type(plain.python_executor) is ORIGINAL[(smol, "LocalPythonExecutor")]
    # The executor built while patched stays ours after unpatching.
    out = patched.python_executor("import json\njson.dumps([1])")
    assert out.output == "[1]"


def test_python_interpreter_tool_uses_our_evaluator_while_patched():
    from smolagents.default_tools import PythonInterpreterTool

    smolagents_native.patch_smolagents()
    tool = PythonInterpreterTool(authorized_imports=["json"])
    smolagents_native.unpatch_smolagents()
    assert tool.python_evaluator is ours.evaluate_python_code
    # CPython semantics (smolagents' walker never runs a loop's else clause).
    result = tool("for i in range(2):\n    pass\nelse:\n    print('else ran')\nx = i * 10\nx")
    assert result == "Stdout:\nelse ran\n\nOutput: 10"
    original = ORIGINAL[(smol_tools, "evaluate_python_code")]
    assert PythonInterpreterTool().python_evaluator is original


def test_smolagents_own_executor_class_runs_ours_while_patched():
    their_class = ORIGINAL[(smol, "LocalPythonExecutor")]
    ex = their_class([])
    ex.send_tools({})
    smolagents_native.patch_smolagents()
    try:
        # Its __call__ looks evaluate_python_code up in its module: ours now. `nonlocal`
        # is refused by smolagents' walker and supported here.
        out = ex("def f():\n    n = 1\n    def g():\n        nonlocal n\n        n += 1\n"
                 "    g()\n    return n\nf()")
        assert out.output == 2
    finally:
        smolagents_native.unpatch_smolagents()
    ex = their_class([])
    ex.send_tools({})
    with pytest.raises(smol.InterpreterError, match="Nonlocal is not supported"):
        ex("def f():\n    n = 1\n    def g():\n        nonlocal n\n    g()\nf()")


def test_unpatch_leaves_a_later_replacement_alone(monkeypatch):
    smolagents_native.patch_smolagents()

    class Other:
        pass

    smol_agents.LocalPythonExecutor = Other
    smolagents_native.unpatch_smolagents()
    assert smol_agents.LocalPythonExecutor is Other
    smol_agents.LocalPythonExecutor = ORIGINAL[(smol_agents, "LocalPythonExecutor")]
    assert smol.LocalPythonExecutor is ORIGINAL[(smol, "LocalPythonExecutor")]


def test_patch_is_thread_safe():
    results = []
    barrier = threading.Barrier(8)

    def worker(i):
        barrier.wait()
        results.append(smolagents_native.patch_smolagents() if i % 2 == 0
                       else smolagents_native.unpatch_smolagents())

    for _ in range(20):
        smolagents_native.unpatch_smolagents()
        threads = [threading.Thread(target=worker, args=(i,)) for i in range(8)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        # Whatever the interleaving, the state is all-patched or all-original.
        patched = compat.is_smolagents_patched()
        for (module, name), value in ORIGINAL.items():
            current = getattr(module, name)
            assert current is (getattr(ours, name) if patched else value)
    assert any(results) and not all(results)
