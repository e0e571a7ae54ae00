# Instance attribute loads at one site over many objects, where the evaluator reads the
# instance dict at a remembered position: instances whose keys were added in other orders,
# attributes deleted and added again, keys made at run time (equal, not the same string),
# class attributes shadowed by instance ones, a property and a class attribute added to the
# class later, subclasses, __slots__, __getattr__, and errors.
class P:
    def __init__(self, order):
        for name in order:
            setattr(self, name, name.upper())


orders = [["a", "b", "c"], ["c", "b", "a"], ["b", "a", "c"], ["a", "c", "b"]]
objs = [P(o) for o in orders * 3]
print([p.a + p.b + p.c for p in objs])

q = P(["a", "b", "c"])
seen = []
for i in range(8):
    try:
        seen.append(q.b)
    except AttributeError as e:
        seen.append(str(e))
    if i == 2:
        del q.b
    if i == 4:
        setattr(q, "".join(["b"]), "again")
    if i == 5:
        q.z = 1
        del q.a
print(seen)

r = P([])
key = "".join(["va", "lue"])
setattr(r, key, 1)
total = 0
for i in range(5):
    total += r.value
    setattr(r, key, r.value + 1)
print(total, r.value)


class K:
    kind = "class"

    def __init__(self, own):
        if own:
            self.kind = "instance"


print([K(i % 2 == 0).kind for i in range(6)])


class L:
    def __init__(self):
        self.v = "instance"


objs = [L() for _ in range(3)]
out = []
for i in range(9):
    out.append(objs[i % 3].v)
    if i == 3:
        L.v = property(lambda self: "property")
    if i == 6:
        del L.v
print(out)


class M(L):
    pass


print([o.v for o in [L(), M(), L(), M()]])


class S:
    __slots__ = ("v",)

    def __init__(self):
        self.v = "slot"


print([o.v for o in [S(), L(), S()]])


class G:
    def __init__(self, has):
        if has:
            self.v = "own"

    def __getattr__(self, name):
        return "fallback " + name


print([G(i % 3 == 0).v for i in range(6)])
m = P(["a"])
try:
    for i in range(3):
        print(m.a)
        if i == 1:
            del m.a
except AttributeError as e:
    print("AttributeError", e)


# Augmented assignments to attributes at one site (the load reads the dict at the learned
# position): a class attribute read first then shadowed, a property added mid-loop, a
# deleted attribute, objects of two classes, and __getattr__.
class Counter:
    count = 100

    def __init__(self):
        self.v = 0


c = Counter()
log = []
for i in range(6):
    c.count += 1
    c.v += i
    log.append((c.count, c.v))
    if i == 2:
        del c.count
print(log, Counter.count)


class Other:
    def __init__(self):
        self.v = "s"


items = [Counter(), Other(), Counter(), Other()]
for i in range(3):
    for it in items:
        it.v += it.v
print([it.v for it in items])
d = Counter()
trace = []
for i in range(6):
    try:
        d.v += 1
        trace.append(d.v)
    except AttributeError as e:
        trace.append("AttributeError")
    if i == 1:
        Counter.v = property(lambda self: 42, lambda self, val: trace.append(("set", val)))
    if i == 3:
        del Counter.v
        del d.v
print(trace)


class Lazy:
    def __getattr__(self, name):
        return 1000


z = Lazy()
for i in range(3):
    z.total += i
print(z.total)


# The right operand of `o.n += f()` turns n into a property of the class (found by a red-team
# pass: the store re-keyed the site to the class's new tag, the load kept the old position).
class Q:
    pass


q = Q()
q.n = 0
stored = []


def make_property(i):
    if i == 3:
        Q.n = property(lambda self: 1000, lambda self, v: stored.append(v))
        Q.n
    return 1


for i in range(6):
    q.n += make_property(i)
print(stored)
