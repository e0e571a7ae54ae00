# Sequence patterns: fixed length, star captures, nesting, list vs tuple, strings excluded.
def shape(seq):
    match seq:
        case []:
            return "empty"
        case [x]:
            return f"one: {x}"
        case [x, y]:
            return f"two: {x}, {y}"
        case [first, *middle, last] if len(middle) > 2:
            return f"long: {first}..{last} ({len(middle)} in middle)"
        case [first, *rest]:
            return f"starts with {first}, then {rest}"


for s in [[], [1], (1, 2), [1, 2, 3], range(6), "ab", ["a", ["b"]]]:
    print(repr(s), "->", shape(s) if not isinstance(s, str) else "skipped string")

match "ab":
    case [a, b]:
        print("strings are sequences?", a, b)
    case str():
        print("a str is not matched by sequence patterns")

match [1, [2, 3], (4, 5)]:
    case [a, [b, c], (d, *e)]:
        print(a, b, c, d, e)

match (1, 2, 3):
    case [1, *_, 3]:
        print("tuple matched by list-syntax pattern with _ star")

match [0, 1]:
    case (0, 1, *rest):
        print("rest is a list:", rest, type(rest).__name__)
