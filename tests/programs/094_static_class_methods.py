# staticmethod and classmethod, including alternate constructors and subclasses.
class Date:
    def __init__(self, y, m, d):
        self.y, self.m, self.d = y, m, d

    @classmethod
    def from_string(cls, text):
        y, m, d = map(int, text.split("-"))
        return cls(y, m, d)

    @staticmethod
    def is_leap(year):
        return year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)

    def __repr__(self):
        return f"{type(self).__name__}({self.y}, {self.m}, {self.d})"


class BirthDate(Date):
    pass


print(Date.from_string("2024-03-05"))
print(BirthDate.from_string("1990-12-01"))
print(Date.is_leap(2000), Date.is_leap(1900), Date(1, 1, 1).is_leap(2024))
print(type(BirthDate.from_string("1-2-3")).__name__)


class Registry:
    items = []

    @classmethod
    def add(cls, item):
        cls.items.append(item)
        return len(cls.items)

    @staticmethod
    def normalize(s):
        return s.strip().lower()


print(Registry.add(Registry.normalize("  Foo ")), Registry().add("bar"), Registry.items)
sm = Registry.normalize
print(sm(" X "), callable(sm))
