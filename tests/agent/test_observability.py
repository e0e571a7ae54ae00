"""Logging, JSON log lines and OpenTelemetry spans (smolagents_native.observability)."""

from __future__ import annotations

import io
import json
import logging

import pytest

from smolagents_native import InterpreterError, LocalPythonExecutor
from smolagents_native import observability as obs
from smolagents_native.agent import CodeAgent
from smolagents_native.models import ScriptedModel

SCRIPT = [
    "```python\nimport math\nprint(math.floor(2.5))\nmissing + 1\n```",
    "```python\nfrom collections import Counter\nc = Counter('aab')\nc['a']\n```",
    "```python\nfinal_answer(c.most_common(1)[0][0])\n```",
]


@pytest.fixture
def json_log(capture_log):
    """The package's records as JSON lines, from DEBUG up (tests/conftest.py)."""
    return capture_log(logging.DEBUG)


def new_executor(imports=()):
    ex = LocalPythonExecutor(list(imports))
    ex.send_tools({})
    return ex


def test_imports_used():
    code = (
        "import os.path, json as j\nfrom collections import Counter\nfrom . import sibling\n"
        "def f():\n    import math\n    from ..pkg.mod import x\nimport json\n"
    )
    assert obs.imports_used(code) == ["os.path", "json", "collections", ".", "math", "..pkg.mod"]
    assert obs.imports_used("def broken(:") == []
    assert obs.imports_used("x = 1") == []


def test_output_size():
    class Bad:
        def __str__(self):
            raise RuntimeError

    assert obs.output_size(None) == 0
    assert obs.output_size([1, 2]) == 6
    assert obs.output_size(Bad()) == -1


def _dag(levels):
    a = []
    for _ in range(levels):
        a = [a, a]
    return a


def _values():
    cyclic = [1]
    cyclic.append(cyclic)
    looped = {"k": None}
    looped["k"] = looped
    return [
        [1, 2, (3,), {4: "x"}], {1: [2, {3}]}, frozenset({1}), set(), (1,), (), [], {},
        "abc", b"x\x00", bytearray(b"ab"), ["a" * 10, b"b" * 3, 1.5, None, True, 2**100],
        cyclic, looped, [cyclic, cyclic], {"k": (looped, "\u00e9\U0001f600")}, 12, 1.25,
        list(range(1000)), _dag(8),
    ]


@pytest.mark.parametrize("value", _values(), ids=range(len(_values())))
def test_bounded_str_is_str_when_short_and_its_start_when_long(value):
    assert obs.bounded_str(value) == (str(value), True)
    for limit in (0, 1, 5, 17):
        text, complete = obs.bounded_str(value, limit)
        assert text == str(value)[:limit]
        assert complete is (len(str(value)) <= limit)
    assert obs.text_estimate(value) >= len(str(value)) // 2


def test_a_shared_reference_output_costs_its_objects_not_its_text():
    """`a = [a, a]` sixty times is 61 lists and a text of ~2**62 characters: the output's size
    is an estimate and the agent's observation its start, both made in milliseconds."""
    a = _dag(60)
    size = obs.output_size(a)
    assert size > 2**60
    text, complete = obs.bounded_str(a, 20000)
    assert not complete and text.startswith("[[[[") and len(text) == 20000
    ex = new_executor()
    result, error, metrics = obs.measure(ex, "a = []\nfor i in range(60):\n    a = [a, a]\na")
    assert error is None and metrics.output_size > 2**60


def test_agent_steps_as_json_lines(json_log):
    result = CodeAgent([], ScriptedModel(SCRIPT)).run("most common letter")
    assert result.final_answer == "a"
    records = json_log()
    # Every line is one JSON object with the base keys.
    for record in records:
        assert {"time", "level", "logger", "message"} <= record.keys()
    steps = [r for r in records if r["logger"] == "smolagents_native.agent" and "step" in r]
    assert [r["step"] for r in steps if r["level"] == "INFO"] == [1, 2, 3]
    info = [r for r in steps if r["level"] == "INFO"]
    first, second, third = info
    assert first["imports"] == ["math"] and first["error_type"] == "InterpreterError"
    assert second["imports"] == ["collections"] and second["error_type"] is None
    assert second["output_size"] == 1 and third["is_final_answer"] is True
    for record, step in zip(info, result.steps):
        assert record["operations"] == step.operations_count > 0
        assert record["duration"] == pytest.approx(step.duration)
        assert record == {**record, **json.loads(json.dumps(step.metrics))}
    # The code itself is logged at DEBUG, the end of the run at INFO.
    assert any(r["level"] == "DEBUG" and "Counter('aab')" in r["message"] for r in records)
    end = records[-1]
    assert end["message"].startswith("run finished") and end["steps"] == 3 and end["finished"]


def test_run_out_of_steps_is_a_warning(json_log):
    CodeAgent([], ScriptedModel(["```python\nx = 1\n```"], repeat_last=True), max_steps=2).run("t")
    end = json_log()[-1]
    assert end["level"] == "WARNING" and "max_steps" in end["message"] and end["finished"] is False


def test_execute_helper_logs_and_returns(json_log):
    ex = new_executor(["json"])
    out = obs.execute(ex, "import json\nprint('hi')\njson.dumps([1, 2])", step=7)
    assert out.output == "[1, 2]" and out.logs == "hi\n"
    with pytest.raises(InterpreterError, match="ZeroDivisionError"):
        obs.execute(ex, "1 / 0")
    ok, failed = json_log()
    assert ok["logger"] == "smolagents_native.executor" and ok["level"] == "INFO"
    assert ok["step"] == 7 and ok["imports"] == ["json"] and ok["output_size"] == 6
    assert ok["logs_size"] == 3 and ok["operations"] > 0 and ok["error_type"] is None
    assert failed["level"] == "WARNING" and failed["error_type"] == "InterpreterError"
    assert "ZeroDivisionError" in failed["error"] and failed["step"] is None


def test_measure_returns_metrics_without_raising():
    out, error, metrics = obs.measure(new_executor(), "import os")
    assert out is None and isinstance(error, InterpreterError)
    assert metrics.error_type == "InterpreterError" and metrics.imports == ["os"]
    assert metrics.to_dict()["error_type"] == "InterpreterError"


def test_json_formatter_plain_record_and_exception():
    formatter = obs.JsonFormatter()
    record = logging.LogRecord("x", logging.ERROR, __file__, 1, "hello %s", ("you",), None)
    data = json.loads(formatter.format(record))
    assert data["message"] == "hello you" and data["level"] == "ERROR" and data["logger"] == "x"
    try:
        raise ValueError("multi\nline")
    except ValueError:
        import sys

        record = logging.LogRecord("x", logging.ERROR, __file__, 1, "oops", (), sys.exc_info())
    line = formatter.format(record)
    assert "\n" not in line
    assert "ValueError: multi\nline" in json.loads(line)["exception"]
    # Values JSON cannot hold are written with str().
    record = logging.LogRecord("x", logging.INFO, __file__, 1, "m", (), None)
    setattr(record, obs.METRICS_ATTR, {"value": {1, 2}})
    assert json.loads(formatter.format(record))["value"] == "{1, 2}"


def test_configure_logging_replaces_its_handler():
    logger = obs.get_logger()
    before, level = list(logger.handlers), logger.level
    first, second = io.StringIO(), io.StringIO()
    try:
        obs.configure_logging(json=True, stream=first)
        obs.configure_logging(json=True, stream=second)
        obs.execute(new_executor(), "1 + 1")
        assert first.getvalue() == ""
        assert json.loads(second.getvalue())["operations"] > 0
        assert len(logger.handlers) == len(before) + 1
    finally:
        logger.removeHandler(obs._configured_handler)
        obs._configured_handler = None
        logger.setLevel(level)


def test_spans_are_noops_without_opentelemetry(monkeypatch):
    monkeypatch.setattr(obs, "_otel_trace", None)
    assert obs.tracing_available() is False
    with obs.span("x", a=1) as sp:
        assert sp.recording is False
        sp.set(b=2)
        sp.set_error("E", "m")
    result = CodeAgent([], ScriptedModel(SCRIPT)).run("t")
    assert result.finished


# ---------------------------------------------------------------------------------------------
# OpenTelemetry


@pytest.fixture
def spans():
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.trace import TracerProvider
    from opentelemetry.sdk.trace.export import SimpleSpanProcessor
    from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter

    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    obs.set_tracer_provider(provider)
    yield exporter.get_finished_spans
    obs.set_tracer_provider(None)
    provider.shutdown()


def test_agent_spans(spans):
    from opentelemetry.trace import StatusCode

    result = CodeAgent([], ScriptedModel(SCRIPT)).run("most common letter")
    finished = spans()
    by_name: dict[str, list] = {}
    for s in finished:
        by_name.setdefault(s.name, []).append(s)
    (run,) = by_name["invoke_agent CodeAgent"]
    assert run.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert run.attributes["gen_ai.agent.name"] == "CodeAgent"
    steps = sorted(
        by_name["smolagents_native.agent.step"],
        key=lambda s: s.attributes["smolagents_native.step"],
    )
    executions = sorted(
        by_name["smolagents_native.execute"], key=lambda s: s.attributes["smolagents_native.step"]
    )
    assert len(steps) == len(executions) == 3

    assert run.attributes["smolagents_native.task"] == "most common letter"
    assert run.attributes["smolagents_native.finished"] is True
    assert run.attributes["smolagents_native.steps"] == 3
    for step_span, exec_span, record in zip(steps, executions, result.steps):
        # execute is a child of its step, which is a child of the run.
        assert step_span.parent.span_id == run.context.span_id
        assert exec_span.parent.span_id == step_span.context.span_id
        attrs = exec_span.attributes
        assert attrs["smolagents_native.code"] == record.code
        assert attrs["smolagents_native.operations"] == record.operations_count
        assert attrs["smolagents_native.duration"] == pytest.approx(record.execution_duration)
        assert step_span.attributes["smolagents_native.code"] == record.code

    failed = executions[0]
    assert failed.status.status_code == StatusCode.ERROR
    assert failed.attributes["smolagents_native.error_type"] == "InterpreterError"
    assert "NameError" in failed.attributes["smolagents_native.error"]
    assert list(failed.attributes["smolagents_native.imports"]) == ["math"]
    assert steps[0].status.status_code == StatusCode.ERROR
    # One exception event per failed span (it was recorded twice on the execute span).
    events = [e for e in failed.events if e.name == "exception"]
    assert len(events) == 1, failed.events
    assert events[0].attributes["exception.type"].endswith("InterpreterError")
    assert len(steps[0].events) <= 1  # the step (the agent recovers) carries its status

    # The model call: a `chat` span per step, a child of the step's (GenAI conventions).
    chats = by_name["chat ScriptedModel"]
    assert len(chats) == 3
    assert {c.parent.span_id for c in chats} == {s.context.span_id for s in steps}
    for chat in chats:
        assert chat.attributes["gen_ai.operation.name"] == "chat"
        assert chat.attributes["gen_ai.request.model"] == "ScriptedModel"
        assert chat.status.status_code != StatusCode.ERROR
    assert not executions[1].events
    assert executions[1].status.status_code != StatusCode.ERROR
    assert "smolagents_native.error" not in executions[1].attributes
    assert executions[2].attributes["smolagents_native.is_final_answer"] is True


def test_model_call_span_has_the_model_and_token_usage(spans):
    from opentelemetry.trace import StatusCode
    from test_models import StubServer, completion

    from smolagents_native.models import OpenAICompatibleModel

    with StubServer() as stub:
        status, headers, body = completion("```python\nfinal_answer(1)\n```",
                                           usage={"prompt_tokens": 120, "completion_tokens": 9})
        reply = json.loads(body)
        reply["model"] = "stub-model-2026-01"
        stub.responses.append((status, headers, json.dumps(reply)))
        stub.responses.append((401, {}, json.dumps({"error": {"message": "bad key"}})))
        model = OpenAICompatibleModel("stub-model", api_base=stub.base, api_key="k",
                                      max_retries=0)
        assert CodeAgent([], model).run("t").finished
        with pytest.raises(Exception, match="401"):
            CodeAgent([], model).run("t")
    ok, failed = [s for s in spans() if s.name == "chat stub-model"]
    assert ok.attributes["gen_ai.request.model"] == "stub-model"
    assert ok.attributes["gen_ai.response.model"] == "stub-model-2026-01"
    assert ok.attributes["gen_ai.usage.input_tokens"] == 120
    assert ok.attributes["gen_ai.usage.output_tokens"] == 9
    assert failed.status.status_code == StatusCode.ERROR
    assert len([e for e in failed.events if e.name == "exception"]) == 1


def test_execute_span_and_exception_in_block(spans):
    obs.execute(new_executor(), "sum(range(10))")
    (span,) = spans()
    assert span.name == "smolagents_native.execute"
    assert span.attributes["smolagents_native.output_size"] == 2
    with pytest.raises(KeyError):
        with obs.span("smolagents_native.custom", kind="test"):
            raise KeyError("boom")
    custom = spans()[-1]
    assert custom.attributes["smolagents_native.kind"] == "test"
    assert custom.status.status_code.name == "ERROR"


def test_long_code_attribute_is_cut(spans):
    code = "x = 1\n" * 5000
    obs.execute(new_executor(), code)
    attr = spans()[0].attributes["smolagents_native.code"]
    assert len(attr) < len(code) and attr.endswith("[truncated]")
