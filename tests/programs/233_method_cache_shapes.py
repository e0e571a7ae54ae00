# Method calls at one call site whose answer changes under it: instance attributes that shadow
# a method appear and go, the classes' methods are replaced, and
# classes with their own __getattr__ / __getattribute__, slots, properties, static and class
# methods pass through the same site (the evaluator's unbound-method path must give exactly
# what CPython's attribute lookup gives each time).
class A:
    def m(self):
        return ("A.m", type(self).__name__)


class B(A):
    def m(self):
        return ("B.m", super().m())


class G:
    def __getattr__(self, k):
        return lambda: ("getattr", k)


class H:
    def __getattribute__(self, k):
        return lambda: ("getattribute", k)

    def m(self):
        return "H.m"


class S:
    __slots__ = ("x",)

    def m(self):
        return "S.m"


class P:
    @property
    def m(self):
        return lambda: "P.m property"


class ST:
    @staticmethod
    def m():
        return "ST.m static"


class CM:
    @classmethod
    def m(cls):
        return ("CM.m", cls.__name__)


a = A()
objs = [a, B(), a, G(), H(), S(), P(), ST(), CM(), a]
out = []
for step in range(4):
    if step == 1:
        a.m = lambda: "instance attribute"
    if step == 2:
        del a.m
        A.m = lambda self: ("A.m replaced", type(self).__name__)
    if step == 3:
        B.m = A.m
    for o in objs:
        out.append(o.m())
bound = a.m
print(type(bound).__name__, bound())
for row in out:
    print(row)
