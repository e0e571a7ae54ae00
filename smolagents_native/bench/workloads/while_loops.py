# While loops: an agent iterating until a condition holds: Collatz sequence lengths,
# integer square roots by Newton's method and a gcd table.
def collatz_len(n):
    steps = 0
    while n != 1:
        if n % 2 == 0:
            n //= 2
        else:
            n = 3 * n + 1
        steps += 1
    return steps


def isqrt(n):
    x = n
    y = (x + 1) // 2
    while y < x:
        x = y
        y = (x + n // x) // 2
    return x


def gcd(a, b):
    while b:
        a, b = b, a % b
    return a


best = 0
best_n = 0
n = 1
while n < 3000:
    c = collatz_len(n)
    if c > best:
        best, best_n = c, n
    n += 1
roots = 0
k = 0
while k < 2000:
    roots += isqrt(k * 7919 + 1)
    k += 1
g = 0
i = 1
while i < 150:
    j = 1
    while j < 150:
        g += gcd(i, j)
        j += 1
    i += 1
print(best_n, best, roots, g)
