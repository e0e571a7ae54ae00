# Numeric built-ins: abs, round, min/max, sum, divmod, pow, int() parsing, chr/ord.
print(abs(-5), abs(3.2), round(3.14159, 3), round(1.5), round(-1.5), round(0.5))
print(min(3, 1, 2), max([4, 9, 2]), min("bca"), max([], default="empty"), min([(2, "b"), (1, "z")]))
print(max(["aa", "b", "ccc"], key=len), min({"x": 5, "y": 2}, key={"x": 5, "y": 2}.get))
print(sum([1, 2, 3]), sum([1, 2], 10), sum([[1], [2]], []), sum([0.1, 0.2, 0.3]))
print(divmod(17, 5), pow(2, 10), pow(2, 10, 1000), pow(2.0, 3))
print(int("  42  "), int("-0017"), int("1_000"), int("101", 2), int(3.9), int(True))
print(chr(65), chr(0x1F600) == "\U0001F600", ord("a"), ord("€"), [chr(c) for c in range(97, 102)])
print(hex(255), oct(8), bin(5), hex(-42), bool(0), bool(-1), bool(0.0))
print(float("3.5e2"), str(3.5e2), int(float("1e3")), complex(2))
for bad in ["abc", "1.5", "", "0x10"]:
    try:
        int(bad)
    except ValueError as e:
        print("ValueError:", e)
try:
    float("one")
except ValueError as e:
    print("ValueError:", e)
try:
    chr(-1)
except ValueError as e:
    print("ValueError:", e)
