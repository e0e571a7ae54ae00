"""The process executor drives smolagents' CodeAgent and our own CodeAgent end to end."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

pytest.importorskip("smolagents")

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "compat"))
import test_smolagents_agent as scripted  # noqa: E402
from smolagents import CodeAgent  # noqa: E402

from smolagents_native import LocalPythonExecutor  # noqa: E402


def test_smolagents_code_agent_with_process_executor(pool):
    model = scripted.ScriptedChatModel(scripted.REPLIES)
    with LocalPythonExecutor([], isolation="process", pool=pool) as executor:
        agent = CodeAgent(tools=[scripted.multiply], model=model, executor=executor,
                          verbosity_level=-1, max_steps=6)
        assert agent.python_executor is executor
        scripted._check_run(agent, model)


def test_own_code_agent_with_process_executor(pool):
    from smolagents_native import CodeAgent as OwnAgent
    from smolagents_native import ScriptedModel

    calls = []

    def lookup(key: str) -> str:
        """Host-side lookup.

        Args:
            key: the key
        """
        calls.append(key)
        return {"capital": "Paris"}[key]

    model = ScriptedModel([
        "Thought: look it up.\n<code>\ncity = lookup('capital')\nprint(city)\n</code>",
        "Thought: done.\n<code>\nfinal_answer(city + '!')\n</code>",
    ])
    with LocalPythonExecutor([], isolation="process", pool=pool) as executor:
        agent = OwnAgent(tools=[lookup], model=model, executor=executor, max_steps=4)
        result = agent.run("What is the capital?")
    assert result.finished and result.final_answer == "Paris!"
    assert calls == ["capital"]
