# Nested replacement fields inside format specs.
value = 3.14159265
for width, prec in [(10, 2), (8, 4), (12, 0)]:
    print(f"[{value:{width}.{prec}f}]")
align, fill = "^", "*"
print(f"[{'mid':{fill}{align}11}]")
print(f"[{42:{'>'}{8}}] [{42:0{6}d}] [{255:#{'x'}}]")
spec = ",.3f"
print(f"{1234567.891:{spec}}")
rows = [("apple", 1.5, 3), ("kiwi", 0.25, 12), ("watermelon", 3.0, 1)]
w = max(len(r[0]) for r in rows)
for name, price, qty in rows:
    print(f"{name:<{w}} | {price:>{6}.{2}f} | {qty:>{3}}")
sign = "+"
print(f"{5:{sign}} {-5:{sign}} {5: } {-0.0:+.1f}")
print(f"{'x' * 3:>{len('abcdef')}}")
print(f"{value:.{1 + 1}e} {value:.{3}g} {value:{'.2%'}}")
