# Bitwise operators on ints (including negatives), shifts and bit helpers.
a, b = 0b1100, 0b1010
print(a & b, a | b, a ^ b, ~a, a << 2, a >> 2)
print(bin(a & b), bin(a | b), bin(a ^ b), bin(~a))
print(-12 & 0xFF, -12 | 3, -12 ^ 5, -12 >> 1, -1 >> 10, -12 << 3)
print(~0, ~-1, ~255, 1 << 0, 5 >> 5)
flags = 0
READ, WRITE, EXEC = 1, 2, 4
flags |= READ | EXEC
print(flags, bool(flags & WRITE), bool(flags & EXEC), flags & ~READ)
print((255).bit_length(), (256).bit_length(), (0).bit_length(), (-255).bit_length())
print((0b1011).bit_count(), (-7).bit_count())
print(int("1011", 2), int("ff", 16), int("0x1f", 0), int("0o17", 0), int("z", 36))
print(f"{a:04b} {b:#06b}", format(a ^ b, "08b"))
mask = (1 << 8) - 1
print([(n >> 4) & 0xF for n in (0xAB, 0x12)], 0x1234 & mask, True & False, True | False, True ^ True)
print({1, 2, 3} & {2, 3}, {1} | {2}, {1, 2} ^ {2, 3})
try:
    1 << -1
except ValueError as e:
    print("ValueError:", e)
try:
    1.5 & 1
except TypeError as e:
    print("TypeError:", e)
