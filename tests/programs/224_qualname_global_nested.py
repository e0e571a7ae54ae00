# __qualname__ of a function or class that a nested scope declares global.
def outer():
    def inner():
        global g, K
        def g(): pass
        class K:
            def m(self): pass
        def local(): pass
        return local
    return inner()
loc = outer()
print(g.__qualname__, K.__qualname__, K.m.__qualname__, loc.__qualname__)
class A:
    global h
    def h(self): pass
    def meth(self): pass
print(h.__qualname__, A.meth.__qualname__)
