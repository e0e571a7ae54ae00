# requires: 3.12
# PEP 695 `type` statements: CPython's TypeAliasType, its value evaluated
# lazily (a name defined later, or never, is fine at definition time)
type Number = int | float
print(Number, type(Number).__name__, Number.__name__)

type Pair[T] = tuple[T, T]
print(Pair[int], Pair[str] == Pair[str])

type Forward = list[Defined_later]
print("forward ok:", Forward)

type Constrained[T: (int, str), U: float, *Ts, **P] = dict[T, U]
print(Constrained[int, float, str, [bytes]])

def make(n):
    local = n * 2
    type Inner = list[local]
    return Inner

inner = make(3)
print(inner, inner.__name__)

class Box:
    type Item = str
    label = Item.__name__

print(Box.Item, Box.label)

# `type` stays an ordinary name elsewhere (soft keyword)
type = "shadowed"
print(type)
del type
print(type(3).__name__)

# errors as CPython reports them
try:
    Pair[int, str]
except TypeError as e:
    print("TypeError:", e)
try:
    Number[int]
except TypeError as e:
    print("TypeError:", e)

names = [a.__name__ for a in (Number, Pair, Forward, inner)]
print(names)
