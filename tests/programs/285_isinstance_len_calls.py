# Call sites written isinstance(obj, cls) and len(obj) once their gate has remembered the
# builtin (which 248_isinstance_len_fast.py's answers cover): the same site then given classes
# and objects the builtin must be called for, unions, wrong arguments; and the names bound to
# something else (locally, globally, then deleted again) at sites of those shapes.
class Meta(type):
    def __instancecheck__(cls, obj):
        print("instancecheck", type(obj).__name__)
        return obj == 7


class Special(metaclass=Meta):
    pass


class Disguised:
    @property
    def __class__(self):
        print("__class__ asked")
        return int


class Base:
    pass


class Child(Base):
    pass


def check(v, cls):
    return isinstance(v, cls)  # one site, warmed by the first calls


results = []
for i in range(30):
    results.append(check(i, int))
    results.append(check(Child(), (int, Base)))
print(sum(results), len(results))
for v, cls in [(7, Special), (8, Special), (Disguised(), int), (Disguised(), (str, float)),
               (3, int | str), ("s", (float, int | str)), (None, type(None) | int),
               (Child(), (str, (list, Base))), (1, ())]:
    print(check(v, cls))
for bad in (2, (int, 3), "str", [int]):
    try:
        check(1, bad)
    except TypeError as e:
        print("TypeError:", e)


def counted(n):
    total = 0
    for i in range(n):
        for v in (i, str(i), [i], Child(), None):
            if isinstance(v, (int, Base)):
                total += 1
    return total


def shadowed(v):
    isinstance = lambda a, b: "local " + type(a).__name__ + " " + b.__name__
    return isinstance(v, int)


print(counted(20), shadowed(3))
real = isinstance
isinstance = lambda a, b: "global"
print(isinstance(1, int), counted(2))
isinstance = real
print(isinstance(1, int), counted(2))
del isinstance
print(isinstance([], list), counted(3))


def size(v):
    return len(v)  # one site, warmed by the first calls


class Sized(list):
    def __len__(self):
        print("Sized.__len__")
        return 42


class Odd:
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n


print(sum(size([0] * i) for i in range(20)), size("abc"), size({1: 2}), size(range(7)))
for v in (Sized([1]), Odd(3), Odd(True), Odd(-1), Odd(1.5), Odd(2 ** 70), 5, (x for x in ()), None):
    try:
        print(size(v))
    except (TypeError, ValueError, OverflowError) as e:
        print(type(e).__name__ + ":", e)
len = lambda v: "global len"
print(size([1, 2]))
del len
print(size([1, 2]), len("four"))
