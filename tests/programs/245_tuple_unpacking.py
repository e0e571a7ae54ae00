# Unpacking exact tuples into targets (the evaluator stores straight from the tuple's items):
# targets whose stores run code that drops the last other reference to the tuple or to its
# items, attribute and subscript targets, nested targets, wrong lengths, starred targets,
# lists and other iterables, and unpacking in for loops and comprehensions.
log = []


class Noisy:
    def __init__(self, name):
        self.name = name

    def __del__(self):
        log.append("del " + self.name)


class Box:
    def __init__(self):
        self.seen = []

    @property
    def x(self):
        return self.seen

    @x.setter
    def x(self, v):
        global t
        t = None  # the tuple being unpacked loses its module-level reference
        self.seen.append(v.name if isinstance(v, Noisy) else v)


t = (Noisy("a"), Noisy("b"))
b = Box()
b.x, second = t
print(b.seen, second.name, t, log)
del second
print(log)

d = {}
t2 = (1, (2, 3), [4, 5])
d["a"], (d["b"], d["c"]), [d["d"], d["e"]] = t2
print(sorted(d.items()))
for bad in [(1,), (1, 2, 3)]:
    try:
        p, q = bad
    except ValueError as e:
        print("ValueError", e)
first, *rest = (1, 2, 3)
*init, last = (1,)
print(first, rest, init, last)
a, b2 = [10, 20]
c, e = "xy"
print(a, b2, c, e)
pairs = {"k1": 1, "k2": 2}
total = 0
for k, v in pairs.items():
    total += v
print(total, [k + str(v) for k, v in pairs.items()], list(i * x for i, x in enumerate((5, 6))))
x, y = y, x = 1, 2
print(x, y)
