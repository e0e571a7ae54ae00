"""The wire format (`isolation.protocol`): encoded values, the DONE and CALL records, the channel."""

from __future__ import annotations

import math
import pickle
import select
import socket
import threading
import time

import pytest

from smolagents_native.isolation import protocol as P

VALUES = [
    None, True, False, 0, -1, 2**63 - 1, -(2**63), 1.5, -0.0, math.inf, "", "héllo",
    "\ud800 lone surrogate", b"", b"\x00\xff", 2**63, -(2**63) - 1, 10**100, [1, "a"],
    {"k": (1, 2.5)}, {1, 2}, frozenset({3}), 3j, bytearray(b"x"),
]


@pytest.mark.parametrize("value", VALUES, ids=repr)
def test_values_round_trip_as_data(value):
    data = P.encode_value(value)
    for allowed in ({}, None):
        back = P.decode_value(data, allowed)
        assert type(back) is type(value) and (back == value or back != back)
        assert P.decode_value(memoryview(b"\x00" + data)[1:], allowed) == back or back != back
    assert P.PICKLE_EXT.encode() not in data  # no pickle anywhere


def test_scalar_subclasses_cross_only_when_listed():
    import http

    with pytest.raises(TypeError, match="cannot cross"):
        P.encode_value(http.HTTPStatus.OK)  # an int subclass: not data
    key = P.class_key(http.HTTPStatus)
    data = P.encode_value(http.HTTPStatus.OK, {key})  # listed: a checked pickle
    with pytest.raises(P.ProtocolError, match="lists no cross_classes"):
        P.decode_value(data, {})  # a host that lists nothing takes no pickle at all
    with pytest.raises(pickle.UnpicklingError, match="REDUCE of http.HTTPStatus"):
        P.decode_value(data, {("collections", "ChainMap"): object})
    assert P.decode_value(data, {key: http.HTTPStatus}) is http.HTTPStatus.OK
    assert P.decode_value(P.encode_value(nan := float("nan")), {}) != nan  # still a float


def test_the_host_sends_workers_any_picklable_value():
    import fractions
    import http

    for value in (http.HTTPStatus.OK, ValueError("tool failed"), fractions.Fraction(1, 3)):
        back = P.decode_value(P.encode_for_worker(value), None)
        assert type(back) is type(value) and str(back) == str(value)


def test_unknown_tag_and_empty_value_are_protocol_errors():
    with pytest.raises(P.ProtocolError, match="malformed value"):
        P.decode_value(b"\x7f", {})
    with pytest.raises(P.ProtocolError):
        P.decode_value(b"", {})


def test_done_record_round_trips_and_refuses_truncation():
    parts = P.encode_done(
        0, P.encode_value([1, 2]), True, "printed\n", 17,
        {"a": P.encode_value(3), "big": P.encode_value(b"x" * 100_000), "f": None},
        ["gone"],
    )
    data = b"".join(parts)
    status, output, is_final, logs, ops, updates, removed, imported, lineno = P.decode_done(data)
    assert imported == []
    assert (status, is_final, logs, ops, removed) == (0, True, "printed\n", 17, ["gone"])
    assert P.decode_value(output, {}) == [1, 2]
    assert P.decode_value(updates["a"], {}) == 3
    assert P.decode_value(updates["big"], {}) == b"x" * 100_000
    assert updates["f"] is None
    for cut in (3, len(data) // 2, len(data) - 1):
        with pytest.raises(P.ProtocolError):
            P.decode_done(data[:cut])
    text = P.decode_done(b"".join(P.encode_done(1, "boom é".encode(), False, "", 0, {}, [])))
    assert text[1] == "boom é"


@pytest.mark.parametrize(
    "args, kwargs",
    [((), {}), ((1, "a", None, 2.5, b"z"), {}), (([1], {"x": 2}), {}), ((1,), {"k": "v"})],
)
def test_call_record_round_trips(args, kwargs):
    data = b"".join(P.encode_call("tool_é", args, kwargs))
    assert P.decode_call(data, {}) == ("tool_é", args, kwargs)


def test_call_record_arguments_meet_the_restricted_unpickler():
    import collections

    key = P.class_key(collections.ChainMap)
    # The worker refuses what the host would refuse (it knows the host's cross_classes) ...
    with pytest.raises(TypeError, match="ChainMap cannot cross the process boundary"):
        P.encode_call("t", (collections.ChainMap(),), {})
    # ... and the host refuses it anyway (a worker that did not ask).
    other = {("http", "HTTPStatus"): object}
    data = b"".join(P.encode_call("t", (collections.ChainMap({"a": 1}),), {}, {key}))
    with pytest.raises(P.ProtocolError, match="lists no cross_classes"):
        P.decode_call(data, {})
    with pytest.raises(pickle.UnpicklingError, match="did not list in cross_classes"):
        P.decode_call(data, other)
    data = b"".join(P.encode_call("t", (), {"p": collections.ChainMap({"a": 1})}, {key}))
    with pytest.raises(pickle.UnpicklingError, match="did not list in cross_classes"):
        P.decode_call(data, other)
    assert P.decode_call(data, {key: collections.ChainMap}) == (
        "t", (), {"p": collections.ChainMap({"a": 1})})


def test_channel_reads_small_large_and_split_frames_and_times_out():
    import time

    a, b = socket.socketpair()
    try:
        channel = P.Channel(a)
        big = bytes(range(256)) * 1000  # larger than the channel's buffer

        def write_both():  # more than the socket buffer holds: from another thread
            P.send(b, P.OK, b"small")
            P.send(b, P.DONE, [b"one", big, b"two"])

        writer = threading.Thread(target=write_both)
        writer.start()
        assert channel.recv() == (P.OK, b"small", 0)
        kind, data, _seq = channel.recv()
        assert kind == P.DONE and bytes(data) == b"one" + big + b"two"
        writer.join()
        # a frame written in pieces, the header split too
        frame = P.HEADER.pack(5, P.RESULT, 7) + b"hello"

        def dribble():
            for byte in frame:
                b.sendall(bytes([byte]))
                time.sleep(0.001)

        writer = threading.Thread(target=dribble)
        writer.start()
        assert channel.recv(time.monotonic() + 10) == (P.RESULT, b"hello", 7)
        writer.join()
        with pytest.raises(P.ChannelTimeout):
            channel.recv(time.monotonic() + 0.05)
        b.sendall(P.HEADER.pack(3, P.OK, 2**32 - 1) + b"abc")
        assert channel.recv(time.monotonic() + 10, spin=1e-4) == (P.OK, b"abc", 2**32 - 1)
        b.close()
        with pytest.raises(P.ProtocolError):
            channel.recv()
    finally:
        a.close()
        b.close()


class _CountingSocket:
    """A socket stand-in for Channel._spin, with its poller: counts the spin's non-blocking
    polls, has nothing to read until `arrive_after` polls, then is readable."""

    def __init__(self, arrive_after: int | None = None):
        self.polls = 0
        self.arrive_after = arrive_after

    def fileno(self):
        return -1

    def poll(self, timeout):
        assert timeout == 0  # a spin never blocks
        self.polls += 1
        if self.arrive_after is not None and self.polls > self.arrive_after:
            return [(-1, select.POLLIN)]
        return []


def _channel(sock, monkeypatch, cpus=2):
    monkeypatch.setattr(P, "_cpus", lambda: cpus)
    channel = P.Channel(sock)
    if isinstance(sock, _CountingSocket):
        channel.poller = sock  # the stand-in polls for itself
    return channel


def test_a_receiver_spins_only_while_its_peer_is_awake(monkeypatch):
    """The spin before a receive polls only when the last frame came less than the spin
    ago (the peer is polling for the answer): after a pause, it sleeps at once."""
    # a loaded machine may preempt a poll: not this test's subject (the next one's)
    monkeypatch.setattr(P, "SPIN_PREEMPTED_SECONDS", 3600.0)
    sock = _CountingSocket(arrive_after=3)
    channel = _channel(sock, monkeypatch)
    # no frame yet (a pause since): no poll at all
    assert channel._spin(1.0) is False and sock.polls == 0
    channel.last_frame = time.perf_counter()  # a frame just came: the peer is awake
    assert channel._spin(1.0) is True and sock.polls == 4
    # a spin that runs out says so (then the receive sleeps)
    sock = _CountingSocket()
    channel = _channel(sock, monkeypatch)
    channel.last_frame = time.perf_counter()
    assert channel._spin(0.05) is False and sock.polls > 1
    # recv stamps the frame's arrival
    a, b = socket.socketpair()
    try:
        channel = _channel(a, monkeypatch)
        before = time.perf_counter()
        b.sendall(P.HEADER.pack(3, P.OK, 1) + b"abc")
        assert channel.recv(None, 1e-4) == (P.OK, b"abc", 1)
        assert channel.last_frame >= before
    finally:
        a.close()
        b.close()


def test_a_receiver_that_lost_its_cpu_stops_spinning(monkeypatch):
    """A poll that comes back SPIN_PREEMPTED_SECONDS or more after the one before (another
    process had the CPU: every CPU is busy) stops the channel's spins for
    SPIN_BACKOFF_SECONDS; on a single CPU the channel never spins."""
    sock = _CountingSocket()
    channel = _channel(sock, monkeypatch)
    now = [1000.0]

    def clock():  # every reading 2 ms after the one before: each poll was preempted
        now[0] += 0.002
        return now[0]

    monkeypatch.setattr(P.time, "perf_counter", clock)
    channel.last_frame = now[0]
    assert channel._spin(1.0) is False and sock.polls == 1
    assert channel.spin_off_until > now[0] + P.SPIN_BACKOFF_SECONDS / 2
    channel.last_frame = now[0]
    assert channel._spin(1.0) is False and sock.polls == 1  # backing off: no poll
    now[0] += P.SPIN_BACKOFF_SECONDS
    channel.last_frame = now[0]
    assert channel._spin(1.0) is False and sock.polls == 2  # over: polls again
    monkeypatch.undo()
    single = _channel(_CountingSocket(arrive_after=0), monkeypatch, cpus=1)
    single.last_frame = time.perf_counter()
    assert single._spin(1.0) is False and single.sock.polls == 0
