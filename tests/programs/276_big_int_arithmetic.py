# Ints past a long long (Fibonacci numbers, factorials, powers of two): +, -, *, the in-place forms and every comparison, at each digit boundary, signs included
vals = [0, 1, -1, 2**63 - 1, -(2**63), 2**63]
for bits in (62, 63, 64, 89, 90, 91, 120, 200, 3000, 3001, 3100):
    for v in ((1 << bits) - 1, 1 << bits, (1 << bits) + 12345):
        vals += [v, -v]
digest = 0
checks = 0
for a in vals:
    for b in vals[::7]:
        row = (a + b, a - b, a * b, a < b, a <= b, a == b, a != b, a > b, a >= b)
        digest = (digest * 31 + hash(row)) % 1000000007
        if a > b:
            checks += 1
        t = a
        t += b
        t -= b * 2
        t *= b
        digest = (digest * 31 + t % 1000003) % 1000000007
print(len(vals), checks, digest)


def fib(n):
    a, b = 0, 1
    for _ in range(n):
        a, b = b, a + b
    return a


def fact(n):
    r = 1
    for k in range(2, n + 1):
        r *= k
    return r


print(fib(300) % 10**12, len(str(fib(1000))), fact(120) % 999983, fact(60) > 10**80)
print(fib(200) - fib(199) == fib(198), fact(30) // fact(28) == 30 * 29)
