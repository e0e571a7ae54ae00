"""Exceptions raised by the executor, with smolagents' names and hierarchy.

When smolagents is in use (its `local_python_executor` module is loaded, before or after this
package), each class here is a subclass of the class of the same name in
`smolagents.local_python_executor`, so code written against smolagents (`except
InterpreterError`, `except FinalAnswerException`) catches ours too. This package never imports
smolagents itself (that costs seconds): `_smolbridge` gives the classes smolagents' bases when
it loads. Without smolagents the classes have the bases smolagents gives them (ValueError,
BaseException, Exception).
"""

from __future__ import annotations

from typing import Any

from . import _smolbridge

__all__ = ["InterpreterError", "FinalAnswerException", "ExecutionTimeoutError"]


# Placeholder bases, replaced by smolagents' classes when it loads (same layout: a plain
# subclass of the same builtin exception, which `__bases__` assignment requires).
class _InterpreterErrorBase(ValueError):
    pass


class _FinalAnswerBase(BaseException):
    pass


class _TimeoutBase(Exception):
    pass


class InterpreterError(_InterpreterErrorBase):
    """The interpreter refused or failed to run the code: a parse error, an error raised by the
    code, a forbidden operation or an exhausted budget. A `ValueError`, as in smolagents."""


class FinalAnswerException(_FinalAnswerBase):
    """Raised by the `final_answer` tool wrapper to end a step with `value` as its output.

    Derives from `BaseException` (not `Exception`) so `except Exception` in the code does not
    swallow it, as in smolagents.
    """

    def __init__(self, value: Any):
        super().__init__(value)
        self.value = value


class ExecutionTimeoutError(_TimeoutBase):
    """The code ran past the executor's `timeout_seconds`."""


# The class the C core matches to recognise a final answer: smolagents' own class once it is
# loaded, so a tool that raises smolagents' FinalAnswerException also ends the step (read when
# an interpreter is created).
FINAL_ANSWER_MATCH: type[BaseException] = FinalAnswerException


def _smolagents_loaded(mod: Any) -> None:
    global FINAL_ANSWER_MATCH
    match = getattr(mod, "FinalAnswerException", None)
    if isinstance(match, type) and issubclass(FinalAnswerException, match):
        FINAL_ANSWER_MATCH = match


_smolbridge.rebase(InterpreterError, "InterpreterError")
_smolbridge.rebase(FinalAnswerException, "FinalAnswerException")
_smolbridge.rebase(ExecutionTimeoutError, "ExecutionTimeoutError")
_smolbridge.on_load(_smolagents_loaded)
