# Attribute loads from instances at one site while the class changes under it (the evaluator
# remembers per site the type whose attribute lookup was the generic one): a property, a
# data descriptor and a plain class attribute added after the site ran, subclasses with
# __getattr__ and __getattribute__ through the same site, a base class changed, instances
# of several classes through the same site, attributes deleted, __slots__, and methods
# shadowed by instance attributes.
class P:
    def __init__(self, v):
        self.v = v


def read(o):
    try:
        return o.v
    except AttributeError as e:
        return "AttributeError: " + str(e)


p = P(1)
out = [read(p), read(p)]
P.v = property(lambda self: "prop")
out.append(read(p))
del P.v
out.append(read(p))


class Desc:
    def __get__(self, obj, owner):
        return "desc-get"

    def __set__(self, obj, value):
        raise AttributeError("read-only")


P.v = Desc()
out.append(read(p))
del P.v
P.v = "class attribute"
out.append(read(p))
del p.v
out.append(read(p))
del P.v
out.append(read(p))
p.v = 2
out.append(read(p))


class WithGetattr(P):
    def __getattr__(self, name):
        return "getattr " + name


class WithGetattribute(P):
    def __getattribute__(self, name):
        return "getattribute " + name


for o in [p, WithGetattr(4), p, WithGetattribute(5), p]:
    out.append(read(o))
    if isinstance(o, WithGetattr):
        del o.v
        out.append(read(o))
print(out)


class Base:
    pass


class Child(Base):
    def __init__(self):
        self.v = "child"


c = Child()
out = [read(c), read(c)]
Base.v = property(lambda self: "base property")
out.append(read(c))
del Base.v
out.append(read(c))
Base.v = "base class attribute"
del c.v
out.append(read(c))
print(out)


class Other:
    def __init__(self):
        self.v = "other"


class Slotted:
    __slots__ = ("v",)

    def __init__(self):
        self.v = "slot"


objs = [P(10), Other(), Slotted(), P(11), Slotted(), Other()]
print([read(o) for o in objs * 2])
class M:
    def __init__(self):
        self.k = 0

    def step(self):
        self.k += 1
        return self.k


m = M()
res = [m.step(), m.step()]
m.step = lambda: "shadowed"
res.append(m.step())
del m.step
res.append(m.step())
M.step = lambda self: "replaced"
res.append(m.step())
print(res, m.k)
total = 0
for i in range(300):
    q = P(i)
    total += q.v
    if i == 150:
        P.v = property(lambda self: 1000, lambda self, value: None)
print(total)
