# A function's __module__ is the globals' __name__ when it is defined, and
# CPython's messages name the function through it.
def before(): pass
__name__ = "mymod"
def f(): pass
def g(**kw): pass
class C:
    def m(self): pass
print(before.__module__, f.__module__, C.__module__, C.m.__module__)
try:
    f(1)
except TypeError as e:
    print(e)
try:
    g(**{"a": 1}, **{"a": 2})
except TypeError as e:
    print(e)
try:
    g(*5)
except TypeError as e:
    print(e)
__name__ = "__main__"
