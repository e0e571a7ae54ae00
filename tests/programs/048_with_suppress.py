# __exit__ returning True suppresses the exception; it receives type, value, traceback.
class Suppress:
    def __init__(self, *kinds):
        self.kinds = kinds

    def __enter__(self):
        return self

    def __exit__(self, exc_type, exc, tb):
        if exc_type is None:
            print("no exception")
            return False
        print("exit saw", exc_type.__name__, str(exc))
        return issubclass(exc_type, self.kinds)


with Suppress(KeyError):
    {}["missing"]
    print("not reached")
print("after first with")

with Suppress(ValueError, ZeroDivisionError) as s:
    print("body runs")
print("after clean with")

try:
    with Suppress(KeyError):
        raise TypeError("not suppressed")
except TypeError as e:
    print("propagated", e)


def f():
    with Suppress(ZeroDivisionError):
        return 1 / 0
    return "fell through after suppression"


print(f())

results = []
for value in [1, 0, 2]:
    with Suppress(ZeroDivisionError):
        results.append(10 / value)
print(results)
