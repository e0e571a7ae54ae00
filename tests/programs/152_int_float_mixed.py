# Mixed int/float/complex arithmetic and comparisons.
print(7 / 2, 8 / 2, type(8 / 2).__name__, 7 // 2.0, 2 ** 3, 2 ** -2, 2.0 ** 3)
print(3 * 1.0, type(3 * 1.0).__name__, 1 + True, True * 2.5, type(True + True).__name__)
print(10 ** 16 + 1.0, 10 ** 16 + 1, 2 ** 53 + 1 == float(2 ** 53 + 1))
print(1 == 1.0 == True, 1.0 in [1], 0.5 < 1 < 1.5, 2 ** 63 > 9.2e18)
z = 3 + 4j
w = complex(1, -2)
print(z, w, z + w, z * w, z / w, abs(z), z.real, z.imag, z.conjugate())
print(z == 3 + 4j, complex("1+2j"), 1j * 1j, (1 + 1j) ** 2, -z)
print(pow(2, 0.5), pow(-8, 1 / 3), (-1) ** 0.5)
print(divmod(7.0, 2), divmod(-7, 2.0), 7 % 2.5, -7 % 2.5)
values = [3, 1.5, True, 2, -0.5]
print(sum(values), max(values), min(values), sorted(values))
print(round(5 / 3, 3), int("42") + float("0.5"), float(int(2.9)))
print(abs(-7), abs(-7.5), abs(True), -(-3), +(-3), -True)
try:
    (1 + 2j) < (2 + 1j)
except TypeError as e:
    print("TypeError:", e)
