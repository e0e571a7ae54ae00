# Comprehensions have their own scope: the loop variable does not leak,
# but assignment expressions bind in the enclosing scope.
x = "outer"
result = [x for x in range(3)]
print(result, x)

total = 0
running = [total := total + n for n in [1, 2, 3]]
print(running, total)


def f():
    y = "local"
    values = [y for _ in range(2)]
    gen = list(y * 2 for y in ["a"])
    return values, gen, y


print(f())

n = 10
fns = [lambda: n for n in range(3)]
print([fn() for fn in fns], n)

data = [[1, 2], [3]]
print([item for item in data for item in item])
print({k: k for k in "ab"}, [v for v in {k: 1 for k in "xy"}])


def shadow_arg(values):
    return [values for values in values]


print(shadow_arg([1, 2]))
acc = []
[acc.append(i) for i in range(3)]
print(acc)
