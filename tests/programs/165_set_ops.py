# Sets and frozensets: algebra, membership, mutation, comprehension.
a = {1, 2, 3, 4}
b = {3, 4, 5}
print(a | b, a & b, a - b, b - a, a ^ b)
print(a.union([9]), a.intersection(range(3)), a.difference({1}), a.symmetric_difference([4, 6]))
print({1, 2} <= a, {1, 2} < {1, 2}, a >= {1}, a.isdisjoint({7, 8}), a.issubset(range(10)))
s = set()
s.add(3)
s.add(3)
s.update([1, 2], (2, 5))
s.discard(99)
s.remove(1)
print(s, len(s), 5 in s, 1 not in s)
fs = frozenset([3, 1, 2])
print(fs, fs | {9}, type(fs | {9}).__name__, type({9} | fs).__name__, {fs: "frozen key"}[frozenset({1, 2, 3})])
words = ["pear", "apple", "pear", "fig", "apple"]
unique_sorted = sorted(set(words))
print(unique_sorted, len(set(words)))
seen = set()
ordered_unique = [w for w in words if not (w in seen or seen.add(w))]
print(ordered_unique)
print(set("hello") == set("olleh"), sorted(set("mississippi")), {x % 3 for x in range(10)})
c = a.copy()
c.clear()
print(c, a, set() == frozenset(), {1, 2} == frozenset({1, 2}))
try:
    s.remove(42)
except KeyError as e:
    print("KeyError:", e)
try:
    fs.add(4)
except AttributeError as e:
    print("AttributeError:", e)
