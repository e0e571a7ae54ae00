# Mapping patterns: required keys, extra keys ignored, **rest, nested values.
def handle(event):
    match event:
        case {"type": "click", "pos": (x, y)}:
            return f"click at {x},{y}"
        case {"type": "key", "key": str(k), **rest}:
            return f"key {k} with extras {rest}"
        case {"type": "scroll", "delta": int() | float() as d} if d != 0:
            return f"scroll {d}"
        case {"type": t}:
            return f"unhandled {t}"
        case {}:
            return "mapping without type"
        case _:
            return "not a mapping"


events = [
    {"type": "click", "pos": (3, 4), "button": 1},
    {"type": "key", "key": "q", "shift": True, "ctrl": False},
    {"type": "scroll", "delta": -2.5},
    {"type": "scroll", "delta": 0},
    {"name": "x"},
    ["type", "click"],
]
for e in events:
    print(handle(e))

from collections import defaultdict
dd = defaultdict(int)
match dd:
    case {"missing": _}:
        print("matched missing key?")
    case _:
        print("mapping pattern does not trigger __missing__", dict(dd))
