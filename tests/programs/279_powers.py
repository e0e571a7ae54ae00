# Powers of ints and floats in every pairing, as the operator and in place: small bases and
# exponents (the evaluator's own path for `i ** 2`, `10 ** 9`, `x ** 0.5`), results past a
# digit, negative exponents (a float), zero, and the errors.
ints = [-(2 ** 29), -7, -2, -1, 0, 1, 2, 3, 10, 2 ** 29, 2 ** 30, 2 ** 40]
exps = [0, 1, 2, 3, 5, 29, 40, 100, -1, -3]
table = []
for a in ints:
    for e in exps:
        try:
            v = a ** e
        except ZeroDivisionError as err:
            v = ("ZeroDivisionError", str(err))
        table.append(v)
print(len(table), sum(v for v in table if type(v) is int) % 1_000_003)
print([round(v, 12) for v in table if type(v) is float][:12])
floats = [-8.0, -2.5, -0.0, 0.0, 0.5, 1.0, 2.0, 1e300, float("inf")]
fexps = [0, 1, 2, -1, 0.5, 1 / 3, 2.0, -2.0, 400]
out = []
for a in floats:
    for e in fexps:
        try:
            v = a ** e
        except (ZeroDivisionError, OverflowError) as err:
            v = (type(err).__name__, str(err))
        out.append(repr(v))
print(len(out), out[:20])
print(out[20:60])
print(out[60:])
mixed = []
for a in (-3, 0, 2, 7):
    for e in (0.5, -1.0, 2.0, 1e-3):
        try:
            mixed.append(repr(a ** e))
        except ZeroDivisionError as err:
            mixed.append(str(err))
print(mixed)
x = 3
x **= 4
y = 1.5
y **= 2
z = 2
z **= -2
w = 10
w **= 40
print(x, y, z, w, 0 ** 0, 0.0 ** 0, (-1) ** 10 ** 6, 1 ** (2 ** 29))
total = 0
for i in range(1000):
    total += i ** 2 - (i % 7) ** 3
print(total, sum(k ** 0.5 for k in range(100)), [2 ** k for k in range(0, 70, 9)])
print(True ** 2, 2 ** True, False ** 0, 3 ** False)
