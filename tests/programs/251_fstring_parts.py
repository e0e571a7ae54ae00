# How an f-string's parts become its value: one formatted value is that value as __format__
# returned it (a str subclass stays one), several are joined into a new exact str, and
# non-ASCII parts of different widths join into the widest kind.
class Tag(str):
    def __format__(self, spec):
        return Tag("<" + format(str(self), spec) + ">")


t = Tag("x")
one = f"{t}"
print(type(one).__name__, one)
print(type(f"{t:>3}").__name__, f"{t:>3}")
two = f"{t}{t}"
print(type(two).__name__, two)
print(type(f"a{t}").__name__, f"a{t}")
print(type(f"{'plain'}").__name__, type(f"").__name__, repr(f""))
wide = f"{chr(233)}|{chr(0x3B1)}|{chr(0x1F600)}|{'ascii'}"
print(len(wide), [hex(ord(c)) for c in wide])
print(f"{'':}{'':}" == "", f"{1}{2}{3}{4}{5}{6}{7}{8}{9}{10}{11}{12}{13}{14}{15}{16}{17}")
width = 7
print(f"{'x':>{width}}|{3.14159:.{width - 4}f}|{255:#{width}x}")


class Bad:
    def __format__(self, spec):
        return 5


try:
    f"a{Bad()}"
except TypeError as e:
    print("TypeError", e)
try:
    f"{Bad()}"
except TypeError as e:
    print("TypeError", e)
