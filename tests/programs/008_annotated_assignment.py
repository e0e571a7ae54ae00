# Annotated assignments: module-level annotations are evaluated, the target
# is only bound when a value is given; in function bodies annotations of
# local names are not evaluated at all.
def note(label):
    print("annotation evaluated:", label)
    return int


count: note("count") = 3
print(count)

pending: note("pending")
try:
    print(pending)
except NameError as e:
    print("NameError:", e)

ratio: float = 0.5
names: list[str] = ["a", "b"]
mapping: dict[str, int] = {"x": 1}
print(ratio, names, mapping)


def inside():
    local_value: ThisNameDoesNotExist = 10
    other: AlsoMissing
    return local_value * 2


print(inside())


class Point:
    x: int
    y: int = 0

    def __init__(self, x):
        self.x: int = x


pt = Point(4)
print(pt.x, pt.y, hasattr(Point, "x"), hasattr(Point, "y"))

store = {}
store["k"]: int = 5
print(store)
