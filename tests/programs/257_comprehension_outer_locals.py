# List, set and dict comprehensions that read the enclosing function's locals (read from the
# function's frame, no cell, as CPython 3.12+ inlines them), next to the cases that still need
# a cell: a lambda or a generator expression inside the comprehension, a walrus binding the
# function's name, a closure of the function itself, nested comprehensions. An outer local
# read before it is bound, or after `del`, gives each version's own error.


def scaled(xs, k):
    return [x * k for x in xs], {x: x + k for x in xs}, {x % k for x in xs}


print(scaled([1, 2, 3], 2))


def table(rows, cols, base):
    return [[base + r * cols + c for c in range(cols)] for r in range(rows)]


print(table(2, 3, 100))


def with_lambda(k):
    return [(lambda: k + i)() for i in range(3)], [f() for f in [lambda: k]]


print(with_lambda(10))


def with_genexp(k, xs):
    return [sum(k * y for y in range(x)) for x in xs]


print(with_genexp(3, [1, 2, 3]))


def with_walrus(k):
    out = [(last := k + i) for i in range(3)]
    return out, last


print(with_walrus(5))


def with_closure(k):
    get = lambda: k
    first = [k + i for i in range(2)]
    k = 7
    return first, get(), [k for _ in range(1)]


print(with_closure(1))


def rebinding(k):
    before = [k for _ in range(2)]
    k = "changed"
    after = [k for _ in range(1)]
    del k
    try:
        [k for _ in range(1)]
    except NameError as e:
        return before, after, type(e).__name__, str(e)


print(rebinding(1))


def read_before_bound():
    got = [later for _ in range(1)]
    later = 1
    return got


try:
    read_before_bound()
except NameError as e:
    print(type(e).__name__, e)


def in_generator(k):
    for j in range(3):
        yield [k * j + i for i in range(2) if i + j < k]


print(list(in_generator(2)))


def filters_and_defaults(limit, words, sep="-"):
    return [w + sep + str(limit) for w in words if len(w) <= limit]


print(filters_and_defaults(3, ["a", "abcd", "xyz"]), filters_and_defaults(1, ["a", "b"], sep="+"))


class Box:
    def __init__(self, k):
        self.k = k

    def spread(self, xs):
        return [x * self.k for x in xs]


print(Box(3).spread([1, 2]))


def recurse(n, width):
    if n == 0:
        return 0
    return sum([recurse(n - 1, width) + n for _ in range(width)])


print(recurse(3, 2))


def many_readers(a, b):
    first = [a + i for i in range(2)]
    second = {i: b for i in range(2)}
    third = [[a * b + j for j in range(i)] for i in range(3)]
    return first, second, third


print(many_readers(2, 3))
