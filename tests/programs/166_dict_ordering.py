# Dicts preserve insertion order; updates keep position, delete+insert moves to end.
d = {}
d["b"] = 1
d["a"] = 2
d["c"] = 3
print(list(d), d)
d["b"] = 10
print(list(d))
del d["b"]
d["b"] = 20
print(list(d))
d.update({"a": 0, "z": 26})
print(d)
print({**{"x": 1, "y": 2}, **{"y": 3, "w": 4}}, {"x": 1} | {"x": 2, "v": 0})
print(dict.fromkeys("cab", 0), dict(zip("cab", range(3))), dict([("k", 1), ("j", 2)]))
print({1: "int", 1.0: "float", True: "bool"})
keys = list(d.keys())
values = list(d.values())
print(keys, values, list(d.items())[0])
print(d.popitem(), d)
rev = dict(reversed(list(d.items())))
print(rev, list(reversed(d)))
print({"a": 1, "b": 2} == {"b": 2, "a": 1}, list({"a": 1, "b": 2}) == list({"b": 2, "a": 1}))
