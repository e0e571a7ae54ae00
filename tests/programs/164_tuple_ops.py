# Tuples: packing, immutability, single-element syntax, comparisons, methods.
t = 1, 2, 3
single = (5,)
not_tuple = (5)
empty = ()
print(t, single, not_tuple, empty, type(single).__name__, type(not_tuple).__name__)
print(t + (4,), t * 2, t[1:], t[::-1], len(t), 2 in t, t.index(3), (1, 1, 2).count(1))
nested = ((1, 2), [3, 4])
nested[1].append(5)
print(nested)
try:
    t[0] = 10
except TypeError as e:
    print("TypeError:", e)
print((1, 2) < (1, 3), (1, 2) < (1, 2, 0), (2,) > (1, 99), () < (0,))
print(tuple("abc"), tuple([1, 2]), tuple(range(3)), tuple({"k": 1}))
print(hash((1, 2)) == hash((1, 2)), {(1, 2): "point"}[(1, 2)])
try:
    hash(([],))
except TypeError as e:
    print("TypeError:", e)
a, b = b, a = 1, 2
print(a, b)
coords = [(1, 2), (3, 4)]
xs, ys = zip(*coords)
print(xs, ys, max(coords), sorted(coords, key=lambda p: -p[1]))
