# An uncaught UnboundLocalError: a function assigns to a global name without `global`.
total = 0


def add_all(values):
    for v in values:
        total += v
    return total


print("before the call", total)
result = add_all([1, 2, 3])
