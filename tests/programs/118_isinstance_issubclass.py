# isinstance/issubclass with tuples, builtins, bool-is-int, and type() comparisons.
values = [1, True, 2.0, "s", b"b", None, [1], (1,), {1}, {"a": 1}, range(2), 3j]
for v in values:
    kinds = [t.__name__ for t in (int, float, str, bytes, list, tuple, set, dict, bool, complex) if isinstance(v, t)]
    print(repr(v), kinds, type(v).__name__)

print(isinstance(True, int), type(True) is int, type(True) == bool)
print(isinstance(3, (str, (float, int))), isinstance("x", ()))
print(issubclass(bool, int), issubclass(int, (str, object)), issubclass(dict, object))
try:
    isinstance(3, "int")
except TypeError as e:
    print("TypeError:", e)
try:
    issubclass(3, int)
except TypeError as e:
    print("TypeError:", e)


class A:
    pass


class B(A):
    pass


print(isinstance(B(), A), type(B()) is A, issubclass(B, (int, A)))
print(isinstance(A, type), isinstance(int, type), isinstance(type, type), isinstance(A(), object))
