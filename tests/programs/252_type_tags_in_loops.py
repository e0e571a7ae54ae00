# Method calls and attribute reads on classes whose type caches are invalidated while a loop
# runs: a class without __init__ (nothing in the host looks it up), a class attribute updated on
# every iteration, a method replaced, deleted and restored mid-loop, a base class changed under
# a subclass, and a class that defines __init_subclass__.
class Plain:
    def m(self, x):
        return x + 1


p = Plain()
total = 0
for i in range(50):
    total += p.m(i)
print(total)


class Counter:
    made = 0

    def bump(self, k):
        Counter.made += k
        return Counter.made


c = Counter()
seen = []
for i in range(40):
    seen.append(c.bump(i))
    if i == 20:
        Counter.bump = lambda self, k: -k
print(seen[-5:], Counter.made)


class Base:
    def f(self):
        return "base"


class Sub(Base):
    pass


s = Sub()
out = []
for i in range(12):
    out.append(s.f())
    if i == 3:
        Base.f = lambda self: "patched"
    if i == 6:
        Sub.f = lambda self: "sub"
    if i == 9:
        del Sub.f
print(out)


class Hooked:
    subclasses = []

    def __init_subclass__(cls, **kw):
        super().__init_subclass__(**kw)
        Hooked.subclasses.append(cls.__name__)

    def g(self):
        return 2


class H1(Hooked):
    def g(self):
        return 3


h, h1 = Hooked(), H1()
acc = 0
for i in range(30):
    acc += h.g() + h1.g()
    if i == 15:
        H1.g = lambda self: 10
print(acc, Hooked.subclasses)


class Shadow:
    def m(self):
        return "class"


sh = Shadow()
res = []
for i in range(8):
    res.append(sh.m())
    if i == 2:
        sh.m = lambda: "instance"
    if i == 5:
        del sh.m
print(res)


# A class attribute named __init_subclass__ whose __get__ logs: only creating a subclass reads
# it, never a method call or an attribute read on an instance.
log = []


class Getter:
    def __get__(self, obj, owner):
        log.append("get")
        return lambda **kw: None


class Logged:
    __init_subclass__ = Getter()

    def m(self):
        return 1


lg = Logged()
n = 0
for i in range(10):
    n += lg.m()
    if i == 4:
        Logged.extra = i
print(n, log)


class LoggedSub(Logged):
    pass


print(log)
