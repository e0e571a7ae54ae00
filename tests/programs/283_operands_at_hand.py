# Comparisons and arithmetic whose operands are a constant or a local (the evaluator takes
# them without evaluating anything): every type and outcome against CPython, including the
# ones that run the program's own methods, raise, or read an unbound local.
class Loud:
    def __init__(self, v):
        self.v = v

    def __lt__(self, other):
        print("lt", self.v, other)
        return "yes" if self.v < other else ""

    def __gt__(self, other):
        print("gt", self.v, other)
        return NotImplemented

    def __add__(self, other):
        print("add", self.v, other)
        return Loud(self.v + other)

    def __radd__(self, other):
        print("radd", self.v, other)
        return Loud(other + self.v)

    def __repr__(self):
        return f"Loud({self.v})"


def compare_all(a, b):
    out = []
    out.append(a < b)
    out.append(a <= b)
    out.append(a == b)
    out.append(a != b)
    out.append(a > b)
    out.append(a >= b)
    if a < b:
        out.append("lt-branch")
    while a > b:
        out.append("gt-loop")
        break
    return out


def arith_all(a, b):
    out = []
    for name in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "and", "lshift"):
        try:
            if name == "add":
                out.append(a + b)
            elif name == "sub":
                out.append(a - b)
            elif name == "mul":
                out.append(a * b)
            elif name == "truediv":
                out.append(a / b)
            elif name == "floordiv":
                out.append(a // b)
            elif name == "mod":
                out.append(a % b)
            elif name == "pow":
                out.append(a ** b)
            elif name == "and":
                out.append(a & b)
            else:
                # a shift past the sandbox's size limit is a limit, not a semantic
                out.append(a << (b if type(b) is not int or b < 64 else 64))
        except Exception as e:  # noqa: BLE001
            out.append(f"{type(e).__name__}: {e}")
    return out


pairs = [
    (1, 2), (2, 1), (-3, 3), (0, 0), (2**40, 3), (2**70, -(2**70)), (-(2**70), 3), (1, 2.5), (2.5, 1),
    (float("nan"), 1), (0.1, 0.1), (True, 2), (7, 0), (7.0, 0), (3, -2), ("ab", "b"),
    ("a", 1), (None, None), ([1], [1, 0]), (1, 10**400),
]
for a, b in pairs:
    try:
        print(repr(a)[:30], repr(b)[:30], compare_all(a, b))
    except TypeError as e:
        print("TypeError:", e)
    print(repr(a)[:30], repr(b)[:30], [repr(v)[:40] for v in arith_all(a, b)])


def with_constants(n):
    out = []
    if n < 2:
        out.append("small")
    if n >= 2.5:
        out.append("big")
    out.append(n - 1)
    out.append(n * 3)
    out.append(n / 4)
    out.append(2 - n)
    return out


for n in (0, 1, 2, 3, -5, 2.5, 10**20):
    print(n, with_constants(n))

loud = Loud(4)


def loud_ops(o):
    if o < 5:
        print("truthy")
    try:
        if o > 5:
            print("never")
    except TypeError as e:
        print("TypeError:", e)
    r = o + 1
    s = 1 + o
    return r, s


print(loud_ops(loud))


def unbound(flag):
    if flag:
        v = 1
    if v < 3:
        return v + 1
    return -1


try:
    print(unbound(True), unbound(False))
except UnboundLocalError as e:
    print("UnboundLocalError:", e)


def unbound_arith(flag):
    if flag:
        w = 2
    return w * 2


try:
    print(unbound_arith(True), unbound_arith(False))
except UnboundLocalError as e:
    print("UnboundLocalError:", e)


def fib(n):
    if n < 2:
        return n
    return fib(n - 1) + fib(n - 2)


print([fib(i) for i in range(15)])
