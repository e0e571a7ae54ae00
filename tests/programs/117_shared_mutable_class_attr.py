# A mutable class attribute is shared by all instances: a common bug, and its fix.
class Buggy:
    items = []

    def add(self, x):
        self.items.append(x)


a, b = Buggy(), Buggy()
a.add(1)
b.add(2)
print(a.items, b.items, a.items is b.items)


class Fixed:
    def __init__(self):
        self.items = []

    def add(self, x):
        self.items.append(x)


c, d = Fixed(), Fixed()
c.add(1)
d.add(2)
print(c.items, d.items)


class Counter:
    total = 0

    def __init__(self):
        self.total += 1


x, y = Counter(), Counter()
print(x.total, y.total, Counter.total)


class Registry:
    entries = {}

    @classmethod
    def register(cls, key, value):
        cls.entries[key] = value


class SubRegistry(Registry):
    pass


SubRegistry.register("a", 1)
print(Registry.entries, SubRegistry.entries is Registry.entries)
