"""smolagents_native: a drop-in replacement for smolagents' LocalPythonExecutor.

Same API and messages as smolagents; CPython's semantics and speed; a policy enforced in C.
"""

from .errors import ExecutionTimeoutError, FinalAnswerException, InterpreterError
from .executor import (
    BASE_BUILTIN_MODULES,
    BASE_PYTHON_TOOLS,
    DANGEROUS_FUNCTIONS,
    DANGEROUS_MODULES,
    DEFAULT_MAX_LEN_OUTPUT,
    MAX_EXECUTION_TIME_SECONDS,
    MAX_OPERATIONS,
    MAX_WHILE_ITERATIONS,
    CodeOutput,
    LocalPythonExecutor,
    PrintContainer,
    PythonExecutor,
    evaluate_python_code,
)

__version__ = "0.1.0"

__all__ = [
    "BASE_BUILTIN_MODULES",
    "BASE_PYTHON_TOOLS",
    "DANGEROUS_FUNCTIONS",
    "DANGEROUS_MODULES",
    "DEFAULT_MAX_LEN_OUTPUT",
    "MAX_EXECUTION_TIME_SECONDS",
    "MAX_OPERATIONS",
    "MAX_WHILE_ITERATIONS",
    "CodeOutput",
    "ExecutionTimeoutError",
    "FinalAnswerException",
    "InterpreterError",
    "LocalPythonExecutor",
    "PrintContainer",
    "PythonExecutor",
    "evaluate_python_code",
]
