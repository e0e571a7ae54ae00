# Closures: an agent building helper functions from factories: adders, memoizers,
# function composition and counters kept in an enclosing mutable cell.
def make_adder(n):
    def add(x):
        return x + n
    return add


def compose(f, g):
    def h(x):
        return f(g(x))
    return h


def memoize(fn):
    cache = {}

    def wrapper(n):
        if n not in cache:
            cache[n] = fn(n)
        return cache[n]
    return wrapper


def make_counter():
    box = [0]

    def inc(step):
        box[0] += step
        return box[0]
    return inc


adders = [make_adder(i) for i in range(50)]
pipeline = compose(adders[3], compose(adders[7], lambda v: v * 2))
acc = 0
for i in range(20000):
    acc += pipeline(i) + adders[i % 50](i)

square = memoize(lambda n: n * n)
sq_total = 0
for i in range(20000):
    sq_total += square(i % 500)

counter = make_counter()
for i in range(10000):
    counter(i % 3)
scale = lambda k: (lambda v: v * k)
tripled = list(map(scale(3), range(5000)))
print(acc, sq_total, counter(0), tripled[-1], pipeline(10))
