"""What host code acting for the sandboxed code may do: the tripwire's grants.

The C tripwire (`csrc/guard/tripwire.c`, docs/security.md "Tripwire and grants") refuses file, network
and process access made by host code on the code's behalf (pandas, numpy, `io.FileIO`...) unless
granted. This module turns the executor's arguments and authorized imports into the grants dict
of `_core.Interpreter.grants`:

* authorizing a module whose purpose is files (`os`, `pathlib`, `shutil`, `io`...) grants reading
  and writing everywhere; one whose purpose is the network (`socket`, `requests`...) grants the
  network; one whose purpose is processes (`subprocess`...) grants processes. `"*"` grants all.
* an explicit `readable_dirs` / `writable_dirs` / `allow_network` replaces what the imports
  imply (it narrows it, or widens it).
* the Python installation (standard library, site-packages) is always readable (imports).
"""

from __future__ import annotations

import functools
import os
from collections.abc import Iterable
from typing import Any

# Modules whose purpose is the matching capability: authorizing one (or its `.*`) implies it.
FILE_MODULES = frozenset(
    {"os", "pathlib", "shutil", "io", "glob", "tempfile", "fileinput", "zipfile", "tarfile"}
)
NETWORK_MODULES = frozenset(
    {
        "socket", "ssl", "http", "urllib", "urllib3", "requests", "httpx", "aiohttp",
        "ftplib", "smtplib", "poplib", "imaplib", "asyncio", "websockets",
    }
)
PROCESS_MODULES = frozenset({"subprocess", "multiprocessing", "pty", "concurrent"})


def _implied(authorized_imports: Iterable[str], modules: frozenset[str]) -> bool:
    """True when an entry authorizes one of `modules` as a whole (`m`, `m.*`, or `*`)."""
    for entry in authorized_imports:
        if entry == "*":
            return True
        top, _, rest = entry.partition(".")
        if top in modules and rest in ("", "*"):
            return True
    return False


def _dirs(value: Iterable[str | os.PathLike] | None) -> tuple[str, ...] | None:
    if value is None:
        return None
    if isinstance(value, (str, bytes, os.PathLike)):
        value = [value]
    return tuple(os.fspath(v) if not isinstance(v, bytes) else os.fsdecode(v) for v in value)


def effective_grants(
    authorized_imports: Iterable[str],
    readable_dirs: Iterable[str | os.PathLike] | None = None,
    writable_dirs: Iterable[str | os.PathLike] | None = None,
    allow_network: bool | None = None,
) -> dict[str, Any]:
    """The grants dict for `_core.Interpreter.grants` (None: unrestricted; () : nothing)."""
    imports = list(authorized_imports)
    files = _implied(imports, FILE_MODULES)
    readable = _dirs(readable_dirs)
    writable = _dirs(writable_dirs)
    if readable is None and writable is None:
        readable = writable = None if files else ()
    elif readable is None:
        readable = ()  # an explicit writable grant narrows: readable = writable + installation
    elif writable is None:
        writable = ()
    return {
        "readable_dirs": readable,
        "writable_dirs": writable,
        "allow_network": (
            _implied(imports, NETWORK_MODULES) if allow_network is None else bool(allow_network)
        ),
        "allow_processes": _implied(imports, PROCESS_MODULES),
    }


@functools.lru_cache(maxsize=64)
def _grants_of(
    imports: tuple[str, ...], readable: Any, writable: Any, allow_network: bool | None
) -> dict[str, Any]:
    return effective_grants(imports, readable, writable, allow_network)


def effective_grants_cached(
    authorized_imports: Iterable[str],
    readable_dirs: Any = None,
    writable_dirs: Any = None,
    allow_network: bool | None = None,
) -> dict[str, Any]:
    """`effective_grants`, remembered for the same hashable arguments (a new executor with
    the usual attributes asks the same question as the last one); a fresh dict each time."""
    try:
        return dict(_grants_of(tuple(authorized_imports), readable_dirs, writable_dirs,
                               allow_network))
    except TypeError:  # a list of directories: not hashable
        return effective_grants(authorized_imports, readable_dirs, writable_dirs, allow_network)
