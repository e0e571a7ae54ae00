# return statements: implicit None, bare return, tuples, early exit from loops.
def implicit():
    x = 1


def bare(flag):
    if flag:
        return
    return "not bare"


def pair():
    return 1, "two"


def first_negative(values):
    for i, v in enumerate(values):
        if v < 0:
            return i, v
    return None


def nested_loops(matrix, target):
    for r, row in enumerate(matrix):
        for c, v in enumerate(row):
            if v == target:
                return r, c
    return -1, -1


print(implicit(), bare(True), bare(False), pair(), type(pair()).__name__)
print(first_negative([3, 1, -4, -1]), first_negative([1]))
print(nested_loops([[1, 2], [3, 4]], 4), nested_loops([[1]], 9))


def return_in_while():
    n = 0
    while True:
        n += 1
        if n * n > 30:
            return n


print(return_in_while())


def conditional_return(x):
    return "big" if x > 10 else ("small" if x > 0 else "non-positive")


print([conditional_return(v) for v in (20, 5, -1)])


def returns_function():
    return lambda: "inner"


print(returns_function()())
