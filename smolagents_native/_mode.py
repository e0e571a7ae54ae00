"""Which mode a new executor runs in (`isolation="none"` or `"process"`).

Deny by default: in-process is the default only when every authorized module is one the
in-process table lists (`csrc/guard/inprocess.def`, through the generated `_inprocess.py`; the C
policy reads the same file for what it withholds from those modules). Any other module, a
third-party one or a standard-library module nobody reviewed, selects process mode.

A base module, below the executor and kept apart from the `isolation` package: the executor
(`LocalPythonExecutor.__new__`) resolves the mode here, so that creating an in-process executor
imports nothing of the process machinery (subprocess, socket, pickle, tempfile...): that costs
about 2 MiB of resident memory and the time to import it, for a mode the host did not ask for.
The process mode's class comes from `smolagents_native.isolation`, which the package registers
with the executor (`executor.register_process_mode`).
"""

from __future__ import annotations

import warnings
from collections.abc import Iterable

from ._inprocess import MODULES as IN_PROCESS_MODULES

# Whether a table module is a package (its `m.*` would authorize submodules nobody reviewed).
_IS_PACKAGE: dict[str, bool] = {}


def _is_package(module: str) -> bool:
    known = _IS_PACKAGE.get(module)
    if known is None:
        from importlib.util import find_spec

        try:
            spec = find_spec(module)
        except (ImportError, ValueError):
            spec = None
        known = spec is None or spec.submodule_search_locations is not None
        _IS_PACKAGE[module] = known
    return known


def in_process(entry: str) -> bool:
    """Whether the authorized-imports entry `entry` may run in process: it names a module of
    the in-process table (`"collections.abc"`; its parents are only namespaces), or is
    `"m.*"` for a table module `m` that has no submodules."""
    if entry in IN_PROCESS_MODULES:
        return True
    base, dot, star = entry.rpartition(".")
    return (
        dot == "." and star == "*" and "*" not in base
        and base in IN_PROCESS_MODULES and not _is_package(base)
    )


def needs_process(authorized_imports: Iterable[str]) -> list[str]:
    """The authorized modules that make process isolation the default: every entry that is not
    in the in-process table (third-party modules, wildcards, standard-library modules not
    reviewed for in-process use)."""
    return [entry for entry in authorized_imports if not in_process(entry)]


def resolve_isolation(
    isolation: str | None, additional_authorized_imports: Iterable[str] | None
) -> str:
    """The mode of a new executor: the explicit choice, or "process" when an authorized
    module calls for it (an explicit "none" then warns)."""
    risky = needs_process(additional_authorized_imports or ())
    if isolation is None:
        return "process" if risky else "none"
    if isolation not in ("none", "process"):
        raise ValueError(f"isolation must be 'none' or 'process', not {isolation!r}")
    if isolation == "none" and risky:
        warnings.warn(
            f"isolation='none' with {', '.join(risky)} authorized: only the modules of the "
            "in-process table are reviewed for the host's process (docs/security.md, "
            "'Modules in process'); host library code acting for the sandboxed code is "
            "outside the in-process policy's sight; isolation='process' is the default for "
            "such executors (docs/isolation.md)",
            RuntimeWarning,
            stacklevel=4,
        )
    return isolation
