# Dict and set comprehensions: later keys win, ordering follows iteration.
words = ["apple", "avocado", "banana", "blueberry", "cherry"]
by_letter = {w[0]: w for w in words}
print(by_letter)
lengths = {w: len(w) for w in words if len(w) > 5}
print(lengths)
inverted = {v: k for k, v in {"a": 1, "b": 2, "c": 1}.items()}
print(inverted)
squares = {n: n * n for n in range(6)}
print(squares, squares[5])
grid = {(r, c): r * 3 + c for r in range(2) for c in range(3)}
print(grid)
firsts = {w[0] for w in words}
print(sorted(firsts), len(firsts))
mods = {n % 4 for n in range(20)}
print(mods)
nested = {k: {i for i in range(k)} for k in range(4)}
print(nested)
counts = {ch: "mississippi".count(ch) for ch in "mississippi"}
print(counts)
print({x: y for x, y in zip("abc", range(10))}, {*()} == set(), {k: None for k in []})
