# Arbitrary-precision integers: powers, factorials, conversions, bit operations.
import math

big = 2 ** 200
print(big)
print(big + 1, big - 3 ** 100, big * big // (2 ** 300))
print(math.factorial(40), len(str(math.factorial(100))))
print(int("123456789012345678901234567890") * 3)
print(hex(2 ** 100), bin(2 ** 70)[:12], oct(8 ** 30))
print((2 ** 100).bit_length(), (2 ** 100 - 1).bit_count(), (-2 ** 65).bit_length())
print(pow(3, 1000, 10 ** 9 + 7), pow(2, -1, 97), pow(10, 30) % 97)
print(-big >> 190, big >> 195, 1 << 100, (big | 1) & 0xFF, big ^ (big - 1))
print(int.from_bytes(b"\x01\x00\x00", "big"), (1024).to_bytes(4, "little"), (2 ** 64).to_bytes(9, "big"))
print(math.isqrt(10 ** 40 + 12345), math.gcd(2 ** 100, 6 ** 50), math.lcm(2 ** 10, 3 ** 5))
print(abs(-big) == big, -big < big, big == float(big), 2 ** 1000 > 1e300)
print(int(1e22), int(-1.9e19), float(2 ** 80))
print(sum(range(10 ** 6)), 10 ** 18 * 10 ** 18)
fib = [0, 1]
while len(fib) < 150:
    fib.append(fib[-1] + fib[-2])
print(fib[-1], fib[-1] % 1000000)
