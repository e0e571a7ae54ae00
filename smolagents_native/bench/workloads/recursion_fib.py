# Recursion: naive fib(20) (about 22,000 calls), plus a recursive flatten and a
# recursive power-set, the kind of helper functions an agent writes.
def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


def flatten(x):
    if isinstance(x, list):
        out = []
        for y in x:
            out.extend(flatten(y))
        return out
    return [x]


def subsets(items):
    if not items:
        return [[]]
    rest = subsets(items[1:])
    return rest + [[items[0]] + s for s in rest]


def nest(depth, width):
    if depth == 0:
        return depth
    return [nest(depth - 1, width) for _ in range(width)] + [depth]


print(fib(20), fib(18))
tree = nest(6, 4)
print(len(flatten(tree)), sum(flatten(tree)))
print(len(subsets(list(range(13)))))
