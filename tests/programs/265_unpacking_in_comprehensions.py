# requires: 3.15
# PEP 798: unpacking in comprehensions and generator expressions
rows = [[1, 2], [], (3,), "ab", range(2)]
print([*r for r in rows])
print(sorted({*r for r in rows if r}, key=str))
print(sorted({*r for r in [[3, 1], [1, 2]]}))
print({**d for d in [{"a": 1}, {"b": 2}, {"a": 3}]})
print({**d for d in [{"x": i} for i in range(3)] if d["x"] != 1})
gen = (*r for r in rows)
print(type(gen).__name__, next(gen), list(gen))
print(list((*pair for pair in [(1, 2), (3, 4)] for _ in range(2))))
print([*[x, y] for x in range(2) for y in "ab"])
nested = (*(*inner for inner in outer) for outer in [[[1], [2]], [[3]]])
print(list(nested))

def flatten(groups):
    return [*g for g in groups]

print(flatten([[0], [1, 1]]), sum((*g for g in [[1], [2, 3]])))
for src_kind, make in [("list", lambda: [*x for x in [1]]),
                       ("set", lambda: {*x for x in [1]}),
                       ("dict", lambda: {**d for d in [1]}),
                       ("dict-list", lambda: {**d for d in [[(1, 2)]]}),
                       ("genexp", lambda: list((*x for x in [1])))]:
    try:
        make()
    except TypeError as e:
        print(src_kind, "TypeError:", e)
total = [*r for r in rows]
