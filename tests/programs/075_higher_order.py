# Higher-order functions: map/filter/reduce written by hand, composition, pipelines.
def my_reduce(fn, items, initial):
    acc = initial
    for item in items:
        acc = fn(acc, item)
    return acc


def compose(*fns):
    def composed(x):
        for fn in reversed(fns):
            x = fn(x)
        return x
    return composed


def pipeline(value, *steps):
    return my_reduce(lambda acc, step: step(acc), steps, value)


nums = [5, 3, 8, 1, 9, 2]
print(my_reduce(lambda a, b: a + b, nums, 0))
print(my_reduce(max, nums, float("-inf")))
print(my_reduce(lambda acc, x: acc + [x * x], nums, []))
slug = compose(lambda s: s.replace(" ", "-"), str.lower, str.strip)
print(slug("  Hello World Again "))
print(pipeline(3, lambda x: x + 1, lambda x: x * 10, str, lambda s: s + "!"))
print(sorted(nums, key=lambda n: (n % 3, n)))
print(list(map(str.upper, ["a", "b"])), list(map(pow, [2, 3], [3, 2])))
print(any(n > 8 for n in nums), all(n > 0 for n in nums), sum(n for n in nums if n % 2))
print(max(nums, key=lambda n: -n), min(["pear", "fig", "apple"], key=len))


def apply_n(fn, n):
    return lambda x: my_reduce(lambda acc, _: fn(acc), range(n), x)


print(apply_n(lambda x: x * 2, 10)(1))
print(list(map(lambda f: f(16), [abs, str, float, lambda v: v ** 0.5])))
