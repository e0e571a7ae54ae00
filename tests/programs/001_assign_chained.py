# Chained assignment: one value, bound to every target, left to right.
a = b = c = 7
print(a, b, c)

x = y = []
x.append(1)
print(x, y, x is y)

log = []


class Recorder:
    def __init__(self, name):
        self.name = name

    def __setitem__(self, key, value):
        log.append((self.name, key, value))


def value():
    log.append("value")
    return 42


r1 = Recorder("r1")
r2 = Recorder("r2")
r1["k"] = r2["j"] = value()
print(log)

# targets are assigned left to right, so the later target sees the earlier binding
i = 0
items = [10, 20, 30]
i = items[i] = 2
print(i, items)

p = q = (1, 2)
p += (3,)
print(p, q)
