# Iterators and generators after exhaustion; next() with defaults; StopIteration.
def two():
    yield 1
    yield 2


g = two()
print(next(g), next(g), next(g, "default"), next(g, None))
try:
    next(g)
except StopIteration as e:
    print("StopIteration with args", e.args, e.value)

it = iter([10, 20])
print(list(it), list(it))
numbers = iter(range(5))
print(list(zip(numbers, numbers)))
m = map(str, [1, 2])
print(list(m), list(m))
f = filter(None, [0, 1, 2])
print(next(f), list(f))
it2 = iter("ab")
print(next(it2), next(it2), next(it2, "<end>"))
e = enumerate(["x", "y"])
print(next(e), list(e))
r = reversed([1, 2, 3])
print(next(r), list(r))
d = {"k": 1}
keys = iter(d)
print(next(keys), next(keys, "no more keys"))


def gen_in_gen():
    inner = two()
    yield next(inner)
    yield next(inner)
    yield next(inner, "inner exhausted")


print(list(gen_in_gen()))
