# requires: 3.12
# PEP 695 type parameters on functions and classes: an annotation scope
# between the definition and its enclosing scope, CPython's TypeVar objects,
# __type_params__, Generic[...] appended to a generic class's bases
def first[T](items: list[T]) -> T:
    return items[0]

print(first([3, 4]), first.__name__, first.__qualname__, first.__type_params__)
print(first.__annotations__)

def pair[K, V, *Ts](k: K, v: V = 7, *rest, tag: str = "t") -> tuple[K, V]:
    return (k, v, rest, tag)

print(pair(1), pair(1, 2, 3, tag="x"), [p.__name__ for p in pair.__type_params__])

def bounded[N: (int, float), S: str](n: N, s: S) -> S:
    return s * n

print(bounded(2, "ab"), [type(p).__name__ for p in bounded.__type_params__])

def with_paramspec[**P, R](f) -> R:
    return f

print(with_paramspec(len)("abc"), [type(p).__name__ for p in with_paramspec.__type_params__])

# the body sees the type parameters as free variables
def make[T]():
    def inner():
        return T
    return inner

tp = make()()
print(tp, tp.__name__, make.__type_params__[0] is tp, make().__qualname__)

# a recursive generic function reads the module's name, not the annotation scope's
def fact[N](n: N) -> N:
    return 1 if n <= 1 else n * fact(n - 1)

print(fact(6))

# defaults are evaluated in the enclosing scope, once, after the decorators
order = []
def deco(f):
    order.append("deco")
    return f

def default(v):
    order.append("default " + str(v))
    return v

@deco
def ordered[T](a: T = default(1), *, b=default(2)) -> T:
    return (a, b)

print(order, ordered(), ordered(5, b=6))

# generic classes
class Box[T]:
    "a box"
    kind = "box"

    def __init__(self, item: T):
        self.item = item

    def get(self) -> T:
        return self.item

    def map[U](self, f) -> "Box[U]":
        return Box(f(self.item))

b = Box(3).map(str)
print(b.get(), Box.__name__, Box.__qualname__, Box.__doc__, Box.kind)
print(Box.__type_params__, Box.__orig_bases__, [c.__name__ for c in Box.__mro__])
print(Box.map.__qualname__, Box.map.__type_params__, Box[int], list(Box.__dict__)[:4])

class Registry[K, V](dict):
    def put(self, k: K, v: V) -> None:
        self[k] = v

r = Registry()
r.put("a", 1)
print(r, [c.__name__ for c in Registry.__mro__], Registry.__orig_bases__)

class Meta(type):
    pass

class Keywords:
    def __init_subclass__(cls, **kw):
        cls.extra = kw

class WithMeta[T](Keywords, metaclass=Meta, flag=True):
    pass

print(type(WithMeta).__name__, WithMeta.extra, WithMeta.__type_params__)

class Base[T]:
    def hello(self):
        return "base"

class Child[T](Base[T]):
    def hello(self):
        return "child of " + super().hello()

print(Child().hello(), [c.__name__ for c in Child.__mro__])

def outer():
    class Local[T]:
        def m[U](self): pass
    return Local

L = outer()
print(L.__qualname__, L.m.__qualname__)

# the type parameters are not names of the enclosing scope
try:
    T
except NameError as e:
    print("NameError:", e)

# errors as CPython reports them
try:
    class Twice[T](Base[T], Base[T]):
        pass
except TypeError as e:
    print("TypeError:", e)
try:
    Box[int, str]
except TypeError as e:
    print("TypeError:", e)
# zero-argument super() and __class__ in a generic method, private names, closures
class Greeter:
    def hi(self): return "A"
class B(Greeter):
    def hi[T](self, x: T = 1) -> T:
        return "B>" + super().hi() + str(__class__.__name__)
    def __p[T](self): return 1
    def call(self): return self.__p()
print(B().hi(), B.hi.__qualname__, B().call(), [k for k in B.__dict__ if 'p' in k])
def outer():
    v = 10
    def g[T](x=v) -> list[T]:
        return x + v
    return g
print(outer()(), outer().__qualname__)
x = 5
def closure_default[T](a=x): return a
x = 6
print(closure_default())
def deco(f):
    return lambda *a: ("decorated", f(*a))
@deco
def fib2[N](n: N) -> N:
    return n if n < 2 else fib2(n - 1)[1] + 0
print(fib2(3))


names = [first.__name__, Box.__name__, Child.__name__]
