"""Wire format between the host and a process-mode worker (docs/isolation.md).

One frame = a 5-byte header (little-endian payload length, one kind byte) and the payload.
Kinds and payloads:

  host -> worker                       worker -> host
  RUN    code as UTF-8                 DONE   the step's result (`encode_done`)
  VARS   pickled {name: value}         CALL   a tool call (`encode_call`)
  TOOLS  pickled tool names            OK     VARS / TOOLS / RESTORE done (empty)
  RESULT a tool's answer: one byte     FAIL   pickled error message
         (1 returned, 0 raised) and
         a tagged value
  RESTORE pickled {name: tagged value}
  DESCRIBE (empty) -> OK with the repr of the last output (when the host refused its pickle)

Values cross as *tagged values*: one tag byte, then None / bools (no data), an exact `int`
within 64 bits, an exact `float` (8 bytes), an exact `str` (UTF-8) or `bytes` as they are,
and anything else as a pickle. The common small messages of a step (a scalar output, a tool
called with scalars) thus cost no pickling, and the envelopes (DONE, CALL) are `struct`
records. The configuration crosses once, when the worker is forked.

Everything the host reads from a worker goes through `decode_value` with the host's
`allowed` classes: scalars are built from their bytes, pickles by `RestrictedUnpickler`. The
worker is untrusted.
"""

from __future__ import annotations

import io
import os
import pickle
import select
import socket
import struct
import time
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

# Tagged values.
T_NONE = 0
T_FALSE = 1
T_TRUE = 2
T_INT = 3
T_FLOAT = 4
T_STR = 5
T_BYTES = 6
T_PICKLE = 16
_INT = struct.Struct("<q")
_FLOAT = struct.Struct("<d")
_TAG_NONE = bytes([T_NONE])
_TAG_FALSE = bytes([T_FALSE])
_TAG_TRUE = bytes([T_TRUE])
_TAG_STR = bytes([T_STR])
_TAG_BYTES = bytes([T_BYTES])
_TAG_PICKLE = bytes([T_PICKLE])
_INT_MIN, _INT_MAX = -(1 << 63), (1 << 63) - 1

# DONE: status, is_final, operations, then the lengths of logs and output and the number of
# updated and removed names; then logs (UTF-8), output (a tagged value, or the error message
# / the stand-in repr as UTF-8 when status != 0 or STANDIN is set), updates (name, value:
# a tagged value, or empty: this value cannot cross), removed names.
_DONE = struct.Struct("<BBqIIII")
_NAME = struct.Struct("<H")
_LEN = struct.Struct("<I")
STANDIN = 0x80  # flag in the status byte: the output is a repr text (the value stays)
# CALL: form (0: positional tagged values, 1: a pickle of (args, kwargs)), argument count,
# name length; the name; then the arguments (each: length, tagged value) or the pickle.
_CALL = struct.Struct("<BBH")

# How long a receiver polls (with sched_yield) before it blocks: 0, off. On the 2-core VM this
# was measured on, spinning made round trips slower (docs/isolation.md, "Measured numbers").
SPIN_SECONDS = 0.0


def encode_value(value: Any) -> bytes:
    """The tagged value of `value`; raises what pickling raises when it cannot cross."""
    t = type(value)
    if t is int:
        if _INT_MIN <= value <= _INT_MAX:
            return b"\x03" + _INT.pack(value)
    elif t is str:
        return _TAG_STR + value.encode("utf-8", "surrogatepass")
    elif value is None:
        return _TAG_NONE
    elif t is bool:
        return _TAG_TRUE if value else _TAG_FALSE
    elif t is float:
        return b"\x04" + _FLOAT.pack(value)
    elif t is bytes:
        return _TAG_BYTES + value
    return _TAG_PICKLE + pickle.dumps(value, protocol=PROTOCOL)


def decode_value(data: Any, allowed: dict[tuple[str, str], Any] | None) -> Any:
    """The value of a tagged value (bytes or memoryview). `allowed` None: trusted (the
    worker reading the host's values); else pickles go through RestrictedUnpickler."""
    if not len(data):
        raise ProtocolError("empty value")
    tag = data[0]
    if tag == T_INT:
        return _INT.unpack_from(data, 1)[0]
    if tag == T_STR:
        return str(data[1:], "utf-8", "surrogatepass")
    if tag == T_NONE:
        return None
    if tag == T_TRUE:
        return True
    if tag == T_FALSE:
        return False
    if tag == T_FLOAT:
        return _FLOAT.unpack_from(data, 1)[0]
    if tag == T_BYTES:
        return bytes(data[1:])
    if tag == T_PICKLE:
        if allowed is None:
            return pickle.loads(data[1:])
        return RestrictedUnpickler(data[1:], allowed).load()
    raise ProtocolError(f"unknown value tag {tag}")


def encode_done(
    status: int, output: bytes, is_final: bool, logs: str, ops: int,
    updates: dict[str, bytes | None], removed: list[str],
) -> list[bytes]:
    """The DONE payload as a list of parts (large values are not copied into one buffer)."""
    logs_b = logs.encode("utf-8", "surrogatepass")
    parts = [_DONE.pack(status, bool(is_final), ops, len(logs_b), len(output), len(updates),
                        len(removed)), logs_b, output]
    for name, value in updates.items():
        name_b = name.encode("utf-8", "surrogatepass")
        value = value or b""
        parts.append(_NAME.pack(len(name_b)) + name_b + _LEN.pack(len(value)))
        parts.append(value)
    for name in removed:
        name_b = name.encode("utf-8", "surrogatepass")
        parts.append(_NAME.pack(len(name_b)) + name_b)
    return parts


def _take(view: memoryview, pos: int, n: int) -> memoryview:
    part = view[pos:pos + n]
    if len(part) != n:
        raise ProtocolError("truncated frame")
    return part


def decode_done(
    data: Any,
) -> tuple[int, Any, bool, str, int, dict[str, Any], list[str]]:
    """(status, output, is_final, logs, ops, {name: tagged value (memoryview) or None},
    removed names) of a DONE payload. `output` is a memoryview of the tagged value, or the
    text (status != 0, or status & STANDIN)."""
    view = memoryview(data)
    try:
        status, is_final, ops, n_logs, n_out, n_upd, n_rem = _DONE.unpack_from(view, 0)
        pos = _DONE.size
        logs = str(_take(view, pos, n_logs), "utf-8", "surrogatepass")
        pos += n_logs
        output: Any = _take(view, pos, n_out)
        if status:
            output = str(output, "utf-8", "surrogatepass")
        pos += n_out
        updates: dict[str, Any] = {}
        for _ in range(n_upd):
            (n,) = _NAME.unpack_from(view, pos)
            name = str(_take(view, pos + 2, n), "utf-8", "surrogatepass")
            pos += 2 + n
            (n,) = _LEN.unpack_from(view, pos)
            value = _take(view, pos + 4, n)
            updates[name] = value if n else None
            pos += 4 + n
        removed = []
        for _ in range(n_rem):
            (n,) = _NAME.unpack_from(view, pos)
            removed.append(str(_take(view, pos + 2, n), "utf-8", "surrogatepass"))
            pos += 2 + n
    except (struct.error, UnicodeDecodeError) as exc:
        raise ProtocolError(f"malformed DONE frame: {exc}") from None
    if pos != len(view):
        raise ProtocolError("malformed DONE frame: trailing bytes")
    return status, output, bool(is_final), logs, ops, updates, removed


def encode_call(name: str, args: tuple, kwargs: dict[str, Any]) -> list[bytes]:
    """A CALL payload: positional scalars as tagged values, anything else as one pickle."""
    name_b = name.encode("utf-8", "surrogatepass")
    if not kwargs and len(args) < 256:
        parts = [_CALL.pack(0, len(args), len(name_b)), name_b]
        for arg in args:
            value = encode_value(arg)
            parts.append(_LEN.pack(len(value)))
            parts.append(value)
        return parts
    return [_CALL.pack(1, 0, len(name_b)), name_b,
            pickle.dumps((args, kwargs), protocol=PROTOCOL)]


def decode_call(data: Any, allowed: dict[tuple[str, str], Any]) -> tuple[str, tuple, dict]:
    """(name, args, kwargs) of a CALL payload; arguments through `decode_value`."""
    view = memoryview(data)
    try:
        form, nargs, n = _CALL.unpack_from(view, 0)
        pos = _CALL.size
        name = str(_take(view, pos, n), "utf-8", "surrogatepass")
        pos += n
        if form == 1:
            args, kwargs = RestrictedUnpickler(view[pos:], allowed).load()
            if type(args) is not tuple or type(kwargs) is not dict:
                raise ProtocolError("malformed CALL frame")
            return name, args, kwargs
        values = []
        for _ in range(nargs):
            (n,) = _LEN.unpack_from(view, pos)
            values.append(decode_value(_take(view, pos + 4, n), allowed))
            pos += 4 + n
    except (struct.error, UnicodeDecodeError, ValueError) as exc:
        raise ProtocolError(f"malformed CALL frame: {exc}") from None
    if pos != len(view):
        raise ProtocolError("malformed CALL frame: trailing bytes")
    return name, tuple(values), {}


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


_SMALL = 1 << 16  # frames up to this size are sent as one buffer


def send(sock: socket.socket, kind: int, payload: Any) -> None:
    """Send one frame; `payload` is bytes or a list of parts (not joined when large)."""
    if type(payload) is list:
        total = sum(map(len, payload))
        if total <= _SMALL:
            sock.sendall(b"".join((HEADER.pack(total, kind), *payload)))
            return
        sock.sendall(HEADER.pack(total, kind))
        for part in payload:
            if part:
                sock.sendall(part)
        return
    if len(payload) <= _SMALL:
        sock.sendall(HEADER.pack(len(payload), kind) + payload)
    else:
        sock.sendall(HEADER.pack(len(payload), kind))
        sock.sendall(payload)


class ChannelTimeout(Exception):
    """No frame arrived before the deadline."""


class Channel:
    """The receiving side of one blocking AF_UNIX stream socket: a frame is usually read with
    one `recv_into` (header and payload together) into a buffer kept across frames.

    `recv(deadline, spin)`: with `spin` > 0, first tries to read without blocking for up to
    `spin` seconds (yielding the CPU in between), then waits; with a deadline
    (time.monotonic()), past it raises ChannelTimeout. The socket itself stays in blocking
    mode (a socket timeout would cost a poll() before every send and receive)."""

    def __init__(self, sock: socket.socket):
        self.sock = sock
        self.buf = bytearray(_SMALL)
        self.view = memoryview(self.buf)
        self.have = 0  # bytes of the next frame already in buf
        self.poller: Any = None

    def _fill(self, deadline: float | None, spin: float) -> int:
        """Receive into buf after the bytes already there; return how many arrived."""
        sock = self.sock
        view = self.view[self.have:]
        if spin:
            end = time.perf_counter() + spin
            while True:
                try:
                    n = sock.recv_into(view, 0, socket.MSG_DONTWAIT)
                except BlockingIOError:
                    if time.perf_counter() >= end:
                        break
                    os.sched_yield()  # the peer may be queued on this CPU
                    continue
                return n
        if deadline is not None:
            if self.poller is None:
                self.poller = select.poll()
                self.poller.register(sock.fileno(), select.POLLIN)
            while True:
                remaining = deadline - time.monotonic()
                if remaining <= 0 or not self.poller.poll(max(int(remaining * 1000) + 1, 1)):
                    if time.monotonic() >= deadline:
                        raise ChannelTimeout()
                    continue
                break
        return sock.recv_into(view)

    def recv(self, deadline: float | None = None, spin: float = 0.0) -> tuple[int, Any]:
        """One frame: (kind, payload as bytes or bytearray). ProtocolError on EOF."""
        while self.have < HEADER.size:
            n = self._fill(deadline, spin)
            if not n:
                raise ProtocolError("the peer closed the channel")
            self.have += n
        length, kind = HEADER.unpack_from(self.buf)
        if length > MAX_FRAME:
            raise ProtocolError(f"frame of {length} bytes exceeds the limit")
        end = HEADER.size + length
        if end <= self.have:
            payload: Any = bytes(self.view[HEADER.size:end])
            rest = self.have - end
            if rest:  # the start of the next frame (the peer never sends one early)
                self.buf[:rest] = self.buf[end:self.have]
            self.have = rest
            return kind, payload
        # A large frame: read the rest straight into its own buffer.
        payload = bytearray(length)
        got = self.have - HEADER.size
        payload[:got] = self.view[HEADER.size:self.have]
        self.have = 0
        pview = memoryview(payload)
        while got < length:
            if deadline is not None and time.monotonic() >= deadline:
                raise ChannelTimeout()
            n = self.sock.recv_into(pview[got:])
            if not n:
                raise ProtocolError("the peer closed the channel")
            got += n
        return kind, payload


def recv(sock: socket.socket) -> tuple[int, bytes]:
    """Read one frame without a Channel (control sockets); raise ProtocolError on EOF.
    socket.timeout propagates."""
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
