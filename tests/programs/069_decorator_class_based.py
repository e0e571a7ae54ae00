# A class used as a decorator via __call__; decorator expressions of any form.
class CountCalls:
    def __init__(self, func):
        self.func = func
        self.calls = 0

    def __call__(self, *args, **kwargs):
        self.calls += 1
        return self.func(*args, **kwargs)


@CountCalls
def square(x):
    return x * x


print([square(i) for i in range(4)], square.calls)


class Memo:
    def __init__(self, func):
        self.func = func
        self.cache = {}

    def __call__(self, n):
        if n not in self.cache:
            self.cache[n] = self.func(n)
        return self.cache[n]


@Memo
def slow_fib(n):
    return n if n < 2 else slow_fib(n - 1) + slow_fib(n - 2)


print(slow_fib(60), len(slow_fib.cache))

decorators = {"upper": lambda f: lambda: f().upper()}


@decorators["upper"]
def shout():
    return "quiet"


print(shout())


@(lambda f: f)
def identity_decorated():
    return "ok"


print(identity_decorated())
