# isinstance and len at call sites the evaluator answers without calling them (exact classes,
# tuples of them, builtin values) next to the cases it must still call: classes with a
# metaclass that answers __instancecheck__, objects that claim another __class__, subclasses
# of builtins, nested tuples, tuples with a non-class, objects with __len__, and errors.
values = [0, True, 1.5, "s", b"b", None, [1], (1, 2), {"a": 1}, {3}, frozenset(), 2j]
kinds = [int, bool, float, str, bytes, type(None), list, tuple, dict, set, frozenset, complex]
for v in values:
    print([isinstance(v, k) for k in kinds], isinstance(v, (str, list)),
          isinstance(v, (int, (list, dict))), isinstance(v, ()), isinstance(v, object))
for v in values:
    try:
        print(len(v))
    except TypeError as e:
        print("TypeError", e)


class Meta(type):
    def __instancecheck__(cls, obj):
        print("instancecheck", type(obj).__name__)
        return obj == 42


class Answer(metaclass=Meta):
    pass


print(isinstance(42, Answer), isinstance(41, Answer), isinstance(42, (str, Answer)))


class Liar:
    @property
    def __class__(self):
        print("asked __class__")
        return str


class Plain:
    pass


liar = Liar()
print(isinstance(liar, str), isinstance(liar, (int, str)), isinstance(liar, Liar))
print(isinstance(Plain(), Plain), isinstance(Plain(), int), isinstance(Plain(), (int, object)))


class MyList(list):
    def __len__(self):
        print("MyList.__len__")
        return 7


class MyInt(int):
    pass


ml = MyList([1, 2])
print(len(ml), isinstance(ml, list), isinstance(ml, MyList), isinstance(MyInt(3), int))
print(isinstance(MyInt(3), MyInt), isinstance(3, MyInt), isinstance(True, MyInt))


class Sized:
    def __len__(self):
        return 3


print(len(Sized()), len(range(10)), len("é€"), len({}), len(set()))
for bad in [(1,), (int, 1), "int", int | str]:
    try:
        print(isinstance(5, bad))
    except TypeError as e:
        print("TypeError", e)
try:
    len(1, 2)
except TypeError as e:
    print("TypeError", e)
try:
    isinstance(5)
except TypeError as e:
    print("TypeError", e)
try:
    print(isinstance(5, int, str))
except TypeError as e:
    print("TypeError", e)
isinstance_ = isinstance
len_ = len
print(isinstance_(1, int), len_([1, 2, 3]), isinstance(x=1, y=int) if False else "kw")
try:
    print(isinstance(obj=1, class_or_tuple=int))
except TypeError as e:
    print("TypeError", e)


# list.append at warm call sites: exact lists, a subclass overriding append, the descriptor
# called explicitly, an object of another class with an append method, and errors.
class LoudList(list):
    def append(self, x):
        print("LoudList.append", x)
        super().append(x * 10)


class Bag:
    def __init__(self):
        self.items = []

    def append(self, x):
        self.items.append(x)


targets = [[], LoudList(), [], Bag()]
for i in range(6):
    for t in targets:
        t.append(i)
print(targets[0], targets[1], targets[2] == targets[0], targets[3].items)
plain = []
for i in range(3):
    list.append(plain, i)
print(plain)
try:
    list.append((), 1)
except TypeError as e:
    print("TypeError", e)
try:
    plain.append()
except TypeError as e:
    print("TypeError", e)
try:
    plain.append(1, 2)
except TypeError as e:
    print("TypeError", e)
