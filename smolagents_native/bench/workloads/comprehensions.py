# Comprehensions: an agent reshaping data with nested list, dict and set comprehensions,
# conditional filters and comprehension-built lookup tables.
words = [f"w{i % 211}x{i % 7}" for i in range(20000)]
lengths = [len(w) for w in words]
evens = [w for w in words if len(w) % 2 == 0]
index = {w: i for i, w in enumerate(words)}
letters = {c for w in words[:3000] for c in w}
pairs = [(i, j) for i in range(120) for j in range(i, 120) if (i + j) % 5 == 0]
grid = [[(r * c) % 10 for c in range(60)] for r in range(60)]
transposed = [[row[c] for row in grid] for c in range(60)]
flat = [v for row in transposed for v in row if v]
buckets = {k: [w for w in words[:2000] if w.endswith(k)] for k in ["x0", "x3", "x6"]}
print(sum(lengths), len(evens), len(index), sorted(letters)[:5])
print(len(pairs), sum(flat), [len(v) for v in buckets.values()])
