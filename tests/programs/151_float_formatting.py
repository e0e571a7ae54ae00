# Float representation, rounding, special values and conversions.
print(0.1 + 0.2, 0.1 + 0.2 == 0.3, round(0.1 + 0.2, 10) == 0.3)
print(1 / 3, 2 / 3, 10 / 4, 1e16, 1e15, 1.5e-5, 123456789.123456789)
print(repr(1.0), str(100.0), 1e22, 1e21, 12345678901234567890.0)
print(round(2.5), round(3.5), round(-2.5), round(2.675, 2), round(1234.5678, -2), round(7, -1))
print(float("1.5"), float(" -2e3 "), float("inf"), float("-Infinity"), float("nan"))
inf = float("inf")
nan = float("nan")
print(inf + 1, inf - inf, inf * 0, -inf < 0 < inf, nan == nan, nan != nan)
print(-0.0, 0.0 == -0.0, str(-0.0), abs(-0.0), 1 / inf)
print(int(3.99), int(-3.99), float(7), 7 / 1, 2 ** -1, 2 ** 0.5, (-8) ** (1 / 3) if False else "skip")
print((0.5).as_integer_ratio(), (0.1).as_integer_ratio(), (2.0).is_integer(), (2.5).is_integer())
print(3.0 * 1.1, 1.1 * 1.1, 100 * 1.1, 0.1 * 3, 1 - 0.9)
print(sum([0.1] * 10), 1e308 * 10, 5e-324, 5e-324 / 2)
print(float.fromhex("0x1.8p1"), (3.5).hex(), max(1.5, 2), min(-0.0, 0.0))
try:
    int(float("nan"))
except ValueError as e:
    print("ValueError:", e)
try:
    int(inf)
except OverflowError as e:
    print("OverflowError:", e)
try:
    2.0 ** 10000
except OverflowError as e:
    print("OverflowError:", e)
