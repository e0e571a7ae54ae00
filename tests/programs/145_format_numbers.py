# Format specs for numbers: grouping, bases, signs, alignment, precision, percent.
n = 1234567
f = -9876.54321
print(f"{n:,} {n:_} {n:_x} {n:,d} {n:e} {n:.2e}")
print(f"{255:b} {255:o} {255:x} {255:X} {255:#b} {255:#o} {255:#x} {255:08b}")
print(f"{f:.2f} {f:10.1f}| {f:<12.3f}| {f:^14,.2f}| {f:+.0f}")
print(f"{0.1234:.1%} {1:%} {2/3:.3} {2/3:.3g} {1e-7:g} {1e20:g} {123456789.0:g}")
print(f"{3:03d} {-3:03d} {3:+d} {3: d} {-3: d} {3:=+5d} {3:x<4} {3:x>4} {3:x^5}")
print(f"{12.0:.0f} {0.5:.0f} {1.5:.0f} {2.5:.0f} {-0.5:.0f}")
print(f"{1/3:.15f} {1/3!r} {2**0.5:.17g} {1e16:.0f}")
print(format(1234.5, ",.2f"), format(0.000123, ".2e"), format(42, "c"), format(10, "n"))
print("{:>8.3f}|{:<8d}|{:^8s}|".format(2.71828, 42, "mid"))
print(f"{float('inf'):f} {float('-inf'):.2f} {float('nan'):F} {1e300 * 1e10:e}")
print(f"{True:d} {True} {False:>6}")
print(f"{123.456:z.1f} {-0.01:z.1f} {-0.01:.1f}")
print(f"{12345.6789:,.2f} {-1234:,} {1234567.0:_.1f}")
