# An exception thrown into a generator suspended inside an exception handler has the handled exception as its __context__
def f():
    try:
        raise KeyError('a')
    except Exception:
        yield 1
g = f(); next(g)
try:
    g.throw(ValueError)
except ValueError as e:
    print(repr(e.__context__))
def h():
    try:
        raise KeyError('b')
    except Exception:
        yield 1
k = h(); next(k)
err = ValueError("x")
try:
    k.throw(err)
except ValueError as e:
    print(repr(e.__context__), e is err)
def plain():
    yield 1
p = plain(); next(p)
try:
    p.throw(ValueError("y"))
except ValueError as e:
    print(repr(e.__context__))
