"""Exceptions raised by the executor, with smolagents' names and hierarchy.

When the `smolagents` package is importable, each class here subclasses the class of the same
name in `smolagents.local_python_executor`, so code written against smolagents
(`except InterpreterError`, `except FinalAnswerException`) catches ours too. `smolagents` stays
an optional dependency: without it the classes have the same bases smolagents gives them.
"""

from __future__ import annotations

from typing import Any

try:  # optional dependency
    from smolagents import local_python_executor as _smol
except Exception:  # ImportError, or a broken smolagents install
    _smol = None

__all__ = ["InterpreterError", "FinalAnswerException", "ExecutionTimeoutError"]

if _smol is not None:
    _InterpreterErrorBase: tuple[type, ...] = (_smol.InterpreterError,)
    _FinalAnswerBase: tuple[type, ...] = (_smol.FinalAnswerException,)
    _TimeoutBase: tuple[type, ...] = (_smol.ExecutionTimeoutError,)
else:
    _InterpreterErrorBase = (ValueError,)
    _FinalAnswerBase = (BaseException,)
    _TimeoutBase = (Exception,)


class InterpreterError(*_InterpreterErrorBase):  # type: ignore[misc]
    """The interpreter refused or failed to run the code: a parse error, an error raised by the
    code, a forbidden operation or an exhausted budget. A `ValueError`, as in smolagents."""


class FinalAnswerException(*_FinalAnswerBase):  # type: ignore[misc]
    """Raised by the `final_answer` tool wrapper to end a step with `value` as its output.

    Derives from `BaseException` (not `Exception`) so `except Exception` in the code does not
    swallow it, as in smolagents.
    """

    def __init__(self, value: Any):
        super().__init__(value)
        self.value = value


class ExecutionTimeoutError(*_TimeoutBase):  # type: ignore[misc]
    """The code ran past the executor's `timeout_seconds`."""


# The class the C core matches to recognise a final answer. smolagents' own class when it is
# installed, so a tool that raises smolagents' FinalAnswerException also ends the step.
FINAL_ANSWER_MATCH: type[BaseException] = (
    _smol.FinalAnswerException if _smol is not None else FinalAnswerException
)
