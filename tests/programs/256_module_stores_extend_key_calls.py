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
