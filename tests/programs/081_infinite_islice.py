# Infinite generators consumed with itertools.islice, takewhile, zip.
from itertools import islice, count, cycle, repeat, takewhile


def naturals(start=1):
    n = start
    while True:
        yield n
        n += 1


def primes():
    found = []
    for n in naturals(2):
        if all(n % p for p in found if p * p <= n):
            found.append(n)
            yield n


print(list(islice(primes(), 15)))
print(list(islice(naturals(), 5, 10)))
print(list(islice(naturals(), 0, 20, 4)))
print(list(takewhile(lambda sq: sq < 60, (n * n for n in naturals()))))
print(list(zip("abc", count(100))))
print(list(islice(cycle([1, 2, 3]), 7)))
print(list(repeat("x", 3)), list(zip(range(3), repeat(0))))


def squares():
    yield from (n * n for n in count())


sq = squares()
print([next(sq) for _ in range(6)])
print(next(n for n in naturals() if n % 7 == 0 and n % 5 == 0))
