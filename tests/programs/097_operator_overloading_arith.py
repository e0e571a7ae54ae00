# Arithmetic operator overloading, reflected operators and NotImplemented.
class Vec:
    def __init__(self, x, y):
        self.x, self.y = x, y

    def __add__(self, other):
        if not isinstance(other, Vec):
            return NotImplemented
        return Vec(self.x + other.x, self.y + other.y)

    def __sub__(self, other):
        return Vec(self.x - other.x, self.y - other.y)

    def __mul__(self, k):
        if isinstance(k, (int, float)):
            return Vec(self.x * k, self.y * k)
        return NotImplemented

    def __rmul__(self, k):
        return self * k

    def __truediv__(self, k):
        return Vec(self.x / k, self.y / k)

    def __floordiv__(self, k):
        return Vec(self.x // k, self.y // k)

    def __mod__(self, k):
        return Vec(self.x % k, self.y % k)

    def __pow__(self, n):
        return Vec(self.x ** n, self.y ** n)

    def __neg__(self):
        return Vec(-self.x, -self.y)

    def __abs__(self):
        return (self.x ** 2 + self.y ** 2) ** 0.5

    def __eq__(self, other):
        return isinstance(other, Vec) and (self.x, self.y) == (other.x, other.y)

    def __repr__(self):
        return f"Vec({self.x}, {self.y})"


a, b = Vec(1, 2), Vec(3, 4)
print(a + b, a - b, a * 3, 3 * a, b / 2, b // 2, b % 3, a ** 2, -a, abs(b))
print(a == Vec(1, 2), a != b, a == "x")
try:
    a + 1
except TypeError as e:
    print("TypeError:", e)
try:
    "s" * a
except TypeError as e:
    print("TypeError:", e)
total = sum([a, b, Vec(5, 5)], Vec(0, 0))
print(total)
