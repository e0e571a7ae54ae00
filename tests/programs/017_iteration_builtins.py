# Iterating many kinds of objects with the iteration helpers.
for i, ch in enumerate("xyz", start=1):
    print(i, ch)

for a, b in zip([1, 2, 3], "ab"):
    print(a, b)

try:
    list(zip([1, 2, 3], [4, 5], strict=True))
except ValueError as e:
    print("ValueError:", e)

for k in {"b": 1, "a": 2}:
    print("key", k)

for k, v in {"b": 1, "a": 2}.items():
    print("item", k, v)

print(list(range(10, 0, -3)), list(range(0)), list(range(-2, 3)))
r = range(2, 20, 4)
print(r, len(r), r[1], r[-1], 14 in r, 15 in r, r.index(10))
print(list(reversed([1, 2, 3])), list(reversed("abc")))
print(list(map(lambda p: p[0] * p[1], zip([1, 2], [3, 4]))))
print(list(filter(None, [0, 1, "", "a", None, []])))
it = iter([1, 2, 3])
print(next(it), list(it), next(it, "default"))
print(sorted({3: "c", 1: "a", 2: "b"}.values()))
print(list(enumerate(range(3), 5)))
