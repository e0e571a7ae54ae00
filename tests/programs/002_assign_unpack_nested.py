# Tuple and list targets, nested patterns, swaps, and unpacking from any iterable.
a, b = 1, 2
a, b = b, a
print(a, b)

(c, d), e = (3, 4), 5
print(c, d, e)

[f, [g, h]] = "x", ["y", "z"]
print(f, g, h)

first, second, third = "abc"
print(first, second, third)

k1, k2 = {"one": 1, "two": 2}
print(k1, k2)

m, n = (i * i for i in range(2, 4))
print(m, n)

rows = [(1, ("a", True)), (2, ("b", False))]
for num, (letter, flag) in rows:
    print(num, letter, flag)

data = [1, 2, 3]
data[0], data[2] = data[2], data[0]
print(data)

t = ((1, 2), [3, 4])
(p1, p2), [p3, p4] = t
total = p1 + p2 + p3 + p4
print(total)
