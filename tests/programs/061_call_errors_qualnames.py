# Call error messages name methods, nested functions and lambdas by qualified name.
class Shape:
    def area(self, scale):
        return scale

    @classmethod
    def make(cls, size):
        return cls()

    @staticmethod
    def helper(x, y):
        return x + y


def outer():
    def inner(needed):
        return needed
    return inner


square = lambda side: side * side
s = Shape()
attempts = [
    lambda: s.area(),
    lambda: s.area(1, 2),
    lambda: Shape.area(),
    lambda: Shape.make(),
    lambda: Shape.helper(1),
    lambda: outer()(),
    lambda: square(),
    lambda: square(1, 2),
    lambda: Shape(1),
    lambda: s.area(scale=1, extra=2),
]
for attempt in attempts:
    try:
        attempt()
        print("ok")
    except TypeError as e:
        print(e)

print(Shape.area.__name__, outer().__name__, square.__name__)
