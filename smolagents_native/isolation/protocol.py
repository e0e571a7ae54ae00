"""Wire format between the host and a process-mode worker (docs/isolation.md).

One frame = a 9-byte header (little-endian payload length, one kind byte, a sequence number)
and the payload. Kinds and payloads:

  host -> worker                       worker -> host
  INIT   the executor's configuration  READY  the sandbox's description (answers INIT)
                                       SETUP_FAIL why the sandbox could not be set up (text)
  RUN    code as UTF-8                 DONE   the step's result (`encode_done`)
  TOOLS  tool names                    CALL   a tool call (`encode_call`)
  RESULT a tool's answer: one byte     OK     TOOLS / RESTORE / RESET / BUDGETS done
         (1 returned, 0 raised) and    FAIL   error message (UTF-8)
         a tagged value
  RESTORE {name: tagged value}
  FRESH_RUN code as UTF-8: RUN on a fresh program (a new interpreter state, the scratch
         directory emptied; `ProcessExecutor.reset`); FAIL, without running the code, when
         the worker cannot make it fresh
  RESET  (empty) the same without a run, when variables are sent before the next step
  BATCH_RUN one byte (1: make the program fresh first, as FRESH_RUN; 0: the worker's first
         program) and code as UTF-8: a program of a batch (`ProcessExecutor._run_batch`),
         answered by a DONE that reports no variables (the next program is fresh, the host
         keeps none); the host may send several before the first DONE (a window), which
         the worker reads and runs in turn
  BUDGETS (timeout, max_operations, max_while_iterations): the executor's attributes, sent
         when the host changed them (the rest of its budgets cross once, in INIT)

Every request carries a sequence number, which its replies echo: a RUN's DONE and the CALLs
of its tool calls carry the RUN's, a CALL's RESULT carries it back, OK / FAIL carry the
control request's. The host treats a frame with another number, or bytes that arrive after
a step's DONE, as a worker out of turn and replaces it.

Values cross as *encoded values* (`csrc/module/wire.c`, the data-only codec): None, bools, ints,
floats, complex, str, bytes, bytearray, lists, tuples, dicts, sets, frozensets (with shared
references and cycles), and the types `_wire.py` describes as such data (datetimes, Decimal,
Fraction, numpy arrays and scalars, pandas objects...). Decoding never runs a constructor the
bytes name: every length is checked against the frame before anything is allocated, nesting
and work are bounded, and the step's deadline bounds the time. An instance of a class the host
listed in `cross_classes` crosses as a pickle inside an extension record ("pickle"), which the
host decodes only after the pre-pass (`check_pickle`) and with the restricted unpickler.

Everything the host reads from a worker goes through `decode_value` with the host's `allowed`
classes; what the worker reads from the host (tool results, variables sent in) may also carry
plain pickles of any object the host hands over: the host is trusted by its worker.
"""

from __future__ import annotations

import errno
import io
import os
import pickle
import select
import socket
import struct
import time
from typing import Any, Callable

from .. import _core
from . import wire as _wire

HEADER = struct.Struct("<IBI")
MAX_FRAME = 1 << 30  # default bound of a frame from a worker (the host may set a lower one)

RUN = 1
INIT = 2
TOOLS = 3
RESULT = 4
RESTORE = 5
FRESH_RUN = 6
RESET = 7
BUDGETS = 8
BATCH_RUN = 9
DONE = 10
CALL = 11
OK = 12
FAIL = 13
READY = 14
SETUP_FAIL = 15

PROTOCOL = pickle.HIGHEST_PROTOCOL
PICKLE_EXT = "pickle"  # the extension record of a pickled object (see the module's docstring)
_INT_MIN, _INT_MAX = -(1 << 63), (1 << 63) - 1

# DONE: status, is_final, operations, then the lengths of logs and output and the numbers of
# updated and removed names and of modules imported; then logs (UTF-8), output (a tagged
# value, or the error message / the stand-in repr as UTF-8 when status != 0 or STANDIN is
# set), updates (name, value: a tagged value, or empty: this value cannot cross), removed
# names, the modules the step imported (under the authorized names: the pool's fork server
# may preload them for later workers).
_DONE = struct.Struct("<BBqIIIIIi")
_NAME = struct.Struct("<H")
_LEN = struct.Struct("<I")
STANDIN = 0x80  # flag in the status byte: the output is a repr text (the value stays)
# CALL: the name's length, the name, then one encoded value: (args, kwargs).
_CALL = struct.Struct("<H")

# Spin, then block (docs/isolation.md, "Measured numbers"): a receiver whose peer is awake
# (its last frame came less than SPIN_SECONDS ago, so the peer is itself still polling for
# the answer) first polls the socket without blocking for up to SPIN_SECONDS, yielding its
# CPU between polls, and only then sleeps. While both sides spin, a frame finds its receiver
# awake, on a CPU of its own: no wake-up of a sleeping process (of a halted vCPU, on a virtual
# machine) on the way, which was most of a round trip. After a pause (an agent's step after
# the model's answer) neither spins: a frame to a sleeping peer wakes it on the sender's CPU,
# which the sender must then leave to it by sleeping too. 0 turns it off. The fork server
# takes the host's value when it starts (its workers, forked from it, too).
SPIN_SECONDS = 100e-6
# A poll that comes back this much later than the one before (the receiver lost its CPU to
# another process: every CPU is busy) stops the channel spinning for SPIN_BACKOFF_SECONDS:
# on a machine with no idle CPU, spinning takes CPU time from the peer it waits for.
SPIN_PREEMPTED_SECONDS = 500e-6
SPIN_BACKOFF_SECONDS = 1.0


def _class_key(value: Any) -> tuple[Any, Any]:
    t = type(value)
    return getattr(t, "__module__", None), getattr(t, "__qualname__", None)


def value_encoder(cross: Any = frozenset()) -> Callable[[Any], bytes]:
    """`encode_value` with `cross` fixed: a function of the value (the worker makes one and
    encodes every step's values with it)."""

    def ext(obj: Any) -> tuple[str, Any] | None:
        described = _wire.describe(obj)
        if described is not None:
            return described
        if cross and _class_key(obj) in cross:
            data = pickle.dumps(obj, protocol=PROTOCOL)
            check_pickle(data, cross)
            return PICKLE_EXT, data
        return None

    def encode(value: Any) -> bytes:
        return _core.wire_dumps(value, ext)

    return encode


def encode_value(value: Any, cross: Any = frozenset()) -> bytes:
    """The encoding of a value going to the host: data only, and instances of the classes in
    `cross` (the host's cross_classes keys) as pickles that pass the host's pre-pass. Raises
    TypeError (or what pickling raises) when the value cannot cross."""
    return (value_encoder(cross) if cross else _encode_plain)(value)


_encode_plain = value_encoder()  # no class crosses as a pickle


def encode_for_worker(value: Any) -> bytes:
    """The encoding of a value going to a worker (a tool's result or exception, a variable
    sent in): data, and a pickle for anything else the host hands over."""

    def ext(obj: Any) -> tuple[str, Any]:
        described = _wire.describe(obj)
        if described is not None:
            return described
        return PICKLE_EXT, pickle.dumps(obj, protocol=PROTOCOL)

    return _core.wire_dumps(value, ext)


class _HostBuilder(_wire.Builder):
    """The build hook of the host: the extension types of `_wire`, and pickles of the
    classes the host listed (pre-pass, then the restricted unpickler)."""

    __slots__ = ("allowed", "deadline")

    def __init__(self, data: Any, allowed: dict[tuple[str, str], Any],
                 deadline: float | None = None):
        # Builder.for_input's budget, set here (a step's report makes one per value)
        self.budget = 64 * (data.nbytes if type(data) is memoryview
                            else memoryview(data).nbytes) + (1 << 20)
        self.allowed = allowed
        self.deadline = deadline

    def __call__(self, name: str, payload: Any) -> Any:
        if name == PICKLE_EXT:
            if not self.allowed:  # no class listed: no pickle has anything to make
                raise ValueError(
                    "malformed value: a pickle record, and the host lists no cross_classes")
            if type(payload) is not bytes:
                raise ValueError("malformed value: a pickle record holds bytes")
            return loads_restricted(payload, self.allowed, self.deadline)
        return super().__call__(name, payload)


def _trusted_build(name: str, payload: Any) -> Any:
    if name == PICKLE_EXT:
        return pickle.loads(payload)
    return _wire.Builder()(name, payload)


def decode_value(
    data: Any, allowed: dict[tuple[str, str], Any] | None, deadline: float | None = None
) -> Any:
    """The value of an encoding (bytes or memoryview). `allowed` None: trusted (the worker
    reading the host's values); else the host reading a worker's: pickles only of the listed
    classes, through the pre-pass. Malformed input is a ProtocolError, a pickle refused an
    UnpicklingError; past `deadline` (time.monotonic()), TimeoutError."""
    if not len(data):
        raise ProtocolError("empty value")
    build = _trusted_build if allowed is None else _HostBuilder(data, allowed, deadline)
    try:
        return _core.wire_loads(data, build, 200, deadline)
    except ValueError as exc:
        if str(exc).startswith("malformed value"):
            raise ProtocolError(str(exc)) from None
        raise


def encode_done(
    status: int, output: bytes, is_final: bool, logs: str, ops: int,
    updates: dict[str, bytes | None], removed: list[str], imported: Any = (), lineno: int = 0,
) -> list[bytes]:
    """The DONE payload as a list of parts (large values are not copied into one buffer).
    `lineno`: the failed step's error line (InterpreterError.lineno), 0 if none."""
    logs_b = logs.encode("utf-8", "surrogatepass")
    imported = list(imported)
    lineno = lineno if isinstance(lineno, int) and 0 < lineno < 2**31 else 0
    parts = [_DONE.pack(status, bool(is_final), ops, len(logs_b), len(output), len(updates),
                        len(removed), len(imported), lineno), logs_b, output]
    if not (updates or removed or imported):
        return parts
    for name, value in updates.items():
        name_b = name.encode("utf-8", "surrogatepass")
        value = value or b""
        parts.append(_NAME.pack(len(name_b)) + name_b + _LEN.pack(len(value)))
        parts.append(value)
    for name in (*removed, *imported):
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
) -> tuple[int, Any, bool, str, int, dict[str, Any], list[str], list[str], int]:
    """(status, output, is_final, logs, ops, {name: tagged value (memoryview) or None},
    removed names, imported modules, error line or 0) of a DONE payload. `output` is a
    memoryview of the tagged value, or the text (status != 0, or status & STANDIN).
    Every length is checked against what is left of the payload before it is used."""
    view = memoryview(data)
    size = len(view)
    try:
        (status, is_final, ops, n_logs, n_out, n_upd, n_rem, n_imp,
         lineno) = _DONE.unpack_from(view, 0)
        pos = _DONE.size + n_logs
        end = pos + n_out
        if end > size:
            raise ProtocolError("malformed DONE frame: truncated frame")
        logs = str(view[_DONE.size:pos], "utf-8", "surrogatepass") if n_logs else ""
        output: Any = view[pos:end]
        if status:
            output = str(output, "utf-8", "surrogatepass")
        pos = end
        updates: dict[str, Any] = {}
        names: list[str] = []
        if n_upd or n_rem or n_imp:
            for _ in range(n_upd):
                (n,) = _NAME.unpack_from(view, pos)
                end = pos + 2 + n
                (m,) = _LEN.unpack_from(view, end)  # past the payload: struct.error
                if end + 4 + m > size:
                    raise ProtocolError("malformed DONE frame: truncated frame")
                updates[str(view[pos + 2:end], "utf-8", "surrogatepass")] = (
                    view[end + 4:end + 4 + m] if m else None)
                pos = end + 4 + m
            for _ in range(n_rem + n_imp):
                (n,) = _NAME.unpack_from(view, pos)
                end = pos + 2 + n
                if end > size:
                    raise ProtocolError("malformed DONE frame: truncated frame")
                names.append(str(view[pos + 2:end], "utf-8", "surrogatepass"))
                pos = end
    except (struct.error, UnicodeDecodeError) as exc:
        raise ProtocolError(f"malformed DONE frame: {exc}") from None
    if pos != size:
        raise ProtocolError("malformed DONE frame: trailing bytes")
    return (status, output, bool(is_final), logs, ops, updates, names[:n_rem], names[n_rem:],
            max(lineno, 0))


def encode_call(
    name: str, args: tuple, kwargs: dict[str, Any], cross: Any = frozenset()
) -> list[bytes]:
    """A CALL payload: the tool's name and its arguments as one encoded value (instances of
    the classes in `cross` as checked pickles)."""
    name_b = name.encode("utf-8", "surrogatepass")
    return [_CALL.pack(len(name_b)), name_b, encode_value((tuple(args), dict(kwargs)), cross)]


def decode_call(
    data: Any, allowed: dict[tuple[str, str], Any], deadline: float | None = None
) -> tuple[str, tuple, dict]:
    """(name, args, kwargs) of a CALL payload; the arguments through `decode_value`."""
    view = memoryview(data)
    try:
        (n,) = _CALL.unpack_from(view, 0)
        pos = _CALL.size
        name = str(_take(view, pos, n), "utf-8", "surrogatepass")
        pos += n
    except (struct.error, UnicodeDecodeError) as exc:
        raise ProtocolError(f"malformed CALL frame: {exc}") from None
    value = decode_value(view[pos:], allowed, deadline)
    if (type(value) is not tuple or len(value) != 2 or type(value[0]) is not tuple
            or type(value[1]) is not dict or any(type(k) is not str for k in value[1])):
        raise ProtocolError("malformed CALL frame: not (args, kwargs)")
    return name, value[0], value[1]


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

# A batch lane sends at most BATCH_WINDOW programs (BATCH_RUN) ahead of its worker, holding at
# most BATCH_WINDOW_BYTES of source between them (a larger program goes alone): what is sent
# ahead always fits in the socket's buffer, so the host never blocks on a send while the
# worker blocks sending it a report. A worker waiting for a tool's RESULT keeps the BATCH_RUN
# frames that arrive before it, up to BATCH_WINDOW (more is a protocol error).
BATCH_WINDOW = 4
BATCH_WINDOW_BYTES = 1 << 15


def send(sock: socket.socket, kind: int, payload: Any, seq: int = 0,
         deadline: float | None = None) -> None:
    """Send one frame; `payload` is bytes or a list of parts (not joined when large). With a
    deadline (time.monotonic()), a frame the peer does not take in time (it stopped reading
    and the socket's buffer is full) raises ChannelTimeout: a worker cannot hold the host in
    a send, as it cannot in a receive."""
    if deadline is not None:
        if type(payload) is bytes and len(payload) <= _SMALL:
            # the common case (a step's source, a control request): one buffer, usually
            # taken whole by one system call
            data = HEADER.pack(len(payload), kind, seq) + payload
            try:
                sent = sock.send(data, socket.MSG_DONTWAIT)
            except BlockingIOError:
                sent = 0
            if sent != len(data):
                _send_by(sock, [memoryview(data)[sent:]], deadline)
            return
        if type(payload) is list:
            total = sum(map(len, payload))
            parts = [HEADER.pack(total, kind, seq), *payload]
        else:
            total = len(payload)
            parts = [HEADER.pack(total, kind, seq), payload]
        if total <= _SMALL:  # one buffer, usually taken whole by one system call
            data = b"".join(parts)
            try:
                sent = sock.send(data, socket.MSG_DONTWAIT)
            except BlockingIOError:
                sent = 0
            if sent == len(data):
                return
            parts = [memoryview(data)[sent:]]
        _send_by(sock, parts, deadline)
        return
    if type(payload) is list:
        total = sum(map(len, payload))
        if total <= _SMALL:
            sock.sendall(b"".join((HEADER.pack(total, kind, seq), *payload)))
            return
        sock.sendall(HEADER.pack(total, kind, seq))
        for part in payload:
            if part:
                sock.sendall(part)
        return
    if len(payload) <= _SMALL:
        sock.sendall(HEADER.pack(len(payload), kind, seq) + payload)
    else:
        sock.sendall(HEADER.pack(len(payload), kind, seq))
        sock.sendall(payload)


def _send_by(sock: socket.socket, parts: list[Any], deadline: float) -> None:
    """Send `parts` in order without blocking past `deadline` (the socket stays in blocking
    mode: each send is MSG_DONTWAIT, and a full buffer is waited on with poll)."""
    poller = None
    for part in parts:
        view = memoryview(part).cast("B")
        while view:
            try:
                sent = sock.send(view, socket.MSG_DONTWAIT)
            except BlockingIOError:
                sent = 0
            if sent:
                view = view[sent:]
                continue
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                raise ChannelTimeout()
            if poller is None:
                poller = select.poll()
                poller.register(sock.fileno(), select.POLLOUT)
            poller.poll(max(int(remaining * 1000) + 1, 1))


def send_frame(fd: int, kind: int, seq: int, payload: bytes) -> None:
    """Send one frame on a raw file descriptor (before the worker has a socket object)."""
    data = memoryview(HEADER.pack(len(payload), kind, seq) + payload)
    while data:
        data = data[os.write(fd, data):]


def _cpus() -> int:
    """The CPUs this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except (AttributeError, OSError):
        return os.cpu_count() or 1


class ChannelTimeout(Exception):
    """No frame arrived before the deadline."""


class Channel:
    """The receiving side of one blocking AF_UNIX stream socket: a frame is usually read with
    one `recv_into` (header and payload together) into a buffer kept across frames.

    `recv(deadline, spin)`: with `spin` > 0, when the previous frame arrived less than `spin`
    seconds ago, first tries to read without blocking for up to `spin` seconds (yielding the
    CPU in between; not on a single CPU, and not for SPIN_BACKOFF_SECONDS after a poll found
    it had lost its CPU), then waits; with a deadline
    (time.monotonic()), past it raises ChannelTimeout, for the header and for every part of
    a large payload alike. The socket itself stays in blocking mode (a socket timeout would
    cost a poll() before every send and receive). A frame announcing more than `max_frame`
    bytes is a ProtocolError before anything is allocated for it."""

    def __init__(self, sock: socket.socket, max_frame: int = MAX_FRAME):
        self.sock = sock
        self.max_frame = max_frame
        self.buf = bytearray(_SMALL)
        self.view = memoryview(self.buf)
        self.have = 0  # bytes of the next frame already in buf
        self.poller: Any = None
        # perf_counter() before which recv does not spin; for ever on a single CPU, where
        # the peer cannot run while this process polls
        self.spin_off_until = 0.0 if _cpus() > 1 else float("inf")
        self.last_frame = 0.0  # perf_counter() when recv last returned a frame

    def _poller(self) -> Any:
        if self.poller is None:
            fd = self.sock.fileno()
            if fd < 0:  # closed (by close() from another thread): what a receive raises
                raise OSError(errno.EBADF, "the channel's socket is closed")
            self.poller = select.poll()
            self.poller.register(fd, select.POLLIN)
        return self.poller

    def _wait(self, deadline: float) -> None:
        """Block until the socket is readable; ChannelTimeout past `deadline`."""
        poll = self._poller().poll
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0 or not poll(max(int(remaining * 1000) + 1, 1)):
                if time.monotonic() >= deadline:
                    raise ChannelTimeout()
                continue
            return

    def _fill(self, deadline: float | None, spin: float) -> int:
        """Receive into buf after the bytes already there; return how many arrived."""
        sock = self.sock
        view = self.view[self.have:]
        if spin and self._spin(spin):
            return sock.recv_into(view)  # readable: bytes, or the end (0)
        if deadline is not None:
            self._wait(deadline)
        return sock.recv_into(view)

    def _spin(self, spin: float) -> bool:
        """Poll the socket without blocking for up to `spin` seconds: whether it became
        readable (False: nothing came, or spinning is off for now). A poll, not a receive
        that fails: a failed receive raises, which cost three times a poll."""
        clock = time.perf_counter
        last = clock()
        if last < self.spin_off_until or last - self.last_frame > spin:
            return False  # spinning is off for now, or the peer is asleep
        end = last + spin
        poll = self._poller().poll
        while True:
            if poll(0):
                return True
            now = clock()
            if now - last > SPIN_PREEMPTED_SECONDS:
                # another process had this CPU: every CPU is busy, where spinning slows the
                # peer down; sleep on the socket for a while instead
                self.spin_off_until = now + SPIN_BACKOFF_SECONDS
                return False
            if now >= end:
                return False
            os.sched_yield()  # the peer may be queued on this CPU
            last = now

    def recv(
        self, deadline: float | None = None, spin: float = 0.0
    ) -> tuple[int, Any, int]:
        """One frame: (kind, payload as bytes or bytearray, sequence number). ProtocolError
        on EOF or an oversized frame."""
        while self.have < HEADER.size:
            n = self._fill(deadline, spin)
            if not n:
                raise ProtocolError("the peer closed the channel")
            self.have += n
        length, kind, seq = HEADER.unpack_from(self.buf)
        if length > self.max_frame:
            raise ProtocolError(
                f"a frame of {length} bytes exceeds the limit of {self.max_frame} bytes")
        end = HEADER.size + length
        if end <= self.have:
            payload: Any = bytes(self.view[HEADER.size:end])
            rest = self.have - end
            if rest:  # the start of the next frame (the peer sent it early)
                self.buf[:rest] = self.buf[end:self.have]
            self.have = rest
            self.last_frame = time.perf_counter()
            return kind, payload, seq
        # A large frame: read the rest into a buffer of its own that grows with what has
        # arrived (at most doubling), never to what the header claims before the bytes are
        # there (ten bytes announcing a gigabyte allocate nothing).
        got = self.have - HEADER.size
        payload = bytearray(max(min(length, 2 * _SMALL), got))
        payload[:got] = self.view[HEADER.size:self.have]
        self.have = 0
        while got < length:
            if got == len(payload):
                payload.extend(bytes(min(len(payload), length - len(payload))))
            if deadline is not None:
                self._wait(deadline)
            with memoryview(payload) as pview:
                n = self.sock.recv_into(pview[got:])
            if not n:
                raise ProtocolError("the peer closed the channel")
            got += n
        self.last_frame = time.perf_counter()
        return kind, payload, seq

    def pending(self) -> bool:
        """Whether bytes the peer sent are waiting: already buffered, or in the socket."""
        if self.have:
            return True
        return bool(self._poller().poll(0))


def recv(sock: socket.socket) -> tuple[int, bytes]:
    """Read one frame without a Channel (control sockets); raise ProtocolError on EOF.
    socket.timeout propagates."""
    header = _recv_exact(sock, HEADER.size)
    length, kind, _seq = HEADER.unpack(header)
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


def loads_trusted(data: Any) -> Any:
    """What the worker reads from the host (the configuration, tool names): the host is
    trusted by its worker."""
    return pickle.loads(data)


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
    """Unpickles builtin data types and the globals in `allowed` ({(module, name): object});
    it never imports a module to resolve a name."""

    def __init__(self, data: bytes, allowed: dict[tuple[str, str], Any]):
        super().__init__(io.BytesIO(data))
        self._allowed = allowed

    def find_class(self, module: str, name: str) -> Any:
        key = (module, name)
        obj = self._allowed.get(key)
        if obj is not None:
            return obj
        raise pickle.UnpicklingError(
            f"{module}.{name} may not cross the process boundary (the host did not list it "
            "in cross_classes)"
        )

    def persistent_load(self, pid: Any) -> Any:
        raise pickle.UnpicklingError("persistent ids may not cross the process boundary")


_REFUSED_OPS = frozenset({
    "INST", "OBJ", "EXT1", "EXT2", "EXT4", "PERSID", "BINPERSID", "NEXT_BUFFER",
    "READONLY_BUFFER",
})
_STR_OPS = frozenset({"UNICODE", "SHORT_BINUNICODE", "BINUNICODE", "BINUNICODE8"})
_PUT_OPS = frozenset({"PUT", "BINPUT", "LONG_BINPUT"})
_GET_OPS = frozenset({"GET", "BINGET", "LONG_BINGET"})


def check_pickle(data: Any, allowed: Any, deadline: float | None = None) -> None:
    """The pre-pass a pickle from a worker goes through before it is unpickled: it may
    call (REDUCE, NEWOBJ, NEWOBJ_EX) only the globals in `allowed` ((module, name) keys),
    update (BUILD) only what those calls made, and use no opcode that reaches outside the
    data (INST, OBJ, the extension registry, persistent ids, out-of-band buffers); memo
    indices stay within the memo. A stack simulation over `pickletools.genops`, so what is
    called is known, not guessed. Raises pickle.UnpicklingError; TimeoutError past
    `deadline` (time.monotonic(), read every 4096 opcodes)."""
    import pickletools

    def refuse(why: str) -> None:
        raise pickle.UnpicklingError(f"refused pickle: {why}")

    stack: list[tuple[str, Any]] = []
    memo: list[tuple[str, Any]] = []

    def pop() -> tuple[str, Any]:
        if not stack:
            refuse("stack underflow")
        return stack.pop()

    def pop_mark() -> None:
        while True:
            if pop()[0] == "mark":
                return

    try:
        ops = pickletools.genops(bytes(data))
        for count, (op, arg, _pos) in enumerate(ops):
            if deadline is not None and not count & 4095 and time.monotonic() > deadline:
                raise TimeoutError("decoding passed the deadline")
            name = op.name
            if name in _REFUSED_OPS:
                refuse(f"opcode {name}")
            if name == "STOP":
                break
            if name in _STR_OPS:
                stack.append(("str", arg))
            elif name == "GLOBAL":
                module, _, qual = str(arg).partition(" ")
                stack.append(("global", (module, qual)))
            elif name == "STACK_GLOBAL":
                qual, module = pop(), pop()
                if module[0] != "str" or qual[0] != "str":
                    refuse("STACK_GLOBAL of something other than names")
                stack.append(("global", (module[1], qual[1])))
            elif name in ("REDUCE", "NEWOBJ", "NEWOBJ_EX"):
                for _ in range(2 if name == "NEWOBJ_EX" else 1):
                    pop()  # args (and kwargs)
                callee = pop()
                if callee[0] != "global" or callee[1] not in allowed:
                    what = ".".join(callee[1]) if callee[0] == "global" else "a value"
                    refuse(f"{name} of {what}, which the host did not list in cross_classes")
                stack.append(("made", None))
            elif name == "BUILD":
                pop()
                if not stack or stack[-1][0] != "made":
                    refuse("BUILD of an object no listed class made")
            elif name == "MARK":
                stack.append(("mark", None))
            elif name == "POP":
                pop()
            elif name == "POP_MARK":
                pop_mark()
            elif name == "DUP":
                stack.append(stack[-1] if stack else refuse("stack underflow"))  # type: ignore[func-returns-value]
            elif name == "MEMOIZE":
                if not stack:
                    refuse("stack underflow")
                memo.append(stack[-1])
            elif name in _PUT_OPS:
                if not stack or not isinstance(arg, int) or arg > len(memo):
                    refuse("memo index out of order")
                if arg == len(memo):
                    memo.append(stack[-1])
                else:
                    memo[arg] = stack[-1]
            elif name in _GET_OPS:
                if not isinstance(arg, int) or arg >= len(memo):
                    refuse("memo index out of range")
                stack.append(memo[arg])
            else:  # data: the generic stack effect
                for item in reversed(op.stack_before):
                    if item.name == "stackslice":
                        pop_mark()
                        break
                    if item.name != "mark":
                        pop()
                stack.extend([("data", None)] * len(op.stack_after))
    except (pickle.UnpicklingError, TimeoutError):
        raise
    except Exception as exc:  # ValueError from genops: a malformed pickle
        raise pickle.UnpicklingError(f"refused pickle: {exc}") from None


def loads_restricted(data: bytes, allowed: dict[tuple[str, str], Any],
                     deadline: float | None = None) -> Any:
    """A pickle from a worker: the pre-pass, then the restricted unpickler. (CPython's
    unpickler itself cannot be interrupted: the pre-pass bounds what it is given; the dicts
    and sets a listed class's state holds are built without a deadline check.)"""
    check_pickle(data, allowed, deadline)
    return RestrictedUnpickler(data, allowed).load()
