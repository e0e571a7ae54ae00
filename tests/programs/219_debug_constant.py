# __debug__ is the constant True (no -O), readable everywhere, never a name lookup.
print(__debug__, type(__debug__).__name__)
def f():
    return __debug__
print(f(), [__debug__ for _ in range(2)], (lambda: __debug__)())
class K:
    flag = __debug__
print(K.flag)
if __debug__:
    print("debug branch")
assert __debug__
flag = __debug__ and 1
