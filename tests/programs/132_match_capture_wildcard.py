# Capture patterns bind names; the wildcard matches anything without binding.
def describe(value):
    match value:
        case 0:
            return "zero"
        case n if isinstance(n, int):
            return f"int {n}"
        case _:
            return f"something else: {value!r}"


print([describe(v) for v in [0, 7, "x", None]])

match (1, 2):
    case (first, _):
        print("captured first =", first)

match {"user": "ann"}:
    case other:
        print("irrefutable capture:", other)

point = (3, 0)
match point:
    case (0, 0):
        where = "origin"
    case (x, 0):
        where = f"on x axis at {x}"
    case (0, y):
        where = f"on y axis at {y}"
    case (x, y):
        where = f"at {x},{y}"
print(where, x)

match 42:
    case _:
        print("wildcard binds nothing")
