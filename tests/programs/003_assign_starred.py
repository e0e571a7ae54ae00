# Starred assignment targets in every position.
head, *tail = [1, 2, 3, 4]
print(head, tail)

*init, last = "hello"
print(init, last)

first, *middle, end = range(6)
print(first, middle, end)

a, *b, c = 1, 2
print(a, b, c)

(x, *ys), z = [10, 20, 30], 40
print(x, ys, z)

[*everything] = (5, 6, 7)
print(everything, type(everything).__name__)

for i, *rest in [(1, 2, 3), (4,), (5, 6)]:
    print(i, rest)

*_, final = [9, 8, 7]
print(final)

words = "the quick brown fox".split()
w0, *others = words
summary = (w0, len(others))
print(summary)
