# requires: 3.13
# PEP 696 type-parameter defaults on `type` statements (3.13)
type WithDefault[T = int] = list[T]
print(WithDefault, WithDefault[str])

type Several[K, V = str, *Rest = *tuple[int, ...]] = dict[K, V]
print(Several[bytes], Several[bytes, float])

type Lazy[T = Undefined_until_asked] = set[T]
print("defined:", Lazy.__name__)

try:
    WithDefault[int, str]
except TypeError as e:
    print("TypeError:", e)
print([a.__name__ for a in (WithDefault, Several, Lazy)])
