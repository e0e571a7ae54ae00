# requires: 3.11
# except* re-raise rules: naked exceptions, splits, bare raise, new exceptions
# raised in handlers, nested groups (CPython 3.11 PREP_RERAISE_STAR semantics).
def show(label, f):
    try:
        f()
    except BaseException as e:
        def fmt(x):
            if isinstance(x, BaseExceptionGroup):
                return f"{type(x).__name__}({x.message!r}, [{', '.join(fmt(y) for y in x.exceptions)}])"
            return f"{type(x).__name__}({x})"
        print(label, fmt(e))
    else:
        print(label, "no exception")

def t1():
    try:
        raise ValueError(1)
    except* TypeError:
        print("no")
def t2():
    try:
        raise ExceptionGroup("eg", [ValueError(1), TypeError(2)])
    except* TypeError:
        print("caught T")
def t3():
    try:
        raise ExceptionGroup("eg", [ValueError(1), TypeError(2)])
    except* TypeError:
        raise KeyError("new")
def t4():
    try:
        raise ExceptionGroup("eg", [ValueError(1), TypeError(2)])
    except* TypeError:
        raise
def t5():
    try:
        raise ValueError(1)
    except* ValueError:
        raise KeyError(5)
def t6():
    try:
        raise ValueError(1)
    except* ValueError as eg:
        print("naked wrapped", type(eg).__name__, repr(eg.message), eg.exceptions)
def t7():
    try:
        raise ExceptionGroup("eg", [ValueError(1), TypeError(2), ExceptionGroup("inner", [KeyError(3), ValueError(4)])])
    except* ValueError as eg:
        print("VE part", eg.exceptions)
    except* KeyError:
        raise
def t8():
    try:
        raise ValueError(1)
    except* ValueError:
        raise
for i, t in enumerate([t1,t2,t3,t4,t5,t6,t7,t8], 1):
    show(f"t{i}", t)
