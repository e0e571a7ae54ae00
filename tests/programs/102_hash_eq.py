# __hash__ and __eq__ in sets and dicts; defining __eq__ alone makes a class unhashable.
class Point:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __eq__(self, other):
        return isinstance(other, Point) and (self.x, self.y) == (other.x, other.y)

    def __hash__(self):
        return hash((self.x, self.y))

    def __repr__(self):
        return f"P({self.x},{self.y})"

pts = {Point(1, 2), Point(1, 2), Point(2, 1)}
print(len(pts), Point(2, 1) in pts)
lookup = {Point(0, 0): "origin"}
print(lookup[Point(0, 0)], lookup.get(Point(9, 9), "?"))

class EqOnly:
    def __init__(self, v):
        self.v = v

    def __eq__(self, other):
        return self.v == other.v

try:
    {EqOnly(1)}
except TypeError as e:
    print("TypeError:", e)
try:
    hash(EqOnly(2))
except TypeError as e:
    print("TypeError:", e)

class Identity:
    pass

i1 = Identity()
print(len({i1, i1, Identity()}), i1 == i1, hash(i1) == hash(i1))

class ConstantHash:
    def __init__(self, tag):
        self.tag = tag

    def __hash__(self):
        return 7

    def __eq__(self, other):
        return self.tag == other.tag

bucket = {ConstantHash("a"): 1, ConstantHash("b"): 2, ConstantHash("a"): 3}
print(len(bucket), sorted(v for v in bucket.values()), hash(ConstantHash("z")))
print(hash(1) == hash(1.0), hash((1, 2)) == hash((1, 2)), {1: "int", 1.0: "float"})
