# Unary operators and numeric conversions defined by user classes.
class Num:
    def __init__(self, v):
        self.v = v

    def __neg__(self):
        return Num(-self.v)

    def __pos__(self):
        return Num(abs(self.v))

    def __invert__(self):
        return Num(~int(self.v))

    def __abs__(self):
        return abs(self.v)

    def __int__(self):
        return int(self.v)

    def __float__(self):
        return float(self.v)

    def __index__(self):
        return int(self.v)

    def __round__(self, ndigits=None):
        return Num(round(self.v, ndigits))

    def __repr__(self):
        return f"Num({self.v})"


n = Num(-7.25)
print(-n, +n, ~Num(5), abs(n), int(n), float(Num(3)))
print(round(Num(2.675), 2), round(Num(3.5)), round(Num(4.5)))
i = Num(3)
print(bin(i), hex(i), oct(i), [10, 20, 30, 40][i], "abcdef"[Num(1):Num(4)])
print(list(range(Num(4))), [0] * Num(2), (double_neg := -(-Num(1))))


class Bare:
    pass


for op in (lambda x: -x, lambda x: ~x, abs, int):
    try:
        op(Bare())
    except TypeError as e:
        print("TypeError:", e)
