# Diamond inheritance: cooperative super() calls follow the MRO.
calls = []

class Base:
    def __init__(self):
        calls.append("Base")

    def who(self):
        return ["Base"]

class Left(Base):
    def __init__(self):
        calls.append("Left")
        super().__init__()

    def who(self):
        return ["Left"] + super().who()

class Right(Base):
    def __init__(self):
        calls.append("Right")
        super().__init__()

    def who(self):
        return ["Right"] + super().who()

class Bottom(Left, Right):
    def __init__(self):
        calls.append("Bottom")
        super().__init__()

    def who(self):
        return ["Bottom"] + super().who()

b = Bottom()
print(calls)
print(b.who())

class A:
    x = "A"

class B:
    x = "B"
    y = "B.y"

class C(A, B):
    pass

class D(B, A):
    pass

print(C.x, C.y, D.x)
print(isinstance(C(), B), issubclass(D, A))
try:
    class Bad(A, C):
        pass
except TypeError as e:
    print("TypeError:", e)
