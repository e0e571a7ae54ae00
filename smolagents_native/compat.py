"""Compatibility with the `smolagents` package.

Two things live here:

* `patch_smolagents()` / `unpatch_smolagents()`: make smolagents itself use this package's
  executor, so that code written for smolagents (`CodeAgent(executor_type="local")`,
  `PythonInterpreterTool`, `from smolagents import LocalPythonExecutor`) runs in the native
  sandbox without changes.
* Shims for four internal helpers of `smolagents.local_python_executor` that smolagents' own
  test suite imports (`evaluate_boolop`, `evaluate_condition`, `evaluate_delete`,
  `evaluate_subscript`). In smolagents they evaluate one `ast` node with its tree-walking
  interpreter; here they turn the node back into source (`ast.unparse`) and run it with the
  C interpreter, with the given `state` as globals. They exist for compatibility only: new
  code should call `evaluate_python_code` or `LocalPythonExecutor`.
"""

from __future__ import annotations

import ast
import difflib
import importlib
import threading
from collections.abc import Callable, Mapping
from typing import Any

from . import executor as _ex
from .errors import FinalAnswerException, InterpreterError

__all__ = [
    "evaluate_boolop",
    "evaluate_condition",
    "evaluate_delete",
    "evaluate_subscript",
    "is_smolagents_patched",
    "patch_smolagents",
    "unpatch_smolagents",
]

# ---------------------------------------------------------------------------------------------
# patch_smolagents / unpatch_smolagents

# (module, attribute, name of our replacement in smolagents_native.executor). smolagents 1.26
# builds its default executor in `CodeAgent.create_python_executor` from the name
# `LocalPythonExecutor` of `smolagents.agents` (for `executor_type="local"`, the default), and
# `PythonInterpreterTool.__init__` takes `evaluate_python_code` from `smolagents.default_tools`.
# The module `smolagents.local_python_executor` and the package itself are patched too, so
# that imports made after patching get ours, and so does smolagents' own LocalPythonExecutor
# class (its `__call__` looks `evaluate_python_code` up in its module at each call).
_TARGETS: tuple[tuple[str, str, str], ...] = (
    ("smolagents.agents", "LocalPythonExecutor", "LocalPythonExecutor"),
    ("smolagents.default_tools", "evaluate_python_code", "evaluate_python_code"),
    ("smolagents.local_python_executor", "LocalPythonExecutor", "LocalPythonExecutor"),
    ("smolagents.local_python_executor", "evaluate_python_code", "evaluate_python_code"),
    ("smolagents", "LocalPythonExecutor", "LocalPythonExecutor"),
    ("smolagents", "evaluate_python_code", "evaluate_python_code"),
)

_lock = threading.RLock()
# What patch_smolagents replaced: (module object, attribute, original value, our value).
_patched: list[tuple[Any, str, Any, Any]] = []


def patch_smolagents() -> bool:
    """Make smolagents use smolagents_native's executor; return True if this call patched.

    After it, `CodeAgent(...)` with the default `executor_type="local"` runs its code in
    `smolagents_native.LocalPythonExecutor`, a `PythonInterpreterTool()` created afterwards
    evaluates with `smolagents_native.evaluate_python_code`, and `LocalPythonExecutor` /
    `evaluate_python_code` imported from `smolagents` or `smolagents.local_python_executor`
    are ours. An agent given `executor=...` keeps that executor, and objects built before the
    call keep what they were built with.

    Idempotent (a second call does nothing and returns False) and safe to call from several
    threads. Undo with `unpatch_smolagents()`. Raises ImportError if smolagents is missing.
    """
    with _lock:
        if _patched:
            return False
        importlib.import_module("smolagents")
        done: list[tuple[Any, str, Any, Any]] = []
        for module_name, attribute, ours_name in _TARGETS:
            module = importlib.import_module(module_name)
            if not hasattr(module, attribute):  # not in this smolagents version
                continue
            ours = getattr(_ex, ours_name)
            done.append((module, attribute, getattr(module, attribute), ours))
        for module, attribute, _original, ours in done:
            setattr(module, attribute, ours)
        _patched.extend(done)
        return True


def unpatch_smolagents() -> bool:
    """Undo `patch_smolagents()`; return True if something was patched.

    Each attribute gets its original value back, unless something else replaced ours in the
    meantime (then that replacement is left alone). Idempotent and thread-safe.
    """
    with _lock:
        if not _patched:
            return False
        for module, attribute, original, ours in reversed(_patched):
            if getattr(module, attribute, None) is ours:
                setattr(module, attribute, original)
        _patched.clear()
        return True


def is_smolagents_patched() -> bool:
    """True between `patch_smolagents()` and `unpatch_smolagents()`."""
    with _lock:
        return bool(_patched)


# ---------------------------------------------------------------------------------------------
# Shims for smolagents' internal AST evaluators. Each takes smolagents' arguments
# `(node, state, static_tools, custom_tools, authorized_imports)` and follows the contract of
# the smolagents helper of the same name: the result of the node, `state` updated in place and
# its `_operations_count` counter increased; errors raised as the helper raises them (the
# exception of the code itself for comparisons and boolean operators; smolagents' messages
# for failed subscripts and deletions).

# Prefix of the temporary names the shims bind in `state` (removed before returning).
_TMP = "_smolagents_native_compat_"


class _KeyOf:
    """`_KeyOf()[i]` is `i`: turns the slice part of a subscript into its value."""

    def __getitem__(self, key: Any) -> Any:
        return key


def _run(
    code: str,
    state: dict[str, Any],
    static_tools: dict[str, Callable] | None,
    custom_tools: dict[str, Callable] | None,
    authorized_imports: list[str] | None,
) -> Any:
    """Run `code` with the C interpreter; return the value of its last statement.

    Raises the exception the code raised (the `__cause__` of the core's InterpreterError),
    or the InterpreterError itself when the core refused something or a budget ran out.
    """
    key = tuple(authorized_imports if authorized_imports is not None else _ex.BASE_BUILTIN_MODULES)
    interp = _ex._acquire_interpreter(key)
    try:
        interp.tools, interp.extra_builtins = _ex._split_tools(static_tools, custom_tools)
        try:
            output, is_final_answer = interp.run(
                code, state, **_ex._budgets(_ex.MAX_EXECUTION_TIME_SECONDS)
            )
        except InterpreterError as exc:
            cause = exc.__cause__
            if isinstance(cause, Exception) and not isinstance(cause, InterpreterError):
                raise cause from None
            raise
        finally:
            counter = state.setdefault("_operations_count", {"counter": 0})
            if isinstance(counter, dict) and isinstance(counter.get("counter"), int):
                counter["counter"] += interp.operations_count
    finally:
        _ex._release_interpreter(key, interp)
    if is_final_answer:
        raise FinalAnswerException(output)
    return output


def _with_temporaries(state: dict[str, Any], values: dict[str, Any], run: Callable[[], Any]) -> Any:
    """Bind `values` (temporary names) in `state` around `run()`, then remove them."""
    saved = {name: state[name] for name in values if name in state}
    state.update(values)
    try:
        return run()
    finally:
        for name in values:
            state.pop(name, None)
        state.update(saved)


def evaluate_boolop(
    node: ast.BoolOp,
    state: dict[str, Any],
    static_tools: dict[str, Callable],
    custom_tools: dict[str, Callable],
    authorized_imports: list[str],
) -> Any:
    """Value of an `and` / `or` expression (compatibility shim; see the module docstring)."""
    return _run(ast.unparse(node), state, static_tools, custom_tools, authorized_imports)


def evaluate_condition(
    condition: ast.Compare,
    state: dict[str, Any],
    static_tools: dict[str, Callable],
    custom_tools: dict[str, Callable],
    authorized_imports: list[str],
) -> Any:
    """Value of a comparison, chained or not (compatibility shim; see the module docstring).

    As in CPython, a chain `a < b < c` is `a < b and b < c`: a comparison returning an array
    or a DataFrame raises its own "truth value is ambiguous" error when chained.
    """
    return _run(ast.unparse(condition), state, static_tools, custom_tools, authorized_imports)


def evaluate_subscript(
    subscript: ast.Subscript,
    state: dict[str, Any],
    static_tools: dict[str, Callable],
    custom_tools: dict[str, Callable],
    authorized_imports: list[str],
) -> Any:
    """Value of `value[index]` (compatibility shim; see the module docstring).

    A KeyError, IndexError or TypeError of the lookup becomes smolagents' InterpreterError
    `Could not index {value} with '{index}': {type}: {message}` (with its "Maybe you meant"
    suggestions for a string key of a mapping), chained to the original exception.
    """
    args = (static_tools, custom_tools, authorized_imports)
    # The index (smolagents evaluates it first), then the container, then the lookup, all by
    # the interpreter; the slice part is evaluated by subscripting a key-returning object.
    key_node = ast.Subscript(value=ast.Name(id=_TMP + "keyof", ctx=ast.Load()),
                             slice=subscript.slice, ctx=ast.Load())
    index = _with_temporaries(state, {_TMP + "keyof": _KeyOf()},
                              lambda: _run(ast.unparse(key_node), state, *args))
    value = _run(ast.unparse(subscript.value), state, *args)
    try:
        return _with_temporaries(
            state, {_TMP + "value": value, _TMP + "index": index},
            lambda: _run(f"{_TMP}value[{_TMP}index]", state, *args),
        )
    except (KeyError, IndexError, TypeError) as exc:
        message = f"Could not index {value} with '{index}': {type(exc).__name__}: {exc}"
        if isinstance(index, str) and isinstance(value, Mapping):
            close = difflib.get_close_matches(index, list(value.keys()))
            if close:
                message += f". Maybe you meant one of these indexes instead: {close}"
        raise InterpreterError(message) from exc


def evaluate_delete(
    delete_node: ast.Delete,
    state: dict[str, Any],
    static_tools: dict[str, Callable],
    custom_tools: dict[str, Callable],
    authorized_imports: list[str],
) -> None:
    """Run a `del` statement, target by target (compatibility shim; see the module docstring).

    Errors use smolagents' messages: `Cannot delete name 'x': name is not defined`, and
    `Cannot delete index/key: {message}` for a failed `del x[k]`. Other targets (attributes,
    slices of nested targets) follow CPython.
    """
    args = (static_tools, custom_tools, authorized_imports)
    for target in delete_node.targets:
        if isinstance(target, ast.Name) and target.id not in state:
            raise InterpreterError(f"Cannot delete name '{target.id}': name is not defined")
        try:
            _run(f"del {ast.unparse(target)}", state, *args)
        except (KeyError, IndexError, TypeError) as exc:
            if not isinstance(target, ast.Subscript):
                raise
            raise InterpreterError(f"Cannot delete index/key: {exc}") from exc
    return None
