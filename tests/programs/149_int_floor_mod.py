# Floor division and modulo with negative operands follow the floor convention.
import math

pairs = [(7, 2), (-7, 2), (7, -2), (-7, -2), (0, 3), (1, -5), (-1, 5)]
for a, b in pairs:
    print(f"{a:>3} // {b:>2} = {a // b:>3}   {a:>3} % {b:>2} = {a % b:>3}   divmod = {divmod(a, b)}")
for a, b in [(7.5, 2), (-7.5, 2), (7.5, -2), (-0.0, 1), (5, 0.3)]:
    print(a, b, a // b, a % b, divmod(a, b), math.fmod(a, b))
print(-7 / 2, int(-7 / 2), math.trunc(-3.5), math.floor(-3.5), math.ceil(-3.5), round(-3.5))
print((-7) % 3 == 3 - (7 % 3), -(7 // 2), -7 // 2)
print(10 ** 20 // 7, 10 ** 20 % 7, -(10 ** 20) // 7, (-(10 ** 20)) % 7)
print(divmod(-(2 ** 70), 3), (2 ** 64) // -1, 17 // 1.0, 0 // -3)
hours, minutes = divmod(135, 60)
print(f"{hours}h{minutes:02d}m")
print([i % 3 for i in range(-4, 5)], [i // 3 for i in range(-4, 5)])
