# AttributeError messages for built-in values, user instances, classes and modules.
import math


class Widget:
    size = 3

    def __init__(self):
        self.name = "w"


w = Widget()
cases = [
    lambda: (5).foo,
    lambda: "text".nope,
    lambda: None.get,
    lambda: [1].push,
    lambda: {}.has_key,
    lambda: w.colour,
    lambda: Widget.missing,
    lambda: math.tau2,
    lambda: (1.5).numerator,
    lambda: True.nothing,
]
for case in cases:
    try:
        case()
    except AttributeError as e:
        print("AttributeError:", e)

try:
    w.size = 10
    w.size2 = 1
    print(w.size, Widget.size, w.size2)
    (5).real = 3
except AttributeError as e:
    print("AttributeError:", e)

try:
    "abc".upper = None
except AttributeError as e:
    print("AttributeError:", e)

print(getattr(w, "colour", "default"), hasattr(w, "name"), hasattr(None, "x"))
