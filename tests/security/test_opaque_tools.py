"""Opaque tools (docs/security.md, "Opaque tools"; issue 9 class 1, part A).

The code gets a call-only proxy of every tool, additional function and non-builtin custom
tool: calling it calls the tool; only `name`, `description`, `inputs`, `output_type`,
`__name__` and `__doc__` are readable (copies); the tool, its class and its methods
(`from_code`, `from_dict`, `save`, `forward`, `__call__`...) are out of reach, and so is
anything reachable from `type(proxy)`.
"""

from __future__ import annotations

import time

import pytest
from conftest import refused
from smolagents import Tool, tool

from smolagents_native import ExecutionTimeoutError, InterpreterError, LocalPythonExecutor

CALLS: list[tuple] = []


@tool
def search(query: str, limit: int = 3) -> str:
    """Search the host's index.

    Args:
        query: what to look for
        limit: how many results
    """
    CALLS.append((query, limit))
    return f"results for {query} ({limit})"


class Weather(Tool):
    name = "weather"
    description = "Weather of a city."
    inputs = {"city": {"type": "string", "description": "the city"}}
    output_type = "string"

    def forward(self, city: str) -> str:
        return f"sunny in {city}"


def slow_tool(seconds: float) -> str:
    time.sleep(seconds)
    return "done"


def helper(x, *, scale=1):
    """An additional function."""
    return x * scale


@pytest.fixture
def ex(tmp_path):
    CALLS.clear()
    e = LocalPythonExecutor(
        additional_authorized_imports=[], additional_functions={"helper": helper}
    )
    e.send_tools({"search": search, "weather": Weather()})
    return e


# ------------------------------------------------------------------ legitimate use


def test_tools_are_called_with_positional_and_keyword_arguments(ex):
    out = ex("a = search('cats')\nb = search(query='dogs', limit=5)\nc = weather(city='Oslo')\n"
             "(a, b, c, helper(2, scale=3))")
    assert out.output == (
        "results for cats (3)", "results for dogs (5)", "sunny in Oslo", 6
    )
    assert CALLS == [("cats", 3), ("dogs", 5)]


def test_readable_attributes_are_copies(ex):
    out = ex("(search.name, search.description, weather.inputs, weather.output_type, "
             "helper.__name__, helper.__doc__)")
    assert out.output == (
        "search", search.description, Weather.inputs, "string", "helper", "An additional function."
    )
    # the copy is the code's: changing it changes nothing in the host
    ex("weather.inputs['city']['type'] = 'integer'")
    assert Weather.inputs["city"]["type"] == "string"


def test_final_answer_keeps_its_semantics():
    e = LocalPythonExecutor(additional_authorized_imports=[])
    from smolagents.default_tools import FinalAnswerTool

    e.send_tools({"final_answer": FinalAnswerTool()})
    out = e("x = 1\nfinal_answer(x + 41)\nx = 2")
    assert out.is_final_answer and out.output == 42
    # a try/except in the code does not swallow the final answer either
    out = e("try:\n    final_answer('a')\nexcept Exception:\n    pass\n'not reached'")
    assert out.is_final_answer and out.output == "a"


def test_custom_tools_and_builtin_functions():
    from smolagents_native.executor import evaluate_python_code

    out, _ = evaluate_python_code(
        "(double(4), sqrt(16.0))", static_tools={"double": lambda x: 2 * x},
        custom_tools={"sqrt": __import__("math").sqrt},
    )
    assert out == (8, 4.0)


# ------------------------------------------------------------------ class 1 payloads


PAYLOADS = [
    # the tool's methods that exec strings or write files
    "search.from_code('import os\\nopen(\"CANARY\", \"w\")')",
    "weather.save('CANARY')",
    "search.forward('x')",
    "weather.to_dict()",
    "getattr(search, 'from_dict')",
    # its class: patching the host's tool
    "type(weather).forward = lambda self, city: 'pwned'",
    "weather.__class__.forward",
    "t = type(search)\nt.__call__",
    "vars(search)",
    "search.__dict__",
    "helper.__globals__",
    "getattr(helper, '__wrapped__')",
    "search.name = 'other'",
    "type(search)()",
    "class X(type(search)):\n    pass",
    "import copy\ncopy.copy(search).forward",
]


@pytest.mark.parametrize("code", PAYLOADS)
def test_tool_internals_are_unreachable(ex, code, canary):
    before = (Weather.forward, Weather.inputs, search.forward)
    err = refused(
        ex, code, match=r"Forbidden|tool proxy|not allowed|cannot|is not defined|Cannot|not an acceptable base",
        canary=canary,
    )
    assert isinstance(err, InterpreterError)
    assert (Weather.forward, Weather.inputs, search.forward) == before


def test_type_of_proxy_leads_nowhere(ex):
    out = ex("t = type(search)\n[n for n in dir(t) if not n.startswith('_')]")
    assert out.output == []


def test_tool_past_the_deadline_ends_the_step():
    e = LocalPythonExecutor(additional_authorized_imports=[], timeout_seconds=1)
    e.send_tools({"slow": slow_tool})
    t0 = time.monotonic()
    with pytest.raises(ExecutionTimeoutError):
        e("r = slow(1.6)\nprint('after', r)\n'finished'")
    assert time.monotonic() - t0 < 10
    assert "after" not in str(e.state["_print_outputs"])
    # the executor is usable afterwards, and a fast tool call works
    assert e("slow(0)").output == "done"


def test_tool_call_runs_with_the_tripwire_suspended(tmp_path):
    """Tools are the host's code: what they do is not refused by the tripwire."""
    target = tmp_path / "written_by_tool.txt"

    def write_file(text: str) -> str:
        target.write_text(text)
        return target.read_text()

    e = LocalPythonExecutor(additional_authorized_imports=[])
    e.send_tools({"write_file": write_file})
    assert e("write_file('hello')").output == "hello"
