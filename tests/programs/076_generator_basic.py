# Generator functions: lazy execution, state between yields, exhaustion.
def countdown(n):
    print("starting countdown")
    while n > 0:
        yield n
        n -= 1
    print("countdown done")


gen = countdown(3)
print("generator created, nothing ran yet")
print(next(gen))
print(next(gen))
print(list(gen))
print(list(gen))


def fib_gen(limit):
    a, b = 0, 1
    while a < limit:
        yield a
        a, b = b, a + b


print(list(fib_gen(100)))
print(sum(fib_gen(1000)))


def chunks(items, size):
    for i in range(0, len(items), size):
        yield items[i:i + size]


print(list(chunks(list(range(7)), 3)))


def multiple_yields():
    yield "a"
    yield "b"
    return
    yield "never"


print(list(multiple_yields()))
print(type(gen).__name__, "x" in multiple_yields(), "b" in multiple_yields())
g2 = fib_gen(10)
for v in g2:
    if v > 2:
        break
print("resume after break:", next(g2), list(g2))
