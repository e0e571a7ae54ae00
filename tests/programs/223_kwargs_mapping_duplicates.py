# f(**m): a key given twice (also twice by one mapping's keys()) is an error,
# with CPython's message and precedence.
class Twice:
    def keys(self): return ["a", "a"]
    def __getitem__(self, k): return 1
class Missing:
    def keys(self): return ["a", "b"]
    def __getitem__(self, k):
        if k == "b":
            raise KeyError("zz")
        return 1
def f(**kw):
    return kw
def probe(label, thunk):
    try:
        print(label, thunk())
    except TypeError as e:
        print(label, "TypeError:", e)
probe("twice", lambda: f(**Twice()))
probe("kw+map", lambda: f(a=0, **Twice()))
probe("two dicts", lambda: f(**{"x": 1}, **{"x": 2}))
probe("kw then dict", lambda: f(x=1, **{"x": 2}))
probe("dict then kw", lambda: f(**{"x": 1}, x=2))
probe("getitem keyerror", lambda: f(**Missing()))
probe("ok", lambda: f(**{"a": 1}, b=2, **{"c": 3}))
probe("order", lambda: list(f(z=1, **{"y": 2}, x=3)))
