# requires: 3.13
# 3.13 class attributes: __firstlineno__ (the first decorator's line) and
# __static_attributes__ (names assigned as self.<name> anywhere in the class)
def keep(c):
    return c

@keep
class A:
    def __init__(self, x):
        self.x = x
        self.y: int = 1
        pass
        def inner():
            self.q = 1
        other = self
        other.nope = 1
    def m(this):
        this.w = 1
        self.s = 2
    @staticmethod
    def st():
        self.t = 3
    def g(self):
        (a, self.tup) = (1, 2)
        self.aug += 0 if hasattr(self, "aug") else 0
        del self.d
        print(self.load)
    class B:
        def f(self): self.b = 1
    lam = lambda: setattr
print(A.__firstlineno__, A.__static_attributes__, A.B.__static_attributes__, list(A.__dict__))

class Plain:
    pass

class Generic[T]:
    def __init__(self, v: T):
        self.v = v

print(Plain.__firstlineno__, Plain.__static_attributes__, Generic.__firstlineno__,
      Generic.__static_attributes__, list(Generic.__dict__)[:3])
