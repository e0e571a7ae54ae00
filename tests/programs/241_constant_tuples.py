# Tuple displays of constants, which CPython's compiler folds into one constant (and the
# evaluator folds at lowering): the same object at every evaluation of the display, nested
# displays folded too, displays with a name, a call or a starred item built each time,
# unpacking and iteration over them, `+=` making a new tuple, empty tuples, and signed
# numbers (`-1`, folded as CPython folds them).
def pairs():
    return ((1, 0), (-1, 0), (0, 1), (0, -1))


seen = [pairs() for _ in range(3)]
print("same object each call:", seen[0] is seen[1] is seen[2])
print("nested folded:", seen[0][0] is pairs()[0])
print("values:", seen[0], type(seen[0][1][0]))

x = 5
built = [(x, 1) for _ in range(2)]
print("with a name, built each time:", built[0] is built[1], built[0] == built[1])
mixed = [((1, 2), (x, 3)) for _ in range(2)]
print("inner constant part shared:", mixed[0][0] is mixed[1][0], mixed[0][1] is mixed[1][1])
star = [(*(1, 2), 3) for _ in range(2)]
print("starred:", star[0], star[0] is star[1])

total = 0
for dx, dy in ((1, 0), (-1, 0), (0, 1), (0, -1)):
    total += dx * 10 + dy
print("iteration:", total)

a, b, c = "abc", None, ...
print("unpacked:", a, b, c)
t = (1, 2)
u = t
t += (3,)
print("+= makes a new tuple:", t, u, t is u)
print("empty:", (), () == tuple(), len(((), ())))
print("strings and bytes:", ("a", b"b", 1.5, 2j, True, None))
d = {(1, 2): "x", ((1, 2), 3): "y"}
print("keys:", d[(1, 2)], d[((1, 2), 3)], (1, 2) in d)
print("hash stable:", hash((1, "a", (2.5, None))) == hash((1, "a", (2.5, None))))
signs = [(-1, +2, ~3, -0.0, -2.5, -1j, -True, +False) for _ in range(2)]
print("signed constants:", signs[0], signs[0] is signs[1])
print("negative zero:", str(-0.0), (-0.0,)[0].hex())
try:
    print(~1.5)
except TypeError as e:
    print("TypeError:", e)
try:
    print(-"a")
except TypeError as e:
    print("TypeError:", e)
