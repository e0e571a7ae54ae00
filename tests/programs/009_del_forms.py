# del of names, items, slices, attributes, several targets at once.
a = 1
b = 2
c = 3
del a
print("deleted a")
del b, c
try:
    print(b)
except NameError as e:
    print(e)

lst = list(range(10))
del lst[0]
print(lst)
del lst[-1]
print(lst)
del lst[1:3]
print(lst)
del lst[::2]
print(lst)

d = {"x": 1, "y": 2, "z": 3}
del d["y"]
print(d)

class Obj:
    pass

o = Obj()
o.p = 1
o.q = 2
del o.p
print(hasattr(o, "p"), hasattr(o, "q"))

x, y = 5, 6
del (x, y)
pair = [7, 8]
first, second = pair
del [first, second]
try:
    first
except NameError as e:
    print(e)

nested = {"outer": {"inner": [1, 2, 3]}}
del nested["outer"]["inner"][1]
print(nested)


def f():
    v = 1
    del v
    try:
        return v
    except UnboundLocalError as e:
        return str(e)


print(f())
