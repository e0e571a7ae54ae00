# PEP 563: `from __future__ import annotations` makes every annotation its source text,
# evaluated eagerly; the statement needs no authorized import
from __future__ import annotations
def f(x: Undefined, *a: list[int]) -> 'Q': pass
class C:
    a: Nope = 1
    b: int
y: Missing = 3
print(f.__annotations__, C.__annotations__, type(annotations).__name__, annotations.compiler_flag, annotations.mandatory)
print(sorted(__annotations__.items()))


def g(a: dict[str, "X"] = None, *, b: "s" = 2) -> f(1) if 0 else None:
    pass


print(g.__annotations__)


class D:
    x: (1 + 2) * [3]
    def m(self) -> D: ...


print(D.__annotations__, D.m.__annotations__)
