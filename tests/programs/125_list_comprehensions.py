# List comprehensions: filters, nested loops, conditional expressions, calls.
nums = range(1, 11)
print([n * n for n in nums])
print([n for n in nums if n % 3 == 0])
print([n if n % 2 else -n for n in nums])
print([(a, b) for a in range(3) for b in range(a)])
print([c.upper() for word in ["ab", "cd"] for c in word if c != "c"])
print([n for n in nums if n > 2 if n < 6])
words = ["apple", "Banana", "cherry", "date"]
print([w.lower() for w in words if len(w) > 4])
print([len(w) for w in words], [w[0] for w in sorted(words, key=str.lower)])
print([[0] * 3 for _ in range(2)])
print([x for x in []], [y for y in "abc" if False])
matrix = [[1, 2, 3], [4, 5, 6]]
print([v for row in matrix for v in row])
print([sum(row) for row in matrix], [row[::-1] for row in matrix])
print([i for i, w in enumerate(words) if "a" in w])
pairs = [(k, v) for k, v in {"x": 1, "y": 2}.items()]
print(pairs, [f(3) for f in (abs, str, bin)])
