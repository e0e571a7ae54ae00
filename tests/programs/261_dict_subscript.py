# Reading `d[key]` where `d` is an exact dict, which the evaluator looks up directly (no
# mapping-protocol dispatch): hits and misses with str, int, float, tuple, None, frozenset and
# bool keys, the KeyError's args and text (a tuple key is one argument), an unhashable key's
# TypeError, keys whose __hash__ / __eq__ count their calls (one hash per lookup, as in
# CPython), a key whose __eq__ raises, dict subclasses with and without __missing__,
# defaultdict and Counter (never the direct path), in-place updates of missing and present
# keys, and a dict mutated between reads.
from collections import Counter, defaultdict

d = {"a": 1, 2: "two", 2.5: "float", (1, 2): "pair", None: "none", frozenset({3}): "fs",
     True: "bool"}
print([d[k] for k in ["a", 2, 2.5, (1, 2), None, frozenset({3}), True, 1, 1.0]])

misses = []
for key in ["b", 3, 3.5, (1, 3), (), ((1,),), frozenset(), False, 0]:
    try:
        d[key]
    except KeyError as e:
        misses.append((repr(key), e.args, str(e), repr(e)))
print(misses)

try:
    d[[1, 2]]
except TypeError as e:
    print("unhashable:", e)
try:
    d[{}]
except TypeError as e:
    print("unhashable:", e)

calls = []


class Key:
    def __init__(self, v):
        self.v = v

    def __hash__(self):
        calls.append(("hash", self.v))
        return hash(self.v)

    def __eq__(self, other):
        calls.append(("eq", self.v))
        return isinstance(other, Key) and other.v == self.v


k1, k2 = Key(1), Key(1)
kd = {k1: "first"}
print(kd[k1], kd[k2], calls)
calls.clear()
try:
    kd[Key(2)]
except KeyError as e:
    print("missing Key:", type(e.args[0]).__name__, calls)


class Boom:
    def __hash__(self):
        return 7

    def __eq__(self, other):
        raise ValueError("no comparing")


bd = {7: "seven"}
try:
    bd[Boom()]
except ValueError as e:
    print("eq raised:", e)


class WithMissing(dict):
    def __missing__(self, key):
        return ("missing", key)


class Plain(dict):
    pass


wm = WithMissing(a=1)
print(wm["a"], wm["zz"], wm[(1, 2)])
try:
    Plain(a=1)["b"]
except KeyError as e:
    print("subclass miss:", e.args)
dd = defaultdict(list)
dd["x"].append(1)
c = Counter("hello")
print(dict(dd), dd["y"], c["l"], c["z"], sorted(c.items()))

counts = {"a": 0}
counts["a"] += 5
try:
    counts["b"] += 1
except KeyError as e:
    print("augmented miss:", e.args, counts)
nested = {"x": {"y": {"z": [10, 20]}}}
nested["x"]["y"]["z"][1] += 1
print(nested, nested["x"]["y"]["z"][-1])

m = {i: i * i for i in range(5)}
seen = []
for i in range(5):
    seen.append(m[i])
    m[i + 10] = i
    del m[i]
print(seen, sorted(m))
