"""The data-only value codec of the process boundary: csrc/module/wire.c (`_core.wire_dumps` /
`wire_loads`) and its extension types, smolagents_native/isolation/wire.py.

Round trips of every type (exact types, identity and cycles kept), the ext and build hook
contracts, and hostile input: every decoding error is a ValueError "malformed value: ...",
memory stays within a constant times the input, the deadline stops a flood of colliding
keys. Runs without numpy and pandas; their parts skip when they are not installed.

Timings against pickle (not asserted here): `python scripts/wire_bench.py`.
"""

from __future__ import annotations

import collections
import datetime
import decimal
import fractions
import gc
import math
import os
import pathlib
import random
import struct
import subprocess
import sys
import time
import tracemalloc
import uuid
import zoneinfo

import pytest

from smolagents_native import _core
from smolagents_native.isolation import wire as _wire

dumps, loads = _core.wire_dumps, _core.wire_loads

try:
    import hypothesis
    from hypothesis import strategies as st
except ImportError:  # pragma: no cover - hypothesis is in the test extra
    hypothesis = None


def varint(n: int) -> bytes:
    out = bytearray()
    while n >= 0x80:
        out.append(n & 0x7F | 0x80)
        n >>= 7
    out.append(n)
    return bytes(out)


def frame(*parts) -> bytes:
    """Bytes from parts: a str is tags (ASCII), an int is a varint, bytes stay."""
    out = bytearray()
    for p in parts:
        if isinstance(p, str):
            out += p.encode("ascii")
        elif isinstance(p, int):
            out += varint(p)
        else:
            out += p
    return bytes(out)


def same(a, b, seen=None) -> bool:
    """Equal with exact types at every level, nan equal to nan, -0.0 not equal to 0.0."""
    if type(a) is not type(b):
        return False
    if seen is None:
        seen = {}
    if id(a) in seen:
        return seen[id(a)] is b
    if type(a) is float:
        return (math.isnan(a) and math.isnan(b)) or (a == b and math.copysign(1, a) == math.copysign(1, b))
    if type(a) is complex:
        return same(a.real, b.real) and same(a.imag, b.imag)
    if type(a) in (list, tuple):
        seen[id(a)] = b
        return len(a) == len(b) and all(same(x, y, seen) for x, y in zip(a, b))
    if type(a) is dict:
        seen[id(a)] = b
        return list(a) == list(b) and all(same(a[k], b[k], seen) for k in a) and all(
            same(x, y, seen) for x, y in zip(a, b)
        )
    return a == b


def roundtrip(v, **kw):
    return loads(dumps(v, **kw))


# ----------------------------------------------------------------------------- round trips

SCALARS = [
    None, True, False, 0, 1, -1, 63, 64, -64, -65, 127, 128, 255, 256, 2**31, -(2**31),
    2**63 - 1, -(2**63), 2**63, -(2**63) - 1, 2**64, -(2**64), 2**200 + 12345, -(2**200) - 1,
    0.0, -0.0, 1.5, -2.25, 1e308, 5e-324, float("inf"), float("-inf"), float("nan"),
    complex(1, -2), complex(-0.0, float("nan")), complex(float("inf"), 0),
    "", "abc", "é", "\u20ac", "\U0001f600", "\ud800", "a\udfffb", "\ud83d\ude00", "\x00",
    "x" * 1000, "é" * 300 + "\ud800",
    b"", b"\x00\xff", b"x" * 300, bytearray(), bytearray(b"a\x00b"),
]


@pytest.mark.parametrize("value", SCALARS, ids=repr)
def test_scalar_round_trip(value):
    assert same(roundtrip(value), value)


@pytest.mark.parametrize("k", range(0, 260))
def test_int_boundaries(k):
    for v in (2**k, -(2**k), 2**k - 1, -(2**k) + 1, 2**k + 1, -(2**k) - 1):
        r = roundtrip(v)
        assert r == v and type(r) is int


def test_huge_int():
    v = 7**20000
    assert roundtrip(v) == v and roundtrip(-v) == -v


CONTAINERS = [
    [], (), {}, set(), frozenset(),
    [1, [2, [3, []]]],
    (1, ("a", (b"b",)), ()),
    {"a": 1, 2: "b", (3, 4): [5], None: None, 1.5: 2j, b"k": bytearray(b"v"), frozenset({1}): {}},
    {1, "a", (2, 3), frozenset({4}), None, 2.5, b"x"},
    frozenset({(1, 2), "s", frozenset({"t"})}),
    {"nested": {"deeper": {"deepest": [None, True, False, [], {}]}}},
    [float("nan"), -0.0, "\ud800"],
]


# ids by type: a set's repr differs between processes (str hashes), and xdist's workers
# must collect the same ids
@pytest.mark.parametrize("value", CONTAINERS, ids=lambda v: type(v).__name__)
def test_container_round_trip(value):
    assert same(roundtrip(value), value)


def test_dict_order_kept():
    d = {k: None for k in ["z", "a", "m", 3, 1, 2]}
    assert list(roundtrip(d)) == list(d)


def test_buffers_accepted():
    data = dumps([1, "two", b"three"])
    for buf in (data, bytearray(data), memoryview(data), memoryview(b"xx" + data + b"yy")[2:-2]):
        assert loads(buf) == [1, "two", b"three"]


def test_identity_and_sharing():
    a = [1, 2]
    s = "shared" * 3
    b = b"bytes"
    ba = bytearray(b"ba")
    t = (a, s)
    d = {"k": a}
    v = [a, a, t, t, s, s, b, b, ba, ba, d, d, (d,)]
    r = roundtrip(v)
    assert same(r, v)
    assert r[0] is r[1] and r[2] is r[3] and r[2][0] is r[0]
    assert r[4] is r[5] and r[6] is r[7] and r[8] is r[9]
    assert r[10] is r[11] and r[12][0] is r[10] and r[10]["k"] is r[0]


def test_cycles_through_mutables():
    lst = [1]
    lst.append(lst)
    r = roundtrip(lst)
    assert r[1] is r and r[0] == 1

    d = {}
    d["self"] = d
    r = roundtrip(d)
    assert r["self"] is r

    outer = {"inner": []}
    outer["inner"].append(outer)
    outer["inner"].append((outer["inner"],))  # a tuple inside, no cycle through it
    r = roundtrip(outer)
    assert r["inner"][0] is r and r["inner"][1][0] is r["inner"]


def test_cycle_through_immutable_refused():
    t = ([],)
    t[0].append(t)
    with pytest.raises(ValueError, match="tuple that contains itself"):
        dumps(t)
    # the same list is fine when the tuple is not on the cycle
    lst = []
    lst.append((lst,))
    r = roundtrip(lst)
    assert r[0][0] is r


def nested(kind, depth):
    v = 0
    for _ in range(depth):
        v = {"k": v} if kind is dict else kind([v])
    return v


@pytest.mark.parametrize("kind", [list, tuple, dict])
def test_nested_150_deep(kind):
    v = nested(kind, 150)
    assert same(roundtrip(v), v)


@pytest.mark.parametrize("kind", [list, tuple, dict, set, frozenset])
def test_max_depth(kind):
    v = nested(kind if kind not in (set, frozenset) else tuple, 200)
    if kind in (set, frozenset):
        v = kind([v])  # one level more
    else:
        assert same(roundtrip(v), v)
        v = kind([v]) if kind is not dict else {"k": v}
    with pytest.raises(ValueError, match="max_depth=200"):
        dumps(v)
    with pytest.raises(ValueError, match="max_depth=5"):
        dumps(nested(list, 6), max_depth=5)
    data = dumps(nested(list, 6))
    with pytest.raises(ValueError, match="^malformed value: nested deeper than max_depth=5"):
        loads(data, max_depth=5)
    assert loads(data, max_depth=6) == nested(list, 6)
    assert dumps(5, max_depth=0) == dumps(5)
    with pytest.raises(ValueError):
        dumps([], max_depth=0)
    with pytest.raises(ValueError):
        dumps(1, max_depth=-1)


def test_very_deep_is_an_error_not_a_crash():
    deep = nested(list, 200_000)
    with pytest.raises((ValueError, RecursionError)):
        dumps(deep, max_depth=10**9)
    data = b"l\x01" * 1_000_000 + b"N"
    with pytest.raises(ValueError, match="^malformed value: nested deeper"):
        loads(data, max_depth=10**9)


def test_large_values():
    v = list(range(-500_000, 500_000))
    assert roundtrip(v) == v
    d = {f"key{i}": i for i in range(100_000)}
    r = roundtrip(d)
    assert r == d and list(r) == list(d)
    big = os.urandom(1 << 20)
    assert roundtrip(big) == big


def test_dumps_keeps_the_format():
    """The wire format is documented at the top of csrc/module/wire.c; a few fixed encodings."""
    assert dumps(None) == b"N" and dumps(True) == b"T" and dumps(False) == b"F"
    assert dumps(0) == b"i\x00" and dumps(-1) == b"i\x01" and dumps(1) == b"i\x02"
    assert dumps(64) == b"i\x80\x01"
    assert dumps(2**63) == b"I\x09" + (2**63).to_bytes(9, "little", signed=True)
    assert dumps(1.0) == b"f" + struct.pack("<d", 1.0) and dumps(2j) == b"c" + struct.pack("<dd", 0.0, 2.0)
    assert dumps("a") == b"s\x01a" and dumps(b"a") == b"b\x01a" and dumps(bytearray(b"a")) == b"a\x01a"
    assert dumps([1, (2,), {3: 4}]) == b"l\x03i\x02t\x01i\x04d\x01i\x06i\x08"
    assert dumps({5}) == b"S\x01i\x0a" and dumps(frozenset()) == b"Z\x00"
    s = "x" * 3
    assert dumps([s, s]) == b"l\x02s\x03xxxr\x01"


# ----------------------------------------------------------------------------- hooks


class Foo:
    pass


def test_unencodable_without_ext():
    with pytest.raises(TypeError, match="^a value of type Foo cannot cross the process boundary$"):
        dumps(Foo())
    with pytest.raises(TypeError, match="type Foo cannot cross"):
        dumps([1, {"k": Foo()}])


def test_ext_contract():
    calls = []

    def ext(o):
        calls.append(o)
        return ("foo", {"n": len(calls)})

    f = Foo()
    data = dumps([f, f, Foo()], ext=ext)
    assert len(calls) == 2  # the shared one once

    built = []

    def build(name, payload):
        built.append((name, payload))
        return ("built", name, payload["n"])

    r = loads(data, build=build)
    assert r == [("built", "foo", 1), ("built", "foo", 1), ("built", "foo", 2)]
    assert r[0] is r[1]
    assert built == [("foo", {"n": 1}), ("foo", {"n": 2})]
    # the name is written once, then by number
    assert data.count(b"foo") == 1

    with pytest.raises(TypeError, match="type Foo cannot cross"):
        dumps(Foo(), ext=lambda o: None)
    for bad in [("x",), ["x", 1], (1, 2), ("x", 1, 2), "x"]:
        with pytest.raises(TypeError, match="must return None or a"):
            dumps(Foo(), ext=lambda o, bad=bad: bad)
    for bad_name in ["", "n" * 256]:
        with pytest.raises(ValueError, match="extension name"):
            dumps(Foo(), ext=lambda o, n=bad_name: (n, None))
    with pytest.raises(TypeError, match="callable"):
        dumps(1, ext=5)
    with pytest.raises(TypeError, match="callable"):
        loads(b"N", build=5)

    def boom(o):
        raise KeyError("from ext")

    with pytest.raises(KeyError, match="from ext"):
        dumps([Foo()], ext=boom)
    with pytest.raises(KeyError, match="from build"):
        loads(data, build=lambda n, p: (_ for _ in ()).throw(KeyError("from build")))


def test_ext_payload_nested_ext():
    class Node:
        def __init__(self, child):
            self.child = child

    v = Node(Node(Node(None)))
    data = dumps(v, ext=lambda o: ("node", [o.child]))
    order = []

    def build(name, payload):
        order.append(payload)
        return {"node": payload[0]}

    assert loads(data, build=build) == {"node": {"node": {"node": None}}}
    assert order[0] == [None]  # innermost first


def test_ext_cycle_refused():
    with pytest.raises(ValueError, match="contains itself"):
        dumps(Foo(), ext=lambda o: ("self", o))
    with pytest.raises(ValueError, match="contains itself"):
        dumps(Foo(), ext=lambda o: ("self", [o]))


def test_ext_value_without_build():
    data = dumps(Foo(), ext=lambda o: ("foo", 1))
    with pytest.raises(ValueError, match="^malformed value: an extension value .'foo'. and no build hook"):
        loads(data)


def test_ext_sees_a_list_under_construction_as_none_filled():
    # [ext(payload=REF to the outer list)]: the build hook sees the list with None where
    # its items are not in yet, never a NULL slot
    lst = [Foo(), 2]
    data = dumps(lst, ext=lambda o: ("peek", lst))
    seen = []
    r = loads(data, build=lambda n, p: seen.append(list(p)) or "built")
    assert r == ["built", 2] and seen == [[None, None]]


class MyInt(int):
    pass


class MyStr(str):
    pass


class MyList(list):
    pass


class MyDict(dict):
    pass


class MyTuple(tuple):
    pass


@pytest.mark.parametrize("value", [MyInt(3), MyStr("s"), MyList([1]), MyDict(a=1), MyTuple((1,))], ids=repr)
def test_subclasses_go_to_ext_and_are_refused(value):
    seen = []
    dumps([value], ext=lambda o: seen.append(o) or ("x", None))
    assert seen == [value] and type(seen[0]) is type(value)
    with pytest.raises(TypeError, match=f"type {type(value).__name__} cannot cross"):
        dumps(value)
    with pytest.raises(TypeError, match=f"type {type(value).__name__} cannot cross"):
        _wire.dumps(value)


def test_bool_stays_bool():
    assert same(roundtrip([True, 1, False, 0]), [True, 1, False, 0])


# ----------------------------------------------------------------------------- hostile input

SAMPLES = [
    [1, -(2**70), 2**70, 1.5, 2j, "é\ud800", b"x", bytearray(b"y"), (1, ("a",)), {"k": [None]}, {1, 2}, frozenset({(1,)})],
    {"a": {"b": [True, False, None, 7**30]}},
    ["s" * 3, "s" * 3],
]


def encodings():
    out = [dumps(v) for v in SAMPLES]
    shared = ["shared"]
    out.append(dumps([shared, shared, (shared,), {"k": shared}]))
    lst = []
    lst.append(lst)
    out.append(dumps(lst))
    out.append(dumps([Foo(), Foo()], ext=lambda o: ("obj", (1, "x"))))
    return out


def malformed(data, **kw):
    with pytest.raises(ValueError) as info:
        loads(data, build=lambda n, p: (n, p), **kw)
    assert str(info.value).startswith("malformed value:"), info.value
    return str(info.value)


@pytest.mark.parametrize("data", encodings(), ids=lambda d: d[:12].hex())
def test_truncated_at_every_offset(data):
    loads(data, build=lambda n, p: (n, p))
    for i in range(len(data)):
        malformed(data[:i])


@pytest.mark.parametrize("data", encodings(), ids=lambda d: d[:12].hex())
def test_trailing_bytes(data):
    for tail in (b"N", b"\x00", data):
        assert "trailing bytes" in malformed(data + tail)


@pytest.mark.parametrize("tag", ["l", "t", "d", "S", "Z", "s", "b", "a", "I"])
@pytest.mark.parametrize("n", [2**62, 2**64 - 1, 1000, 4])
def test_lengths_beyond_the_input(tag, n):
    data = frame(tag, n, "NNN")
    tracemalloc.start()
    try:
        msg = malformed(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert "claims" in msg
    assert peak < 4096


def test_claims_count_what_enclosing_containers_still_need():
    # each list claims what is left after the one before: without `owed` the nested
    # claims would allocate depth * len(data) slots before the truncation is seen
    total = 60 * 3 + 9_000
    data = b"".join(frame("l", total - 3 * (i + 1) - 10) for i in range(60)) + b"N" * 9_000
    assert len(data) == total
    tracemalloc.start()
    try:
        malformed(data)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 200_000  # one list's slots at most, not sixty


@pytest.mark.parametrize(
    "data",
    [
        b"i" + b"\x80" * 10 + b"\x01",  # 11 bytes
        b"i" + b"\xff" * 9 + b"\x02",  # more than 64 bits
        b"i\x80\x00",  # over-long
        b"i" + b"\x80" * 9 + b"\x00",
        b"l\x81\x00" + b"N",
        b"i" + b"\x80" * 5,  # truncated
    ],
)
def test_bad_varints(data):
    malformed(data)


def test_varint_limits():
    assert loads(b"i" + b"\xff" * 9 + b"\x01") == -(2**63)
    assert loads(b"i" + b"\xfe" + b"\xff" * 8 + b"\x01") == 2**63 - 1


@pytest.mark.parametrize(
    "data, what",
    [
        (frame("r", 0), "reference to value 0"),
        (frame("l", 2, "N", "r", 5), "reference to value 5"),
        (frame("l", 1, "r", 2**63), "reference to value"),
        (frame("t", 1, "r", 0), "under construction"),
        (frame("l", 1, "t", 2, "N", "r", 1), "under construction"),
        (frame("Z", 1, "r", 0), "under construction"),
        (frame("S", 1, "t", 1, "r", 0), "under construction"),
        (frame("x", 0, 1, "e", "l", 1, "r", 0), "under construction"),
    ],
)
def test_bad_references(data, what):
    assert what in malformed(data)


def test_reference_to_a_list_under_construction_is_a_cycle():
    r = loads(frame("l", 2, "r", 0, "t", 1, "r", 0))
    assert r[0] is r and r[1][0] is r


@pytest.mark.parametrize(
    "data",
    [
        frame("d", 1, "l", 0, "N"),
        frame("d", 1, "d", 0, "N"),
        frame("d", 1, "S", 0, "N"),
        frame("d", 1, "a", 0, "N"),
        frame("d", 1, "t", 1, "l", 0, "N"),
        frame("S", 1, "l", 0),
        frame("Z", 1, "t", 2, "N", "d", 0),
        frame("l", 2, "l", 0, "d", 1, "r", 1, "N"),  # a REF to a list as a key
        frame("d", 1, "r", 0, "N"),  # the dict itself as its key
    ],
)
def test_unhashable_keys(data):
    assert "unhashable" in malformed(data)


def test_exponential_key_refused():
    # a list of t0 = (1,) and t(k+1) = (tk, tk) for k < 60 (memo index k + 1), then a set
    # of t60: 2**60 items once references are expanded, from 5 bytes per tuple
    tuples = frame("t", 1, "i", 2) + b"".join(frame("t", 2, "r", k + 1, "r", k + 1) for k in range(60))
    data = frame("l", 62) + tuples + frame("S", 1, "r", 61)
    assert "too costly to hash" in malformed(data, max_depth=5)
    # the same values outside a dict or set are fine (no hashing)
    r = loads(frame("l", 62) + tuples + frame("N"))
    assert r[-2][0] is r[-2][1]


def test_unknown_tags():
    known = set(b"NTFiIfcsbaltdSZrx")
    for tag in range(256):
        if tag not in known:
            assert f"unknown tag 0x{tag:02x}" in malformed(bytes([tag]))


def test_invalid_utf8():
    assert "not UTF-8" in malformed(frame("s", 2, b"\xc3\x28"))
    assert "not UTF-8" in malformed(frame("s", 1, b"\xff"))
    assert "not UTF-8" in malformed(frame("x", 0, 2, b"\xc3\x28", "N"))
    assert loads(frame("s", 3, b"\xed\xa0\x80")) == "\ud800"  # surrogatepass


def test_bad_extension_records():
    good = frame("x", 0, 3, "abc", "N")
    assert loads(good, build=lambda n, p: (n, p)) == ("abc", None)
    assert "unknown extension name number" in malformed(frame("x", 1, "N"))
    assert "extension name of 0" in malformed(frame("x", 0, 0, "N"))
    assert "unknown extension name number" in malformed(frame("l", 2, "x", 0, 1, "a", "N", "x", 2, "N"))
    assert "int of no bytes" in malformed(frame("I", 0))


def test_random_mutations_never_crash():
    rng = random.Random(1234)
    samples = encodings()
    for _ in range(20_000):
        s = bytearray(rng.choice(samples))
        for _ in range(rng.randint(1, 4)):
            op = rng.random()
            if op < 0.4 and s:
                s[rng.randrange(len(s))] = rng.randrange(256)
            elif op < 0.6:
                s.insert(rng.randrange(len(s) + 1), rng.randrange(256))
            elif op < 0.8 and s:
                del s[rng.randrange(len(s))]
            else:
                s = s[: rng.randrange(len(s) + 1)]
        try:
            loads(bytes(s), build=lambda n, p: (n, p))
        except ValueError as e:
            assert str(e).startswith("malformed value:")


if hypothesis is not None:

    @hypothesis.settings(max_examples=2000, deadline=None)
    @hypothesis.given(st.binary(max_size=300))
    def test_random_bytes_hypothesis(data):
        try:
            loads(data, build=lambda n, p: (n, p))
        except ValueError as e:
            assert str(e).startswith("malformed value:")

    values = st.recursive(
        st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True)
        | st.complex_numbers() | st.text() | st.binary()
        | st.binary().map(bytearray),
        lambda inner: st.lists(inner, max_size=5)
        | st.lists(inner, max_size=5).map(tuple)
        | st.dictionaries(st.integers() | st.text(), inner, max_size=5)
        | st.frozensets(st.integers() | st.text(), max_size=5)
        | st.sets(st.integers() | st.text() | st.tuples(st.integers()), max_size=5),
        max_leaves=30,
    )

    @hypothesis.settings(max_examples=300, deadline=None)
    @hypothesis.given(values)
    def test_round_trip_hypothesis(value):
        assert same(roundtrip(value), value)


# a 64-byte input; what it may cost: an empty set is the largest object per byte of
# input (2 bytes: 232 bytes with its GC header)
SMALL_MAX = 8 * 1024


def small_inputs():
    out = {
        "sets": frame("l", 31) + b"S\x00" * 31,
        "frozensets": frame("l", 31) + b"Z\x00" * 31,
        "bytearrays": frame("l", 31) + b"a\x00" * 31,
        "dicts": frame("l", 31) + b"d\x00" * 31,
        "lists": frame("l", 31) + b"l\x00" * 31,
        "nested claims": frame("l", 62) * 32,
        "huge claim": frame("l", 2**62) + b"N" * 50,
        "big int": frame("I", 62) + b"\xff" * 62,
        "strs": frame("l", 20) + b"s\x01\xf0" * 20,
        "wide str": frame("s", 62) + "\U0001f600".encode() * 15 + b"ab",
        "refs": frame("l", 60, "S", 0) + frame("r", 1) * 59,
    }
    return {k: v[:64] for k, v in out.items()}


def test_small_input_small_memory():
    tracemalloc.start()
    try:
        worst = 0
        cases = list(small_inputs().items())
        rng = random.Random(5)
        cases += [("random", bytes(rng.randrange(256) for _ in range(64))) for _ in range(2000)]
        gc.collect()
        for name, data in cases:
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
            try:
                r = loads(data)
                del r
            except ValueError:
                pass
            peak = tracemalloc.get_traced_memory()[1] - base
            assert peak <= SMALL_MAX, (name, peak)
            worst = max(worst, peak)
    finally:
        tracemalloc.stop()
    assert worst > 4096  # the set case measures what it should


FLOODS = {  # record kinds that cost the most memory per byte of encoding
    "sets": b"S\x00",
    "frozensets": b"Z\x00",
    "small sets": b"S\x05" + b"i\x02i\x04i\x06i\x08i\x0a",
    "dicts": b"d\x00",
    "one-entry dicts": b"d\x01NN",
    "lists": b"l\x00",
    "tuples": b"t\x01N",
    "bytearrays": b"a\x00",
    "bytes": b"b\x02ab",
    "ints": b"i\x80\x04",
    "big ints": b"I\x09" + b"\x01" * 9,
    "floats": b"f" + bytes(8),
    "strs": b"s\x02ab",
    "wide strs": b"s\x04" + "\U0001f600".encode(),
}


@pytest.mark.parametrize("kind", sorted(FLOODS))
def test_decoded_memory_is_bounded_by_the_encoding(kind):
    """A decode makes at most 32 bytes per byte of its input and 1 MiB (what CPython's
    allocator takes, measured): a flood past that is malformed before it is made."""
    record = FLOODS[kind]
    tracemalloc.start()
    try:
        for count in (1000, 50_000, 300_000):
            data = frame("l", count) + record * count
            gc.collect()
            tracemalloc.reset_peak()
            base = tracemalloc.get_traced_memory()[0]
            try:
                r = loads(data)
                del r
            except ValueError as exc:
                assert "it would take more than" in str(exc), exc
            peak = tracemalloc.get_traced_memory()[1] - base
            assert peak <= 32 * len(data) + (1 << 20) + 64 * 1024, (kind, count, peak)
    finally:
        tracemalloc.stop()


def _dense_values():
    return {
        "empty sets": [set() for _ in range(100_000)],
        "empty dicts": [{} for _ in range(100_000)],
        "records": [{"id": i, "name": f"n{i}", "score": i / 7} for i in range(50_000)],
        "int list": list(range(1000, 1_000_000)),
        "int set": set(range(1_000_000)),
        "pairs": [(i % 50, i % 60) for i in range(500_000)],
        "str keys": {str(i): float(i) for i in range(300_000)},
        "short strs": [str(i) for i in range(300_000)],
        "wide": ["\U0001f600" + str(i) for i in range(100_000)],
        "small sets": [{i, i + 1, i + 2, i + 3, i + 4} for i in range(0, 50_000)],
    }


@pytest.mark.parametrize("name", sorted(_dense_values()))
def test_the_encoder_refuses_exactly_what_the_decoder_would(name):
    """The encoder charges the same costs as the decoder: what it encodes decodes (an honest
    worker never has a value refused), what it refuses says why; ordinary data crosses."""
    value = _dense_values()[name]
    try:
        data = dumps(value)
    except ValueError as exc:
        assert "too many small containers" in str(exc), exc
        assert name in ("empty sets", "empty dicts", "small sets"), (name, exc)
        return
    assert loads(data) == value


# ----------------------------------------------------------------------------- deadline


def test_deadline_uses_time_monotonic_clock():
    if sys.platform.startswith("linux"):
        assert time.get_clock_info("monotonic").implementation == "clock_gettime(CLOCK_MONOTONIC)"
    with pytest.raises(TimeoutError, match="^decoding passed the deadline$"):
        loads(b"N", deadline=time.monotonic() - 0.001)
    assert loads(b"N", deadline=time.monotonic() + 10) is None
    with pytest.raises(ValueError, match="NaN"):
        loads(b"N", deadline=float("nan"))
    with pytest.raises(TypeError):
        loads(b"N", deadline="soon")


@pytest.fixture(scope="module")
def colliding_keys_frame():
    # hash(k * (2**61 - 1)) == 0 for every k: every insertion probes all the keys before it
    p = 2**61 - 1
    n = 2_000_000
    keys = b"".join([b"I\x0b" + (k * p).to_bytes(11, "little", signed=True) + b"N" for k in range(1, n + 1)])
    return frame("d", n) + keys


def test_deadline_stops_colliding_keys(colliding_keys_frame):
    start = time.monotonic()
    with pytest.raises(TimeoutError, match="decoding passed the deadline"):
        loads(colliding_keys_frame, deadline=start + 0.2)
    assert time.monotonic() - start < 1.0


def test_deadline_stops_a_long_list_and_build_calls():
    data = dumps(list(range(3_000_000)))
    with pytest.raises(TimeoutError):
        loads(data, deadline=time.monotonic() + 0.01)

    def slow(name, payload):
        time.sleep(0.02)
        return payload

    data = dumps([Foo()] * 1 + [Foo() for _ in range(100)], ext=lambda o: ("f", 1))
    start = time.monotonic()
    with pytest.raises(TimeoutError):
        loads(data, build=slow, deadline=start + 0.1)
    assert time.monotonic() - start < 0.5


# ------------------------------------------------------------------------------ wire types

ZONE = zoneinfo.ZoneInfo("Europe/Paris")

STDLIB = [
    datetime.date(2020, 2, 29),
    datetime.date.min,
    datetime.datetime(2020, 1, 2, 3, 4, 5, 6),
    datetime.datetime.max,
    datetime.datetime(2020, 1, 2, 3, 4, 5, 6, tzinfo=datetime.timezone.utc),
    datetime.datetime(2021, 10, 31, 2, 30, tzinfo=ZONE, fold=1),
    datetime.time(1, 2, 3, 4),
    datetime.time(23, 59, tzinfo=datetime.timezone(datetime.timedelta(hours=-3, minutes=-30), "XST")),
    datetime.timedelta(days=-3, seconds=5, microseconds=7),
    datetime.timedelta.max,
    datetime.timezone.utc,
    datetime.timezone(datetime.timedelta(hours=5)),
    ZONE,
    decimal.Decimal("-0.000"),
    decimal.Decimal("1.23456789012345678901234567890E+1000"),
    decimal.Decimal("NaN"),
    decimal.Decimal("-Infinity"),
    fractions.Fraction(-3, 7),
    fractions.Fraction(2**100, 3**50),
    collections.OrderedDict([("b", 1), ("a", [2])]),
    collections.deque([1, "2", (3,)]),
    collections.deque([1, 2, 3], maxlen=5),
    collections.deque(maxlen=0),
    collections.Counter("abracadabra"),
    collections.defaultdict(list, {"x": [1]}),
    collections.defaultdict(None, {1: 2}),
    collections.defaultdict(int),
    uuid.UUID("12345678-1234-5678-1234-567812345678"),
    pathlib.PurePosixPath("/a/b c/d"),
    pathlib.PosixPath("relative/path"),
    range(0),
    range(-5, 10**30, 7),
    slice(1, None, -2),
    slice("a", "z"),
]


@pytest.mark.parametrize("value", STDLIB, ids=repr)
def test_stdlib_round_trip(value):
    r = _wire.loads(_wire.dumps(value))
    assert type(r) is type(value)
    assert repr(r) == repr(value)
    if isinstance(value, (datetime.datetime, datetime.time)):
        assert r.fold == value.fold and type(r.tzinfo) is type(value.tzinfo)
        assert r.tzinfo == value.tzinfo
    if isinstance(value, collections.defaultdict):
        assert r.default_factory is value.default_factory
    if isinstance(value, collections.deque):
        assert r.maxlen == value.maxlen
    if isinstance(value, collections.OrderedDict):
        assert list(r) == list(value)


def test_stdlib_in_containers_keeps_sharing():
    d = datetime.date(2020, 1, 1)
    od = collections.OrderedDict(a=1)
    v = {"dates": [d, d], "od": [od, od], d: "as a key", (d, 1): frozenset({d})}
    r = _wire.loads(_wire.dumps(v))
    assert r == v
    assert r["dates"][0] is r["dates"][1] and r["od"][0] is r["od"][1]


class MyDate(datetime.date):
    pass


class MyOrderedDict(collections.OrderedDict):
    pass


class MyDecimal(decimal.Decimal):
    pass


class MyTZ(datetime.tzinfo):
    def utcoffset(self, dt):
        return None


@pytest.mark.parametrize(
    "value",
    [
        MyDate(2020, 1, 1),
        MyOrderedDict(a=1),
        MyDecimal("1"),
        collections.defaultdict(lambda: 0),
        collections.defaultdict(MyInt),
        datetime.datetime(2020, 1, 1, tzinfo=MyTZ()),
        object(),
        Foo,
        len,
    ],
    ids=lambda v: type(v).__name__,
)
def test_wire_refuses_other_types(value):
    with pytest.raises(TypeError, match="cannot cross the process boundary"):
        _wire.dumps(value)


def test_zoneinfo_without_key_refused(tmp_path):
    for path in zoneinfo.TZPATH:
        f = pathlib.Path(path) / "UTC"
        if f.exists():
            with open(f, "rb") as fh:
                z = zoneinfo.ZoneInfo.from_file(fh)
            with pytest.raises(TypeError, match="ZoneInfo cannot cross"):
                _wire.dumps(z)
            return
    pytest.skip("no system tz database")


def test_pytz_zones():
    pytz = pytest.importorskip("pytz")
    for zone in (pytz.timezone("Europe/Paris"), pytz.utc, pytz.timezone("Asia/Kolkata")):
        assert _wire.loads(_wire.dumps(zone)) is zone
    paris = pytz.timezone("Europe/Paris")
    # the zone on a datetime keeps its first offset (LMT) on both sides, as pytz does
    naive_use = datetime.datetime(2020, 1, 1, tzinfo=paris)
    assert _wire.loads(_wire.dumps(naive_use)) == naive_use
    # a localized tzinfo is an offset in force, not a zone: it does not cross
    with pytest.raises(TypeError, match="cannot cross"):
        _wire.dumps(paris.localize(datetime.datetime(2020, 1, 1)))
    bad(_wire.N_PYTZ, "../../etc/passwd")
    bad(_wire.N_PYTZ, "No/Such_Zone")
    bad(_wire.N_PYTZ, 3)


def bad(name, payload):
    with pytest.raises(ValueError) as info:
        _wire.build(name, payload)
    assert str(info.value).startswith("malformed value:")


@pytest.mark.parametrize(
    "name, payload",
    [
        ("os.system", "echo hi"),
        ("no such", None),
        ("datetime.date", (2020, 1)),
        ("datetime.date", ("2020", 1, 1)),
        ("datetime.date", (True, 1, 1)),
        ("datetime.date", (2020, 13, 1)),
        ("datetime.date", [2020, 1, 1]),
        ("datetime.datetime", (2020, 1, 1, 0, 0, 0, 0, "UTC", 0)),
        ("datetime.datetime", (2020, 1, 1, 0, 0, 0, 0, None, 2)),
        ("datetime.time", (25, 0, 0, 0, None, 0)),
        ("datetime.timedelta", (10**10, 0, 0)),
        ("datetime.timezone", ((0, 3600, 0), None)),
        ("datetime.timezone", (datetime.timedelta(days=2), None)),
        ("datetime.timezone", (datetime.timedelta(0), "n" * 100)),
        ("zoneinfo.ZoneInfo", "../../etc/passwd"),
        ("zoneinfo.ZoneInfo", "/etc/localtime"),
        ("zoneinfo.ZoneInfo", "No/Such_Zone"),
        ("zoneinfo.ZoneInfo", 5),
        ("decimal.Decimal", 5),
        ("decimal.Decimal", "not a number"),
        ("fractions.Fraction", (1, 0)),
        ("fractions.Fraction", (1, -2)),
        ("fractions.Fraction", (1.5, 2)),
        ("fractions.Fraction", (2**70000, 3)),
        ("collections.OrderedDict", [("a", 1)]),
        ("collections.deque", ((1, 2), None)),
        ("collections.deque", ([1], -1)),
        ("collections.deque", ([1], 1.5)),
        ("collections.Counter", "abc"),
        ("collections.defaultdict", ("os.system", {})),
        ("collections.defaultdict", ("list", [])),
        ("collections.defaultdict", (list, {})),
        ("uuid.UUID", -1),
        ("uuid.UUID", 2**128),
        ("uuid.UUID", "12345678-1234-5678-1234-567812345678"),
        ("pathlib.PosixPath", b"/etc"),
        ("pathlib.PurePosixPath", "a\0b"),
        ("range", (0, 1, 0)),
        ("range", (0, 1.5, 1)),
        ("slice", (1, 2)),
    ],
)
def test_build_refuses_bad_payloads(name, payload):
    bad(name, payload)


def test_build_bounds_copies_of_a_shared_payload():
    # 20,000 deques whose payload is one 5,000-item list: 100 million items from 160 kB
    n, m = 20_000, 5_000
    head = frame("l", n, "x", 0, len(_wire.N_DEQUE), _wire.N_DEQUE.encode(), "t", 2, "l", m) + b"N" * m + b"N"
    # memo: 0 the outer list, 1 the first deque, 2 its payload tuple, 3 the item list;
    # then each deque takes two indexes (itself, its payload tuple)
    rest = frame("x", 1, "t", 2, "r", 3, "N") * (n - 1)
    data = head + rest
    with pytest.raises(ValueError, match="more than the input's size allows"):
        _wire.loads(data)
    small = frame("l", 3, "x", 0, len(_wire.N_DEQUE), _wire.N_DEQUE.encode(), "t", 2, "l", 2, "i", 2, "i", 4, "N")
    small += frame("x", 1, "t", 2, "r", 3, "N") * 2
    r = _wire.loads(small)
    assert [list(d) for d in r] == [[1, 2]] * 3


def test_stdlib_frame_imports_neither_numpy_nor_pandas():
    code = (
        "import sys, datetime, decimal\n"
        "from smolagents_native.isolation import wire as _wire\n"
        "v = [datetime.datetime(2020, 1, 1), decimal.Decimal('1.5'), {'a': (1, 2)}]\n"
        "assert _wire.loads(_wire.dumps(v)) == v\n"
        "assert 'numpy' not in sys.modules and 'pandas' not in sys.modules, sorted(sys.modules)\n"
        "try:\n"
        "    _wire.dumps(object())\n"
        "except TypeError:\n"
        "    pass\n"
        "assert 'numpy' not in sys.modules\n"
    )
    subprocess.run([sys.executable, "-c", code], check=True, cwd=str(pathlib.Path(__file__).parents[2]))


# ----------------------------------------------------------------------------- numpy


@pytest.fixture(scope="module")
def np():
    return pytest.importorskip("numpy")


def test_numpy_arrays(np):
    arrays = [
        np.arange(12.0).reshape(3, 4),
        np.arange(12).reshape(3, 4).T,  # not contiguous
        np.arange(24, dtype=">i4").reshape(2, 3, 4)[:, ::2],
        np.array(["a", "bc", ""]),
        np.array([b"x", b"yz"]),
        np.array([1 + 2j, -0.0], dtype=">c16"),
        np.array(["2020-01-01", "NaT"], dtype="M8[ns]"),
        np.array([1, -2], dtype="m8[s]"),
        np.array([True, False]),
        np.array(3.5),
        np.zeros((0, 5)),
        np.zeros((2, 0, 3), dtype=np.uint8),
        np.array([1, 2], dtype=np.float16),
        np.array([1, "a", None, [1, 2], (3,)], dtype=object),
        np.array([[1, "a"], [None, 2.5]], dtype=object),
    ]
    for a in arrays:
        r = _wire.loads(_wire.dumps(a))
        assert type(r) is np.ndarray and r.dtype == a.dtype and r.shape == a.shape
        if a.dtype == object:
            assert r.tolist() == a.tolist()
        else:
            np.testing.assert_array_equal(r, a)
            assert r.flags.writeable


def test_numpy_scalars_and_dtypes(np):
    values = [
        np.float64(1.5), np.float32(-0.0), np.int8(-3), np.uint64(2**64 - 1), np.bool_(True),
        np.str_("abc"), np.bytes_(b"xy"), np.complex64(1 + 2j), np.datetime64("2020-01-01T00:00", "ms"),
        np.timedelta64(5, "D"), np.dtype("<f4"), np.dtype(object), np.dtype("M8[ns]"), np.dtype(">i2"),
    ]
    for v in values:
        r = _wire.loads(_wire.dumps(v))
        assert r == v and type(r) is type(v)
    r = _wire.loads(_wire.dumps(np.float64("nan")))
    assert type(r) is np.float64 and np.isnan(r)


def test_numpy_refused(np):
    class Sub(np.ndarray):
        pass

    structured = np.zeros(2, dtype=[("a", "<i4"), ("b", "<f8")])
    for v in [np.arange(3).view(Sub), structured, structured[0], np.ma.array([1, 2]), np.dtype([("a", "<i4")])]:
        with pytest.raises(TypeError, match="cannot cross"):
            _wire.dumps(v)


@pytest.mark.parametrize(
    "payload",
    [
        ("|O8", (1,), bytearray(8)),
        ("O", (1,), bytearray(8)),
        ("<f8", (2,), bytearray(8)),
        ("<f8", (2**62,), bytearray(8)),
        ("<f8", (2**40, 2**40, 0), bytearray()),
        ("<f8", (-1,), bytearray(8)),
        ("<f8", (1.0,), bytearray(8)),
        ("<f8", [1], bytearray(8)),
        ("<f8", (1,), b"12345678"),
        ("V8", (1,), bytearray(8)),
        ("[('a', '<i4')]", (1,), bytearray(4)),
        ("<i4[ns]", (1,), bytearray(4)),
        ("<S0", (5,), bytearray()),
        ("<f8" + "0" * 40, (1,), bytearray(8)),
        ("<f8", (1,) * 33, bytearray(8)),
        ("<f8", (1,), bytearray(8), "extra"),
    ],
)
def test_numpy_build_refuses(np, payload):
    bad(_wire.N_NDARRAY, payload)


def test_numpy_build_checks_values(np):
    bad(_wire.N_NDARRAY, ("<U1", (2,), bytearray(b"a\x00\x00\x00\xff\xff\xff\xff")))
    bad(_wire.N_NDARRAY, (">U1", (1,), bytearray(b"\x00\x11\x00\x00")))
    bad(_wire.N_NDARRAY, ("|b1", (3,), bytearray(b"\x00\x01\x02")))
    bad(_wire.N_NPSCALAR, ("|b1", b"\x07"))
    bad(_wire.N_NPSCALAR, ("<U1", b"\x00\x00\x11\x00"))
    ok = _wire.build(_wire.N_NDARRAY, (">U1", (2,), bytearray(b"\x00\x10\xff\xff\x00\x00\xd8\x00")))
    assert ok.tolist() == ["\U0010ffff", "\ud800"]
    assert _wire.build(_wire.N_NDARRAY, ("|b1", (2,), bytearray(b"\x01\x00"))).tolist() == [True, False]


def test_numpy_build_refuses_more(np):
    bad(_wire.N_NDARRAY_OBJECT, ((2,), [1]))
    bad(_wire.N_NDARRAY_OBJECT, ((1,), (1,)))
    bad(_wire.N_NPSCALAR, ("<f8", b"1234"))
    bad(_wire.N_NPSCALAR, ("|O", b"12345678"))
    bad(_wire.N_NPDTYPE, "[('a', '<i4')]")
    bad(_wire.N_NPDTYPE, "V16")


# ----------------------------------------------------------------------------- pandas


@pytest.fixture(scope="module")
def pd():
    return pytest.importorskip("pandas")


def frames(pd, np):
    return [
        pd.DataFrame(
            {
                "int": [1, 2, 3],
                "str": ["x", "y", None],
                "cat": pd.Categorical(["u", "v", "u"]),
                "tz": pd.date_range("2020-03-28", periods=3, tz="Europe/Paris"),
                "Int64": pd.array([1, None, 3], dtype="Int64"),
                "float": [1.5, None, 2.0],
                "boolean": pd.array([True, None, False], dtype="boolean"),
                "string": pd.array(["p", None, "q"], dtype="string"),
                "object": np.array([1, "a", None], dtype=object),
                "naive": pd.to_datetime(["2020-01-01", None, "2021-01-01"]),
                "td": pd.to_timedelta([1, 2, None], unit="s"),
                "ordered": pd.Categorical([3, 1, 3], categories=[3, 1], ordered=True),
            },
            index=pd.Index(["r1", "r2", "r3"], name="rows"),
        ),
        pd.DataFrame([[1, 2], [3, 4]], columns=["a", "a"], index=[0, 0]),
        pd.DataFrame(),
        pd.DataFrame(index=pd.RangeIndex(3)),
        pd.DataFrame({"x": pd.Series(["a", "b"], dtype=object)}),
        pd.DataFrame(np.arange(6).reshape(2, 3), columns=pd.MultiIndex.from_tuples([("a", 1), ("a", 2), ("b", 1)])),
        pd.DataFrame({"v": [1.0, 2.0]}, index=pd.date_range("2020", periods=2, freq="h", tz="UTC", name="when")),
    ]


def test_pandas_frames(pd, np):
    for df in frames(pd, np):
        r = _wire.loads(_wire.dumps(df))
        assert type(r) is pd.DataFrame
        pd.testing.assert_frame_equal(r, df)


def test_pandas_series_and_indexes(pd, np):
    mi = pd.MultiIndex.from_tuples([("a", 1), ("b", 2)], names=["x", "y"])
    series = [
        pd.Series([1.0, 2.0], index=mi, name="s"),
        pd.Series(["a", "b"], dtype=object),
        pd.Series(pd.Categorical(["a", None, "a"]), name=("tuple", "name")),
        pd.Series([], dtype="float64"),
    ]
    for s in series:
        r = _wire.loads(_wire.dumps(s))
        assert type(r) is pd.Series
        pd.testing.assert_series_equal(r, s)
    indexes = [
        pd.RangeIndex(2, 20, 3, name="r"),
        pd.date_range("2020", periods=4, freq="D", name="dt"),
        pd.date_range("2020", periods=4, tz="Asia/Tokyo"),
        pd.Index([1, 2, 3]),
        pd.Index(["a", "b"]),
        pd.Index([1.5], name=("t", 1)),
        pd.Index([True, False], dtype=object),
        mi,
    ]
    for ix in indexes:
        r = _wire.loads(_wire.dumps(ix))
        pd.testing.assert_index_equal(r, ix, exact=True)
        assert r.names == ix.names
        if hasattr(ix, "freq"):
            assert r.freq == ix.freq


def test_pandas_scalars(pd):
    values = [
        pd.Timestamp("2020-01-01 12:00:00.123456789"),
        pd.Timestamp("2020-01-01", tz="Europe/Paris"),
        pd.Timestamp("2020-06-01", tz="UTC"),
        pd.Timedelta("1 days 2 ns"),
        pd.Categorical(["a", "b", "a"], ordered=True),
    ]
    for v in values:
        r = _wire.loads(_wire.dumps(v))
        assert type(r) is type(v)
        if isinstance(v, pd.Categorical):
            assert r.equals(v) and r.ordered
        else:
            assert r == v and getattr(r, "tz", None) == getattr(v, "tz", None)
            assert getattr(r, "unit", None) == getattr(v, "unit", None)
    assert _wire.loads(_wire.dumps(pd.NaT)) is pd.NaT
    assert _wire.loads(_wire.dumps([pd.NA])) == [pd.NA]


def test_pandas_refused(pd, np):
    class SubFrame(pd.DataFrame):
        pass

    for v in [
        SubFrame({"a": [1]}),
        pd.Series(pd.period_range("2020", periods=2, freq="M")),
        pd.CategoricalIndex(["a"]),
        pd.Series([1], index=pd.CategoricalIndex(["a"])),
        pd.Series(pd.arrays.SparseArray([0, 1])),
    ]:
        with pytest.raises(TypeError, match="cannot cross"):
            _wire.dumps(v)


def test_pandas_build_refuses(pd, np):
    idx = pd.RangeIndex(2)
    arr = np.arange(2)
    bad(_wire.N_SERIES, (("np", arr), [0, 1], None))
    bad(_wire.N_SERIES, (("np", np.arange(3)), idx, None))
    bad(_wire.N_SERIES, (("np", arr), idx, ["unhashable"]))
    bad(_wire.N_SERIES, (("eval", "1"), idx, None))
    bad(_wire.N_SERIES, (("ext", "object", np.array([1, 2], dtype=object)), idx, None))
    bad(_wire.N_SERIES, (("ext", "Int64", arr), idx, None))
    bad(_wire.N_SERIES, (("dt_tz", arr, datetime.timezone.utc), idx, None))
    bad(_wire.N_SERIES, (("cat", np.array([0, 5]), pd.Index(["a"]), False), idx, None))
    bad(_wire.N_DATAFRAME, (pd.Index(["a", "b"]), idx, [("np", arr)]))
    bad(_wire.N_DATAFRAME, (pd.Index(["a"]), idx, [("np", np.arange(3))]))
    bad(_wire.N_RANGEINDEX, (0, 10, 0, None))
    bad(_wire.N_RANGEINDEX, (0, 2**70, 1, None))
    bad(_wire.N_DATETIMEINDEX, (("np", arr), None, None))
    bad(_wire.N_DATETIMEINDEX, (("np", np.array(["2020-01-01", "2020-01-03"], dtype="M8[ns]")), None, "D"))
    bad(_wire.N_DATETIMEINDEX, (("np", np.array(["2020-01-01"], dtype="M8[ns]")), None, "import os"))
    bad(_wire.N_MULTIINDEX, ([pd.Index(["a"])], [np.array([0, 1])], [None]))
    bad(_wire.N_MULTIINDEX, ([pd.Index(["a", "a"])], [np.array([0])], [None]))
    bad(_wire.N_CATEGORICAL, (np.array([0]), pd.Index(["a", "a"]), False))
    bad(_wire.N_TIMESTAMP, (np.datetime64("NaT", "ns"), None))
    bad(_wire.N_TIMESTAMP, (np.datetime64("2020-01-01"), "UTC"))
    bad(_wire.N_NAT, 1)
