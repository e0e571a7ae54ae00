# TypeError messages for wrong calls to user-defined functions.
def two(a, b):
    return a + b


def with_default(a, b=1):
    return a


def kwonly(a, *, k):
    return a


def posonly(a, b, /):
    return a


def many(a, b, c):
    return a


calls = [
    lambda: two(1),
    lambda: two(),
    lambda: two(1, 2, 3),
    lambda: two(1, c=3),
    lambda: two(1, a=1),
    lambda: with_default(),
    lambda: with_default(1, 2, 3),
    lambda: kwonly(1),
    lambda: kwonly(1, 2),
    lambda: posonly(a=1, b=2),
    lambda: posonly(1, b=2),
    lambda: many(),
    lambda: many(1),
    lambda: two(*[1, 2, 3]),
    lambda: two(**{"a": 1, "b": 2, "z": 3}),
    lambda: kwonly(1, 2, k=3),
]
for i, call in enumerate(calls):
    try:
        call()
        print(i, "ok")
    except TypeError as e:
        print(i, e)
