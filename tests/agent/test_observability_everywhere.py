"""Every execution is observed, not only the agent's (observability.observed): the executor
alone, evaluate_python_code and the agent log one record each, make a span nested under the
caller's span, make `execute_tool` spans for tool calls, and record OpenTelemetry metrics."""

from __future__ import annotations

import json
import logging
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

import smolagents_native
from smolagents_native import InterpreterError, LocalPythonExecutor, evaluate_python_code
from smolagents_native import observability as obs

ROOT = Path(smolagents_native.__file__).resolve().parent.parent


@pytest.fixture
def records(capture_log):
    return capture_log(logging.INFO)


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
    yield provider, exporter.get_finished_spans
    obs.set_tracer_provider(None)
    provider.shutdown()


def executor(tools=None, imports=()):
    ex = LocalPythonExecutor(list(imports))
    ex.send_tools(tools or {})
    return ex


def executor_records(all_records):
    return [r for r in all_records if r["logger"] == "smolagents_native.executor"]


def test_plain_executor_call_logs_one_record(records):
    ex = executor(imports=["json"])
    ex("import json\nprint('hi')\njson.dumps([1])")
    with pytest.raises(InterpreterError):
        ex("x = 1\n1 / 0")
    ok, failed = executor_records(records())
    assert ok["level"] == "INFO" and ok["imports"] == ["json"] and ok["error_type"] is None
    assert ok["output_size"] == 3 and ok["logs_size"] == 3 and ok["operations"] > 0
    assert ok["duration"] > 0
    assert failed["level"] == "WARNING" and failed["error_type"] == "InterpreterError"
    assert "ZeroDivisionError" in failed["error"]


def test_evaluate_python_code_logs_one_record(records):
    evaluate_python_code("import math\nmath.floor(2.5)")
    (record,) = executor_records(records())
    assert record["imports"] == ["math"] and record["output_size"] == 1


def test_agent_run_logs_each_execution_once(records):
    from smolagents_native.agent import CodeAgent
    from smolagents_native.models import ScriptedModel

    script = ["```python\nx = 2\n```", "```python\nfinal_answer(x * 21)\n```"]
    result = CodeAgent([], ScriptedModel(script)).run("t")
    assert result.final_answer == 42
    all_records = records()
    # the agent's step records carry the execution's metrics; no second record per step
    assert executor_records(all_records) == []
    steps = [r for r in all_records if r["logger"] == "smolagents_native.agent" and "step" in r]
    assert [r["step"] for r in steps] == [1, 2]
    assert all(r["operations"] > 0 for r in steps)


def test_execute_helper_still_logs_once(records):
    obs.execute(executor(), "1 + 1", step=3)
    (record,) = executor_records(records())
    assert record["step"] == 3


def test_no_record_without_a_handler_at_info(records):
    obs.get_logger().setLevel(logging.WARNING)
    executor()("1")
    assert records() == []


def test_execution_span_nests_under_the_callers_span(spans):
    provider, finished = spans
    tracer = provider.get_tracer("host")

    def lookup(city: str) -> int:
        return len(city)

    ex = executor({"lookup": lookup, "final_answer": lambda answer: answer})
    with tracer.start_as_current_span("host request") as parent:
        out = ex("n = lookup('Paris')\nfinal_answer(n)")
    assert out.output == 5
    by_name = {s.name: s for s in finished()}
    execute = by_name["smolagents_native.execute"]
    tool = by_name["execute_tool lookup"]
    final = by_name["execute_tool final_answer"]
    assert execute.parent.span_id == parent.get_span_context().span_id
    assert tool.parent.span_id == execute.context.span_id
    assert final.parent.span_id == execute.context.span_id
    assert execute.context.trace_id == parent.get_span_context().trace_id
    assert tool.attributes["gen_ai.operation.name"] == "execute_tool"
    assert tool.attributes["gen_ai.tool.name"] == "lookup"
    assert final.status.status_code.name != "ERROR"  # a final answer is not an error
    assert execute.attributes["smolagents_native.is_final_answer"] is True


def test_failing_tool_span_and_execution_span(spans):
    _, finished = spans

    def broken() -> None:
        raise RuntimeError("down")

    ex = executor({"broken": broken})
    with pytest.raises(InterpreterError):
        ex("broken()")
    by_name = {s.name: s for s in finished()}
    tool, execute = by_name["execute_tool broken"], by_name["smolagents_native.execute"]
    assert tool.status.status_code.name == "ERROR"
    assert tool.attributes["error.type"] == "RuntimeError"
    assert execute.status.status_code.name == "ERROR"
    assert execute.attributes["error.type"] == "InterpreterError"


def test_evaluate_python_code_span_and_tool_spans(spans):
    _, finished = spans
    evaluate_python_code("double(4)", static_tools={"double": lambda x: 2 * x})
    names = sorted(s.name for s in finished())
    assert names == ["execute_tool double", "smolagents_native.execute"]


def test_agent_run_is_an_invoke_agent_span_with_steps_and_tools(spans):
    from smolagents_native.agent import CodeAgent
    from smolagents_native.models import ScriptedModel

    _, finished = spans

    def add(a: int, b: int) -> int:
        """Add two numbers.

        Args:
            a: first
            b: second
        """
        return a + b

    CodeAgent([add], ScriptedModel(["```python\nfinal_answer(add(1, 2))\n```"])).run("t")
    by_name = {s.name: s for s in finished()}
    run = by_name["invoke_agent CodeAgent"]
    step = by_name["smolagents_native.agent.step"]
    execute = by_name["smolagents_native.execute"]
    tool = by_name["execute_tool add"]
    assert step.parent.span_id == run.context.span_id
    assert execute.parent.span_id == step.context.span_id
    assert tool.parent.span_id == execute.context.span_id
    assert tool.attributes["gen_ai.tool.description"].startswith("Add two numbers")


def test_metrics_through_the_opentelemetry_api():
    pytest.importorskip("opentelemetry.sdk")
    from opentelemetry.sdk.metrics import MeterProvider
    from opentelemetry.sdk.metrics.export import InMemoryMetricReader

    reader = InMemoryMetricReader()
    provider = MeterProvider(metric_readers=[reader])
    obs.set_meter_provider(provider)
    try:
        ex = executor()
        ex("1")
        ex("2")
        with pytest.raises(InterpreterError):
            ex("1 / 0")
        evaluate_python_code("3")
        data = reader.get_metrics_data()
    finally:
        obs.set_meter_provider(None)
        provider.shutdown()
    points: dict[str, list] = {}
    for rm in data.resource_metrics:
        for sm in rm.scope_metrics:
            for metric in sm.metrics:
                points[metric.name] = list(metric.data.data_points)
    assert sum(p.value for p in points["smolagents_native.executions"]) == 4
    (error_point,) = points["smolagents_native.execution.errors"]
    assert error_point.value == 1
    assert error_point.attributes["error.type"] == "InterpreterError"
    assert sum(p.count for p in points["smolagents_native.execution.duration"]) == 4


def test_global_providers_are_used_and_nothing_is_imported_otherwise():
    pytest.importorskip("opentelemetry.sdk")
    script = textwrap.dedent(
        """
        import json, sys
        from smolagents_native import LocalPythonExecutor
        ex = LocalPythonExecutor([])
        ex.send_tools({"t": lambda: 1})
        ex("t()")
        before = any(m.startswith("opentelemetry") for m in sys.modules)
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
        ex("t()")  # the API imported, no provider set: no span, no error
        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
        ex("t()")
        print(json.dumps([before, sorted(s.name for s in exporter.get_finished_spans())]))
        """
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          env=env, timeout=120)
    assert proc.returncode == 0, proc.stderr
    before, names = json.loads(proc.stdout.strip().splitlines()[-1])
    assert before is False
    assert names == ["execute_tool t", "smolagents_native.execute"]


@pytest.mark.skipif(sys.version_info >= (3, 15), reason=(
    "openinference-instrumentation-smolagents has no release for CPython 3.15 (every release "
    "says Requires-Python <3.15); pyproject's test extra leaves it out there"))
def test_steps_and_tools_appear_inside_an_openinference_trace(tmp_path):
    # smolagents' own CodeAgent, traced by OpenInference, running our executor (patched).
    pytest.importorskip("smolagents")
    pytest.importorskip("openinference.instrumentation.smolagents")
    script = textwrap.dedent(
        '''
        import json
        from opentelemetry import trace
        from opentelemetry.sdk.trace import TracerProvider
        from opentelemetry.sdk.trace.export import SimpleSpanProcessor
        from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
        from openinference.instrumentation.smolagents import SmolagentsInstrumentor
        exporter = InMemorySpanExporter()
        provider = TracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(exporter))
        trace.set_tracer_provider(provider)
        SmolagentsInstrumentor().instrument(tracer_provider=provider)
        import smolagents_native
        smolagents_native.patch_smolagents()
        from smolagents import agents, models, tool

        @tool
        def double(x: int) -> int:
            """Double a number.

            Args:
                x: the number
            """
            return 2 * x

        class Model(models.Model):
            def __init__(self):
                super().__init__(model_id="scripted")
            def generate(self, messages, **kw):
                return models.ChatMessage(role=models.MessageRole.ASSISTANT,
                    content="Thought: go\\n<code>\\nfinal_answer(double(21))\\n</code>")

        agent = agents.CodeAgent(tools=[double], model=Model(), verbosity_level=0)
        answer = agent.run("answer")
        spans = exporter.get_finished_spans()
        names = {s.context.span_id: s.name for s in spans}
        parents = {s.name: names.get(s.parent.span_id) if s.parent else None for s in spans}
        traces = {s.context.trace_id for s in spans}
        print(json.dumps([answer, parents, len(traces)]))
        '''
    )
    env = dict(os.environ)
    env["PYTHONPATH"] = str(ROOT) + os.pathsep + env.get("PYTHONPATH", "")
    path = tmp_path / "traced_agent.py"  # smolagents' @tool reads the function's source
    path.write_text(script)
    proc = subprocess.run([sys.executable, str(path)], capture_output=True, text=True,
                          env=env, timeout=180)
    assert proc.returncode == 0, proc.stderr
    answer, parents, n_traces = json.loads(proc.stdout.strip().splitlines()[-1])
    assert answer == 42 and n_traces == 1
    assert parents["execute_tool double"] == "smolagents_native.execute"
    execute_parent = parents["smolagents_native.execute"]
    assert execute_parent is not None and execute_parent.startswith("Step")  # OpenInference's
    assert parents[execute_parent] == "CodeAgent.run"
