# Parallel assignment `a, b = x, y` in functions, class bodies and at module level: values
# are all evaluated before any target is stored, targets are stored left to right with their
# own subexpressions evaluated then, a failure while evaluating leaves every target unbound,
# a failure while storing keeps the earlier stores, and nested and list targets unpack as
# usual (the evaluator assigns these without building the tuple in between).
log = []


def val(x):
    log.append(("eval", x))
    return x


class Box:
    pass


def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def order():
    box = Box()
    d = {}
    d[val("key")], box.attr = val(1), val(2)
    return d, box.attr


def fails_in_value():
    p = q = "unset"
    try:
        p, q = val(10), 1 / 0
    except ZeroDivisionError:
        pass
    return p, q


def fails_in_store():
    first = "unset"
    t = (1,)
    try:
        first, t[0] = val("a"), val("b")
    except TypeError as e:
        return first, str(e)
    return first, None


class Body:
    x, y = 1, 2
    y, x = x, y


[m1, m2] = val("m1"), val("m2")
(n1, n2), n3 = (1, 2), 3
s1, s2 = s2, s1 = "s", "t"
i, j = 0, 1
for _ in range(5):
    i, j = j, i + j
print(fib(30), order(), fails_in_value(), fails_in_store())
print(Body.x, Body.y, m1, m2, n1, n2, n3, s1, s2, i, j)
print(log)
try:
    u, v = 1, 2, 3
except ValueError as e:
    print("error:", e)
try:
    u, v = val("only")
except ValueError as e:
    print("error:", e)
