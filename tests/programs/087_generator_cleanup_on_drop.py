# A partially consumed generator is finalized (its finally runs) when the last
# reference to it goes away.
def reader(name):
    try:
        for i in range(10):
            yield i
    finally:
        print("cleanup", name)


for value in reader("loop"):
    if value == 2:
        break
print("after loop")

g = reader("rebound")
next(g)
g = None
print("after rebinding")


def consume_first(name):
    gen = reader(name)
    return next(gen)


print(consume_first("function local"))
print("after function")

total = sum(x for x in reader("sum"))
print(total)

first_two = [v for _, v in zip(range(2), reader("zip"))]
print(first_two)
