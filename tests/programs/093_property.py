# Properties: computed attributes, validation in setters, deleters, read-only.
class Temperature:
    def __init__(self, celsius):
        self.celsius = celsius

    @property
    def celsius(self):
        return self._c

    @celsius.setter
    def celsius(self, value):
        if value < -273.15:
            raise ValueError(f"{value} is below absolute zero")
        self._c = value

    @celsius.deleter
    def celsius(self):
        print("deleting")
        del self._c

    @property
    def fahrenheit(self):
        return self._c * 9 / 5 + 32


t = Temperature(25)
print(t.celsius, t.fahrenheit)
t.celsius = 100
print(t.fahrenheit)
try:
    t.celsius = -300
except ValueError as e:
    print("ValueError:", e)
try:
    t.fahrenheit = 5
except AttributeError as e:
    print("AttributeError:", e)
del t.celsius
print(hasattr(t, "_c"))
try:
    t.celsius
except AttributeError as e:
    print("AttributeError:", e)


class Lazy:
    def __init__(self):
        self.computed = 0

    def _get(self):
        self.computed += 1
        return 42

    answer = property(_get, doc="The answer.")


z = Lazy()
print(z.answer, z.answer, z.computed, type(Lazy.answer).__name__)
