# Method calls on the code's instances at one warm site, where the evaluator looks in the
# instance dict for the name before taking the class's function unbound: an instance
# attribute that shadows the method (added, then deleted), instances with and without it,
# __slots__ classes (no dict), a name set through setattr with a string made at run time,
# a subclass overriding the method, and a class attribute replacing it.
class A:
    def f(self, x):
        return ("method", x)


def own(x):
    return ("own", x)


objs = [A() for _ in range(4)]
objs[1].f = own
objs[3].f = lambda x: ("lambda", x)
print([o.f(i) for i, o in enumerate(objs)])

a = A()
seen = []
for i in range(7):
    seen.append(a.f(i))
    if i == 1:
        a.f = own
    if i == 3:
        del a.f
    if i == 4:
        setattr(a, "".join(["f"]), lambda x: ("joined", x))
print(seen)


class S:
    __slots__ = ("v",)

    def __init__(self):
        self.v = 1

    def f(self, x):
        return ("slots", x + self.v)


print([o.f(2) for o in [S(), A(), S()]])


class B(A):
    def f(self, x):
        return ("B", x)


print([o.f(3) for o in [A(), B(), A(), B()]])
c = A()
out = []
for i in range(4):
    out.append(c.f(i))
    if i == 1:
        A.f = staticmethod(lambda x: ("static", x))
print(out)
try:
    c.f = 5
    c.f(1)
except TypeError as e:
    print("TypeError", e)
