# Making instances of the code's own classes in loops: positional and keyword arguments,
# defaults, *args, super().__init__, __init__ returning something else, raising, taking the
# wrong arguments, its class changed mid-loop, the order in which the arguments, the object and __init__ happen, and classes whose making is not plain
# (__new__, a metaclass, an abstract class, __slots__, a generator __init__).
order = []


def arg(x):
    order.append(("arg", x))
    return x


class Point:
    def __init__(self, x, y):
        order.append(("init", x, y))
        self.x = x
        self.y = y


pts = [Point(arg(i), arg(i * 2)) for i in range(3)]
print(order)
print([(p.x, p.y) for p in pts])


class Opt:
    def __init__(self, a, b=10, *rest, key=None, **kw):
        self.v = (a, b, rest, key, sorted(kw.items()))


for i in range(3):
    print(Opt(i).v, Opt(i, 2).v, Opt(i, 2, 3, 4, key="k", z=1).v, Opt(a=i, b=5).v)


class Base:
    def __init__(self, name):
        self.name = name


class Child(Base):
    def __init__(self, name, extra):
        super().__init__(name)
        self.extra = extra


class Plain(Base):
    pass


print([(c.name, c.extra) for c in (Child(str(i), i) for i in range(3))])
print([p.name for p in (Plain(i) for i in range(3))])


class Bad:
    def __init__(self):
        return 5


for i in range(2):
    try:
        Bad()
    except TypeError as e:
        print("TypeError", e)


class Raises:
    def __init__(self, n):
        if n > 1:
            raise ValueError(f"too big: {n}")
        self.n = n


for i in range(4):
    try:
        print(Raises(i).n)
    except ValueError as e:
        print("ValueError", e)

for args in [(), (1, 2, 3)]:
    try:
        Point(*args)
    except TypeError as e:
        print("TypeError", e)
for i in range(2):
    try:
        Point(1)
    except TypeError as e:
        print("TypeError", e)
    try:
        Point(1, 2, 3)
    except TypeError as e:
        print("TypeError", e)
    try:
        Point(1, 2, z=3)
    except TypeError as e:
        print("TypeError", e)


class Swapped:
    scale = 1

    def __init__(self, v):
        self.v = v * self.scale


made = []
for i in range(8):
    made.append(Swapped(i).v)
    if i == 2:
        Swapped.scale = -1
    if i == 4:
        Swapped.scale = 10
print(made)


class Meta(type):
    def __call__(cls, *a):
        return ("meta", a)


class WithMeta(metaclass=Meta):
    def __init__(self, v):
        self.v = v


print([WithMeta(i) for i in range(2)])


class Slotted:
    __slots__ = ("a", "b")

    def __init__(self, a, b):
        self.a, self.b = a, b


print([(s.a, s.b) for s in (Slotted(i, -i) for i in range(3))])


class Gen:
    def __init__(self):
        yield 1


for i in range(2):
    try:
        Gen()
    except TypeError as e:
        print("TypeError", e)


class Deep:
    def __init__(self, n):
        self.child = Deep(n - 1) if n else None


d = Deep(50)
depth = 0
while d.child is not None:
    d, depth = d.child, depth + 1
print(depth)


class Counted:
    count = 0

    def __init__(self):
        Counted.count += 1
        self.id = Counted.count


print([Counted().id for _ in range(5)], Counted.count)


class NoInit:
    pass


for i in range(2):
    try:
        NoInit(i)
    except TypeError as e:
        print("TypeError", e)
print(type(NoInit()).__name__)


class Recorder:
    def __init__(self, log):
        log.append(type(self).__name__)


class SubRecorder(Recorder):
    pass


log = []
for cls in [Recorder, SubRecorder, Recorder, SubRecorder]:
    obj = cls(log)
    print(type(obj).__name__, isinstance(obj, Recorder))
print(log)
