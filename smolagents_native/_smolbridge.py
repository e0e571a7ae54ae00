"""The lazy link to the `smolagents` package.

Importing smolagents takes 0.5 to 2 s (it pulls in rich, huggingface_hub, jinja2...), so this
package never imports it for the host. Yet our classes must be smolagents' own subclasses
whenever smolagents is in use, because smolagents (and code written for it) checks
`isinstance(..., InterpreterError)`, `CodeOutput`, `PythonExecutor`...

The mechanism: each such class of ours is defined over a private placeholder base with the
same layout as smolagents' class (e.g. a bare `ValueError` subclass for `InterpreterError`),
and registered here with `rebase(cls, "InterpreterError")`. As soon as
`smolagents.local_python_executor` is loaded (already, or later by the host, by
`patch_smolagents()`, or by anything else), each registered class gets smolagents' class as
its base (`cls.__bases__ = (smolagents_class,)`) and the `on_load` callbacks run. The moment
is caught by a finder at the front of `sys.meta_path` that only looks at that one module name
and wraps its loader's `exec_module`; everything else it leaves to the other finders.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

MODULE = "smolagents.local_python_executor"

_rebases: list[tuple[type, str]] = []
_callbacks: list[Callable[[Any], None]] = []


def module() -> Any:
    """smolagents' `local_python_executor` module if it is loaded (never imports it)."""
    mod = sys.modules.get(MODULE)
    if mod is None or _initializing(mod):
        return None
    return mod


def _initializing(mod: Any) -> bool:
    spec = getattr(mod, "__spec__", None)
    return bool(getattr(spec, "_initializing", False))


def rebase(cls: type, name: str) -> None:
    """Give `cls` smolagents' class `name` as its only base once smolagents is loaded."""
    _rebases.append((cls, name))
    mod = module()
    if mod is not None:
        _rebase_one(cls, name, mod)


def on_load(callback: Callable[[Any], None]) -> None:
    """Call `callback(module)` once smolagents' executor module is loaded (now if it is)."""
    _callbacks.append(callback)
    mod = module()
    if mod is not None:
        callback(mod)


def _rebase_one(cls: type, name: str, mod: Any) -> None:
    base = getattr(mod, name, None)
    if not isinstance(base, type) or base in cls.__mro__:
        return
    try:
        cls.__bases__ = (base,)
    except TypeError:  # an incompatible smolagents version: keep our own base
        pass


def _apply(mod: Any) -> None:
    # Idempotent: also run again when the module is reloaded (new class objects).
    for cls, name in _rebases:
        _rebase_one(cls, name, mod)
    for callback in _callbacks:
        callback(mod)


def _watch_loader(loader: Any) -> Any:
    """The loader to use for smolagents' executor module: the same loader object, whose
    `exec_module` applies the registrations right after the module has run (an instance
    attribute, so the loader keeps its class); a wrapper if it takes no attributes."""
    real_exec = loader.exec_module

    def exec_module(mod: Any) -> None:
        real_exec(mod)
        _apply(mod)

    try:
        loader.exec_module = exec_module
    except (AttributeError, TypeError):
        return _Loader(loader)
    return loader


class _Loader:
    """Wraps a loader that takes no attributes; applies the registrations right after the
    module has run. Every other attribute is the real loader's."""

    def __init__(self, loader: Any):
        self._loader = loader

    def __getattr__(self, name: str) -> Any:
        return getattr(self._loader, name)

    def create_module(self, spec: Any) -> Any:
        return self._loader.create_module(spec)

    def exec_module(self, mod: Any) -> None:
        self._loader.exec_module(mod)
        _apply(mod)


class _Watcher:
    """A `sys.meta_path` finder that only watches for smolagents' executor module."""

    def find_spec(self, fullname: str, path: Any = None, target: Any = None) -> Any:
        if fullname != MODULE:
            return None
        for finder in sys.meta_path:
            if finder is self or isinstance(finder, _Watcher):
                continue
            find = getattr(finder, "find_spec", None)
            if find is None:
                continue
            spec = find(fullname, path, target)
            if spec is not None:
                if spec.loader is not None and hasattr(spec.loader, "exec_module"):
                    spec.loader = _watch_loader(spec.loader)
                return spec
        return None

    def invalidate_caches(self) -> None:
        pass


def install() -> None:
    """Apply now if smolagents is loaded; otherwise watch for it (once per process)."""
    mod = module()
    if mod is not None:
        _apply(mod)
    if not any(isinstance(f, _Watcher) for f in sys.meta_path):
        sys.meta_path.insert(0, _Watcher())
