"""Logging, JSON log lines and OpenTelemetry spans for code executions and agent steps.

Everything here is opt-in and has no third-party dependency:

- Standard :mod:`logging` under the ``smolagents_native`` logger (``smolagents_native.agent``
  for agent steps, ``smolagents_native.executor`` for executions run through
  :func:`execute`). The package installs only a :class:`logging.NullHandler`; call
  :func:`configure_logging` (or add your own handler) to see the records.
- :class:`JsonFormatter` writes one JSON object per line. Records emitted by this package carry
  their metrics (step, duration, operations, imports used, output size, error type) as
  top-level keys of that object.
- Every execution (``LocalPythonExecutor.__call__``, ``evaluate_python_code``, the agent's
  steps) is observed by :func:`observed`: one log record (``smolagents_native.executor``, INFO
  on success, WARNING on error), one ``smolagents_native.execute`` span, and the metrics below.
- OpenTelemetry spans, following the GenAI semantic conventions where they apply:
  ``invoke_agent CodeAgent`` for an agent run (``gen_ai.operation.name = invoke_agent``),
  ``smolagents_native.agent.step`` for its steps, ``smolagents_native.execute`` for each code
  execution, ``execute_tool <name>`` for each tool call (``gen_ai.operation.name =
  execute_tool``, ``gen_ai.tool.name``...). They are children of the caller's current span, so
  an agent traced by smolagents' OpenInference instrumentation shows them in its own trace.
  Spans are made when a tracer provider is configured: the one given to
  :func:`set_tracer_provider`, or OpenTelemetry's global one once the host has set it. This
  package never imports OpenTelemetry itself.
- OpenTelemetry metrics, through the metrics API when a meter provider is configured (global,
  or :func:`set_meter_provider`): ``smolagents_native.executions`` (counter),
  ``smolagents_native.execution.errors`` (counter, with ``error.type``) and
  ``smolagents_native.execution.duration`` (histogram, seconds).

With no handler enabled for INFO on ``smolagents_native.executor`` and no provider configured,
an execution pays for three cheap checks and nothing else.

The same metrics are plain data too: :class:`ExecutionMetrics`, and the agent's step records
(``StepRecord.metrics``).
"""

from __future__ import annotations

import contextlib
import logging
import sys
import time
from collections.abc import Callable, Iterator
from contextvars import ContextVar
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = [
    "LOGGER_NAME",
    "METRICS_ATTR",
    "ExecutionMetrics",
    "JsonFormatter",
    "configure_logging",
    "call_tool",
    "execute",
    "get_logger",
    "imports_used",
    "log_execution",
    "measure",
    "observed",
    "operations_count",
    "output_size",
    "set_meter_provider",
    "set_tracer_provider",
    "span",
    "tracing_available",
]

LOGGER_NAME = "smolagents_native"
# Name of the LogRecord attribute that holds a record's metrics (a dict), set through
# `extra={METRICS_ATTR: {...}}`; JsonFormatter merges it into the JSON object.
METRICS_ATTR = "smolagents_native"
# Span attributes holding source code are cut to this many characters.
MAX_CODE_ATTRIBUTE_LENGTH = 8192

logging.getLogger(LOGGER_NAME).addHandler(logging.NullHandler())


def get_logger(name: str | None = None) -> logging.Logger:
    """The package logger, or its child ``smolagents_native.<name>``."""
    return logging.getLogger(LOGGER_NAME if not name else f"{LOGGER_NAME}.{name}")


# ---------------------------------------------------------------------------------------------
# Metrics.


def imports_used(code: str) -> list[str]:
    """Module names imported by `code` (``import a.b`` -> ``a.b``; ``from a import b`` -> ``a``),
    in order of first appearance, without duplicates. Found statically with :mod:`ast`, so it
    also lists imports the executor refused. Code that does not parse gives ``[]``."""
    import ast

    from . import _core

    try:
        # CPython's parse, one thread at a time where it needs that (csrc/front/parse.c)
        tree = _core.parse_ast(code)
    except (SyntaxError, ValueError):  # ValueError: source contains null bytes
        return []
    names: dict[str, None] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                names[alias.name] = None
        elif isinstance(node, ast.ImportFrom):
            module = "." * node.level + (node.module or "")
            if module:
                names[module] = None
    return list(names)


# Builtin containers that share references (``a = [a, a]`` sixty times) are a few hundred
# bytes and an astronomically long ``str()``: the package's own host code (an output's size,
# the agent's observation) never makes a text estimated past these.
TEXT_LIMIT = 1 << 20  # bounded_str's default
SIZE_LIMIT = 1 << 28  # output_size: str() is made up to an estimate of this many characters

_CONTAINERS = (list, tuple, dict, set, frozenset)
_NUMBERS = {int, float, bool, type(None), complex}


def _estimate(value: Any, memo: dict[int, int], path: set[int]) -> int:
    """About how long repr(value) is (from above, within a small factor, for builtin values),
    with shared references expanded as repr expands them; a container is walked once
    (`memo`), so the cost follows the distinct objects, not the text."""
    tp = type(value)
    if tp is str or tp is bytes or tp is bytearray:
        return len(value) * 4 + 3  # escapes: \\xNN
    if tp not in _CONTAINERS:
        if tp in _NUMBERS:
            return 24 if tp is not int or value.bit_length() < 64 else value.bit_length() // 3 + 2
        return len(repr(value))
    key = id(value)
    if key in path:
        return 5
    if key in memo:
        return memo[key]
    path.add(key)
    try:
        items: Any = value.items() if tp is dict else value
        if set(map(type, value)) <= _NUMBERS:  # the common case, in C: numbers only
            total = len(repr(value))
        else:
            total = 16
            for item in items:
                if tp is dict:
                    total += _estimate(item[0], memo, path) + _estimate(item[1], memo, path) + 4
                else:
                    total += _estimate(item, memo, path) + 2
    finally:
        path.discard(key)
    memo[key] = total
    return total


def _render(value: Any, parts: list[str], budget: int, path: set[int]) -> int:
    """Appends the repr of `value` to `parts` until about `budget` characters; returns what
    remains (<= 0: stopped)."""
    tp = type(value)
    if tp not in _CONTAINERS or id(value) in path or (not value and tp in (set, frozenset)):
        if not value and tp in (set, frozenset):
            text = tp.__name__ + "()"
        elif tp in _CONTAINERS:
            text = "[...]" if tp is list else "{...}" if tp is dict else "(...)"
        elif tp is str or tp is bytes or tp is bytearray:
            text = repr(value[:budget])
        else:
            text = repr(value)
        parts.append(text)
        return budget - len(text)
    path.add(id(value))
    try:
        if tp is dict:
            opening, closing = "{", "}"
            items: Any = value.items()
        elif tp is list or tp is tuple:
            opening, closing = ("[", "]") if tp is list else ("(", ")")
            items = value
        else:
            opening, closing = ("{", "}") if tp is set else ("frozenset({", "})")
            items = value
        parts.append(opening)
        budget -= len(opening)
        first = True
        for item in items:
            if budget <= 0:
                return budget
            if not first:
                parts.append(", ")
                budget -= 2
            first = False
            if tp is dict:
                budget = _render(item[0], parts, budget, path)
                parts.append(": ")
                budget = _render(item[1], parts, budget - 2, path)
            else:
                budget = _render(item, parts, budget, path)
        if tp is tuple and len(value) == 1:
            parts.append(",")
            budget -= 1
        parts.append(closing)
        return budget - len(closing)
    finally:
        path.discard(id(value))


def bounded_str(value: Any, limit: int = TEXT_LIMIT) -> tuple[str, bool]:
    """``(str(value), True)``, or the first `limit` characters of a text that would be longer
    and False. Builtin containers are estimated first (each distinct object once): a small
    value that prints as gigabytes (shared references) is rendered only to `limit`
    characters. str()'s own errors propagate."""
    tp = type(value)
    if tp is str:
        return (value, True) if len(value) <= limit else (value[:limit], False)
    if tp in _CONTAINERS and text_estimate(value) > 4 * limit:
        parts: list[str] = []
        _render(value, parts, limit, set())
        return "".join(parts)[:limit], False
    text = str(value)
    return (text, True) if len(text) <= limit else (text[:limit], False)


def text_estimate(value: Any) -> int:
    """About how long str(value) is, without making it: exact for a str, from above within
    a small factor for builtin containers (shared references expanded, each distinct object
    walked once), len(str(value)) for anything else."""
    if type(value) is str:
        return len(value)
    if type(value) in _CONTAINERS:
        return _estimate(value, {}, set())
    return len(str(value))


def output_size(output: Any) -> int:
    """Length of ``str(output)``; 0 for None, -1 when ``str()`` fails. An output of builtin
    containers whose text is estimated at more than SIZE_LIMIT characters (shared references
    expanded: ``a = [a, a]`` sixty times) is not made: its size is the estimate."""
    if output is None:
        return 0
    try:
        estimate = text_estimate(output)
        return estimate if estimate > SIZE_LIMIT else len(str(output))
    except Exception:
        return -1


@dataclass
class ExecutionMetrics:
    """Measurements of one code execution (one executor call)."""

    step: int | None = None
    duration: float = 0.0  # seconds, wall clock, around the executor call
    operations: int | None = None  # the executor's `_operations_count`
    imports: list[str] = field(default_factory=list)
    output_size: int = 0  # len(str(output)) (see output_size); 0 without output
    logs_size: int = 0
    is_final_answer: bool = False
    error_type: str | None = None  # class name of the exception, None on success
    error: str | None = None  # its message

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


def operations_count(executor: Any) -> int | None:
    """The operation count the executor left in its state after the last step, if any."""
    state = getattr(executor, "state", None)
    if not isinstance(state, dict):
        return None
    value = state.get("_operations_count")
    if isinstance(value, dict):
        value = value.get("counter")
    return value if isinstance(value, int) else None


# ---------------------------------------------------------------------------------------------
# OpenTelemetry (optional).

# The module `opentelemetry.trace`, looked up in sys.modules (never imported here: a host that
# configured a tracer provider has imported it). None (e.g. set by a test) means "no
# OpenTelemetry"; _UNSET means "look it up".
_UNSET: Any = object()
_otel_trace: Any = _UNSET
_tracer_provider: Any = None
_meter_provider: Any = None
_tracer_cache: tuple[Any, Any] | None = None  # (provider, tracer)
_meters_cache: tuple[Any, Any] | None = None  # (provider, _Instruments)


def _trace_module() -> Any:
    if _otel_trace is _UNSET:
        return sys.modules.get("opentelemetry.trace")
    return _otel_trace


def tracing_available() -> bool:
    """True when OpenTelemetry's API is importable (spans are made once a provider is set)."""
    if _otel_trace is None:
        return False
    if _trace_module() is not None:
        return True
    from importlib.util import find_spec

    try:
        return find_spec("opentelemetry.trace") is not None
    except (ImportError, ValueError):
        return False


def set_tracer_provider(provider: Any) -> None:
    """Use `provider` for this package's spans instead of the global tracer provider (`None`
    goes back to the global one). Handy in tests and in applications that keep several."""
    global _tracer_provider
    if provider is not None:
        import opentelemetry.trace  # noqa: F401  (the provider's own API: already imported)
    _tracer_provider = provider


def set_meter_provider(provider: Any) -> None:
    """Use `provider` for this package's metrics instead of the global meter provider
    (`None` goes back to the global one)."""
    global _meter_provider
    _meter_provider = provider


_env_seen: dict[str, bool] = {}


def _global_provider(module: Any, private: str, env_name: str, getter: str) -> Any:
    """OpenTelemetry's global provider, or None when the host has set none. Reads the API's
    module global when it has one (`get_*_provider()` costs microseconds: it looks the
    environment up at each call); the environment variable that names a provider to load is
    looked up once per process."""
    current = getattr(module, private, _UNSET)
    if current is None:
        seen = _env_seen.get(env_name)
        if seen is None:
            import os

            seen = _env_seen[env_name] = env_name in os.environ
        if not seen:
            return None
    if current is _UNSET or current is None:
        current = getattr(module, getter)()  # loads the provider the environment names
    return current


def _tracer() -> Any:
    """The tracer to use, or None when no tracer provider is configured (OpenTelemetry's
    default proxy and no-op providers count as not configured)."""
    global _tracer_cache
    trace = _trace_module()
    if trace is None:
        return None
    provider = _tracer_provider
    if provider is None:
        provider = _global_provider(
            trace, "_TRACER_PROVIDER", "OTEL_PYTHON_TRACER_PROVIDER", "get_tracer_provider"
        )
        if provider is None or isinstance(
            provider, (trace.ProxyTracerProvider, trace.NoOpTracerProvider)
        ):
            return None
    cache = _tracer_cache
    if cache is not None and cache[0] is provider:
        return cache[1]
    from ._version import __version__

    tracer = provider.get_tracer(LOGGER_NAME, __version__)
    _tracer_cache = (provider, tracer)
    return tracer


class _Instruments:
    """The package's OpenTelemetry metric instruments, made from one meter provider."""

    def __init__(self, provider: Any):
        from ._version import __version__

        meter = provider.get_meter(LOGGER_NAME, __version__)
        self.executions = meter.create_counter(
            "smolagents_native.executions", unit="{execution}",
            description="Code executions (executor calls, evaluate_python_code, agent steps)",
        )
        self.errors = meter.create_counter(
            "smolagents_native.execution.errors", unit="{error}",
            description="Code executions that ended with an error, by error.type",
        )
        self.duration = meter.create_histogram(
            "smolagents_native.execution.duration", unit="s",
            description="Wall-clock duration of code executions",
        )


def _meters() -> _Instruments | None:
    """The metric instruments, or None when no meter provider is configured."""
    global _meters_cache
    provider = _meter_provider
    if provider is None:
        metrics = sys.modules.get("opentelemetry.metrics")
        if metrics is None:
            return None
        provider = _global_provider(
            sys.modules.get("opentelemetry.metrics._internal", metrics),
            "_METER_PROVIDER",
            "OTEL_PYTHON_METER_PROVIDER",
            "get_meter_provider",
        )
        if (
            provider is None
            or isinstance(provider, metrics.NoOpMeterProvider)
            or type(provider).__name__ in ("_ProxyMeterProvider", "ProxyMeterProvider")
        ):
            return None
    cache = _meters_cache
    if cache is not None and cache[0] is provider:
        return cache[1]
    instruments = _Instruments(provider)
    _meters_cache = (provider, instruments)
    return instruments


def _attribute_value(value: Any) -> Any:
    """A value OpenTelemetry accepts as an attribute (str, bool, int, float or a list of str)."""
    if isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, (list, tuple)):
        return [str(v) for v in value]
    return str(value)


class _Span:
    """What :func:`span` yields: records attributes and an error on the real span, if any."""

    __slots__ = ("_span",)

    def __init__(self, real: Any):
        self._span = real

    @property
    def recording(self) -> bool:
        return self._span is not None

    def set(self, **attributes: Any) -> None:
        """Set ``smolagents_native.<key>`` attributes; None values are skipped."""
        if self._span is None:
            return
        for key, value in attributes.items():
            if value is not None:
                self._span.set_attribute(f"{LOGGER_NAME}.{key}", _attribute_value(value))

    def set_otel(self, attributes: dict[str, Any]) -> None:
        """Set attributes under their own (semantic conventions') names; None values skipped."""
        if self._span is None:
            return
        for key, value in attributes.items():
            if value is not None:
                self._span.set_attribute(key, _attribute_value(value))

    def set_error(self, error_type: str, message: str) -> None:
        """Mark the span as failed (status ERROR) with the error's type and message."""
        if self._span is None:
            return
        self.set(error=message, error_type=error_type)
        self._span.set_attribute("error.type", error_type)
        from opentelemetry.trace import Status, StatusCode

        self._span.set_status(Status(StatusCode.ERROR, f"{error_type}: {message}"))


@contextlib.contextmanager
def span(
    name: str, *, otel_attributes: dict[str, Any] | None = None, **attributes: Any
) -> Iterator[_Span]:
    """Open an OpenTelemetry span named `name` (a child of the current span) with
    ``smolagents_native.<key>`` attributes, and `otel_attributes` as given (semantic
    conventions' names); a no-op without a tracer provider. An exception that escapes the
    block marks the span as failed and propagates."""
    tracer = _tracer()
    if tracer is None:
        yield _Span(None)
        return
    with tracer.start_as_current_span(
        name, attributes=otel_attributes, record_exception=True, set_status_on_exception=True
    ) as real:
        handle = _Span(real)
        handle.set(**attributes)
        yield handle


def _code_attribute(code: str) -> str:
    if len(code) <= MAX_CODE_ATTRIBUTE_LENGTH:
        return code
    return code[:MAX_CODE_ATTRIBUTE_LENGTH] + "\n... [truncated]"


# ---------------------------------------------------------------------------------------------
# Logging.


class JsonFormatter(logging.Formatter):
    """Formats each record as one JSON object on one line.

    Keys: ``time`` (ISO 8601, UTC), ``level``, ``logger``, ``message``; then the record's
    metrics when it has some (``step``, ``duration``, ``operations``, ``imports``,
    ``output_size``, ``logs_size``, ``is_final_answer``, ``error_type``, ``error``, ...); then
    ``exception`` (the formatted traceback) when the record carries one. Values that JSON cannot
    hold are written with ``str()``.
    """

    def format(self, record: logging.LogRecord) -> str:
        import datetime as _dt
        import json

        data: dict[str, Any] = {
            "time": _dt.datetime.fromtimestamp(record.created, _dt.timezone.utc).isoformat(),
            "level": record.levelname,
            "logger": record.name,
            "message": record.getMessage(),
        }
        metrics = getattr(record, METRICS_ATTR, None)
        if isinstance(metrics, dict):
            for key, value in metrics.items():
                data.setdefault(key, value)
        if record.exc_info:
            data["exception"] = self.formatException(record.exc_info)
        return json.dumps(data, default=str, ensure_ascii=False)


_configured_handler: logging.Handler | None = None


def configure_logging(
    level: int | str = logging.INFO, *, json: bool = False, stream: Any = None
) -> logging.Handler:
    """Send the package's log records to `stream` (default: stderr) at `level`, as JSON lines
    when `json` is true. Calling it again replaces the handler it added before. Returns the
    handler."""
    global _configured_handler
    logger = get_logger()
    if _configured_handler is not None:
        logger.removeHandler(_configured_handler)
    handler = logging.StreamHandler(stream)
    handler.setFormatter(
        JsonFormatter() if json else logging.Formatter("%(levelname)s %(name)s: %(message)s")
    )
    logger.addHandler(handler)
    logger.setLevel(level)
    _configured_handler = handler
    return handler


def log_execution(
    metrics: ExecutionMetrics,
    *,
    logger: logging.Logger | None = None,
    message: str | None = None,
    level: int | None = None,
) -> None:
    """Log one execution's metrics: INFO on success, WARNING on error (unless `level`)."""
    logger = logger or get_logger("executor")
    if level is None:
        level = logging.WARNING if metrics.error_type else logging.INFO
    if not logger.isEnabledFor(level):
        return
    if message is None:
        message = _describe(metrics)
    logger.log(level, message, extra={METRICS_ATTR: metrics.to_dict()})


def _describe(metrics: ExecutionMetrics) -> str:
    where = f"step {metrics.step}" if metrics.step is not None else "execution"
    ops = f", {metrics.operations} operations" if metrics.operations is not None else ""
    if metrics.error_type:
        outcome = f"failed with {metrics.error_type}"
    elif metrics.is_final_answer:
        outcome = "gave the final answer"
    else:
        outcome = "ran"
    return f"{where} {outcome} in {metrics.duration:.3f} s{ops}"


# ---------------------------------------------------------------------------------------------
# Instrumented execution.


# Set by `measure` around a call of an executor that observes itself: the step number for
# its span and record, and a list that receives its ExecutionMetrics (the caller logs them).
_step_var: ContextVar[int | None] = ContextVar("smolagents_native_step", default=None)
_collect_var: ContextVar[list[ExecutionMetrics] | None] = ContextVar(
    "smolagents_native_collect", default=None
)
_executor_logger = get_logger("executor")
_INFO = logging.INFO
_LOGGER_CACHE_OK = (  # quiet() may read the logger's cache (a plain Logger's isEnabledFor)
    type(_executor_logger).isEnabledFor is logging.Logger.isEnabledFor
    and isinstance(getattr(_executor_logger, "_cache", None), dict)
)


def observed(
    code: str,
    state: dict[str, Any],
    call: Callable[[], tuple[Any, bool]],
    *,
    entry: str = "executor",
) -> tuple[Any, bool]:
    """Run `call()`, one execution of `code` that leaves ``_operations_count`` and
    ``_print_outputs`` in `state` and returns (output, is_final_answer), with the package's
    instrumentation: a ``smolagents_native.execute`` span, the OpenTelemetry metrics, and one
    log record on ``smolagents_native.executor`` (or, inside :func:`measure`, the metrics
    handed to it instead). The executors call this; it returns or raises what `call` does.
    """
    if quiet():
        return call()  # nothing configured: next to no cost
    collect = _collect_var.get()
    log = collect is None and _executor_logger.isEnabledFor(logging.INFO)
    tracer = _tracer()
    meters = _meters()
    if not log and collect is None and tracer is None and meters is None:
        return call()
    step = _step_var.get()
    metrics = ExecutionMetrics(step=step, imports=imports_used(code))
    tokens = (_collect_var.set(None), _step_var.set(None))  # not for nested executions
    real = None
    start = time.perf_counter()
    try:
        if tracer is not None:
            real = tracer.start_span(
                "smolagents_native.execute",
                attributes={
                    f"{LOGGER_NAME}.entry": entry,
                    f"{LOGGER_NAME}.code": _code_attribute(code),
                    **({f"{LOGGER_NAME}.step": step} if step is not None else {}),
                },
            )
            # The except clause below records the exception (once) and the end sets the status.
            with _trace_module().use_span(
                real, end_on_exit=False, record_exception=False, set_status_on_exception=False
            ):
                output, is_final = call()
        else:
            output, is_final = call()
        metrics.output_size = output_size(output)
        metrics.is_final_answer = bool(is_final)
        return output, is_final
    except BaseException as exc:
        metrics.error_type = type(exc).__name__
        metrics.error = str(exc)
        if real is not None:
            real.record_exception(exc)
        raise
    finally:
        _collect_var.reset(tokens[0])
        _step_var.reset(tokens[1])
        metrics.duration = time.perf_counter() - start
        metrics.operations = _state_operations(state)
        printed = state.get("_print_outputs")
        metrics.logs_size = len(str(printed)) if printed is not None else 0
        if real is not None:
            _end_execute_span(real, metrics)
        if meters is not None:
            _record_metrics(meters, metrics, entry)
        if collect is not None:
            collect.append(metrics)
        elif log:
            log_execution(metrics, logger=_executor_logger)


def _state_operations(state: dict[str, Any]) -> int | None:
    value = state.get("_operations_count")
    if isinstance(value, dict):
        value = value.get("counter")
    return value if isinstance(value, int) else None


def _end_execute_span(real: Any, metrics: ExecutionMetrics) -> None:
    handle = _Span(real)
    handle.set(
        duration=metrics.duration,
        operations=metrics.operations,
        imports=metrics.imports,
        output_size=metrics.output_size,
        is_final_answer=metrics.is_final_answer,
    )
    if metrics.error_type is not None:
        handle.set_error(metrics.error_type, metrics.error or "")
    real.end()


def _record_metrics(meters: _Instruments, metrics: ExecutionMetrics, entry: str) -> None:
    attributes: dict[str, Any] = {f"{LOGGER_NAME}.entry": entry}
    if metrics.error_type is not None:
        attributes["error.type"] = metrics.error_type
        meters.errors.add(1, attributes)
    meters.executions.add(1, attributes)
    meters.duration.record(metrics.duration, attributes)


def call_tool(name: str, tool: Callable[..., Any], args: tuple, kwargs: dict[str, Any]) -> Any:
    """Call `tool(*args, **kwargs)` for interpreted code, inside an ``execute_tool <name>``
    span (GenAI semantic conventions) when a tracer provider is configured. The hook a tool
    proxy calls; a final answer (FinalAnswerException) is not an error."""
    tracer = _tracer()
    if tracer is None:
        return tool(*args, **kwargs)
    attributes: dict[str, Any] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": name,
        "gen_ai.tool.type": "function",
    }
    description = getattr(tool, "description", None)  # smolagents' Tool
    if not isinstance(description, str):
        doc = getattr(tool, "__doc__", None)
        description = doc.strip().split("\n\n")[0] if isinstance(doc, str) else None
    if description:
        attributes["gen_ai.tool.description"] = description
    trace = _trace_module()
    with tracer.start_as_current_span(
        f"execute_tool {name}",
        kind=trace.SpanKind.INTERNAL,
        attributes=attributes,
        record_exception=False,
        set_status_on_exception=False,
    ) as real:
        try:
            return tool(*args, **kwargs)
        except BaseException as exc:
            from . import errors

            if not isinstance(exc, (errors.FinalAnswerException, errors.FINAL_ANSWER_MATCH)):
                real.record_exception(exc)
                real.set_attribute("error.type", type(exc).__qualname__)
                real.set_status(trace.Status(trace.StatusCode.ERROR, str(exc)[:1000]))
            raise


class TracedTool:
    """A tool as given to the interpreter while tracing is on: calls go through
    :func:`call_tool`; other attributes are the tool's."""

    __slots__ = ("_name", "_tool")

    def __init__(self, name: str, tool: Callable[..., Any]):
        self._name = name
        self._tool = tool

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return call_tool(self._name, self._tool, args, kwargs)

    def __getattr__(self, attr: str) -> Any:
        return getattr(self._tool, attr)

    def __repr__(self) -> str:
        return repr(self._tool)


def quiet() -> bool:
    """True when an execution now would make no span, no metric and no log record, and is
    not inside `measure`: `observed(code, state, call)` would only call `call()`. The
    executors test this before every step (some 1,500 instructions when it holds), and
    skip `observed` when it holds."""
    if not (
        _tracer_provider is None
        and _meter_provider is None
        and _otel_trace is _UNSET
        and "opentelemetry.trace" not in sys.modules
        and "opentelemetry.metrics" not in sys.modules
        and _collect_var.get() is None
    ):
        return False
    # What Logger.isEnabledFor(INFO) answers, without its call when the logger is a plain
    # Logger whose own cache (emptied by logging whenever a level changes) holds the answer:
    # this is what isEnabledFor reads first.
    if _LOGGER_CACHE_OK:
        if _executor_logger.disabled:
            return True
        enabled = _executor_logger._cache.get(_INFO)
        if enabled is not None:
            return not enabled
    return not _executor_logger.isEnabledFor(_INFO)


def tracing_active() -> bool:
    """True when spans are being made (a tracer provider is configured)."""
    if (
        _tracer_provider is None
        and _otel_trace is _UNSET
        and "opentelemetry.trace" not in sys.modules
    ):
        return False  # as `_tracer()` would find, without its calls
    return _tracer() is not None


def measure(
    executor: Any, code: str, *, step: int | None = None
) -> tuple[Any, Exception | None, ExecutionMetrics]:
    """Run `code` in `executor` inside a ``smolagents_native.execute`` span, without logging.

    Returns (CodeOutput or None, the exception or None, metrics): an Exception raised by the
    executor is returned, not raised (a BaseException such as KeyboardInterrupt propagates).
    Our executors observe themselves (:func:`observed`): their span and metrics are used;
    any other executor gets the span and metrics from here."""
    if getattr(executor, "observes_itself", False):
        box: list[ExecutionMetrics] = []
        tokens = (_collect_var.set(box), _step_var.set(step))
        result = None
        error: Exception | None = None
        try:
            result = executor(code)
        except Exception as exc:  # the error is data here: returned to the caller
            error = exc
        finally:
            _collect_var.reset(tokens[0])
            _step_var.reset(tokens[1])
        if box:
            metrics = box[-1]
            if result is not None:
                metrics.logs_size = len(result.logs or "")
            return result, error, metrics
        return result, error, _metrics_of(executor, code, step, result, error, 0.0)
    return _measure_foreign(executor, code, step)


def _metrics_of(
    executor: Any, code: str, step: int | None, result: Any, error: Exception | None,
    duration: float,
) -> ExecutionMetrics:
    metrics = ExecutionMetrics(step=step, imports=imports_used(code), duration=duration)
    metrics.operations = operations_count(executor)
    if result is not None:
        metrics.output_size = output_size(result.output)
        metrics.logs_size = len(result.logs or "")
        metrics.is_final_answer = bool(result.is_final_answer)
    if error is not None:
        metrics.error_type = type(error).__name__
        metrics.error = str(error)
    return metrics


def _measure_foreign(
    executor: Any, code: str, step: int | None
) -> tuple[Any, Exception | None, ExecutionMetrics]:
    metrics = ExecutionMetrics(step=step, imports=imports_used(code))
    result = None
    error: Exception | None = None
    with span("smolagents_native.execute", step=step, code=_code_attribute(code)) as sp:
        start = time.perf_counter()
        try:
            result = executor(code)
        except Exception as exc:  # the error is data here: returned to the caller
            error = exc
        metrics.duration = time.perf_counter() - start
        metrics.operations = operations_count(executor)
        if result is not None:
            metrics.output_size = output_size(result.output)
            metrics.logs_size = len(result.logs or "")
            metrics.is_final_answer = bool(result.is_final_answer)
        if error is not None:
            metrics.error_type = type(error).__name__
            metrics.error = str(error)
        sp.set(
            duration=metrics.duration,
            operations=metrics.operations,
            imports=metrics.imports,
            output_size=metrics.output_size,
            is_final_answer=metrics.is_final_answer,
        )
        if error is not None:
            sp.set_error(metrics.error_type or "Exception", metrics.error or "")
    return result, error, metrics


def execute(
    executor: Any,
    code: str,
    *,
    step: int | None = None,
    logger: logging.Logger | None = None,
) -> Any:
    """Run `code` in `executor` (e.g. a LocalPythonExecutor) like ``executor(code)``, with a
    span and a log record (``smolagents_native.executor``) carrying its metrics.

    Returns the CodeOutput; re-raises the executor's error after logging it. Use
    :func:`measure` to get the metrics as data.
    """
    result, error, metrics = measure(executor, code, step=step)
    log_execution(metrics, logger=logger)
    if error is not None:
        raise error
    return result
