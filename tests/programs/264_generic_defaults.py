# requires: 3.13
# PEP 696 defaults of the type parameters of generic functions and classes
def pick[T = int, *Ts = *tuple[str, ...], **P = [int]](x: T) -> T:
    return x

print(pick(3), pick.__type_params__, [p.__name__ for p in pick.__type_params__])

class Pair[K, V = list[K]]:
    def __init__(self, k: K, v: V):
        self.k, self.v = k, v

print(Pair(1, [2]).v, Pair.__type_params__, Pair[int], Pair[int, str])

class Late[T = Undefined_until_asked]:
    pass

print("defined:", Late.__name__, Late.__type_params__)
try:
    Pair[int, str, bytes]
except TypeError as e:
    print("TypeError:", e)
