# Simple simulation with a seeded `random`: a queue at a service desk (arrivals,
# service times, waiting statistics) and a Monte Carlo estimate, as an agent would model.
import math
import random

random.seed(12345)
clock = 0.0
free_at = 0.0
waits = []
served = 0
for customer in range(15000):
    clock += random.expovariate(1.0)
    start = max(clock, free_at)
    waits.append(start - clock)
    free_at = start + random.uniform(0.2, 1.6)
    served += 1

inside = 0
for _ in range(30000):
    x = random.random()
    y = random.random()
    if x * x + y * y <= 1.0:
        inside += 1
walk = 0
far = 0
for _ in range(10000):
    walk += random.choice([-1, 1])
    far = max(far, abs(walk))
deck = list(range(52))
random.shuffle(deck)
print(served, round(sum(waits) / len(waits), 4), round(max(waits), 4))
print(round(4 * inside / 30000, 4), far, deck[:5], round(math.fsum(waits[:100]), 3))
