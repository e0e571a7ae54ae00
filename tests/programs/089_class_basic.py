# Defining a class, constructing instances, methods and instance state.
class Counter:
    """Counts things."""

    def __init__(self, name, start=0):
        self.name = name
        self.value = start

    def increment(self, by=1):
        self.value += by
        return self

    def describe(self):
        return f"{self.name}={self.value}"


c = Counter("clicks")
c.increment().increment(5)
print(c.describe(), c.value, c.name)
d = Counter("views", 100)
print(d.describe(), c.describe())
bound = d.increment
bound(10)
print(d.value, Counter.describe(d))
print(isinstance(c, Counter), type(c).__name__, type(c) is Counter)
c.extra = "dynamic"
print(c.extra, hasattr(d, "extra"))


class Empty:
    pass


e1, e2 = Empty(), Empty()
print(e1 == e2, e1 == e1, e1 is not e2)
methods = [m for m in ("increment", "describe", "reset") if hasattr(Counter, m)]
print(methods)
