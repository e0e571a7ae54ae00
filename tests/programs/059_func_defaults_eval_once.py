# Default values are evaluated once, when the def statement runs.
evaluations = []


def make_default(label):
    evaluations.append(label)
    return label * 2


def f(a=make_default("a"), b=make_default("b")):
    return a + b


print("after def:", evaluations)
print(f(), f(), f("x"))
print("after calls:", evaluations)

rate = 0.1


def with_rate(amount, r=rate):
    return round(amount * r, 2)


rate = 0.5
print(with_rate(100), rate)

fns = []
for i in range(3):
    def show(i=i):
        return i
    fns.append(show)
print([fn() for fn in fns])


def outer():
    k = 5

    def inner(x=k * 2):
        return x

    k = 100
    return inner()


print(outer())
kwdefault_calls = []


def g(*, key=kwdefault_calls.append("kw") or "kwvalue"):
    return key


print(g(), g(), kwdefault_calls)
