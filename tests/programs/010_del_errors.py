# Failing del statements raise the same errors as lookups; the last one is uncaught.
d = {"a": 1}
try:
    del d["missing"]
except KeyError as e:
    print("KeyError", e)

lst = [1, 2, 3]
try:
    del lst[10]
except IndexError as e:
    print("IndexError", e)


class C:
    pass


c = C()
try:
    del c.nothing
except AttributeError as e:
    print("AttributeError", e)

t = (1, 2)
try:
    del t[0]
except TypeError as e:
    print("TypeError", e)

s = "abc"
try:
    del s[0]
except TypeError as e:
    print("TypeError", e)

survivor = "still here"
del ghost
print("not reached")
