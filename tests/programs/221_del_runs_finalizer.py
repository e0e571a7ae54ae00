# Dropping the last reference runs __del__ at once, as in CPython: `del x`,
# rebinding, and a `with` target deleted in the body.
events = []
class C:
    def __init__(self, n): self.n = n
    def __del__(self): events.append(("del", self.n)); print("del", self.n)
    def __enter__(self): return self
    def __exit__(self, *a): return False
class CM:
    def __init__(self, n): self.n = n
    def __enter__(self): return C(self.n)
    def __exit__(self, *a): return False
def f():
    c = C(1)
    del c
    print("after del 1")
f()
def g():
    c = C(2)
    c = None
    print("after rebind 2")
g()
def h():
    with CM(3) as c:
        del c
        print("in with after del 3")
    print("after with 3")
h()
with CM(4) as c:
    del c
    print("module with after del 4")
def loop():
    for i in range(2):
        c = C(10 + i)
        del c
        print("loop", i)
loop()
def attr():
    c = C(5)
    c.x = [1, 2]
    del c
    print("after del 5")
attr()
print(len(events))
