# In-place operator methods (__iadd__, __isub__, ...) and the fallback to __add__.
class Bag:
    def __init__(self, items=()):
        self.items = list(items)

    def __iadd__(self, other):
        self.items.extend(other)
        return self

    def __add__(self, other):
        return Bag(self.items + list(other))

    def __isub__(self, other):
        self.items = [i for i in self.items if i not in other]
        return self

    def __repr__(self):
        return f"Bag({self.items})"

b = Bag([1])
alias = b
b += [2, 3]
print(b, alias, b is alias)
b -= [2]
print(b, alias is b)
c = b + [9]
print(c, b)

class OnlyAdd:
    def __init__(self, v):
        self.v = v

    def __add__(self, other):
        return OnlyAdd(self.v + other)

o = OnlyAdd(1)
o_alias = o
o += 5
print(o.v, o_alias.v, o is o_alias)

class ReturnsOther:
    def __iadd__(self, other):
        return "replaced"

r = ReturnsOther()
r += 1
print(r)
m = [[1]]
m[0] += [2]
print(m)
t = ([1],)
try:
    t[0] += [2]
except TypeError as e:
    print("TypeError:", e)
print(t)
