"""Which mode a new executor runs in (`isolation="none"` or `"process"`).

Kept apart from `isolation.py` so that creating an in-process executor imports nothing of the
process machinery (subprocess, socket, pickle, tempfile...): that costs about 2 MiB of
resident memory and the time to import it, for a mode the host did not ask for.
"""

from __future__ import annotations

import sys
import warnings
from collections.abc import Iterable

# Standard-library modules the in-process mode covers: the base modules and the other pure
# standard-library modules (their host code is reviewed against the policy layers). Any other
# authorized module is third-party code acting for the sandbox.
_STDLIB = frozenset(sys.stdlib_module_names)
# Standard-library modules whose host code reaches files, processes, native code or the
# interpreter: authorizing them also selects process mode by default.
_STDLIB_PROCESS = frozenset(
    {
        "ctypes", "os", "posix", "subprocess", "socket", "shutil", "pathlib", "io", "sys",
        "multiprocessing", "threading", "_thread", "signal", "pty", "fcntl", "mmap",
        "importlib", "pickle", "marshal", "shelve", "dbm", "sqlite3", "tempfile", "glob",
        "urllib", "http", "ftplib", "smtplib", "ssl", "asyncio", "selectors", "resource",
        "gc", "inspect", "code", "codeop", "runpy", "pkgutil", "zipimport", "builtins",
    }
)


def needs_process(authorized_imports: Iterable[str]) -> list[str]:
    """The authorized modules that make process isolation the default: third-party modules,
    wildcards, and standard-library modules that reach the system."""
    out = []
    for entry in authorized_imports:
        top = entry.split(".")[0]
        if top == "*" or top not in _STDLIB or top in _STDLIB_PROCESS:
            out.append(entry)
    return out


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
            f"isolation='none' with {', '.join(risky)} authorized: host library code acting "
            "for the sandboxed code is outside the in-process policy's sight; "
            "isolation='process' is the default for such executors (docs/isolation.md)",
            RuntimeWarning,
            stacklevel=4,
        )
    return isolation
