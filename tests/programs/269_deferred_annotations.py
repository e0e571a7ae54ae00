# requires: 3.14
# PEP 649 / 749: annotations are evaluated when they are read, in their own scope
def f(x: Undefined, y: int = 1) -> "Later":
    return x

print("defined", f(2))
try:
    f.__annotations__
except NameError as e:
    print("NameError", e)
Undefined = list[int]
print(f.__annotations__)
print(f.__annotations__ is f.__annotations__)


class Node:
    value: int
    next: Node | None = None
    T = str
    label: T
    __secret: bytes

    def link(self, other: Node, kind: T = "x") -> T:
        return kind


print(Node.__annotations__)
print(Node.link.__annotations__)
Node.T = bytes
print(Node.__annotations__["label"], Node.link.__annotations__["return"])


def outer():
    A = int

    def inner(a: A, b: B) -> A:
        pass

    A = float
    B = complex
    return inner


print(outer().__annotations__)


def counted():
    calls = []

    def side(v):
        calls.append(v)
        return v

    def g(a: side("a"), *args: side("args"), k: side("k"), **kw: side("kw")) -> side("r"):
        pass

    print("after def", calls)
    print(list(g.__annotations__), calls)
    g.__annotations__
    print("cached", calls)


counted()


class Outer:
    X = 1

    class Inner:
        y: X if "X" in dir() else int

    def m(self, v: X): ...


print(Outer.Inner.__annotations__, Outer.m.__annotations__)


class Cond:
    a: int
    if False:
        b: str
    for i in range(2):
        c: float


print(sorted(Cond.__annotations__))
y: Missing = 5
print("module", y)


def local_annotations():
    z: AlsoMissing = 3
    return z


print(local_annotations())
lam = lambda q: q
print(lam.__annotations__)
try:
    class Bad:
        a: int
        b: 1 / 0
    Bad.__annotations__
except ZeroDivisionError as e:
    print("ZeroDivisionError", e)
