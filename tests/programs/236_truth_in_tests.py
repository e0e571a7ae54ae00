# Truth in tests (if, while, the conditional expression, assert, comprehension and
# generator-expression `if`, match guards): a single comparison and `not` are tested
# without the intermediate bool, so every case where that could differ is here -- small
# and big ints (past one digit), floats, NaN, mixed int/float, bool, `is`, `in` with a
# __contains__ returning a non-bool, rich comparisons returning objects whose __bool__ is
# counted or raises, comparisons that raise, chained comparisons and `not` of each.
log = []


class Truthy:
    def __init__(self, value, name):
        self.value, self.name = value, name

    def __bool__(self):
        log.append(("bool", self.name))
        if self.value is None:
            raise ValueError("no truth for " + self.name)
        return self.value


class Odd:
    """Comparisons return objects whose truth is logged."""

    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        log.append(("lt", self.v))
        return Truthy(self.v < other, "lt%r" % (self.v,))

    def __eq__(self, other):
        log.append(("eq", self.v))
        return Truthy(self.v == other, "eq%r" % (self.v,))

    __hash__ = None


class Bag:
    def __init__(self, items):
        self.items = items

    def __contains__(self, x):
        log.append(("contains", x))
        return len([i for i in self.items if i == x])  # an int, not a bool


class Angry:
    def __lt__(self, other):
        raise TypeError("no order")


class NoTruth:
    def __lt__(self, other):
        return Truthy(None, "result")


BIG = 2 ** 40
NAN = float("nan")
values = [0, 1, -1, 2 ** 30, -(2 ** 30), 2 ** 30 + 1, BIG, -BIG, 2 ** 70, 0.5, -0.0, NAN,
          True, False, 3.0]


def table():
    out = []
    for a in values:
        row = []
        for b in values:
            bits = 0
            if a < b:
                bits |= 1
            if a <= b:
                bits |= 2
            if a == b:
                bits |= 4
            if a != b:
                bits |= 8
            if a > b:
                bits |= 16
            if a >= b:
                bits |= 32
            if not a < b:
                bits |= 64
            if a is b:
                bits |= 128
            if not a is not b:
                bits |= 256
            row.append(bits)
        out.append(row)
    return out


print(table())

# rich comparisons: the object's truth is taken once per test
for v in (1, 5):
    if Odd(v) < 3:
        log.append("yes")
    else:
        log.append("no")
    if not Odd(v) == 5:
        log.append("not-eq")
    log.append("ifexp-" + ("a" if Odd(v) < 3 else "b"))
print(log)
log.clear()

# `in` with __contains__ returning an int
bag = Bag([1, 2, 2])
for x in (0, 1, 2):
    if x in bag:
        log.append(("in", x))
    if x not in bag:
        log.append(("not in", x))
print(log)
log.clear()

# errors in the comparison and in the truth of its result
for thunk in (lambda: Angry() < 1, lambda: Odd(None) < 1, lambda: NoTruth() < 1):
    try:
        if thunk():
            log.append("taken")
    except (TypeError, ValueError) as e:
        log.append((type(e).__name__, str(e)))
try:
    if NoTruth() < 1:
        pass
except ValueError as e:
    log.append(("ValueError", str(e)))
try:
    while not NoTruth() < 1:
        pass
except ValueError as e:
    log.append(("ValueError", str(e)))
try:
    x = 1 if not Truthy(None, "t") else 2
except ValueError as e:
    log.append(("ValueError", str(e)))
print(log)
log.clear()

# while, assert, comprehensions, generator expressions, match guards
n = 0
while n < 10 and not n == 7:
    n += 1
print(n)
i = 0.0
while not i >= 2.5:
    i += 0.5
print(i)
assert n == 7
try:
    assert n < 3, "n is %d" % n
except AssertionError as e:
    print("assert:", e)
try:
    assert Odd(9) < 3
except AssertionError as e:
    print("assert2:", repr(e))
print(log)
log.clear()
print([v for v in values if v < 1], [v for v in values if not v == v])
print(sum(1 for v in values if v >= 0), list(v for v in range(20) if v % 3 == 0 if v > 4))
print({v: v < 2 ** 35 for v in values if v is not NAN and type(v) is int})


def classify(x):
    match x:
        case int(n) if n < 0:
            return "neg"
        case int(n) if not n > 100:
            return "small"
        case int():
            return "big"
        case float(f) if f == f:
            return "float"
        case _:
            return "other"


print([classify(v) for v in values])
# chained comparisons keep their own path
print([a < b < c for a, b, c in [(1, 2, 3), (1, 3, 2), (0.5, 1, BIG), (NAN, 1, 2)]])
print([1 if a < b < c else 0 for a, b, c in [(1, 2, 3), (3, 2, 1)]])
