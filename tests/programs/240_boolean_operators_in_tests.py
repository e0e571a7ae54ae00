# `and` / `or` and comparison chains used as tests (if, elif, while, the conditional
# expression, assert, comprehension and generator-expression `if`, match guards). CPython's
# compiler takes them apart into jumps, so the truth of each operand -- and of each
# comparison's result -- is asked exactly once; an evaluator that first computes the value
# of `x or y` and then asks its truth asks twice of the operand that decides. Counted
# __bool__ methods, a __bool__ that raises part way, nested `not`, walrus operands, and the
# same expressions used as values (where the value, not a bool, is the result).
log = []


class T:
    def __init__(self, value, name):
        self.value, self.name = value, name

    def __bool__(self):
        log.append(self.name)
        if self.value is None:
            raise ValueError("no truth for " + self.name)
        return self.value

    def __repr__(self):
        return "T(%s)" % self.name


class Cmp:
    """Comparisons answer T objects, so a chain's results have a counted truth."""

    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        o = other.v if isinstance(other, Cmp) else other
        return T(self.v < o, "lt%r" % (self.v,))

    def __gt__(self, other):
        o = other.v if isinstance(other, Cmp) else other
        return T(self.v > o, "gt%r" % (self.v,))


yes, no, bad = T(True, "yes"), T(False, "no"), T(None, "bad")
tests = {
    "yes or no": lambda: yes or no,
    "no or yes": lambda: no or yes,
    "no or no": lambda: no or no,
    "yes and no": lambda: yes and no,
    "no and yes": lambda: no and yes,
    "yes and yes and no": lambda: yes and yes and no,
    "no or no or yes": lambda: no or no or yes,
    "(yes and no) or (no or yes)": lambda: (yes and no) or (no or yes),
    "not (yes or no)": lambda: not (yes or no),
    "not no and not no": lambda: not no and not no,
    "yes and not (no or no)": lambda: yes and not (no or no),
    "0 or yes": lambda: 0 or yes,
    "[] and yes": lambda: [] and yes,
    "yes or bad": lambda: yes or bad,
    "no or bad": lambda: no or bad,
    "bad and yes": lambda: bad and yes,
    "Cmp(1) < 2 < Cmp(3)": lambda: Cmp(1) < 2 < Cmp(3),
    "Cmp(5) < 2 < Cmp(3)": lambda: Cmp(5) < 2 < Cmp(3),
    "Cmp(1) < 2 < Cmp(0)": lambda: Cmp(1) < 2 < Cmp(0),
    "1 < 2 < Cmp(0) or yes": lambda: 1 < 2 < Cmp(0) or yes,
    "not Cmp(1) < 2 < Cmp(3)": lambda: not Cmp(1) < 2 < Cmp(3),
}


def run(name, thunk_source):
    del log[:]
    try:
        result = thunk_source()
    except ValueError as e:
        result = "ValueError: %s" % e
    return name, result, list(log)


for name, thunk in tests.items():
    print("value", run(name, thunk))

# if / elif
for a, b in [(yes, no), (no, yes), (no, no), (bad, yes)]:
    del log[:]
    try:
        if a and b:
            r = "if"
        elif a or b:
            r = "elif"
        else:
            r = "else"
    except ValueError as e:
        r = str(e)
    print("if/elif", a, b, r, log)

# while with a counter in the test
for a, b in [(yes, no), (no, yes), (no, no)]:
    del log[:]
    n = 0
    while (n := n + 1) < 3 and (a or b):
        pass
    print("while", a, b, n, log)

# conditional expression, nested
for a, b, c in [(yes, no, yes), (no, no, yes), (no, yes, no)]:
    del log[:]
    r = "x" if (a and b) or (not b and c) else "y"
    print("ifexp", a, b, c, r, log)

# assert
for a, b in [(yes, no), (no, yes), (no, no)]:
    del log[:]
    try:
        assert a or b, "neither"
        r = "ok"
    except AssertionError as e:
        r = "AssertionError: %s" % e
    print("assert", a, b, r, log)

# comprehension and generator `if`
del log[:]
r = [i for i in range(3) if (yes and no) or (no or yes)]
print("listcomp", r, log)
del log[:]
r = list(i for i in range(2) if not (no or no) and yes)
print("genexp", r, log)
del log[:]
r = {i: i for i in range(2) if Cmp(i) < 1 < Cmp(5)}
print("dictcomp", r, log)

# comparison chains in tests: the failing link's result is asked once
for left, right in [(1, 3), (5, 3), (1, 0)]:
    del log[:]
    if Cmp(left) < 2 < Cmp(right):
        r = "then"
    else:
        r = "else"
    print("chain", left, right, r, log)

# a __bool__ that raises in the middle of a test
for expr in ["yes and bad", "no or bad", "not (no or bad)"]:
    del log[:]
    try:
        if expr == "yes and bad":
            if yes and bad:
                pass
        elif expr == "no or bad":
            if no or bad:
                pass
        else:
            if not (no or bad):
                pass
        r = "no error"
    except ValueError as e:
        r = "ValueError: %s" % e
    print("raises", expr, r, log)

# walrus operands keep their values
del log[:]
if (x := no) or (y := yes):
    print("walrus", x, y, log)

# match guards
for subject in [1, 2, 3]:
    del log[:]
    match subject:
        case 1 if no or yes:
            r = "one"
        case 2 if yes and no:
            r = "two"
        case _ if not (no and yes):
            r = "other"
    print("match", subject, r, log)

# plain values of small ints and floats in chains and boolean operators
count = 0
for i in range(-3, 4):
    for f in (-1.5, 0.0, 2.5):
        if -2 <= i < 2 and (f > 0 or i == 0) or not (i != 3):
            count += 1
print("numbers", count)
