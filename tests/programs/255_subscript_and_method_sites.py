# Sites the evaluator answers from what it learned: `lst[i]` on an exact list with a small
# non-negative int (bounds, negatives, bools, huge ints, subclasses, an index that is a
# subclass of int, a list that shrinks between loads), and method calls whose receiver
# changes type at the same site, whose method is replaced on the class or shadowed on the
# instance between calls, whose receiver is a constant, an unbound local or an expression.
def loads(seq, indexes):
    out = []
    for i in indexes:
        try:
            out.append(seq[i])
        except (IndexError, TypeError) as e:
            out.append(type(e).__name__ + ": " + str(e))
    return out


class Idx(int):
    pass


class MyList(list):
    def __getitem__(self, i):
        return ("mine", i)


lst = [10, 20, 30]
idx = [0, 2, 3, -1, -3, -4, True, False, 2**40, -(2**40), Idx(1), 1.0, "1", None]
print(loads(lst, idx))
print(loads(MyList(lst), [0, 5, -1]))
print(loads((10, 20), [0, 1, 2, -1]))
print(loads("abc", [0, 3, -1]))
shrinking = [1, 2, 3, 4]
seen = []
for k in range(6):
    try:
        seen.append(shrinking[2])
    except IndexError as e:
        seen.append(str(e))
    if shrinking:
        shrinking.pop()
print(seen)
nested = [[1, 2], [3, 4]]
print(nested[1][0], nested[0][-1], [nested[i][i] for i in range(2)])


def call_at_one_site(objs):
    out = []
    for o in objs:
        try:
            out.append(o.upper())
        except AttributeError as e:
            out.append("AttributeError: " + str(e))
    return out


class Up:
    def upper(self):
        return "Up.upper"


class Up2(str):
    def upper(self):
        return "Up2.upper " + str.upper(self)


print(call_at_one_site(["ab", "cd", Up(), b"xy", Up2("ef"), 3, "gh"]))


def appends(seqs):
    for s in seqs:
        s.append(len(s))
    return seqs


class Logged(list):
    def append(self, x):
        list.append(self, ("logged", x))


print(appends([[], [1], Logged(), [], Logged([0])]))


class Counter:
    def __init__(self):
        self.n = 0

    def bump(self):
        self.n += 1
        return self.n


c = Counter()
results = []
for k in range(6):
    if k == 2:
        Counter.bump = lambda self: "replaced"
    if k == 4:
        c.bump = lambda: "shadowed"
    results.append(c.bump())
print(results)
print("abc".upper(), (1, 2, 1).count(1), [3, 1, 2].index(2), {"a": 1}.get("a"))


def unbound():
    try:
        q.append(1)
    except UnboundLocalError as e:
        print("UnboundLocalError", e)
    q = []
    q.append(2)
    return q


print(unbound())
pairs = [(1, "a"), (2, "b")]
swapped = []
for n, s in pairs:
    a, b = s, n
    swapped.append((a, b))
print(swapped, [(y, x) for x, y in pairs])
