# Guards: evaluated after the pattern binds; a failed guard moves to the next case
# but the names bound by the pattern stay bound.
log = []


def positive(n):
    log.append(n)
    return n > 0


def check(value):
    match value:
        case int(n) if positive(n):
            return "positive int"
        case int(n) if n == 0:
            return "zero"
        case (a, b) if a < b:
            return "ascending pair"
        case (a, b) if a == b:
            return "equal pair"
        case (a, b):
            return "descending pair"
        case str(s) if s.isdigit() and int(s) % 2 == 0:
            return "even digit string"
        case _:
            return "other"


print([check(v) for v in [5, 0, -3, (1, 2), (2, 2), (3, 1), "42", "43", None]])
print(log)

match 10:
    case x if x > 100:
        print("big")
    case _:
        print("guard failed but x is still bound:", x)
