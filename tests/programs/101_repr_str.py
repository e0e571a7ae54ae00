# __repr__ versus __str__, and which one str(), repr(), print, f-strings and containers use.
class Money:
    def __init__(self, cents):
        self.cents = cents

    def __repr__(self):
        return f"Money({self.cents})"

    def __str__(self):
        return f"${self.cents / 100:.2f}"


class OnlyRepr:
    def __repr__(self):
        return "<OnlyRepr>"


m = Money(1234)
print(m)
print(str(m), repr(m))
print(f"{m} {m!r} {m!s}")
print([m, Money(5)])
print({"price": m})
print((m,))
print(OnlyRepr(), str(OnlyRepr()), [OnlyRepr()])
print("%s and %r" % (m, m))
print("{} and {!r}".format(m, m))


class BadStr:
    def __str__(self):
        return 42


try:
    str(BadStr())
except TypeError as e:
    print("TypeError:", e)

text = str(m) + " total"
print(text, len(repr(m)))
