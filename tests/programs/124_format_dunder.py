# __format__ gives objects their own format-spec mini-language.
class Temperature:
    def __init__(self, kelvin):
        self.kelvin = kelvin

    def __format__(self, spec):
        unit = spec[-1:] if spec[-1:] in ("C", "F", "K") else "K"
        number_spec = spec[:-1] if spec[-1:] in ("C", "F", "K") else spec
        value = {"K": self.kelvin, "C": self.kelvin - 273.15, "F": (self.kelvin - 273.15) * 9 / 5 + 32}[unit]
        return format(value, number_spec or ".1f") + unit

    def __str__(self):
        return f"{self:C}"


t = Temperature(300.0)
print(f"{t}", f"{t:C}", f"{t:.3F}", f"{t:>10.0K}", format(t, "C"), str(t))
print("{:.2C} / {:F}".format(t, t))
width = 12
print(f"[{t:{width}.2C}]")


class Plain:
    def __repr__(self):
        return "Plain()"


print(f"{Plain()}", format(Plain(), ""), f"{Plain()!r:>10}")
try:
    format(Plain(), "x")
except TypeError as e:
    print("TypeError:", e)
