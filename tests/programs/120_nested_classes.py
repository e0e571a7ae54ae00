# Classes nested in classes and in functions (closing over function locals).
class Outer:
    class Inner:
        value = 1

        def show(self):
            return "inner"

    def make_inner(self):
        return self.Inner()


o = Outer()
print(o.make_inner().show(), Outer.Inner.value, type(o.make_inner()).__name__)


def make_class(prefix):
    counter = [0]

    class Generated:
        def label(self):
            counter[0] += 1
            return f"{prefix}-{counter[0]}"

    return Generated


A = make_class("a")
B = make_class("b")
a1, a2, b1 = A(), A(), B()
print(a1.label(), a2.label(), b1.label(), a1.label())
print(A is B, A.__name__)


def build_enum(*names):
    class Enum:
        pass
    for i, n in enumerate(names):
        setattr(Enum, n, i)
    return Enum


Color = build_enum("RED", "GREEN")
print(Color.RED, Color.GREEN)
