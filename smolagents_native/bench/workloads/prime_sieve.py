# Prime sieve: the sieve of Eratosthenes up to 300,000 with list slicing and loops,
# then twin primes and a prime-gap histogram.
limit = 300000
sieve = [True] * (limit + 1)
sieve[0] = sieve[1] = False
i = 2
while i * i <= limit:
    if sieve[i]:
        for j in range(i * i, limit + 1, i):
            sieve[j] = False
    i += 1
primes = [k for k in range(limit + 1) if sieve[k]]
twins = 0
gaps = {}
for p, q in zip(primes, primes[1:]):
    if q - p == 2:
        twins += 1
    gaps[q - p] = gaps.get(q - p, 0) + 1
print(len(primes), primes[-1], twins, max(gaps), gaps[6])
