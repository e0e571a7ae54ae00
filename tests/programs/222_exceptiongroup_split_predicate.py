# ExceptionGroup.split / subgroup with a function or a lambda as the predicate.
eg = ExceptionGroup("e", [ValueError(1), TypeError(2), ExceptionGroup("in", [ValueError(3), KeyError(4)])])
m, r = eg.split(lambda e: isinstance(e, ValueError))
print(repr(m))
print(repr(r))
def is_type_error(e):
    return isinstance(e, TypeError)
print(repr(eg.subgroup(is_type_error)))
print(repr(eg.subgroup(lambda e: False)))
print(eg.subgroup(lambda e: True) is eg)
m, r = eg.split(lambda e: isinstance(e, ExceptionGroup) and e.message == "in")
print(repr(m), repr(r))
calls = []
def spy(e):
    calls.append(type(e).__name__)
    return False
eg.split(spy)
print(calls)
print(repr(BaseExceptionGroup.split(eg, lambda e: isinstance(e, KeyError))))
try:
    eg.split(42)
except TypeError as e:
    print("TypeError", e)
