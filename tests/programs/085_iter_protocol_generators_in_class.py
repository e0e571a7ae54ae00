# Classes whose __iter__ is a generator method, and reusable iterables.
class Countdown:
    def __init__(self, start):
        self.start = start

    def __iter__(self):
        n = self.start
        while n > 0:
            yield n
            n -= 1


class Tree:
    def __init__(self, value, *children):
        self.value = value
        self.children = children

    def __iter__(self):
        yield self.value
        for child in self.children:
            yield from child

    def leaves(self):
        if not self.children:
            yield self.value
        for child in self.children:
            yield from child.leaves()


c = Countdown(3)
print(list(c), list(c), sum(c), 2 in c, 7 in c)
t = Tree(1, Tree(2, Tree(4)), Tree(3, Tree(5), Tree(6)))
print(list(t), list(t.leaves()), max(t), sorted(t, reverse=True))
a, b, *rest = t
print(a, b, rest)
print([x * 2 for x in Countdown(4)], dict(zip(Countdown(2), "ab")))
