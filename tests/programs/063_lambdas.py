# Lambdas: defaults, closures, immediate invocation, use as keys and callbacks.
add = lambda a, b=10: a + b
print(add(1), add(1, 2))
print((lambda: "immediately")())
print((lambda *a, **k: (a, k))(1, 2, x=3))
print((lambda x, /, *, y: x - y)(10, y=3))

people = [("ann", 31), ("bob", 25), ("cy", 31)]
print(sorted(people, key=lambda p: (-p[1], p[0])))
print(list(map(lambda p: p[0].title(), people)))
print(list(filter(lambda p: p[1] > 26, people)))

make_multiplier = lambda n: lambda x: x * n
double, triple = make_multiplier(2), make_multiplier(3)
print(double(7), triple(7))

ops = {
    "+": lambda a, b: a + b,
    "-": lambda a, b: a - b,
    "*": lambda a, b: a * b,
}
print({name: fn(6, 3) for name, fn in ops.items()})

compose = lambda f, g: lambda x: f(g(x))
inc_then_double = compose(double, lambda x: x + 1)
print(inc_then_double(4))
print((lambda n: n if n < 2 else n * 2)(5))
print(type(add).__name__, add.__name__)
