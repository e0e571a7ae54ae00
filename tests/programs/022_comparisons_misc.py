# Identity, membership, sequence ordering, mixed numeric comparisons, and errors.
a = [1, 2, 3]
b = a
c = list(a)
print(a is b, a is c, a == c, a is not c)
print(None is None, 2 in a, 5 not in a, "ell" in "hello", "x" not in "hello")
print({"k": 1} == {"k": 1.0}, 1 == 1.0, 0.1 + 0.2 == 0.3)
print([1, 2] < [1, 2, 0], (1, "b") > (1, "a"), "Zebra" < "apple")
print({1, 2} < {1, 2, 3}, {1, 2} <= {1, 2}, {1, 4} > {1})
print(3 in {1: "a", 3: "b"}, "b" in {1: "a", 3: "b"})
print(10**20 == 1e20, 10**20 + 1 > 1e20, float("nan") == float("nan"))
nan = float("nan")
print(nan in [nan], nan != nan)
print(max("apple", "Banana"), min([3, 1], [2, 9]))
for left, right in [(1, "1"), ([1], (1,)), (None, 0)]:
    print(repr(left), repr(right), left == right)
try:
    print(1 < "1")
except TypeError as e:
    print("TypeError:", e)
try:
    print([1] < (1,))
except TypeError as e:
    print("TypeError:", e)
try:
    print(None >= 0)
except TypeError as e:
    print("TypeError:", e)
try:
    sorted([3, "a", 1])
except TypeError as e:
    print("TypeError:", e)
