# Value patterns use dotted names and compare with ==.
class Color:
    RED = "red"
    GREEN = "green"
    BLUE = "blue"


class Limits:
    class HTTP:
        OK = 200
        NOT_FOUND = 404


def paint(c):
    match c:
        case Color.RED:
            return "stop"
        case Color.GREEN:
            return "go"
        case Color.BLUE | "cyan":
            return "cool"
        case _:
            return "unknown colour"


print([paint(c) for c in ["red", "green", "blue", "cyan", "pink"]])

for status in [200, 404, 500]:
    match status:
        case Limits.HTTP.OK:
            print(status, "fine")
        case Limits.HTTP.NOT_FOUND:
            print(status, "missing")
        case other:
            print(status, "unexpected", other)

import math
match 3.141592653589793:
    case math.pi:
        print("matched math.pi")
