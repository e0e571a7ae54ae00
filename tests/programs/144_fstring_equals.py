# The = specifier in f-strings echoes the expression text.
x = 10
name = "ann"
items = [1, 2]
print(f"{x=}")
print(f"{x = }")
print(f"{x*2=}")
print(f"{name=}")
print(f"{name=!s}")
print(f"{x=:>5}")
print(f"{3.14159=:.2f}")
print(f"{items[0]=}, {len(items)=}")
print(f"{x + 1 = }|{name.upper()=!r}")
d = {"k": "v"}
print(f"{d['k']=}")
print(f"{(lambda: 5)()=}")
