# Zero-argument super() in __init__, regular methods, class methods and properties.
class Shape:
    def __init__(self, name):
        self.name = name

    def area(self):
        return 0

    def describe(self):
        return f"{self.name} with area {self.area()}"

    @classmethod
    def create(cls):
        return f"created {cls.__name__}"

class Rect(Shape):
    def __init__(self, w, h):
        super().__init__("rect")
        self.w, self.h = w, h

    def area(self):
        return self.w * self.h

    def describe(self):
        return "[" + super().describe() + "]"

class Square(Rect):
    def __init__(self, side):
        super().__init__(side, side)
        self.name = "square"

    def describe(self):
        return super().describe().upper()

    @classmethod
    def create(cls):
        return super().create() + " via Square"

for s in [Shape("blob"), Rect(2, 3), Square(4)]:
    print(s.describe())
print(Square.create())

class Base:
    def greet(self):
        return "base"

class Mixin:
    def greet(self):
        return "mixin+" + super().greet()

class Final(Mixin, Base):
    def greet(self):
        return "final+" + super().greet()

print(Final().greet())
print(super(Final, Final()).greet())
