# Rich comparisons: __lt__/__le__/__eq__..., reflection, sorting, max/min.
class Version:
    def __init__(self, text):
        self.parts = tuple(int(p) for p in text.split("."))
        self.text = text

    def __eq__(self, other):
        if not isinstance(other, Version):
            return NotImplemented
        return self.parts == other.parts

    def __lt__(self, other):
        return self.parts < other.parts

    def __le__(self, other):
        return self.parts <= other.parts

    def __hash__(self):
        return hash(self.parts)

    def __repr__(self):
        return f"v{self.text}"


vs = [Version(t) for t in ["1.10.0", "1.2.3", "1.2.10", "0.9"]]
print(sorted(vs), max(vs), min(vs))
a, b = Version("1.0"), Version("2.0")
print(a < b, a <= b, a > b, a >= b, b > a)
print(a == Version("1.0"), a != Version("1.0"), a == "1.0", a != "1.0")
print(len({Version("1.0"), Version("1.0"), Version("1.1")}))


class OnlyEq:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        print("OnlyEq.__eq__ called")
        return self.v == getattr(other, "v", other)


print(OnlyEq(3) == 3, 3 == OnlyEq(3), OnlyEq(1) != OnlyEq(2))
try:
    OnlyEq(1) < OnlyEq(2)
except TypeError as e:
    print("TypeError:", e)
