# Messages and precedence of errors in call arguments, as CPython reports them.
def f(*a, **kw):
    return a, kw
def probe(label, thunk):
    try:
        print(label, thunk())
    except TypeError as e:
        print(label, "TypeError:", e)
probe("star after positional", lambda: f(1, *5))
probe("lone star", lambda: f(*5))
probe("star then positional", lambda: f(*5, 1))
probe("two stars", lambda: f(*[1], *None))
probe("lone star with kw", lambda: f(*5, x=1))
probe("int key", lambda: f(**{1: 2}))
probe("int key twice", lambda: f(**{1: 3}, **{1: 5}))
probe("int key and kw", lambda: f(x=1, **{1: 2}))
probe("not a mapping", lambda: f(**5))
probe("not a mapping later", lambda: f(**{"a": 1}, **5))
probe("lone star then bad map", lambda: f(*5, **7))
probe("lone star then int key", lambda: f(*5, **{1: 2}))
probe("generator star", lambda: f(*(i for i in range(3))))
probe("tuple star", lambda: f(*(1, 2), **{"k": 3}))
class Meth:
    def m(self, *a): return a
probe("bound method", lambda: Meth().m(*5))
probe("builtin", lambda: max(*5))
probe("builtin int key", lambda: dict(**{1: 2}))
probe("class", lambda: Meth(**{1: 2}))
