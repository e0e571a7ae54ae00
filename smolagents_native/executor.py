"""smolagents-compatible executor API over the C interpreter in `smolagents_native._core`.

This module only adapts arguments and results: names, signatures, constants, the `state`
entries and the log text follow smolagents' `local_python_executor` (1.26). Everything that
touches the code being run happens in C.
"""

from __future__ import annotations

import builtins
import contextvars
import logging
import math
import re
import threading
import types
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from functools import wraps
from importlib.util import find_spec
from typing import Any

from . import _core
from .grants import effective_grants
from .errors import (
    FINAL_ANSWER_MATCH,
    ExecutionTimeoutError,
    FinalAnswerException,
    InterpreterError,
)

try:  # optional dependency: only used to share base classes
    from smolagents import local_python_executor as _smol
except Exception:
    _smol = None

__all__ = [
    "ALLOWED_DUNDER_METHODS",
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
MAX_OPERATIONS = 10000000
MAX_WHILE_ITERATIONS = 1000000
MAX_EXECUTION_TIME_SECONDS = 30
# smolagents' list of dunder methods the code may call. Kept for API compatibility only: the C
# policy has its own, fixed allowlist of dunder attributes (docs/security.md, section 2), and
# does not read this list.
ALLOWED_DUNDER_METHODS = ["__init__", "__str__", "__repr__"]
# Budgets of the sandbox beyond smolagents' (docs/security.md). A step that exceeds one ends
# with InterpreterError. `None` for MAX_RECURSION_DEPTH: the host's recursion limit minus 20.
MAX_PRINT_OUTPUTS_CHARS = 10_000_000  # everything print() may write in one step
MAX_RECURSION_DEPTH: int | None = None  # interpreted call depth (RecursionError, as CPython)
MAX_INT_BITS = 4_000_000  # size of an int result of **, <<, * (about 1.2 million digits)
MAX_RESULT_BYTES = 100_000_000  # size of a str/bytes/list result of *, join, bytes(n)...
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

# Values that stand for "the base tool `name`": ours, and smolagents' (its `print` and
# `getattr` are wrappers), so a static_tools dict built from either is recognised.
_SMOL_BASE_TOOLS: dict[str, Any] = getattr(_smol, "BASE_PYTHON_TOOLS", {}) if _smol else {}
_BASE_VALUES: dict[str, tuple[Any, ...]] = {
    name: (value, _SMOL_BASE_TOOLS[name]) if name in _SMOL_BASE_TOOLS else (value,)
    for name, value in BASE_PYTHON_TOOLS.items()
}
# The same, as ids (the values stay alive in the dicts above): an identity test that never
# calls a tool's __eq__.
_BASE_IDS: dict[str, frozenset[int]] = {
    name: frozenset(map(id, values)) for name, values in _BASE_VALUES.items()
}
_PY_BUILTIN_NAMES = frozenset(dir(builtins))


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

_PrintContainerBase: tuple[type, ...] = (
    (_smol.PrintContainer,) if _smol is not None and hasattr(_smol, "PrintContainer") else ()
)


class PrintContainer(*_PrintContainerBase):  # type: ignore[misc]
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


if _smol is not None and hasattr(_smol, "CodeOutput"):

    @dataclass
    class CodeOutput(_smol.CodeOutput):  # type: ignore[no-redef]
        """Result of one executor step (a subclass of smolagents' CodeOutput)."""

        output: Any
        logs: str
        is_final_answer: bool

        def _repr_html_(self) -> str:
            from .notebook import code_output_html

            return code_output_html(self)

        def _repr_markdown_(self) -> str:
            from .notebook import code_output_markdown

            return code_output_markdown(self)

    PythonExecutor = _smol.PythonExecutor

else:

    @dataclass
    class CodeOutput:  # type: ignore[no-redef]
        """Result of one executor step."""

        output: Any
        logs: str
        is_final_answer: bool

        def _repr_html_(self) -> str:
            from .notebook import code_output_html

            return code_output_html(self)

        def _repr_markdown_(self) -> str:
            from .notebook import code_output_markdown

            return code_output_markdown(self)

    class PythonExecutor(ABC):  # type: ignore[no-redef]
        """Interface of a code executor, as in smolagents."""

        @abstractmethod
        def send_tools(self, tools: dict[str, Any]) -> None: ...

        @abstractmethod
        def send_variables(self, variables: dict[str, Any]) -> None: ...

        @abstractmethod
        def __call__(self, code_action: str) -> CodeOutput: ...


# ---------------------------------------------------------------------------------------------
# Glue between smolagents' tool dictionaries and the core's `tools` / `extra_builtins`.


def _wrap_final_answer(tool: Callable) -> Callable:
    """A `final_answer` that ends the step with the tool's result, as smolagents wraps it."""

    def final_answer(*args: Any, **kwargs: Any) -> Any:
        raise FinalAnswerException(tool(*args, **kwargs))

    return final_answer


def _split_tools(
    static_tools: dict[str, Callable] | None, custom_tools: dict[str, Callable] | None
) -> tuple[dict[str, Callable], dict[str, Any]]:
    """Return (protected tools, extra builtins) for the core.

    smolagents' base tools that are Python builtins are dropped (the core has its own);
    the others (math functions) become extra builtins, shadowable like builtins. Every other
    static tool is protected. `custom_tools` are shadowable: extra builtins too.
    """
    tools: dict[str, Callable] = {}
    extra: dict[str, Any] = {}
    if custom_tools:
        extra.update(custom_tools)
    if static_tools:
        for name, value in static_tools.items():
            base = _BASE_IDS.get(name)
            if base is not None and id(value) in base:
                if name not in _PY_BUILTIN_NAMES:
                    extra[name] = value
                continue
            tools[name] = value
    if "final_answer" in tools:
        tools["final_answer"] = _wrap_final_answer(tools["final_answer"])
    return tools, extra


def _new_interpreter(authorized_imports: list[str]) -> Any:
    return _core.Interpreter(
        authorized_imports=list(authorized_imports),
        interpreter_error=InterpreterError,
        final_answer_exception=FINAL_ANSWER_MATCH,
        timeout_error=ExecutionTimeoutError,
    )


# Idle interpreters for evaluate_python_code, by authorized imports: creating one costs far
# more than a small step, and reusing one keeps its lowering cache. An interpreter is taken
# out while it runs (list.pop / append are atomic), so threads and re-entrant calls each get
# their own. Bounded: a few per key, a few keys.
_IDLE_INTERPRETERS: dict[tuple[str, ...], list[Any]] = {}
_IDLE_PER_KEY = 4
_IDLE_KEYS = 16


def _acquire_interpreter(key: tuple[str, ...]) -> Any:
    idle = _IDLE_INTERPRETERS.get(key)
    if idle:
        try:
            return idle.pop()
        except IndexError:  # another thread took the last one
            pass
    return _new_interpreter(list(key))


def _release_interpreter(key: tuple[str, ...], interp: Any) -> None:
    # Drop the caller's tools so an idle interpreter keeps nothing of theirs alive.
    interp.tools = {}
    interp.extra_builtins = {}
    idle = _IDLE_INTERPRETERS.get(key)
    if idle is None:
        if len(_IDLE_INTERPRETERS) >= _IDLE_KEYS:
            return
        idle = _IDLE_INTERPRETERS.setdefault(key, [])
    if len(idle) < _IDLE_PER_KEY:
        idle.append(interp)


def _budgets(
    timeout_seconds: float | None,
    max_operations: int | None = None,
    max_while_iterations: int | None = None,
) -> dict[str, Any]:
    """Keyword arguments of `Interpreter.run` for the budgets. One given as None is read from
    this module's global (MAX_OPERATIONS, MAX_WHILE_ITERATIONS, ...) now, so patching the
    global takes effect on the next step."""
    return {
        "max_operations": MAX_OPERATIONS if max_operations is None else max_operations,
        "max_while_iterations": (
            MAX_WHILE_ITERATIONS if max_while_iterations is None else max_while_iterations
        ),
        "timeout": timeout_seconds,
        "max_print_len": MAX_PRINT_OUTPUTS_CHARS,
        "max_depth": MAX_RECURSION_DEPTH or 0,
        "max_int_bits": MAX_INT_BITS,
        "max_result_bytes": MAX_RESULT_BYTES,
    }


def _run_step(
    interp: Any,
    code: str,
    state: dict[str, Any],
    max_print_outputs_length: int | None,
    timeout_seconds: float | None,
    max_operations: int | None = None,
    max_while_iterations: int | None = None,
) -> tuple[Any, bool]:
    """Run `code` once and write `_print_outputs` / `_operations_count` into `state`, whether
    the step succeeds or fails. Budgets as in `_budgets`."""
    try:
        return interp.run(
            code, state, **_budgets(timeout_seconds, max_operations, max_while_iterations)
        )
    except ExecutionTimeoutError:
        raise ExecutionTimeoutError(
            f"Code execution exceeded the maximum execution time of {timeout_seconds} seconds"
        ) from None
    finally:
        logs = interp.print_outputs
        if max_print_outputs_length is not None:
            logs = truncate_content(logs, max_length=max_print_outputs_length)
        state["_print_outputs"] = PrintContainer(logs)
        state["_operations_count"] = {"counter": interp.operations_count}


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
        interp.tools, interp.extra_builtins = _split_tools(static_tools, custom_tools)
        interp.grants = effective_grants(key)
        return _run_step(interp, code, state, max_print_outputs_length, timeout_seconds)
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
            reads this module's `MAX_OPERATIONS` at each call, as smolagents reads its own.
        max_while_iterations: budget of iterations per `while` loop; `None` reads
            `MAX_WHILE_ITERATIONS` at each call.
        readable_dirs: directories that host code acting for the code (pandas.read_csv,
            numpy.load, io.FileIO...) may read, besides the Python installation. Not in
            smolagents. `None` (the default): everywhere if a file module (`os`, `pathlib`,
            `shutil`, `io`...) is authorized, else nowhere. See docs/security.md.
        writable_dirs: directories such host code may create, write or delete files in;
            `None`: as for `readable_dirs`. Giving either list narrows what an authorized file
            module implies (the other one becomes empty unless given).
        allow_network: whether such host code may open sockets; `None`: only if a network
            module (`socket`, `requests`...) is authorized.
    """

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
    ):
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
        self.readable_dirs = readable_dirs
        self.writable_dirs = writable_dirs
        self.allow_network = allow_network
        self._grants_key: tuple | None = None
        self._interp = _new_interpreter(self.authorized_imports)
        self._interp_imports = list(self.authorized_imports)
        # Snapshot of (static_tools, custom_tools) last given to the core.
        self._synced: tuple[dict, dict] | None = None

    def _check_authorized_imports_are_installed(self) -> None:
        """Raise InterpreterError if an authorized module is not installed (as smolagents)."""
        missing_modules = [
            base_module
            for imp in self.authorized_imports
            if imp != "*" and find_spec(base_module := imp.split(".")[0]) is None
        ]
        if missing_modules:
            raise InterpreterError(
                f"Non-installed authorized modules: {', '.join(missing_modules)}. "
                f"Please install these modules or remove them from the authorized imports list."
            )

    def _sync(self) -> None:
        """Push attribute changes (imports, tools) to the core; cheap when nothing changed."""
        if self.authorized_imports != self._interp_imports:
            self._interp = _new_interpreter(self.authorized_imports)
            self._interp_imports = list(self.authorized_imports)
            self._synced = None
        static = self.static_tools or {}
        custom = self.custom_tools or {}
        if self._synced is None or self._synced != (static, custom):
            self._interp.tools, self._interp.extra_builtins = _split_tools(static, custom)
            self._synced = (dict(static), dict(custom))
            self._grants_key = None
        key = (
            self._interp, self.authorized_imports, self.readable_dirs, self.writable_dirs,
            self.allow_network,
        )
        if self._grants_key != key:
            self._interp.grants = effective_grants(*key[1:])
            # copies: a list changed in place later must be seen as a change
            self._grants_key = tuple(
                list(v) if isinstance(v, list) else v for v in key
            )

    def __call__(self, code_action: str) -> CodeOutput:
        self._sync()
        output, is_final_answer = _run_step(
            self._interp,
            code_action,
            self.state,
            self.max_print_outputs_length,
            self.timeout_seconds,
            self.max_operations,
            self.max_while_iterations,
        )
        logs = str(self.state["_print_outputs"])
        return CodeOutput(output=output, logs=logs, is_final_answer=is_final_answer)

    def send_variables(self, variables: dict[str, Any]) -> None:
        self.state.update(variables)

    def send_tools(self, tools: dict[str, Any]) -> None:
        # Agent tools, then base Python tools, then additional functions, as smolagents.
        self.static_tools = {**tools, **BASE_PYTHON_TOOLS.copy(), **self.additional_functions}
