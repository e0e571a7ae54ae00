# Calls of functions that take exactly the positional arguments given (the evaluator's fast
# call path) next to calls that need binding: defaults, keywords, *args, closures, methods
# bound and unbound, functions with 15 to 17 local slots, an argument that raises after
# earlier ones were evaluated (their finalizers run at once), a callee rebound while its own
# arguments are evaluated, locals deleted and read again, and recursion into RecursionError.
events = []


class Tracked:
    def __init__(self, n):
        self.n = n

    def __del__(self):
        events.append(("del", self.n))


def two(a, b):
    return (a, b)


def with_default(a, b=5):
    return a * b


def boom():
    raise ValueError("boom")


def first_of(a, b, c):
    return a.n


try:
    first_of(Tracked(1), Tracked(2), boom())
except ValueError as e:
    events.append(("caught", str(e)))
print(events)
events.clear()
print(first_of(Tracked(3), Tracked(4), Tracked(5)), events)
events.clear()


def rebinder():
    global two
    old = two
    two = lambda a, b: ("new", a, b)
    return old


print(two(1, rebinder()) is not None, two(1, 2))
print(with_default(3), with_default(3, 4), with_default(b=2, a=7))


def fifteen(a):
    v1 = v2 = v3 = v4 = v5 = v6 = v7 = a
    v8 = v9 = v10 = v11 = v12 = v13 = v14 = a + 1
    return v1 + v7 + v14


def sixteen(a, b):
    v1 = v2 = v3 = v4 = v5 = v6 = v7 = a
    v8 = v9 = v10 = v11 = v12 = v13 = v14 = b
    return v1 + v14 + v13


def seventeen(a, b, c):
    v1 = v2 = v3 = v4 = v5 = v6 = v7 = a
    v8 = v9 = v10 = v11 = v12 = v13 = v14 = b
    return v1 + v14 + c


print(fifteen(1), sixteen(1, 2), seventeen(1, 2, 3))


def unbound(a):
    del a
    try:
        return a
    except UnboundLocalError as e:
        return "unbound: " + str(e)


print(unbound(1))


def late_local(flag):
    if flag:
        x = 1
    try:
        return x
    except UnboundLocalError:
        return "no x"


print(late_local(True), late_local(False), late_local(False))


class Counter:
    def __init__(self, start):
        self.n = start

    def bump(self, by):
        self.n += by
        return self

    def get(self):
        return self.n


c = Counter(10)
print(c.bump(1).bump(2).get(), Counter.bump(c, 3).get(), Counter.get(c))
m = c.bump
print(m(4).get())
try:
    c.bump()
except TypeError as e:
    print("TypeError", e)
try:
    two(1)
except TypeError as e:
    print("TypeError", e)
try:
    two(1, 2, 3)
except TypeError as e:
    print("TypeError", e)


def make_adder(k):
    def add(x):
        return x + k

    return add


add5 = make_adder(5)
print(add5(1), add5(add5(1)))


def star(*args):
    return args


print(star(1, 2), star())


def down(n):
    return down(n + 1)


try:
    down(0)
except RecursionError:
    print("RecursionError")
print(two(8, 9), with_default(2))


def chain(n, acc):
    if n == 0:
        return acc
    return chain(n - 1, acc + [n])


print(chain(30, []))
