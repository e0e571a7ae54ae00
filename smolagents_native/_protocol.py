"""Wire format between the host and a process-mode worker (docs/isolation.md).

One frame = a 5-byte header (little-endian payload length, one kind byte) and the payload.
Kinds and payloads:

  host -> worker                       worker -> host
  RUN    code as UTF-8                 DONE   pickled step result (a tuple of plain data)
  VARS   pickled {name: value}         CALL   pickled (tool name, args, kwargs)
  TOOLS  pickled tool names            OK     pickled None (VARS / TOOLS / RESTORE done)
  RESULT pickled (ok, value)           FAIL   pickled (error kind, message)
  RESTORE pickled {name: bytes}
  DESCRIBE (empty) -> OK with the repr of the last output (when the host refused its pickle)

The configuration crosses once, when the worker is forked; a step costs one RUN frame (the
code, not pickled) and one DONE frame. Everything the host reads from a worker goes through
`RestrictedUnpickler`: the worker is untrusted.
"""

from __future__ import annotations

import io
import pickle
import socket
import struct
from typing import Any

HEADER = struct.Struct("<IB")
MAX_FRAME = 1 << 30  # a frame announcing more is a protocol error (1 GiB)

RUN = 1
VARS = 2
TOOLS = 3
RESULT = 4
RESTORE = 5
DESCRIBE = 6
DONE = 10
CALL = 11
OK = 12
FAIL = 13

PROTOCOL = pickle.HIGHEST_PROTOCOL


class WorkerValue:
    """Stands in the host for a step's output that stays in the worker (a module, a function,
    an instance of a class the host did not list): its repr there, as text."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text

    __str__ = __repr__


class ProtocolError(Exception):
    """The peer closed the channel or sent something that is not a frame."""


def send(sock: socket.socket, kind: int, payload: bytes) -> None:
    sock.sendall(HEADER.pack(len(payload), kind) + payload)


def recv(sock: socket.socket) -> tuple[int, bytes]:
    """Read one frame; raise ProtocolError on EOF. socket.timeout propagates."""
    header = _recv_exact(sock, HEADER.size)
    length, kind = HEADER.unpack(header)
    if length > MAX_FRAME:
        raise ProtocolError(f"frame of {length} bytes exceeds the limit")
    return kind, _recv_exact(sock, length) if length else b""


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    chunk = sock.recv(n)
    if len(chunk) == n:
        return chunk
    if not chunk:
        raise ProtocolError("the worker closed the channel")
    buf = bytearray(chunk)
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ProtocolError("the worker closed the channel")
        buf += chunk
    return bytes(buf)


def dumps(value: Any) -> bytes:
    return pickle.dumps(value, protocol=PROTOCOL)


# Globals a pickle of plain data may name. Everything else must be listed by the host
# (`cross_classes`); the unpickler never imports a module to resolve a name.
_PLAIN_GLOBALS = {
    ("builtins", "set"),
    ("builtins", "frozenset"),
    ("builtins", "complex"),
    ("builtins", "bytearray"),
    ("builtins", "slice"),
    ("builtins", "range"),
    ("collections", "OrderedDict"),
    ("collections", "deque"),
    ("collections", "Counter"),
    ("datetime", "date"),
    ("datetime", "datetime"),
    ("datetime", "time"),
    ("datetime", "timedelta"),
    ("datetime", "timezone"),
    ("decimal", "Decimal"),
    ("fractions", "Fraction"),
}


def class_key(entry: Any) -> tuple[str, str]:
    """("module", "qualname") for a class or callable, or for a "module:qualname" /
    "module.qualname" string."""
    if isinstance(entry, str):
        if ":" in entry:
            module, _, name = entry.partition(":")
        else:
            module, _, name = entry.rpartition(".")
        if not module or not name:
            raise ValueError(f"cross_classes entry {entry!r} is not 'module.name'")
        return module, name
    return entry.__module__, entry.__qualname__


class RestrictedUnpickler(pickle.Unpickler):
    """Unpickles builtin data types and the globals in `allowed` ({(module, name): object}),
    plus the plain-data globals above resolved from modules the host already imported."""

    def __init__(self, data: bytes, allowed: dict[tuple[str, str], Any]):
        super().__init__(io.BytesIO(data))
        self._allowed = allowed

    def find_class(self, module: str, name: str) -> Any:
        key = (module, name)
        obj = self._allowed.get(key)
        if obj is not None:
            return obj
        if key in _PLAIN_GLOBALS:
            import importlib

            return getattr(importlib.import_module(module), name)
        raise pickle.UnpicklingError(
            f"{module}.{name} may not cross the process boundary (the host did not list it "
            "in cross_classes)"
        )

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("persistent ids may not cross the process boundary")


def loads_restricted(data: bytes, allowed: dict[tuple[str, str], Any]) -> Any:
    return RestrictedUnpickler(data, allowed).load()
