# requires: 3.11
# except* splits an ExceptionGroup between handlers.
def raise_group():
    raise ExceptionGroup("batch failed", [
        ValueError("bad value 1"),
        TypeError("bad type"),
        ValueError("bad value 2"),
        KeyError("k"),
    ])


try:
    raise_group()
except* ValueError as eg:
    print("ValueErrors:", [str(e) for e in eg.exceptions], type(eg).__name__, eg.message)
except* TypeError as eg:
    print("TypeErrors:", repr(eg.exceptions))
except* LookupError as eg:
    print("LookupErrors:", [type(e).__name__ for e in eg.exceptions])

try:
    raise ValueError("naked")
except* ValueError as eg:
    print("naked exception wrapped:", type(eg).__name__, repr(eg.exceptions))

nested = ExceptionGroup("outer", [
    ValueError("v"),
    ExceptionGroup("inner", [TypeError("t"), ValueError("w")]),
])
try:
    raise nested
except* ValueError as eg:
    print("all ValueErrors, structure kept:", repr(eg))
except* TypeError as eg:
    print("TypeErrors:", repr(eg))

eg = ExceptionGroup("g", [ValueError(1), TypeError(2), ValueError(3)])
match, rest = eg.split(ValueError)
print(repr(match), repr(rest))
print(repr(eg.subgroup(TypeError)), str(eg), len(eg.exceptions))
print(isinstance(eg, Exception), issubclass(ExceptionGroup, BaseExceptionGroup))
try:
    ExceptionGroup("empty", [])
except ValueError as e:
    print("ValueError:", e)
