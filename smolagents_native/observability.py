"""Logging, JSON log lines and OpenTelemetry spans for code executions and agent steps.

Everything here is opt-in and has no third-party dependency:

- Standard :mod:`logging` under the ``smolagents_native`` logger (``smolagents_native.agent``
  for agent steps, ``smolagents_native.executor`` for executions run through
  :func:`execute`). The package installs only a :class:`logging.NullHandler`; call
  :func:`configure_logging` (or add your own handler) to see the records.
- :class:`JsonFormatter` writes one JSON object per line. Records emitted by this package carry
  their metrics (step, duration, operations, imports used, output size, error type) as
  top-level keys of that object.
- OpenTelemetry spans (``smolagents_native.agent.run``, ``smolagents_native.agent.step``,
  ``smolagents_native.execute``) are created when ``opentelemetry-api`` is importable, through
  the global tracer provider or the one given to :func:`set_tracer_provider`. Without it the
  span helpers do nothing.

The same metrics are plain data too: :class:`ExecutionMetrics`, and the agent's step records
(``StepRecord.metrics``).
"""

from __future__ import annotations

import ast
import contextlib
import datetime as _dt
import json
import logging
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Any

__all__ = [
    "LOGGER_NAME",
    "METRICS_ATTR",
    "ExecutionMetrics",
    "JsonFormatter",
    "configure_logging",
    "execute",
    "get_logger",
    "imports_used",
    "log_execution",
    "measure",
    "operations_count",
    "output_size",
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
    try:
        tree = ast.parse(code)
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


def output_size(output: Any) -> int:
    """Length of ``str(output)``; 0 for None, -1 when ``str()`` fails."""
    if output is None:
        return 0
    try:
        return len(str(output))
    except Exception:
        return -1


@dataclass
class ExecutionMetrics:
    """Measurements of one code execution (one executor call)."""

    step: int | None = None
    duration: float = 0.0  # seconds, wall clock, around the executor call
    operations: int | None = None  # the executor's `_operations_count`
    imports: list[str] = field(default_factory=list)
    output_size: int = 0  # len(str(output)); 0 without output
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

try:  # opentelemetry-api is an optional dependency
    from opentelemetry import trace as _otel_trace
except Exception:  # ImportError, or a broken install
    _otel_trace = None

_tracer_provider: Any = None


def tracing_available() -> bool:
    """True when OpenTelemetry's API is importable (spans are then created)."""
    return _otel_trace is not None


def set_tracer_provider(provider: Any) -> None:
    """Use `provider` for this package's spans instead of the global tracer provider (`None`
    goes back to the global one). Handy in tests and in applications that keep several."""
    global _tracer_provider
    _tracer_provider = provider


def _tracer() -> Any:
    if _otel_trace is None:
        return None
    from . import __version__

    if _tracer_provider is not None:
        return _tracer_provider.get_tracer(LOGGER_NAME, __version__)
    return _otel_trace.get_tracer(LOGGER_NAME, __version__)


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

    def set_error(self, error_type: str, message: str) -> None:
        """Mark the span as failed (status ERROR) with the error's type and message."""
        if self._span is None:
            return
        self.set(error=message, error_type=error_type)
        from opentelemetry.trace import Status, StatusCode

        self._span.set_status(Status(StatusCode.ERROR, f"{error_type}: {message}"))


@contextlib.contextmanager
def span(name: str, **attributes: Any) -> Iterator[_Span]:
    """Open an OpenTelemetry span named `name` (a child of the current span) with
    ``smolagents_native.<key>`` attributes; a no-op without OpenTelemetry. An exception that
    escapes the block marks the span as failed and propagates."""
    tracer = _tracer()
    if tracer is None:
        yield _Span(None)
        return
    with tracer.start_as_current_span(
        name, record_exception=True, set_status_on_exception=True
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


def measure(
    executor: Any, code: str, *, step: int | None = None
) -> tuple[Any, Exception | None, ExecutionMetrics]:
    """Run `code` in `executor` inside a ``smolagents_native.execute`` span, without logging.

    Returns (CodeOutput or None, the exception or None, metrics): an Exception raised by the
    executor is returned, not raised (a BaseException such as KeyboardInterrupt propagates)."""
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
