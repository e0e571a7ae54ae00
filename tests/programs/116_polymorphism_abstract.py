# Abstract-style base classes using NotImplementedError, and polymorphic dispatch.
class Shape:
    def area(self):
        raise NotImplementedError(f"{type(self).__name__} must implement area()")

    def describe(self):
        return f"{type(self).__name__} area={self.area():.2f}"


class Circle(Shape):
    def __init__(self, r):
        self.r = r

    def area(self):
        return 3.14159 * self.r ** 2


class Rect(Shape):
    def __init__(self, w, h):
        self.w, self.h = w, h

    def area(self):
        return self.w * self.h


class Blob(Shape):
    pass


for shape in [Circle(1), Rect(2, 3.5), Blob()]:
    try:
        print(shape.describe())
    except NotImplementedError as e:
        print("NotImplementedError:", e)

shapes = [Rect(1, 1), Circle(2), Rect(3, 1)]
print([type(s).__name__ for s in sorted(shapes, key=lambda s: s.area())])
print(round(sum(s.area() for s in shapes), 3))
print(isinstance(NotImplementedError(), RuntimeError), NotImplemented is not None)
