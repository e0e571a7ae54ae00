# Recursive generators: permutations, combinations, nested traversal.
def perms(items):
    if len(items) <= 1:
        yield list(items)
        return
    for i in range(len(items)):
        for rest in perms(items[:i] + items[i + 1:]):
            yield [items[i]] + rest


print(list(perms([1, 2, 3])))


def combos(items, k):
    if k == 0:
        yield ()
        return
    for i in range(len(items)):
        for rest in combos(items[i + 1:], k - 1):
            yield (items[i],) + rest


print(list(combos("abcd", 2)))


def walk(obj, path=""):
    if isinstance(obj, dict):
        for key, value in obj.items():
            yield from walk(value, f"{path}.{key}" if path else key)
    elif isinstance(obj, list):
        for i, value in enumerate(obj):
            yield from walk(value, f"{path}[{i}]")
    else:
        yield path, obj


doc = {"user": {"name": "ann", "tags": ["a", "b"]}, "ok": True}
for p, v in walk(doc):
    print(p, "=", v)


def binary_strings(n):
    if n == 0:
        yield ""
    else:
        for s in binary_strings(n - 1):
            yield s + "0"
            yield s + "1"


print(list(binary_strings(3)))
