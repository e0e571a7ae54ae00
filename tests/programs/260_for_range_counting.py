# `for ... in range(...)` loops, which the evaluator counts in C when the callee is the builtin
# range and the arguments are ints that fit 64 bits: one to three arguments with both signs,
# empty ranges, bounds at and past the 64-bit edges (the generic path), steps that overflow when
# multiplied, a zero step, non-int arguments (bool, float, an object with __index__), a
# shadowed and a restored `range`, break / continue / else, targets that are not names, a loop
# variable rebound in the body, arguments evaluated once and in order, and the loop inside a
# generator, a nested function and a class body; the same in comprehensions (first and inner
# clauses, conditions, generator expressions, dict and set comprehensions) and in generators
# suspended inside such loops (nested, break / continue / else, send, close, abandoned). What a
# counted comprehension's hidden `.0` shows (dir(), zero-argument super()) differs between
# CPython versions (PEP 709): tests/test_range_loops.py checks it against the uncounted form.
seen = []
for i in range(4):
    seen.append(i)
for i in range(-3, 3):
    seen.append(i)
for i in range(10, 0, -3):
    seen.append(i)
for i in range(2, 2):
    seen.append("empty")
for i in range(5, 1):
    seen.append("empty")
for i in range(1, 5, -1):
    seen.append("empty")
print(seen)

edges = []
for i in range(-(2**63), -(2**63) + 3):
    edges.append(i)
for i in range(2**63 - 3, 2**63 - 1):
    edges.append(i)
for i in range(2**63 - 2, 2**63 + 2):
    edges.append(i)
for i in range(2**64, 2**64 + 2):
    edges.append(i)
for i in range(-5, 2**63 - 1, 2**62):
    edges.append(i)
for i in range(2**63 - 1, -(2**63), -(2**63) + 1):
    edges.append(i)
for i in range(-(2**63), 2**63 - 1, 2**63 - 1):
    edges.append(i)
for i in range(0, 10, 2**63 - 1):
    edges.append(i)
print(edges)

odd = []
for i in range(True):
    odd.append(("bool", i))
for i in range(False, True + 2):
    odd.append(("bools", i))


class Three:
    def __index__(self):
        return 3


for i in range(Three()):
    odd.append(("index", i))
for i in range(1, Three(), Three()):
    odd.append(("index3", i))
for name, args in [("float", (1.5,)), ("zero step", (1, 5, 0)), ("str", ("3",)),
                   ("none", (None,))]:
    try:
        for i in range(*args):
            odd.append(i)
    except (TypeError, ValueError) as e:
        odd.append((name, type(e).__name__, str(e)))
try:
    for i in range(1, 2, 0):
        odd.append("never")
except ValueError as e:
    odd.append(("literal zero step", str(e)))
try:
    for i in range(2.0):
        odd.append("never")
except TypeError as e:
    odd.append(("literal float", str(e)))
print(odd)

flow = []
for i in range(6):
    if i == 1:
        continue
    if i == 4:
        break
    flow.append(i)
else:
    flow.append("no else after break")
for i in range(3):
    flow.append(i)
else:
    flow.append("else")
for i in range(0):
    pass
else:
    flow.append("else of empty")
for i in range(5):
    i = i * 100
    flow.append(i)
print(flow, i)

calls = []


def arg(v):
    calls.append(v)
    return v


for i in range(arg(1), arg(7), arg(3)):
    calls.append(("body", i))
print(calls)

targets = {"k": None}
holder = [0, 0]
for holder[1] in range(3):
    pass
for targets["k"] in range(2, 4):
    pass


class Box:
    pass


box = Box()
for box.v in range(7, 9):
    pass
print(holder, targets, box.v)
try:
    for a, b in range(3):
        pass
except TypeError as e:
    print("unpack:", e)


def gen(n):
    for i in range(n):
        yield i * i
    for j in range(n, 0, -1):
        yield -j


def nested(n):
    total = 0
    for i in range(n):
        for j in range(i):
            total += j
    return total


class Table:
    rows = []
    for r in range(3):
        rows.append(r * 2)


print(list(gen(4)), nested(30), Table.rows)

real_range = range
range = lambda *a: ["shadow", *a]  # noqa: A001
shadowed = []
for x in range(3):
    shadowed.append(x)
del range
for x in range(2):
    shadowed.append(x)
print(shadowed, real_range is range)

total = 0
for i in range(2000):
    total += i
print(total)

comps = [
    [i * i for i in range(6)],
    [(i, j) for i in range(4) for j in range(i, 4, 2) if (i + j) % 3],
    [j for i in range(-3, 3) for j in range(i)],
    {i % 4 for i in range(10, -10, -3)},
    {i: [j for j in range(i)] for i in range(4)},
    sum(x * x for x in range(1000)),
    list(x for x in range(2**63 - 2, 2**63 + 1)),
    [i for i in range(True, Three())],
    [[r * c for c in range(3)] for r in range(3)],
    [i for i in range(0)],
    [i for i in range(5, 0)],
]
try:
    comps.append([i for i in range(1, 4, 0)])
except ValueError as e:
    comps.append(("comp zero step", str(e)))
try:
    comps.append([j for i in range(2) for j in range(i / 2)])
except TypeError as e:
    comps.append(("inner float", str(e)))


class Grid:
    size = 3
    cells = [c * 2 for c in range(4)]


def local_range():
    range = lambda n: ["local", n]  # noqa: A001
    return [x for x in range(2)]


print(comps, Grid.cells, local_range())


def pairs(n):
    for i in range(n):
        for j in range(i, n, 2):
            if j == 5:
                continue
            if i == 4:
                break
            yield i, j
        else:
            yield "else", i
    for k in range(3, 0, -1):
        got = yield k
        if got is not None:
            yield ("got", got)


g = pairs(6)
out = [next(g) for _ in range(8)]
out.extend(list(g))
s = pairs(2)
out.append([next(s), next(s), next(s), next(s), next(s), s.send("hi"), next(s)])
s.close()
abandoned = pairs(10)
out.append(next(abandoned))
del abandoned


def big(n):
    for i in range(2**63 - n, 2**63 + n):
        yield i


out.append(list(big(2)))
print(out)
