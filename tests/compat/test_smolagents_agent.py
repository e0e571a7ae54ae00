"""A smolagents `CodeAgent` run of several steps, driven by a scripted model, with our
executor: once passed as `executor=`, once through `patch_smolagents()` (the default
`executor_type="local"`). Tools, prints, a failing step whose error reaches the model, state
kept between steps, and `final_answer`.
"""

from __future__ import annotations

import pytest

pytest.importorskip("smolagents")

from smolagents import CodeAgent, tool  # noqa: E402
from smolagents import local_python_executor as smol  # noqa: E402
from smolagents.memory import ActionStep  # noqa: E402
from smolagents.models import ChatMessage, MessageRole, Model  # noqa: E402

import smolagents_native  # noqa: E402
from smolagents_native import LocalPythonExecutor, patch_smolagents, unpatch_smolagents  # noqa: E402


@tool
def multiply(a: int, b: int) -> int:
    """Multiplies two integers.

    Args:
        a: the first factor
        b: the second factor
    """
    return a * b


class ScriptedChatModel(Model):
    """A smolagents Model that answers with canned replies and records what it was sent."""

    def __init__(self, replies):
        super().__init__(model_id="scripted")
        self.replies = list(replies)
        self.seen: list[str] = []

    def generate(self, messages, stop_sequences=None, response_format=None,
                 tools_to_call_from=None, **kwargs):
        self.seen.append("\n".join(_text(m) for m in messages))
        return ChatMessage(role=MessageRole.ASSISTANT, content=self.replies.pop(0))


def _text(message) -> str:
    content = message.content if hasattr(message, "content") else message["content"]
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if isinstance(part, dict))
    return str(content or "")


def _reply(code: str) -> str:
    return f"Thought: next step.\n<code>\n{code}\n</code>"


REPLIES = [
    _reply("product = multiply(6, 7)\nprint('product is', product)\nseen = [product]"),
    _reply("print('about to fail')\nlookup = {'a': 1}\nlookup['missing']"),
    _reply("try:\n    lookup['missing']\nexcept KeyError as e:\n    print('caught', repr(e))\n"
           "seen.append(len(seen))\nseen"),
    _reply("final_answer(f'{product} and {seen}')"),
]
ERROR_TEXT = "Code execution failed at line 'lookup['missing']' due to: KeyError: 'missing'"


def _check_run(agent, model):
    answer = agent.run("Multiply 6 by 7.")
    assert answer == "42 and [42, 1]"
    assert isinstance(agent.python_executor, smolagents_native.LocalPythonExecutor)

    steps = [s for s in agent.memory.steps if isinstance(s, ActionStep)]
    assert len(steps) == 4
    first, failing, third, last = steps

    assert first.error is None
    assert "Execution logs:\nproduct is 42\n" in first.observations
    assert "Last output from code snippet:\n[42]" in first.observations

    # The failing step: prints made before the failure are observed, the error is recorded...
    assert failing.observations == "Execution logs:\nabout to fail\n"
    assert failing.error is not None and ERROR_TEXT in str(failing.error)
    # ... and reaches the model in the next request.
    assert ERROR_TEXT in model.seen[2]
    assert "about to fail" in model.seen[2]

    # CPython semantics inside the code: the KeyError is catchable as a KeyError.
    assert "caught KeyError('missing')" in third.observations
    assert "Last output from code snippet:\n[42, 1]" in third.observations

    assert last.is_final_answer and last.action_output == "42 and [42, 1]"
    # State kept between steps, print/op entries present.
    state = agent.python_executor.state
    assert state["product"] == 42 and state["seen"] == [42, 1]
    assert "_print_outputs" in state and "_operations_count" in state


def test_code_agent_with_executor_argument():
    model = ScriptedChatModel(REPLIES)
    executor = LocalPythonExecutor(additional_authorized_imports=[])
    agent = CodeAgent(tools=[multiply], model=model, executor=executor, verbosity_level=-1,
                      max_steps=6)
    assert agent.python_executor is executor
    _check_run(agent, model)


def test_code_agent_through_patch_smolagents():
    patch_smolagents()
    try:
        model = ScriptedChatModel(REPLIES)
        agent = CodeAgent(tools=[multiply], model=model, verbosity_level=-1, max_steps=6,
                          executor_kwargs={"max_operations": 1_000_000})
        assert type(agent.python_executor) is smolagents_native.LocalPythonExecutor
        assert agent.python_executor.max_operations == 1_000_000
        _check_run(agent, model)
    finally:
        unpatch_smolagents()
    agent = CodeAgent(tools=[], model=ScriptedChatModel([]), verbosity_level=-1)
    assert type(agent.python_executor) is smol.LocalPythonExecutor


def test_unauthorized_import_reaches_the_model():
    model = ScriptedChatModel([_reply("import os\nos.listdir('/')"),
                               _reply("final_answer('gave up')")])
    agent = CodeAgent(tools=[], model=model, executor=LocalPythonExecutor([]),
                      verbosity_level=-1, max_steps=3)
    assert agent.run("List files.") == "gave up"
    assert "Import of os is not allowed. Authorized imports are:" in model.seen[1]
