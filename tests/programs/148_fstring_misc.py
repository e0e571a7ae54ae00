# Miscellaneous f-string features: braces, quotes, multi-line, expressions, nesting.
x, y = 3, 4
print(f"{{x}} is {x}, {{{y}}}")
print(f'{"double" + " inside single"}', f"{'single' + ' inside double'}")
print(f"""triple {x
    + y} quoted""")
print(f"{x if x > y else y} {[i * 2 for i in range(x)]} {dict(a=x)}")
print(f"{f'{x}' * 2} {f'{y:>{x}}'}")
print(f"sum={sum([x, y])} max={max(x, y)} str={str(x) * 2}")
print(f"{x}" f"{y}" "plain" f"{x + y}")
items = {"a": [1, 2]}
print(f"{items['a'][1]} {items.get('b', 'none')}")
print(f"{'':>0}|{'':-^6}|")
multi = (
    f"line one {x}\n"
    f"line two {y}"
)
print(multi)
print(f"{x:}", f"{y!s:}", f"{(x, y)}", f"{x,}")
print(f"{3.0:g}{'%'}", f"{-x}", f"{not x}", f"{x < y}", f"{x or y}")
