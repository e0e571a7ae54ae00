# Iterator classes with __iter__/__next__, and iter(callable, sentinel).
class Range2:
    def __init__(self, start, stop, step=1):
        self.current = start
        self.stop = stop
        self.step = step

    def __iter__(self):
        return self

    def __next__(self):
        if self.current >= self.stop:
            raise StopIteration
        value = self.current
        self.current += self.step
        return value


r = Range2(0, 10, 3)
print(list(r), list(r))
print(sum(Range2(1, 5)), [x for x in Range2(5, 8)], 6 in Range2(5, 8))
it = Range2(0, 2)
print(next(it), next(it), next(it, "done"))

values = [5, 4, 3, 0, 9]
pop = values.pop
reader = iter(lambda: values.pop(0), 0)
print(list(reader), values)


class Fib:
    def __init__(self, limit):
        self.limit = limit

    def __iter__(self):
        return FibIterator(self.limit)


class FibIterator:
    def __init__(self, limit):
        self.a, self.b, self.limit = 0, 1, limit

    def __iter__(self):
        return self

    def __next__(self):
        if self.a > self.limit:
            raise StopIteration
        self.a, self.b = self.b, self.a + self.b
        return self.b - self.a


fib = Fib(50)
print(list(fib), list(fib), dict(enumerate(Fib(3))))
