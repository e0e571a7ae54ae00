"""The in-process engine under `executor.py`: the C interpreter (`_core.Interpreter`) kept in
step with an executor's attributes, the pool of idle interpreters of `evaluate_python_code`,
the budgets as the core takes them, and the step itself.

`executor.py` is the smolagents-compatible shim over it (names, signatures, constants,
messages, result classes). This module sits below it and imports none of it: what the step
needs of the shim (its PrintContainer class, truncate_content) is given to `make_run_code`,
and the base tools to `_set_base_values`. The functions taking `self` are
`LocalPythonExecutor`'s methods (`_sync`, `_run_code`, `__del__`), class attributes there:
no extra frame per step.
"""

from __future__ import annotations

import builtins
import sys
from collections.abc import Callable
from typing import Any

from . import _core, errors
from . import observability as _obs
from .errors import ExecutionTimeoutError, FinalAnswerException, InterpreterError
from .grants import effective_grants_cached

# ---------------------------------------------------------------------------------------------
# Glue between smolagents' tool dictionaries and the core's `tools` / `extra_builtins`.

# Values that stand for "the base tool `name`": ours, and smolagents' once it is loaded (its
# `print` and `getattr` are wrappers), so a static_tools dict built from either is recognised.
_BASE_VALUES: dict[str, tuple[Any, ...]] = {}
# The same, as ids (the values stay alive in the dict above): an identity test that never
# calls a tool's __eq__.
_BASE_IDS: dict[str, frozenset[int]] = {}


def _set_base_values(base_tools: dict[str, Any], smol_base_tools: dict[str, Any]) -> None:
    """Record the base tools: `base_tools` (the shim's BASE_PYTHON_TOOLS), each with
    smolagents' value of the same name when `smol_base_tools` has one."""
    global _BASE_VALUES, _BASE_IDS
    values = {
        name: (value, smol_base_tools[name]) if name in smol_base_tools else (value,)
        for name, value in base_tools.items()
    }
    _BASE_VALUES = values
    _BASE_IDS = {name: frozenset(map(id, v)) for name, v in values.items()}
    # the splits remembered were made against the old base tools (and their ids could now
    # be reused): forget them
    _SPLIT_MEMO.clear()


_PY_BUILTIN_NAMES = frozenset(dir(builtins))


# The tools of an executor whose tools are None or empty: one dict, never modified, so that
# its snapshot stays valid from step to step (a new `{}` each step would fail the identity
# test of `_same_tools`).
_NO_TOOLS: dict[str, Any] = {}


def _tools_snapshot(tools: Any) -> list[Any]:
    """What `_same_tools` compares a tools mapping with later: [the object, its
    `_core.entries_token` (None: no promise), a copy of its entries]. The token is taken
    before the copy, and no code runs between them."""
    return [tools, _core.entries_token(tools), dict(tools)]


# Whether a tools mapping still holds what its snapshot (`_tools_snapshot`) recorded: the
# same dict object with the same token has not been modified since (some 150 instructions);
# otherwise, for a dict, the same keys bound to the same objects in the same order
# (`_core.same_entries`; `==` would call each value's __eq__ and miss a tool replaced in
# place by one that compares equal), after which the snapshot takes this object and a fresh
# token; anything else is compared with `==`. A False only means the tools are given to the
# core again. (csrc/module/shim.c)
_same_tools = _core.same_tools


def _wrap_final_answer(tool: Callable) -> Callable:
    """A `final_answer` that ends the step with the tool's result, as smolagents wraps it."""

    def final_answer(*args: Any, **kwargs: Any) -> Any:
        raise FinalAnswerException(tool(*args, **kwargs))

    return final_answer


def _split_tools(
    static_tools: dict[str, Callable] | None,
    custom_tools: dict[str, Callable] | None,
    traced: bool = False,
) -> tuple[dict[str, Callable], dict[str, Any]]:
    """Return (protected tools, extra builtins) for the core.

    smolagents' base tools that are Python builtins are dropped (the core has its own);
    the others (math functions) become extra builtins, shadowable like builtins. Every other
    static tool is protected. `custom_tools` are shadowable: extra builtins too. With
    `traced`, protected tools that are not classes are wrapped so that each call is an
    ``execute_tool`` span (observability.call_tool).
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
    if traced:
        tools = {
            name: value if isinstance(value, type) else _obs.TracedTool(name, value)
            for name, value in tools.items()
        }
    return tools, extra


# How the last tool mappings split, by the names and ids of their values in order: which
# static names are protected tools and which become extra builtins. Which way a name goes
# depends only on whether its value is one of the base tools (by identity), and the base tools
# live as long as this module, so the split of a (name, id) sequence cannot change even when an
# object dies and another takes its id: the memo holds names, never the tools. At most
# _SPLIT_MEMO_SIZE entries, the oldest dropped first. Not for traced runs.
_SPLIT_MEMO: dict[tuple[Any, ...], tuple[tuple[str, ...], tuple[str, ...]]] = {}
_SPLIT_MEMO_SIZE = 16


def _split_tools_memo(
    static_tools: dict[str, Callable], custom_tools: dict[str, Callable], traced: bool
) -> tuple[dict[str, Callable], dict[str, Any]]:
    """`_split_tools` for plain dicts, with the names' split remembered (_SPLIT_MEMO)."""
    if traced or type(static_tools) is not dict or type(custom_tools) is not dict:
        return _split_tools(static_tools, custom_tools, traced)
    key = (tuple(static_tools), tuple(map(id, static_tools.values())))
    names = _SPLIT_MEMO.get(key)
    if names is None:
        tools, extra = _split_tools(static_tools, None, traced)
        names = (tuple(tools), tuple(extra))
        if len(_SPLIT_MEMO) >= _SPLIT_MEMO_SIZE:
            del _SPLIT_MEMO[next(iter(_SPLIT_MEMO))]
        _SPLIT_MEMO[key] = names
    tools = {name: static_tools[name] for name in names[0]}
    if "final_answer" in tools:
        tools["final_answer"] = _wrap_final_answer(tools["final_answer"])
    extra = dict(custom_tools)
    extra.update({name: static_tools[name] for name in names[1]})
    return tools, extra


def _new_interpreter(authorized_imports: list[str]) -> Any:
    return _core.Interpreter(
        authorized_imports=list(authorized_imports),
        interpreter_error=InterpreterError,
        final_answer_exception=errors.FINAL_ANSWER_MATCH,
        timeout_error=ExecutionTimeoutError,
    )


# Idle interpreters for evaluate_python_code, by authorized imports: creating one costs far
# more than a small step, and reusing one keeps its lowering cache. An interpreter is taken
# out while it runs (list.pop / append are atomic), so threads and re-entrant calls each get
# their own. Bounded: a few per key, a few keys.
_IDLE_INTERPRETERS: dict[tuple[str, ...], list[Any]] = {}


def _local_refs() -> int:
    # What sys.getrefcount() reports for an object held by one local variable only: 2 up to
    # 3.13 (the local and the call's argument), 1 from 3.14 (the argument is a borrowed
    # reference there). Measured rather than assumed, for LocalPythonExecutor.__del__.
    obj: list[int] = []
    return sys.getrefcount(obj)


_LOCAL_REFS = _local_refs()

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


def budget_kwargs(
    timeout_seconds: float | None,
    max_operations: int | None,
    max_while_iterations: int | None,
    defaults: dict[str, Any],
) -> dict[str, Any]:
    """Keyword arguments of `Interpreter.run` for the budgets: `defaults` (a copy of the
    shim's budget constants), `max_operations` / `max_while_iterations` overriding them when
    given, and `timeout_seconds`."""
    kw = dict(defaults)
    if max_operations is not None:
        kw["max_operations"] = max_operations
    if max_while_iterations is not None:
        kw["max_while_iterations"] = max_while_iterations
    kw["timeout"] = timeout_seconds
    return kw


# ---------------------------------------------------------------------------------------------
# LocalPythonExecutor's step: its methods `_sync`, `_run_code` and `__del__`.


def sync(self: Any) -> None:
    """Push attribute changes (imports, tools) to the core; cheap when nothing changed."""
    if self.authorized_imports != self._interp_imports:
        self._interp = _new_interpreter(self.authorized_imports)
        self._interp_imports = list(self.authorized_imports)
        self._synced = None
    static = self.static_tools or _NO_TOOLS
    custom = self.custom_tools or _NO_TOOLS
    traced = _obs.tracing_active()
    synced = self._synced
    if (
        synced is None
        or traced != synced[2]
        or not _same_tools(static, synced[0])
        or not _same_tools(custom, synced[1])
    ):
        self._interp.tools, self._interp.extra_builtins = _split_tools_memo(
            static, custom, traced
        )
        self._synced = (_tools_snapshot(static), _tools_snapshot(custom), traced)
        self._grants_key = None
    # The grants follow the imports and the three host-access attributes. The imports
    # are those of self._interp (checked above: any change makes a new interpreter), so
    # its identity stands for them.
    key = (self._interp, self.readable_dirs, self.writable_dirs, self.allow_network)
    if self._grants_key != key:
        self._interp.grants = effective_grants_cached(self.authorized_imports, *key[1:])
        # copies: a list changed in place later must be seen as a change
        self._grants_key = tuple(list(v) if isinstance(v, list) else v for v in key)


def make_run_code(
    print_container: type, truncate: Callable[..., str]
) -> Callable[[Any, str], tuple[Any, bool]]:
    """`LocalPythonExecutor._run_code`, given the shim's PrintContainer and truncate_content
    (the step's `_print_outputs`)."""

    def _run_code(self: Any, code_action: str) -> tuple[Any, bool]:
        """Run one step; return (output, is_final_answer), leaving `_print_outputs` and
        `_operations_count` in `self.state`. `isolation.ProcessExecutor` runs it in its
        worker instead."""
        # The budgets are parsed again only when an attribute they come from was changed
        # (the executor's own copy of the constants does not change).
        key = (self.timeout_seconds, self.max_operations, self.max_while_iterations)
        made = self._budget_kwargs
        if made is None or made[0] != key:
            made = (key, _core.Budgets(**budget_kwargs(*key, self._budget_copy)))
            self._budget_kwargs = made
        # Interpreter.step: the step, its timeout message and the two state entries
        # (`_print_outputs` cut by truncate_content, `_operations_count`) in one C call;
        # the Python this replaces was a fifth of a tiny step on 3.10.
        return self._interp.step(
            code_action, self.state, made[1], self.max_print_outputs_length, print_container,
            truncate, key[0],
        )

    return _run_code


def release_state(self: Any) -> None:
    """`LocalPythonExecutor.__del__`."""
    # What the code left in the state is released on the step's large C stack (deeply
    # nested structures recurse in C when released), unless the host still holds it.
    state = self.__dict__.get("state")
    if type(state) is dict and sys.getrefcount(state) <= 1 + _LOCAL_REFS:  # + self.__dict__
        try:
            _core.release_on_step_stack(state)
        except Exception:  # noqa: BLE001 - interpreter shutdown, out of memory
            pass
