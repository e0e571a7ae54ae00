# Module-level stores straight to the globals (plain names, loop targets, names a function
# declares global, names rebound while a function reads them, a name deleted then stored
# again), list.extend on the sites that take its lean path (lists, tuples, the list itself,
# an empty list) and on those that do not (a list subclass, a generator, a str, a dict, a
# non-iterable, keywords), and interpreted functions called back by host code with exactly
# their positional parameters or with defaults, keywords, *args and **kwargs.
total = 0
for i in range(5):
    total = total + i
    last = i
print(total, last, i)

counter = 0


def bump(n):
    global counter
    counter += n
    return counter


def read_counter():
    return counter


for k in range(3):
    counter = counter * 10 + k
    print(bump(1), read_counter())
del counter
try:
    print(read_counter())
except NameError as e:
    print("NameError:", e)
counter = 7
print(read_counter())

a, b = 1, 2
for a, b in [(3, 4), (5, 6)]:
    pass
print(a, b)


class MyList(list):
    def extend(self, other):
        super().extend(["sub"])
        super().extend(other)


def gen():
    yield "g1"
    yield "g2"


out = []
out.extend([1, 2])
out.extend((3, 4))
out.extend([])
out.extend(())
out.extend(out)
print(out)
ml = MyList([0])
ml.extend([1, 2])
print(ml, type(ml).__name__)
plain = []
plain.extend(ml)
plain.extend(gen())
plain.extend("ab")
plain.extend({"k": 1, "j": 2})
plain.extend(range(2))
print(plain)
for bad in (5, None):
    try:
        plain.extend(bad)
    except TypeError as e:
        print("TypeError:", e)
try:
    plain.extend(iterable=[1])
except TypeError as e:
    print("TypeError:", e)
try:
    plain.extend()
except TypeError as e:
    print("TypeError:", e)
try:
    list.extend((), [1])
except TypeError as e:
    print("TypeError:", e)
list.extend(plain, (9,))
print(plain[-1], len(plain))

records = [{"n": i % 3, "s": str(i)} for i in range(7)]
print([r["s"] for r in sorted(records, key=lambda r: r["n"])])
print(max(records, key=lambda r: (r["n"], r["s"]))["s"])


def key_default(r, scale=2):
    return -r["n"] * scale


def key_star(*parts):
    return len(parts), parts[0]["s"]


def key_kw(r, **extra):
    return (r["n"], sorted(extra))


print([r["s"] for r in sorted(records, key=key_default)])
print([key_star(r) for r in records[:2]], sorted(records, key=key_star)[0]["s"])
print(sorted(records, key=key_kw)[0]["s"])
print(list(map(lambda x, y=10: x + y, [1, 2])))
print(list(map(lambda x, y: x * y, [1, 2], [3, 4])))
try:
    sorted(records, key=lambda: 0)
except TypeError as e:
    print("TypeError:", e)
try:
    sorted(records, key=lambda a, b: 0)
except TypeError as e:
    print("TypeError:", e)


# Closures called with exactly their positional parameters: free variables read, written
# through `nonlocal`, unbound at the time of the call, shared between two closures, the
# `__class__` cell of zero-argument super(), recursion through a free variable, and a
# closure called with too few or too many arguments.
def make_adder(n):
    def add(x):
        return x + n
    return add


def make_pair():
    count = 0

    def inc(step):
        nonlocal count
        count += step
        return count

    def get():
        return count
    return inc, get


def late():
    def read():
        return value
    first = None
    try:
        first = read()
    except NameError as e:
        first = "NameError: " + str(e)
    value = 5
    return first, read()


def make_fact():
    def fact(n):
        return 1 if n <= 1 else n * fact(n - 1)
    return fact


class Base:
    def __init__(self, x):
        self.x = x


class Child(Base):
    def __init__(self, x, y):
        super().__init__(x)
        self.y = y

    def total(self):
        return self.x + self.y + super().__init__.__name__.count("_")


adders = [make_adder(i) for i in range(4)]
print([a(10) for a in adders], adders[2](adders[1](0)))
inc, get = make_pair()
print(inc(2), inc(3), get())
print(late())
print(make_fact()(10))
c = Child(1, 2)
print(c.x, c.y, c.total())
for bad in ((), (1, 2)):
    try:
        adders[0](*bad)
    except TypeError as e:
        print("TypeError:", e)


# f-strings whose parts are of one kind (copied as they are) and of narrower kinds than the
# result (widened): ASCII, Latin-1, UCS-2 and UCS-4 text, empty parts, a str subclass.
class Tag(str):
    def __format__(self, spec):
        return Tag("<" + self + ">")


parts = ["plain", "café", "€uro", "🐍", "", Tag("t")]
for a in parts:
    for b in parts:
        s = f"{a}|{b}:{len(a)}{b}"
        print(s, len(s), max(map(ord, s)))
print(f"{Tag('x')}", type(f"{Tag('x')}").__name__, type(f"{Tag('x')}-").__name__)
