# Numeric loop: a 200,000-iteration arithmetic loop (ints and floats, modulo, branches),
# the inner loop of a hand-written numeric computation.
acc = 0
facc = 0.0
x = 12345
for i in range(200000):
    x = (x * 1103515245 + 12345) % 2147483648
    if x % 3 == 0:
        acc += i
    else:
        acc -= x % 1000
    facc += (i % 100) * 0.5 - 1.25
print(acc, x, round(facc, 3))
