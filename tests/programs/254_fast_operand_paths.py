# Operations the evaluator answers without the generic protocol, next to the cases that
# must still take it: true division of small ints (exact, negative, huge, by zero, by a
# subclass), `in` / `not in` on dicts, sets and frozensets (keys whose __eq__ and
# __hash__ are the code's, unhashable keys, dict and set subclasses, an iterator as the
# container), and loads of global and module-level names that a loop rebinds, deletes
# and shadows with a builtin's name.
import math

quotients = []
for a in (7, -7, 0, 1, 2**29, -(2**30) + 1, 2**30, 2**62, 10**20):
    for b in (2, -3, 1, 7, 2**29, -(2**30) + 1):
        quotients.append(a / b)
print(quotients[:12])
print([q.hex() for q in quotients[12:30]])
print(1 / 3, -1 / 3, 2 / 3 * 3, 10 / 4, 0 / -5, (0 / -5).hex(), math.copysign(1, 0 / -5))
x = 9
x /= 4
print(x, type(x).__name__)


class MyInt(int):
    def __truediv__(self, other):
        return ("mine", int(self), other)

    def __rtruediv__(self, other):
        return ("rmine", other, int(self))


print(MyInt(6) / 3, 6 / MyInt(3), True / 2, 5 / True)
for a, b in ((1, 0), (0, 0), (-3, 0), (2**40, 0)):
    try:
        print(a / b)
    except ZeroDivisionError as exc:
        print("ZeroDivisionError", exc)
try:
    print(1.5 / 0)
except ZeroDivisionError as exc:
    print("ZeroDivisionError", exc)


class Key:
    calls = []

    def __init__(self, v):
        self.v = v

    def __hash__(self):
        Key.calls.append(("hash", self.v))
        return hash(self.v)

    def __eq__(self, other):
        Key.calls.append(("eq", self.v))
        return isinstance(other, Key) and self.v == other.v


d = {Key(1): "a", 2: "b", (3, 4): "c"}
s = {Key(1), 2, (3, 4)}
fs = frozenset(s)
for probe in (Key(1), 2, 2.0, True, (3, 4), (4, 3), "2"):
    print(probe in d, probe not in d, probe in s, probe not in fs)
print(Key.calls)
for bad in ([1], {1: 2}, {3}):
    for container in (d, s, fs):
        try:
            print(bad in container)
        except TypeError as exc:
            print("TypeError", exc)


class LoggingDict(dict):
    def __contains__(self, key):
        print("LoggingDict.__contains__", key)
        return key in list(self.keys())


class LoggingSet(set):
    def __contains__(self, key):
        print("LoggingSet.__contains__", key)
        return True


print(1 in LoggingDict({1: 2}), 5 in LoggingSet(), 5 not in LoggingSet())
it = iter([1, 2, 3, 4])
print(3 in it, list(it))
print(2 in {1: 2}.values(), (1, 2) in {1: 2}.items(), 1 in {1: 2}.keys())

total = 0
n = 0
for i in range(6):
    total += n / 2
    n = i * 3
    if i == 2:
        del n
        n = -1
print(total, n)


def reads_globals(k):
    out = []
    for j in range(k):
        out.append((G, len([G]), j / 4))
    return out


G = "first"
print(reads_globals(2))
G = "second"
print(reads_globals(2))
len = lambda v: -1
print(reads_globals(1))
del len
print(reads_globals(1))
del G
try:
    reads_globals(1)
except NameError as exc:
    print("NameError", exc)


class Sized(list):
    def __len__(self):
        return 99


lens = []
for v in ("", "héllo", "😀x", [], [1, 2], (), (1,), b"ab", bytearray(b"abc"), {}, {1: 2},
          set(), {1, 2, 3}, frozenset({4}), range(5), Sized([1]), {1: 2}.keys(), Key):
    try:
        lens.append(len(v))
    except TypeError as exc:
        lens.append(str(exc))
for v in (1, 2.5, True, None, 1j):
    try:
        lens.append(len(v))
    except TypeError as exc:
        lens.append(str(exc))
print(lens)

# a float with an int: arithmetic and comparisons, small and big ints, signed zeros,
# infinities and NaN, division by zero either way round
nan = float("nan")
inf = float("inf")
mixed = []
for i in (0, 1, -1, 3, 2**29, -(2**30) + 1, 2**30, 2**53 + 1, 10**20, True):
    for y in (0.5, -0.0, 0.0, 1e308, -inf, nan, 2.0**60):
        row = [i + y, y + i, i - y, y - i, i * y, y * i]
        for a, b in ((i, y), (y, i)):
            try:
                row.append(a / b)
            except ZeroDivisionError as exc:
                row.append(str(exc))
        row += [i < y, i <= y, i == y, i != y, i > y, i >= y, y < i, y == i, y >= i]
        mixed.append(repr(row))
print(len(mixed))
for line in mixed:
    print(line)
z = 3
z *= 0.25
z -= 1
z /= -0.5
print(z, -0.0 + 0, 0 + -0.0, 0 - 0.0, -0.0 * 5, 5 * -0.0, 0 * -1.5)
