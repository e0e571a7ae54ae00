"""smolagents-compatible executor API over the C interpreter in `smolagents_native._core`.

This module only adapts arguments and results: names, signatures, constants, the `state`
entries and the log text follow smolagents' `local_python_executor` (1.26). Everything that
touches the code being run happens in C.
"""

from __future__ import annotations

import contextvars
import inspect
import logging
import math
import re
import sys
import threading
import types
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from importlib.util import find_spec
from typing import Any

from . import _core, _engine, _smolbridge
from . import observability as _obs
from ._budgets import (  # the defaults, generated from csrc/budget/budgets.def
    BUDGETS,
    MAX_EXECUTION_TIME_SECONDS,
    MAX_GENERATORS,
    MAX_INT_BITS,
    MAX_MEMORY_BYTES,
    MAX_NESTING,
    MAX_OPERATIONS,
    MAX_PRINT_OUTPUTS_CHARS,
    MAX_RECURSION_DEPTH,
    MAX_RESULT_BYTES,
    MAX_SOURCE_BYTES,
    MAX_WHILE_ITERATIONS,
)
from ._engine import (  # noqa: F401  (the engine's helpers, importable from here as before)
    _acquire_interpreter,
    _new_interpreter,
    _release_interpreter,
    _same_tools,
    _split_tools,
    _tools_snapshot,
)
from .grants import effective_grants
from .errors import (
    ExecutionTimeoutError,
    FinalAnswerException,
    InterpreterError,
)

__all__ = [
    "ALLOWED_DUNDER_METHODS",
    "BASE_BUILTIN_MODULES",
    "BASE_PYTHON_TOOLS",
    "DANGEROUS_FUNCTIONS",
    "DANGEROUS_MODULES",
    "DEFAULT_MAX_LEN_OUTPUT",
    "MAX_EXECUTION_TIME_SECONDS",
    "MAX_GENERATORS",
    "MAX_NESTING",
    "MAX_MEMORY_BYTES",
    "MAX_OPERATIONS",
    "MAX_SOURCE_BYTES",
    "MAX_WHILE_ITERATIONS",
    "CodeOutput",
    "ExecutionTimeoutError",
    "FinalAnswerException",
    "InterpreterError",
    "LocalPythonExecutor",
    "PrintContainer",
    "PythonExecutor",
    "check_import_authorized",
    "evaluate_python_code",
    "fix_final_answer_code",
    "get_safe_module",
    "timeout",
    "truncate_content",
]

# ---------------------------------------------------------------------------------------------
# Constants: same names and values as smolagents 1.26 (`smolagents.utils`,
# `smolagents.local_python_executor`). Read at call time, so they can be patched.

BASE_BUILTIN_MODULES = [
    "collections",
    "datetime",
    "itertools",
    "math",
    "queue",
    "random",
    "re",
    "stat",
    "statistics",
    "time",
    "unicodedata",
]

DEFAULT_MAX_LEN_OUTPUT = 50000
# MAX_OPERATIONS, MAX_WHILE_ITERATIONS, MAX_EXECUTION_TIME_SECONDS and the sandbox's own budgets
# (MAX_PRINT_OUTPUTS_CHARS, MAX_RECURSION_DEPTH, MAX_INT_BITS, MAX_RESULT_BYTES, MAX_GENERATORS,
# MAX_NESTING) come from csrc/budget/budgets.def through ._budgets (docs/security.md, section 5). A
# step that exceeds one ends with InterpreterError. They are the defaults: `evaluate_python_code`
# reads them at each call (as smolagents), a `LocalPythonExecutor` copies them when created.
# smolagents' list of dunder methods the code may call. Kept for API compatibility only: the C
# policy has its own, fixed allowlist of dunder attributes (docs/security.md, section 2), and
# does not read this list.
ALLOWED_DUNDER_METHODS = ["__init__", "__str__", "__repr__"]
MAX_LENGTH_TRUNCATE_CONTENT = 20000

# Non-exhaustive lists kept for API compatibility. The C policy blocks these and much more.
DANGEROUS_MODULES = [
    "builtins",
    "io",
    "multiprocessing",
    "os",
    "pathlib",
    "pty",
    "shutil",
    "socket",
    "subprocess",
    "sys",
]

DANGEROUS_FUNCTIONS = [
    "builtins.compile",
    "builtins.eval",
    "builtins.exec",
    "builtins.globals",
    "builtins.locals",
    "builtins.__import__",
    "os.popen",
    "os.system",
    "posix.system",
]

# The names smolagents offers to code as "base tools". Python builtins among them are supplied
# by the C core itself (with its own guarded `print`, `getattr`, ...); the rest (math
# functions) are passed to the core as extra builtins. Neither kind is a protected tool.
BASE_PYTHON_TOOLS: dict[str, Callable] = {
    "print": print,
    "isinstance": isinstance,
    "range": range,
    "float": float,
    "int": int,
    "bool": bool,
    "str": str,
    "set": set,
    "list": list,
    "dict": dict,
    "tuple": tuple,
    "round": round,
    "ceil": math.ceil,
    "floor": math.floor,
    "log": math.log,
    "exp": math.exp,
    "sin": math.sin,
    "cos": math.cos,
    "tan": math.tan,
    "asin": math.asin,
    "acos": math.acos,
    "atan": math.atan,
    "atan2": math.atan2,
    "degrees": math.degrees,
    "radians": math.radians,
    "pow": pow,
    "sqrt": math.sqrt,
    "len": len,
    "sum": sum,
    "max": max,
    "min": min,
    "abs": abs,
    "enumerate": enumerate,
    "zip": zip,
    "reversed": reversed,
    "sorted": sorted,
    "all": all,
    "any": any,
    "map": map,
    "filter": filter,
    "ord": ord,
    "chr": chr,
    "next": next,
    "iter": iter,
    "divmod": divmod,
    "callable": callable,
    "getattr": getattr,
    "hasattr": hasattr,
    "setattr": setattr,
    "issubclass": issubclass,
    "type": type,
    "complex": complex,
}

_engine._set_base_values(BASE_PYTHON_TOOLS, {})


def truncate_content(content: str, max_length: int = MAX_LENGTH_TRUNCATE_CONTENT) -> str:
    """Keep the first and last `max_length // 2` characters of `content`, as smolagents does."""
    if len(content) <= max_length:
        return content
    return (
        content[: max_length // 2]
        + f"\n..._This content has been truncated to stay below {max_length} characters_...\n"
        + content[-max_length // 2 :]
    )


# ---------------------------------------------------------------------------------------------
# Helpers of smolagents' module contract. The executor itself does not need them (the C core
# checks imports and deadlines, and gives code the real modules through its attribute policy);
# they are here, with smolagents' behaviour, for code that imports them.

_logger = logging.getLogger(__name__)


def check_import_authorized(import_to_check: str, authorized_imports: list[str]) -> bool:
    """True if the dotted module name `import_to_check` is authorized by `authorized_imports`.

    smolagents' rule (the C core applies the same one): an entry authorizes the module it names
    and every parent of it (`"a.b"` authorizes `a` and `a.b`); a `"*"` part authorizes anything
    at that level and below (`"a.*"`: `a` and all its submodules; `"*"`: everything).
    """
    parts = import_to_check.split(".")
    for entry in authorized_imports:
        entry_parts = entry.split(".")
        for i, part in enumerate(parts):
            if i >= len(entry_parts) or entry_parts[i] != part:
                if i < len(entry_parts) and entry_parts[i] == "*":
                    return True
                break
        else:  # every part matched: the module is the entry, or one of its parents
            return True
    return False


# A reference to the name `final_answer` itself: not an attribute (`obj.final_answer`), not a
# longer name (`my_final_answer`, `final_answer_2`).
_FINAL_ANSWER_NAME = r"(?<![\w.])final_answer\b"


def fix_final_answer_code(code: str) -> str:
    """Rename a variable called `final_answer` to `final_answer_variable`, keeping calls.

    Models sometimes write `final_answer = x; final_answer(final_answer)`, which would rebind
    the `final_answer` tool. As in smolagents, the code is changed only when it both calls
    `final_answer(` and assigns to the bare name; then every use of the name that is not a
    call is renamed.
    """
    if "final_answer(" not in code or not re.search(_FINAL_ANSWER_NAME + r"\s*=", code):
        return code
    return re.sub(_FINAL_ANSWER_NAME + r"(?!\s*\()", "final_answer_variable", code)


def timeout(timeout_seconds: int) -> Callable[[Callable], Callable]:
    """Decorator: call the function in a worker thread and raise ExecutionTimeoutError if it
    has not returned within `timeout_seconds` (smolagents' helper, usable from any thread).

    Python cannot stop the worker: after a timeout it finishes in the background (a daemon
    thread). The executor does not use this: its deadline is checked inside the interpreter,
    which really stops the code.
    """

    def decorator(func: Callable) -> Callable:
        @wraps(func)
        def wrapper(*args: Any, **kwargs: Any) -> Any:
            outcome: dict[str, Any] = {}
            done = threading.Event()
            context = contextvars.copy_context()

            def work() -> None:
                try:
                    outcome["value"] = context.run(func, *args, **kwargs)
                except BaseException as exc:  # re-raised in the caller's thread
                    outcome["error"] = exc
                finally:
                    done.set()

            threading.Thread(target=work, name="smolagents_native-timeout", daemon=True).start()
            if not done.wait(timeout_seconds):
                raise ExecutionTimeoutError(
                    f"Code execution exceeded the maximum execution time of {timeout_seconds} "
                    "seconds"
                )
            if "error" in outcome:
                error = outcome.pop("error")
                try:
                    raise error
                finally:
                    del error
            return outcome["value"]

        return wrapper

    return decorator


def get_safe_module(
    raw_module: Any, authorized_imports: Any, visited: set[int] | None = None
) -> Any:
    """Return a copy of `raw_module` (smolagents' helper); any other object is returned as is.

    The copy is a new module of the same name holding the same attribute values; submodules
    are copied likewise (once each, cycles kept), and attributes whose lookup raises
    ImportError or AttributeError (lazy loaders) are left out. `authorized_imports` is accepted
    for compatibility and not used, as in smolagents. Our executor never hands such copies to
    code: the C policy filters attribute access on the real module (docs/compatibility.md).
    """
    if not isinstance(raw_module, types.ModuleType):
        return raw_module
    if visited is None:
        visited = set()
    if id(raw_module) in visited:
        return raw_module
    visited.add(id(raw_module))
    copy = types.ModuleType(raw_module.__name__)
    for name in dir(raw_module):
        try:
            value = getattr(raw_module, name)
        except (ImportError, AttributeError) as exc:
            _logger.info(
                "Skipping import error while copying %s.%s: %s - %s",
                raw_module.__name__, name, type(exc).__name__, exc,
            )
            continue
        if isinstance(value, types.ModuleType):
            value = get_safe_module(value, authorized_imports, visited=visited)
        setattr(copy, name, value)
    return copy


# smolagents' internal AST evaluators, which its test-suite imports from this module: shims
# in `smolagents_native.compat`, loaded on first use.
_COMPAT_SHIMS = frozenset(
    {"evaluate_boolop", "evaluate_condition", "evaluate_delete", "evaluate_subscript"}
)


def __getattr__(name: str) -> Any:
    if name in _COMPAT_SHIMS:
        from . import compat

        return getattr(compat, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


# ---------------------------------------------------------------------------------------------
# Result containers.

# Each class below is smolagents' own subclass once smolagents is loaded (before or after this
# module): it is defined over a placeholder base that `_smolbridge` replaces by smolagents'
# class of the same name.


class _PrintContainerBase:
    pass


class _CodeOutputBase:
    pass


class _PythonExecutorBase(ABC):
    pass


class PrintContainer(_PrintContainerBase):
    """What the code printed during one step; `str()` gives the text."""

    def __init__(self, value: str = ""):
        self.value = value

    def append(self, text: str) -> PrintContainer:
        self.value += text
        return self

    def __iadd__(self, other: object) -> PrintContainer:
        self.value += str(other)
        return self

    def __str__(self) -> str:
        return self.value

    def __repr__(self) -> str:
        return f"PrintContainer({self.value})"

    def __len__(self) -> int:
        return len(self.value)


@dataclass
class CodeOutput(_CodeOutputBase):
    """Result of one executor step (a subclass of smolagents' CodeOutput when it is loaded)."""

    output: Any
    logs: str
    is_final_answer: bool

    def _repr_html_(self) -> str:
        from ._display import code_output_html

        return code_output_html(self)

    def _repr_markdown_(self) -> str:
        from ._display import code_output_markdown

        return code_output_markdown(self)


class PythonExecutor(_PythonExecutorBase):
    """Interface of a code executor, as in smolagents. Once smolagents is loaded, this name
    is smolagents' own class (and ours becomes a subclass of it)."""

    @abstractmethod
    def send_tools(self, tools: dict[str, Any]) -> None: ...

    @abstractmethod
    def send_variables(self, variables: dict[str, Any]) -> None: ...

    @abstractmethod
    def __call__(self, code_action: str) -> CodeOutput: ...


_OwnPythonExecutor = PythonExecutor


def _smolagents_loaded(mod: Any) -> None:
    global PythonExecutor
    smol_base_tools = getattr(mod, "BASE_PYTHON_TOOLS", None)
    if isinstance(smol_base_tools, dict):
        _engine._set_base_values(BASE_PYTHON_TOOLS, smol_base_tools)
    smol_executor = getattr(mod, "PythonExecutor", None)
    if isinstance(smol_executor, type) and issubclass(_OwnPythonExecutor, smol_executor):
        PythonExecutor = smol_executor
        package = sys.modules.get(__package__ or "")
        if package is not None and "PythonExecutor" in vars(package):
            package.PythonExecutor = smol_executor


_smolbridge.rebase(PrintContainer, "PrintContainer")
_smolbridge.rebase(CodeOutput, "CodeOutput")
_smolbridge.rebase(_OwnPythonExecutor, "PythonExecutor")


# ---------------------------------------------------------------------------------------------
# The budget constants and the engine. The engine (`_engine.py`: the interpreters, the step) is
# below this module; the constants above are this module's, read at call time.

# Base modules of authorized imports found installed (see
# LocalPythonExecutor._check_authorized_imports_are_installed).
_INSTALLED: set[str] = set()
_get_ident = threading.get_ident

# A step started by a tool or callback of the same executor's running step (`__call__`, and
# process mode's batches).
NESTED_STEP = (
    "This executor is already running a step on this thread (a tool or callback called it "
    "again from inside the step); a step cannot start inside another step of the same "
    "executor. Use another executor for nested code."
)


def _budget_defaults() -> dict[str, Any]:
    """The budgets as this module's constants say now (MAX_OPERATIONS, ...), as keyword
    arguments of `Interpreter.run` (all but `timeout`, which callers give explicitly)."""
    g = globals()
    return {name: g[const] for name, _d, _u, const, _w, _m in BUDGETS if name != "timeout"}


def _budgets(
    timeout_seconds: float | None,
    max_operations: int | None = None,
    max_while_iterations: int | None = None,
    defaults: dict[str, Any] | None = None,
) -> dict[str, Any]:
    """Keyword arguments of `Interpreter.run` for the budgets: `defaults` (an executor's own
    copy), or this module's constants read now; `max_operations` / `max_while_iterations`
    override them when given."""
    return _engine.budget_kwargs(
        timeout_seconds, max_operations, max_while_iterations,
        defaults if defaults is not None else _budget_defaults(),
    )


# ---------------------------------------------------------------------------------------------
# The process mode. `LocalPythonExecutor(..., isolation="process")` returns an
# `isolation.ProcessExecutor`; this module never imports the isolation package (it is built on
# this one): the package's `__init__.py` registers a loader here, right after importing this
# module (any import of this module runs the package's `__init__` first, so the loader is in
# place before user code makes an executor); it is called when an executor resolves to
# "process", and imports the isolation package the first time.

_process_mode: Callable[[], type] | None = None


def register_process_mode(loader: Callable[[], type]) -> None:
    """Set the function returning the class of `isolation="process"` executors (a subclass of
    LocalPythonExecutor). `smolagents_native/__init__.py` registers one that imports
    `smolagents_native.isolation.ProcessExecutor` on first use."""
    global _process_mode
    _process_mode = loader


def _process_mode_class() -> type:
    if _process_mode is None:
        raise RuntimeError(
            "isolation='process' is not available: no process mode is registered "
            "(smolagents_native/__init__.py registers smolagents_native.isolation)"
        )
    return _process_mode()


# ---------------------------------------------------------------------------------------------
# Public entry points.


def evaluate_python_code(
    code: str,
    static_tools: dict[str, Callable] | None = None,
    custom_tools: dict[str, Callable] | None = None,
    state: dict[str, Any] | None = None,
    authorized_imports: list[str] = BASE_BUILTIN_MODULES,
    max_print_outputs_length: int = DEFAULT_MAX_LEN_OUTPUT,
    timeout_seconds: int | None = MAX_EXECUTION_TIME_SECONDS,
) -> tuple[Any, bool]:
    """Run `code` with `state` as its global namespace; return (output, is_final_answer).

    Same signature and contract as smolagents' `evaluate_python_code`: `static_tools` cannot
    be rebound by the code, `custom_tools` can; `state` is updated in place, and receives
    `_print_outputs` (a PrintContainer) and `_operations_count` (``{"counter": n}``).
    Raises InterpreterError (or ExecutionTimeoutError) on failure.
    """
    if state is None:
        state = {}
    key = tuple(authorized_imports)
    interp = _acquire_interpreter(key)
    try:
        interp.tools, interp.extra_builtins = _split_tools(
            static_tools, custom_tools, _obs.tracing_active()
        )
        interp.grants = effective_grants(key)
        return _obs.observed(
            code,
            state,
            lambda: interp.step(
                code, state, _core.Budgets(**_budgets(timeout_seconds)),
                max_print_outputs_length, PrintContainer, truncate_content, timeout_seconds,
            ),
            entry="evaluate_python_code",
        )
    finally:
        _release_interpreter(key, interp)


class LocalPythonExecutor(PythonExecutor):  # type: ignore[misc,valid-type]
    """Drop-in replacement for smolagents' `LocalPythonExecutor`, backed by a C interpreter.

    Args:
        additional_authorized_imports: modules the code may import besides
            `BASE_BUILTIN_MODULES` (`"pkg.*"` and `"*"` wildcards as in smolagents).
        max_print_outputs_length: truncate each step's logs to this many characters
            (default `DEFAULT_MAX_LEN_OUTPUT`).
        additional_functions: extra callables offered to the code, protected like tools.
        timeout_seconds: wall-clock limit per step (`None`: no limit).
        max_operations: operation budget per step. Not in smolagents; `None` (the default)
            uses `MAX_OPERATIONS` as it was when the executor was created.
        max_while_iterations: budget of iterations per `while` loop; `None` uses
            `MAX_WHILE_ITERATIONS` as it was when the executor was created.
        max_memory_bytes: net bytes a step may allocate (default `MAX_MEMORY_BYTES`, 512 MiB;
            `None`: no limit). Past it the step ends with InterpreterError (docs/security.md,
            memory budget). Not in smolagents.
        max_source_bytes: the longest source (UTF-8 bytes) a step may have, checked before it
            is parsed (default `MAX_SOURCE_BYTES`, 1 MiB; `None`: no limit): CPython's parser
            cannot be interrupted, so this bounds the time a step can spend before its
            deadline is checked. Not in smolagents.
        readable_dirs: directories that host code acting for the code (pandas.read_csv,
            numpy.load, io.FileIO...) may read, besides the Python installation. Not in
            smolagents. `None` (the default): everywhere if a file module (`os`, `pathlib`,
            `shutil`, `io`...) is authorized, else nowhere. See docs/security.md.
        writable_dirs: directories such host code may create, write or delete files in;
            `None`: as for `readable_dirs`. Giving either list narrows what an authorized file
            module implies (the other one becomes empty unless given).
        allow_network: whether such host code may open sockets; `None`: only if a network
            module (`socket`, `requests`...) is authorized.
        isolation: `"none"` (in this process) or `"process"` (a sandboxed worker process,
            docs/isolation.md; then the object is an `isolation.ProcessExecutor`, which takes
            more options). `None`: `"process"` when an authorized module is not in the
            in-process table (`csrc/guard/inprocess.def`: third-party modules, wildcards, and the
            standard-library modules not reviewed for the host's process;
            `isolation.needs_process`), else `"none"`.

    The other budgets (docs/security.md, section 5) are copied from this module's constants
    when the executor is created, into `budgets` (read-only): the steps read that copy, never
    the module's globals.

    One executor may be shared by several threads: its steps run one at a time (a lock per
    executor; a thread waits for the running step, without holding the GIL), so each step's
    prints and state writes are its own. A step that would start inside a running step of the
    same executor on the same thread (a tool calling the executor again) would wait for
    itself: it raises InterpreterError instead.
    """

    # Each call logs, traces and measures itself (observability.observed): measure() and
    # execute() use this executor's own span and metrics.
    observes_itself = True

    _process_capable = False  # True on isolation.ProcessExecutor

    def __new__(cls, *args: Any, **kwargs: Any) -> LocalPythonExecutor:
        if cls is LocalPythonExecutor:
            from ._mode import resolve_isolation

            imports = args[0] if args else kwargs.get("additional_authorized_imports")
            if resolve_isolation(kwargs.get("isolation"), imports) == "process":
                cls = _process_mode_class()
        return super().__new__(cls)

    def __init__(
        self,
        additional_authorized_imports: list[str],
        max_print_outputs_length: int | None = None,
        additional_functions: dict[str, Callable] | None = None,
        timeout_seconds: int | None = MAX_EXECUTION_TIME_SECONDS,
        max_operations: int | None = None,
        max_while_iterations: int | None = None,
        readable_dirs: list[str] | None = None,
        writable_dirs: list[str] | None = None,
        allow_network: bool | None = None,
        isolation: str | None = None,
        max_memory_bytes: int | None = MAX_MEMORY_BYTES,
        max_source_bytes: int | None = MAX_SOURCE_BYTES,
    ):
        if isolation == "process" and not self._process_capable:
            raise TypeError(
                f"{type(self).__name__} runs in process: isolation='process' is for "
                "LocalPythonExecutor itself (it then returns an isolation.ProcessExecutor)"
            )
        self.isolation = "none"
        self.custom_tools: dict[str, Callable] = {}
        self.state: dict[str, Any] = {"__name__": "__main__"}
        self.max_print_outputs_length = max_print_outputs_length
        if max_print_outputs_length is None:
            self.max_print_outputs_length = DEFAULT_MAX_LEN_OUTPUT
        self.additional_authorized_imports = additional_authorized_imports
        # Deduplicated like smolagents, but in a stable order (smolagents goes through a set).
        self.authorized_imports = list(
            dict.fromkeys([*BASE_BUILTIN_MODULES, *additional_authorized_imports])
        )
        self._check_authorized_imports_are_installed()
        self.static_tools: dict[str, Callable] | None = None
        self.additional_functions = additional_functions or {}
        self.timeout_seconds = timeout_seconds
        self.max_operations = max_operations
        self.max_while_iterations = max_while_iterations
        self._budget_copy = _budget_defaults()
        self._budget_copy["max_memory_bytes"] = max_memory_bytes
        self._budget_copy["max_source_bytes"] = max_source_bytes
        self._budget_kwargs: tuple[tuple, Any] | None = None  # _run_code's _core.Budgets
        self.readable_dirs = readable_dirs
        self.writable_dirs = writable_dirs
        self.allow_network = allow_network
        self._grants_key: tuple | None = None
        self._interp = _new_interpreter(self.authorized_imports)
        self._interp_imports = list(self.authorized_imports)
        # Snapshots (`_tools_snapshot`) of static_tools and custom_tools, and whether spans
        # were made, as last given to the core.
        self._synced: tuple[list, list, bool] | None = None
        # Steps run one at a time; _step_thread is the thread running one (None: idle).
        self._step_lock = threading.Lock()
        self._step_thread: int | None = None

    @property
    def budgets(self) -> types.MappingProxyType:
        """This executor's budgets (keyword arguments of `Interpreter.run`), copied from the
        module's constants at creation; `max_operations` / `max_while_iterations` given to the
        constructor take precedence over the first two."""
        return types.MappingProxyType(
            _budgets(self.timeout_seconds, self.max_operations, self.max_while_iterations,
                     self._budget_copy)
        )

    def _check_authorized_imports_are_installed(self) -> None:
        """Raise InterpreterError if an authorized module is not installed (as smolagents).

        A module once found is remembered for the process (`_INSTALLED`): `find_spec` of a
        module not imported yet searches sys.path, several stat calls for each of the
        default imports not yet loaded, about 100 µs for every executor made. A missing
        module is asked again each time, so installing it later is seen."""
        missing_modules = []
        for imp in self.authorized_imports:
            if imp == "*":
                continue
            base_module = imp.split(".")[0]
            if base_module in _INSTALLED:
                continue
            if find_spec(base_module) is None:
                missing_modules.append(base_module)
            else:
                _INSTALLED.add(base_module)
        if missing_modules:
            raise InterpreterError(
                f"Non-installed authorized modules: {', '.join(missing_modules)}. "
                f"Please install these modules or remove them from the authorized imports list."
            )

    _sync = _engine.sync

    # The thread running a host tool for this executor's step (process mode runs tools on
    # a thread of their own): a step it starts would wait for itself, as on the step's.
    _tool_thread: int | None = None

    def __call__(self, code_action: str) -> CodeOutput:
        me = _get_ident()
        if self._step_thread == me or self._tool_thread == me:
            raise InterpreterError(NESTED_STEP)
        with self._step_lock:  # waits without the GIL; Ctrl-C interrupts the wait
            self._step_thread = me
            try:
                # The step, the code path every executor shares (in process and
                # `isolation="process"`, whose hooks are `_prepare_step` and `_run_code`):
                # prepare, then run under the observability wrapper.
                self._prepare_step()
                if _obs.quiet():  # nothing to observe: the common case, without a closure
                    output, is_final_answer = self._run_code(code_action)
                else:
                    output, is_final_answer = _obs.observed(
                        code_action, self.state, lambda: self._run_code(code_action)
                    )
                printed = self.state["_print_outputs"]  # PrintContainer: str() is its value
                logs = printed.value if type(printed) is PrintContainer else str(printed)
            finally:
                self._step_thread = None
        return CodeOutput(output, logs, is_final_answer)

    # Before a step: bring the core up to date with the executor's attributes (the same
    # function, not a call of it: a frame less per step; ProcessExecutor overrides it).
    _prepare_step = _sync

    _run_code = _engine.make_run_code(PrintContainer, truncate_content)

    __del__ = _engine.release_state

    def send_variables(self, variables: dict[str, Any]) -> None:
        self.state.update(variables)

    def reset(self) -> None:
        """Start a fresh program: the variables, functions, classes and imported names the
        code defined (`state`) are forgotten; tools, authorized imports, budgets and grants
        stay. In process mode the worker also empties its scratch directory (the process
        and its imported modules stay: docs/isolation.md, *Batches*)."""
        self.state = {"__name__": "__main__"}

    def send_tools(self, tools: dict[str, Any]) -> None:
        # Agent tools, then base Python tools, then additional functions, as smolagents.
        self.static_tools = {**tools, **BASE_PYTHON_TOOLS.copy(), **self.additional_functions}

    def close(self) -> None:
        """Nothing to release in process; process mode ends its worker."""

    def __enter__(self) -> LocalPythonExecutor:
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


# `inspect.signature(LocalPythonExecutor)` (so `help()`, IDEs, notebooks) reads `__new__` before
# `__init__`; `__new__` only chooses the mode and passes everything on, so it shows `__init__`'s.
LocalPythonExecutor.__new__.__signature__ = inspect.signature(  # type: ignore[attr-defined]
    LocalPythonExecutor.__init__
).replace(return_annotation=inspect.Signature.empty)

_smolbridge.on_load(_smolagents_loaded)
