# IndexError and ZeroDivisionError messages from the built-in types.
cases = [
    lambda: [1][2],
    lambda: (1,)[-5],
    lambda: "abc"[10],
    lambda: [].pop(),
    lambda: [1].pop(4),
    lambda: range(3)[7],
    lambda: b"ab"[5],
    lambda: 1 / 0,
    lambda: 1 // 0,
    lambda: 1 % 0,
    lambda: 1.0 / 0,
    lambda: 2.5 // 0.0,
    lambda: 5.0 % 0,
    lambda: divmod(3, 0),
    lambda: 0 ** -1,
    lambda: [1, 2].index(5),
    lambda: "abc".index("z"),
    lambda: (1, 2).index(9),
]
for case in cases:
    try:
        print("ok", case())
    except (IndexError, ZeroDivisionError, ValueError) as e:
        print(type(e).__name__ + ":", e)

lst = [1, 2, 3]
lst[1:10] = []
print(lst, lst[5:], lst[-10:])
try:
    lst[4] = 0
except IndexError as e:
    print(e)
