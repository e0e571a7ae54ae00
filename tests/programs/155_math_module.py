# The math module: rounding, number theory, combinatorics, logs, trig, special values.
import math

print(math.floor(-2.5), math.ceil(-2.5), math.trunc(2.7), math.fabs(-3), math.copysign(2, -0.0))
print(math.gcd(48, 18, 30), math.lcm(4, 6, 10), math.isqrt(99), math.factorial(10))
print(math.comb(10, 3), math.perm(5, 2), math.perm(5), math.prod([1, 2, 3, 4]), math.prod([], start=5))
print(math.log(math.e), math.log(8, 2), math.log10(0.001), math.log2(1024), math.log1p(0))
print(math.sqrt(2), math.cbrt(27) if hasattr(math, "cbrt") else 3.0, math.exp(0), math.pow(2, 10))
print(round(math.sin(math.pi / 6), 10), math.cos(0), round(math.tan(math.pi / 4), 10), math.atan2(1, 1))
print(math.degrees(math.pi), math.radians(180), math.hypot(5, 12), math.dist((0, 0), (3, 4)))
print(math.isclose(0.1 + 0.2, 0.3), math.isclose(1, 1.1, rel_tol=0.2), math.fsum([0.1] * 10), sum([0.1] * 10))
print(math.isfinite(1e308), math.isinf(-math.inf), math.isnan(math.nan), math.inf > 10 ** 100)
print(math.modf(3.75), math.frexp(8.0), math.ldexp(0.5, 4), math.remainder(10, 3))
print(math.pi, math.tau, math.e)
for bad in [lambda: math.sqrt(-1), lambda: math.log(0), lambda: math.factorial(-1)]:
    try:
        bad()
    except ValueError as e:
        print("ValueError:", e)
