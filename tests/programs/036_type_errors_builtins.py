# TypeError messages raised by operators and built-in functions.
five, nothing, text = 5, None, "x"
cases = [
    lambda: 1 + "a",
    lambda: "a" + 1,
    lambda: [1] + (2,),
    lambda: five[0],
    lambda: nothing[0],
    lambda: len(5),
    lambda: iter(7),
    lambda: nothing(),
    lambda: text(),
    lambda: -"s",
    lambda: ~1.5,
    lambda: {[1]: 2},
    lambda: {1, [2]},
    lambda: int([1]),
    lambda: float(None),
    lambda: sum(["a", "b"]),
    lambda: "a" * 2.5,
    lambda: abs("x"),
    lambda: sorted(5),
    lambda: "{} {}".format(1),
    lambda: "%d" % "x",
    lambda: ord("ab"),
    lambda: max(),
    lambda: list(1, 2),
    lambda: "abc".split(1),
    lambda: (1, 2) * (3,),
    lambda: 2 ** "x",
    lambda: [] < 1,
]
for i, case in enumerate(cases):
    try:
        case()
        print(i, "no error")
    except (TypeError, IndexError, ValueError) as e:
        print(i, type(e).__name__ + ":", e)
