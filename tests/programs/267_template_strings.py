# requires: 3.14
# PEP 750 template strings: CPython's Template and Interpolation objects
name = "World"
width = 8
t = t"Hello {name!r:>{width}} and {width + 1=}!"
print(type(t).__name__, t.strings, t.values)
for i in t.interpolations:
    print(type(i).__name__, repr(i.value), repr(i.expression), i.conversion, repr(i.format_spec))
print(list(t))
empty = t""
print(empty.strings, empty.interpolations, t"{1}{2}".strings)
both = t"a{name}" + t"b{width}"
print(both.strings, both.values)
print(t"{name}" == t"{name}", t"x".strings)

def render(tmpl):
    out = []
    for part in tmpl:
        if isinstance(part, str):
            out.append(part)
        else:
            value = part.value
            if part.conversion == "r":
                value = repr(value)
            out.append(format(value, part.format_spec))
    return "".join(out)

print(render(t))
print(render(t"{3.14159:.2f} and {'q'!r}"))
nested = t"{t'{name}'.values}"
print(nested.values)
try:
    t"{undefined_name}"
except NameError as e:
    print("NameError:", e)
try:
    t"x" + "y"
except TypeError as e:
    print("TypeError:", e)
text = render(t)
