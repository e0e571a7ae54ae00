"""smolagents_native: a drop-in replacement for smolagents' LocalPythonExecutor.

Same API and messages as smolagents; CPython's semantics and speed; a policy enforced in C.
`patch_smolagents()` makes smolagents itself use it. The agent loop (`CodeAgent`, `RunResult`,
`StepRecord`) and the model clients (`ScriptedModel`, `OpenAICompatibleModel`, `ModelError`)
are imported on first use.
"""

from typing import Any

try:
    from . import _core  # noqa: F401  (the C extension: everything below needs it)
except ImportError as _exc:  # e.g. run from a source tree whose extension is not built
    from ._core_missing import explain as _explain

    raise _explain(_exc, __path__[0]) from None

from . import _smolbridge
from . import executor as _executor
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

_smolbridge.install()  # our classes get smolagents' bases whenever smolagents loads


def _process_executor() -> type:
    from .isolation import ProcessExecutor

    return ProcessExecutor


# LocalPythonExecutor(..., isolation="process") returns an isolation.ProcessExecutor: the
# executor module never imports the isolation package, which is imported here on first need.
_executor.register_process_mode(_process_executor)

from ._version import __version__  # noqa: E402

__all__ = [
    "BASE_BUILTIN_MODULES",
    "BASE_PYTHON_TOOLS",
    "DANGEROUS_FUNCTIONS",
    "DANGEROUS_MODULES",
    "DEFAULT_MAX_LEN_OUTPUT",
    "MAX_EXECUTION_TIME_SECONDS",
    "MAX_OPERATIONS",
    "MAX_WHILE_ITERATIONS",
    "CodeAgent",
    "CodeOutput",
    "ExecutionTimeoutError",
    "FinalAnswerException",
    "InterpreterError",
    "LocalPythonExecutor",
    "ModelError",
    "OpenAICompatibleModel",
    "PrintContainer",
    "PythonExecutor",
    "RemoteExecutor",
    "RunResult",
    "ScriptedModel",
    "StepRecord",
    "WorkerPool",
    "evaluate_python_code",
    "load_ipython_extension",
    "patch_smolagents",
    "run_many",
    "unpatch_smolagents",
]

# Exported names that live in modules imported on first use: name -> submodule.
_LAZY = {
    "CodeAgent": "agent",
    "RunResult": "agent",
    "StepRecord": "agent",
    "ScriptedModel": "agent",
    "OpenAICompatibleModel": "agent",
    "ModelError": "agent",
    "WorkerPool": "isolation",
    "RemoteExecutor": "remote",
    "run_many": "isolation",
    "patch_smolagents": "compat",
    "unpatch_smolagents": "compat",
}


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    from importlib import import_module

    value = getattr(import_module(f".{module}", __name__), name)
    globals()[name] = value  # later lookups skip this function
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_LAZY))


def load_ipython_extension(ip):
    """`%load_ext smolagents_native` registers the %%sandbox cell magic."""
    from .agent.notebook import load_ipython_extension as _load

    _load(ip)
