# __slots__ restricts the attributes instances may have.
class Pixel:
    __slots__ = ("x", "y", "color")

    def __init__(self, x, y, color="black"):
        self.x = x
        self.y = y
        self.color = color

    def describe(self):
        return f"({self.x}, {self.y}) {self.color}"


p = Pixel(1, 2)
print(p.describe())
p.color = "red"
print(p.describe())
try:
    p.alpha = 0.5
except AttributeError as e:
    print("AttributeError:", e)


class Partial:
    __slots__ = ("a", "b")


q = Partial()
q.a = 1
try:
    q.b
except AttributeError as e:
    print("AttributeError:", e)
print(hasattr(q, "a"), hasattr(q, "b"))
del q.a
print(hasattr(q, "a"))


class Extended(Pixel):
    pass


e = Extended(0, 0)
e.note = "subclass without slots gets a dict"
print(e.note, e.describe())
