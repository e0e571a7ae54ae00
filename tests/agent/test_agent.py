"""The agent loop (smolagents_native.agent) end to end with the scripted model."""

from __future__ import annotations

import pytest

from smolagents_native.agent import CodeAgent, RunResult, StepRecord, extract_code, render_tool
from smolagents_native.models import ModelError, ScriptedModel

# Slow per operation, so the deadline (not the 10-million operation budget, which a fast
# machine reaches in well under a second on a bare loop) ends it.
SLOW_LOOP = "for i in range(10**6):\n    y = sorted(range(20000), reverse=True)\n"


def fence(code: str, lang: str = "python") -> str:
    return f"Thought: go.\n```{lang}\n{code}\n```"


def get_price(item: str, quantity: int = 1) -> float:
    """Price of `quantity` units of an item from the shop.

    Args:
        item: the item's name, e.g. "apple".
        quantity: how many units.
    """
    prices = {"apple": 0.5, "pear": 0.75}
    return prices[item] * quantity


# ---------------------------------------------------------------------------------------------
# Code extraction


@pytest.mark.parametrize(
    "reply, expected",
    [
        ("Thought: x\n```python\nx = 1\n```", "x = 1"),
        ("```py\nx = 2\n```", "x = 2"),
        ("```\nx = 3\n```", "x = 3"),
        ("```Python3\nx = 4\n```", "x = 4"),
        ("Thought: x\n<code>\nx = 5\n</code>", "x = 5"),
        ("<code>\n```python\nx = 6\n```\n</code>", "x = 6"),
        # Left open (a stop sequence cut the closing tag / fence).
        ("Thought:\n<code>\nx = 7\n", "x = 7"),
        ("Thought:\n```python\nx = 8\n", "x = 8"),
        # smolagents' old end marker.
        ("```py\nx = 9\n```<end_code>", "x = 9"),
        # Indented block (e.g. inside a list item) is dedented.
        ("1. do\n   ```python\n   if True:\n       x = 10\n   ```", "if True:\n    x = 10"),
    ],
)
def test_extract_code_formats(reply, expected):
    assert extract_code(reply) == expected


def test_extract_code_first_block_wins():
    reply = "```python\na = 1\n```\nObservation: 1\n```python\nb = 2\n```"
    assert extract_code(reply) == "a = 1"


def test_extract_code_code_tags_win_over_fences():
    reply = "```python\na = 1\n```\n<code>\nb = 2\n</code>"
    assert extract_code(reply) == "b = 2"


def test_extract_code_skips_other_languages():
    reply = "```text\nnot code\n```\n```json\n{}\n```\n```python\nc = 3\n```"
    assert extract_code(reply) == "c = 3"


def test_extract_code_none():
    assert extract_code("The answer is 42.") is None
    assert extract_code("```text\nhello\n```") is None
    assert extract_code("```python\n\n```") is None


def test_extract_code_longer_fence_holds_backticks():
    reply = "````python\ns = '```'\nprint(s)\n````"
    assert extract_code(reply) == "s = '```'\nprint(s)"


# ---------------------------------------------------------------------------------------------
# Tools and prompt


class ForwardOnlyTool:
    """A smolagents-style Tool object that is not callable (only forward)."""

    name = "weather"
    description = "Current weather of a city."
    inputs = {
        "city": {"type": "string", "description": "the city"},
        "unit": {"type": "string", "description": "C or F", "nullable": True},
    }
    output_type = "string"

    def forward(self, city, unit=None):
        return f"sunny in {city} ({unit or 'C'})"


class CallableTool(ForwardOnlyTool):
    name = "shout"
    description = "Upper-cases a text."
    inputs = {"text": {"type": "string", "description": "the text"}}

    def __call__(self, *args, **kwargs):
        return self.forward(*args, **kwargs)

    def forward(self, text):
        return text.upper()


def test_render_function_tool():
    text = render_tool(get_price)
    assert text.startswith("def get_price(item: str, quantity: int = 1) -> float:")
    assert "Price of `quantity` units" in text
    assert "item: the item's name" in text


def test_render_tool_object():
    text = render_tool(ForwardOnlyTool())
    assert text.startswith("def weather(city: str, unit: str = None) -> str:")
    assert "Current weather of a city." in text
    assert "city: the city" in text


def test_system_prompt_lists_tools_and_imports():
    agent = CodeAgent([get_price], ScriptedModel(["x"]), additional_authorized_imports=["json"])
    prompt = agent.system_prompt
    assert "def get_price(item: str, quantity: int = 1) -> float:" in prompt
    assert "def final_answer(answer: Any) -> Any:" in prompt
    assert "json" in prompt and "math" in prompt
    assert "{tools}" not in prompt and "{authorized_imports}" not in prompt


def test_custom_system_prompt_placeholders():
    agent = CodeAgent(
        [get_price],
        ScriptedModel(["x"]),
        system_prompt="Tools:\n{tools}\nImports: {authorized_imports}\n{other}",
    )
    prompt = agent.system_prompt
    assert "def get_price(" in prompt
    assert "Imports: collections," in prompt
    assert prompt.endswith("{other}")  # only the two placeholders are filled


def test_invalid_tools_rejected():
    with pytest.raises(ValueError, match="not a valid Python identifier"):
        CodeAgent({"not valid": get_price}, ScriptedModel(["x"]))
    with pytest.raises(TypeError):
        CodeAgent([42], ScriptedModel(["x"]))
    with pytest.raises(ValueError, match="Two tools"):
        CodeAgent([get_price, get_price], ScriptedModel(["x"]))
    with pytest.raises(TypeError, match="needs a model"):
        CodeAgent([get_price], None)


# ---------------------------------------------------------------------------------------------
# The loop


def test_run_tool_error_corrected_then_final_answer():
    model = ScriptedModel(
        [
            fence("total = get_price('banana', 3)\nprint(total)"),  # KeyError from the tool
            fence("total = get_price('apple', 3)\nprint('total', total)\ntotal"),
            "Thought: done.\n<code>\nfinal_answer(f'{total:.2f} EUR')\n</code>",
        ]
    )
    seen: list[StepRecord] = []
    agent = CodeAgent([get_price], model, step_callbacks=[seen.append])
    result = agent.run("What do 3 apples cost?")

    assert isinstance(result, RunResult)
    assert result.finished is True
    assert result.stop_reason == "final_answer"
    assert result.final_answer == "1.50 EUR"
    assert [s.step_number for s in result.steps] == [1, 2, 3]
    assert seen == result.steps  # callback called once per step, in order
    assert result.duration >= sum(s.execution_duration for s in result.steps)
    assert "3 steps" in result.message and "1.50 EUR" in result.message

    failed, fixed, final = result.steps
    assert failed.error_type == "InterpreterError"
    assert "KeyError" in failed.error and "banana" in failed.error
    assert failed.code == "total = get_price('banana', 3)\nprint(total)"
    assert fixed.error is None and fixed.output == 1.5 and fixed.logs == "total 1.5\n"
    assert final.is_final_answer and final.output == "1.50 EUR"
    for step in result.steps:
        assert step.operations_count and step.operations_count > 0
        assert step.duration >= step.execution_duration >= 0
        assert step.metrics["step"] == step.step_number
        assert step.metrics["operations"] == step.operations_count

    # What the model saw: system prompt, task, then the error, then the observation.
    assert len(model.calls) == 3
    first = model.calls[0]
    assert [m["role"] for m in first] == ["system", "user"]
    assert "def get_price(" in first[0]["content"]
    assert first[1]["content"] == "Task: What do 3 apples cost?"
    second = model.calls[1]
    assert second[-2] == {"role": "assistant", "content": model.replies[0]}
    assert second[-1]["role"] == "user"
    assert second[-1]["content"].startswith("Error:\n") and "KeyError" in second[-1]["content"]
    third = model.calls[2][-1]["content"]
    assert third.startswith("Observation:\n")
    assert "Execution logs:\ntotal 1.5\n" in third
    assert third.endswith("Last output from code snippet:\n1.5")
    # The conversation is kept on the result, without an observation after the answer.
    assert result.messages[-1]["role"] == "assistant"


def test_max_steps_exhausted_returns_clear_result():
    model = ScriptedModel([fence("x = 1\nprint('still thinking')")], repeat_last=True)
    agent = CodeAgent([], model, max_steps=3)
    result = agent.run("never ends")
    assert result.finished is False
    assert result.stop_reason == "max_steps"
    assert result.final_answer is None
    assert len(result.steps) == 3 and len(model.calls) == 3
    assert "max_steps" in result.message and "3 steps" in result.message
    assert str(result) == result.message
    # per-run override
    assert len(agent.run("again", max_steps=1).steps) == 1


def test_reply_without_code_is_reported_to_model():
    model = ScriptedModel(["I think the answer is 4.", fence("final_answer(4)")])
    result = CodeAgent([], model).run("2+2?")
    assert result.finished and result.final_answer == 4
    assert result.steps[0].code is None and result.steps[0].error_type == "NoCodeBlock"
    assert "no code block" in model.calls[1][-1]["content"]


def test_forbidden_import_is_fed_back_and_authorized_import_works():
    model = ScriptedModel(
        [
            fence("import os\nos.listdir('.')"),
            fence("import json\nfinal_answer(json.dumps({'a': 1}))"),
        ]
    )
    result = CodeAgent([], model, additional_authorized_imports=["json"]).run("json")
    assert result.final_answer == '{"a": 1}'
    assert "Import of os is not allowed" in result.steps[0].error
    assert result.steps[0].imports == ["os"] and result.steps[1].imports == ["json"]


def test_state_persists_across_steps_and_variables():
    model = ScriptedModel(
        [
            fence("def double(v):\n    return v * 2\nbase = len(data)"),
            fence("final_answer(double(base) + double(weather('Oslo').count('s')))"),
        ]
    )
    agent = CodeAgent([ForwardOnlyTool()], model)
    result = agent.run("count", variables={"data": [1, 2, 3]})
    assert result.final_answer == 6 + 2 * "sunny in Oslo (C)".count("s")
    assert "data" in model.calls[0][1]["content"]


def test_tool_objects_and_dict_names():
    model = ScriptedModel([fence("final_answer(yell('hi') + weather(city='Rome'))")])
    agent = CodeAgent({"yell": CallableTool(), "weather": ForwardOnlyTool()}, model)
    assert "def yell(text: str) -> str:" in agent.system_prompt
    assert agent.run("shout").final_answer == "HIsunny in Rome (C)"


def test_tools_cannot_be_overwritten_by_code():
    model = ScriptedModel([fence("get_price = 3"), fence("final_answer(get_price('pear', 2))")])
    result = CodeAgent([get_price], model).run("pears")
    assert "get_price" in result.steps[0].error
    assert result.final_answer == 1.5


def test_timeout_is_an_error_step():
    model = ScriptedModel([fence(SLOW_LOOP), fence("final_answer('ok')")])
    result = CodeAgent([], model, timeout_seconds=0.3).run("loop")
    assert result.steps[0].error_type == "ExecutionTimeoutError"
    assert "maximum execution time" in result.steps[0].error
    assert result.final_answer == "ok"


def test_reset_between_runs():
    model = ScriptedModel(
        [fence("secret = 7\nsecret"), fence("final_answer(secret)"), fence("final_answer(secret)")]
    )
    agent = CodeAgent([], model, max_steps=1)
    assert agent.run("set").finished is False
    kept = agent.run("read", reset=False)  # conversation and variables kept
    assert kept.final_answer == 7 and kept.steps[0].step_number == 2
    fresh = agent.run("read again")  # reset: a new executor
    assert fresh.finished is False and "NameError" in fresh.steps[0].error
    assert len(model.calls[2]) == 2  # system + task only


def test_model_errors_propagate_with_steps_recorded():
    model = ScriptedModel([fence("x = 1")])  # then runs out of replies
    agent = CodeAgent([], model, max_steps=5)
    with pytest.raises(ModelError, match="no reply left"):
        agent.run("t")
    assert [s.error_type for s in agent.steps] == [None, "ModelError"]


def test_model_returning_message_object():
    class Reply:
        def __init__(self, content):
            self.content = content

    result = CodeAgent([], lambda messages: Reply(fence("final_answer('obj')"))).run("t")
    assert result.final_answer == "obj"


def test_long_observations_are_truncated():
    model = ScriptedModel([fence("print('x' * 100000)"), fence("final_answer(1)")])
    agent = CodeAgent([], model, max_observation_length=1000)
    agent.run("long")
    assert len(model.calls[1][-1]["content"]) < 1200
    assert "truncated" in model.calls[1][-1]["content"]


def test_step_callback_exceptions_propagate():
    def boom(step):
        raise RuntimeError("callback failed")

    with pytest.raises(RuntimeError, match="callback failed"):
        CodeAgent([], ScriptedModel([fence("final_answer(1)")]), step_callbacks=[boom]).run("t")


def test_with_real_smolagents_tool():
    tool = pytest.importorskip("smolagents").tool

    @tool
    def multiply(a: int, b: int) -> int:
        """Multiplies two integers.

        Args:
            a: first factor
            b: second factor
        """
        return a * b

    agent = CodeAgent([multiply], ScriptedModel([fence("final_answer(multiply(6, 7))")]))
    assert "def multiply(a: int, b: int) -> int:" in agent.system_prompt
    assert "a: first factor" in agent.system_prompt
    assert agent.run("6*7").final_answer == 42
