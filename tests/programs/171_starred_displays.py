# * and ** unpacking inside list/tuple/set/dict displays.
a = [1, 2]
b = (3, 4)
c = "xy"
print([*a, *b], (*a, *c), {*a, *b, 1}, [*range(3), *{5: 0}])
print((*a,), [*"abc"], [0, *a, 9, *b])
defaults = {"color": "red", "size": "M"}
custom = {"size": "L", "qty": 2}
print({**defaults, **custom}, {**custom, **defaults}, {"x": 0, **defaults, "color": "blue"})
print({**{}}, [*[]], {*()} if False else set())
nested = [[1, 2], [3]]
print([*nested[0], *nested[1]], [x for sub in nested for x in sub])
first, *rest = [*a, *b]
print(first, rest)
gen = (n * n for n in range(3))
print([*gen, *gen])
print(*a, *b, sep=",")
merged = dict(**defaults, extra=True)
print(merged)
try:
    {**[1, 2]}
except TypeError as e:
    print("TypeError:", e)
try:
    [*5]
except TypeError as e:
    print("TypeError:", e)
