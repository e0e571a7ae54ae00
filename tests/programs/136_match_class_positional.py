# Class patterns with positional sub-patterns resolved via __match_args__.
class Point:
    __match_args__ = ("x", "y")

    def __init__(self, x, y):
        self.x = x
        self.y = y


class Circle:
    __match_args__ = ("center", "radius")

    def __init__(self, center, radius):
        self.center = center
        self.radius = radius


def describe(shape):
    match shape:
        case Point(0, 0):
            return "origin"
        case Point(x, 0):
            return f"point on x axis at {x}"
        case Point(x, y) if x == y:
            return f"diagonal point {x}"
        case Circle(Point(0, 0), r):
            return f"circle at origin r={r}"
        case Circle(Point(x, y), radius=r) if r > 10:
            return f"big circle at {x},{y}"
        case Circle(center, r):
            return f"circle r={r}"
        case _:
            return "unknown"


for s in [Point(0, 0), Point(5, 0), Point(2, 2), Point(1, 3), Circle(Point(0, 0), 1),
          Circle(Point(1, 1), 50), Circle(Point(1, 1), 2), "text"]:
    print(describe(s))


class NoArgs:
    pass


try:
    match NoArgs():
        case NoArgs(1):
            pass
except TypeError as e:
    print("TypeError:", e)
