# Objects with __call__ behave like functions.
class Multiplier:
    def __init__(self, factor):
        self.factor = factor

    def __call__(self, x, *, offset=0):
        return x * self.factor + offset


double = Multiplier(2)
print(double(21), double(5, offset=1), callable(double), callable(Multiplier))
print(list(map(Multiplier(3), [1, 2, 3])), sorted([3, 1, 2], key=Multiplier(-1)))


class Accumulator:
    def __init__(self):
        self.total = 0

    def __call__(self, amount):
        self.total += amount
        return self


acc = Accumulator()
acc(5)(10)(-3)
print(acc.total)


class Pipeline:
    def __init__(self, *steps):
        self.steps = steps

    def __call__(self, value):
        for step in self.steps:
            value = step(value)
        return value


clean = Pipeline(str.strip, str.lower, len, Multiplier(2))
print(clean("  AbC "))


class NotCallable:
    pass


try:
    NotCallable()()
except TypeError as e:
    print("TypeError:", e)
