# Agent-style: simulations with a seeded random generator are reproducible.
import random

random.seed(1234)
print(random.randint(1, 6), random.random(), random.uniform(10, 20), random.randrange(0, 100, 5))
deck = [f"{r}{s}" for s in "SHDC" for r in "A23456789TJQK"]
random.shuffle(deck)
print(deck[:5], random.choice(deck), random.sample(range(100), 5))
print(random.choices("abc", weights=[5, 1, 1], k=8), round(random.gauss(0, 1), 6))
rng = random.Random(99)
rolls = [rng.randint(1, 6) for _ in range(1000)]
print({face: rolls.count(face) for face in range(1, 7)})
walk = [0]
for _ in range(20):
    walk.append(walk[-1] + rng.choice([-1, 1]))
print(walk, max(walk), min(walk))
random.seed("text seed")
first = [random.random() for _ in range(3)]
random.seed("text seed")
print(first == [random.random() for _ in range(3)], random.getrandbits(16))
