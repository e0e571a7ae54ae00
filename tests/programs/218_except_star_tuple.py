# except* with a tuple of types: the group is split on the whole tuple.
def run(exc):
    try:
        raise exc
    except* (TypeError, ValueError) as g:
        print("tv", repr(g))
    except* KeyError as g:
        print("k", repr(g))

run(ExceptionGroup("eg", [TypeError("t"), ValueError("v"), KeyError("k")]))
run(ExceptionGroup("eg", [ValueError("v1"), ExceptionGroup("inner", [TypeError("t2"), KeyError("k2")])]))
run(TypeError("naked"))
try:
    run(ExceptionGroup("eg", [OSError("o")]))
except ExceptionGroup as e:
    print("left", repr(e))
try:
    try:
        raise ExceptionGroup("eg", [ValueError(1)])
    except* (ValueError,):
        raise KeyError("new")
except ExceptionGroup as e:
    print("new", repr(e.exceptions), repr(e.exceptions[0].__context__))
