# Chained comparisons evaluate each operand at most once and short-circuit.
count = 0


def f(x):
    global count
    count += 1
    print("eval", x)
    return x


print(f(1) < f(2) < f(3))
print("evaluations:", count)
count = 0
print(f(3) < f(2) < f(1))
print("evaluations:", count)
count = 0
print(f(1) == f(1) != f(2) <= f(2))
print("evaluations:", count)

x = 5
print(1 < x < 10, 1 < x > 10, 0 <= x <= 5 < 6)
print(1 < 2 > 0 == 0 != 1)
a = [1, 2]
b = [1, 2]
print(a == b is not a, 1 in a in [a, b])
print("a" < "b" < "c", (1, 2) < (1, 3) < (2,))

total = 0
for v in range(10):
    if 3 <= v < 7:
        total += v
print(total)
