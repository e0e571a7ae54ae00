# Generator expressions: the first iterable is evaluated immediately, the rest lazily.
log = []


def source(n):
    log.append(f"source({n})")
    return range(n)


def check(x):
    log.append(f"check({x})")
    return x % 2 == 0


g = (x * 10 for x in source(5) if check(x))
print("created:", log)
print(next(g), log)
print(next(g), log)
print(list(g), log)

log.clear()
try:
    bad = (x for x in 42)
except TypeError as e:
    print("TypeError immediately:", e)

lazy_error = (1 // x for x in [1, 0])
print(next(lazy_error))
try:
    next(lazy_error)
except ZeroDivisionError as e:
    print("raised lazily:", e)

nested = ((i, j) for i in source(2) for j in source(i + 1))
print("nested created:", log)
print(list(nested), log)

items = [1, 2, 3]
gen = (v for v in items)
items.append(4)
print(list(gen))
items = [9]
print(sum(x for x in range(5)), max((len(w) for w in ["a", "abc"]), default=0))
