# dir() without arguments lists the names of the current scope, as CPython.
def f(a, b=2):
    c = a + b
    return dir()
print(f(1))
def g():
    return dir()
print(g())
class K:
    x = 1
    def m(self): pass
    names = [n for n in dir() if not n.startswith('__')]
print(K.names)
top = 1
print([n for n in dir() if not n.startswith('_')])
print(sorted(dir()) == dir())
