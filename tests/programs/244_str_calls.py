# str() called with one argument (the evaluator calls PyObject_Str for it, as CPython's
# specialized call does): numbers, containers, objects with __str__ / __repr__ only, a __str__
# returning a str subclass, errors raised by __str__ or returned by it, and the other forms
# (no argument, encoding and errors, keywords, a str subclass called) that take the full call.
class OnlyRepr:
    def __repr__(self):
        return "OnlyRepr()"


class WithStr:
    def __init__(self, n):
        self.n = n

    def __str__(self):
        return "WithStr(%d)" % self.n


class Tag(str):
    pass


class ReturnsTag:
    def __str__(self):
        return Tag("tagged")


class Broken:
    def __str__(self):
        raise ValueError("no text")


class NotText:
    def __str__(self):
        return 42


values = [0, -7, 2 ** 70, 1.5, float("inf"), True, None, "s", b"b", (1, "a"), [1, [2]], {"k": 1},
          {3}, OnlyRepr(), WithStr(3), range(3), slice(1, 2)]
out = []
for v in values:
    for _ in range(3):  # the same call site, warm
        s = str(v)
    out.append(s)
print(out)
r = str(ReturnsTag())
print(r, type(r).__name__)
for bad in (Broken(), NotText()):
    try:
        str(bad)
    except (ValueError, TypeError) as e:
        print(type(e).__name__, e)
print(repr(str()), str(b"caf\xc3\xa9", "utf-8"), str(b"\xff", "ascii", "replace"),
      str(object=5), str(b"x", encoding="ascii"))
print(Tag(7), type(Tag(7)).__name__)
try:
    str(1, 2, 3, 4)
except TypeError as e:
    print("TypeError", e)
nested = []
for i in range(50):
    nested = [nested]
print(len(str(nested)))
fs = str
print(fs(12), [str(i) for i in range(5)], "".join(map(str, range(4))))
