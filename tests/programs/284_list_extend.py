# list.extend with a list, a tuple, itself, an empty one, a subclass and other iterables:
# the result, the identity of what is returned and of the list, and what a subclass sees.
class Tracked(list):
    def __len__(self):
        print("len asked")
        return 99

    def __iter__(self):
        print("iter asked")
        return iter(list.copy(self))


a = [1, 2]
r = a.extend([3, 4])
print(r, a)
a.extend((5, 6))
print(a)
a.extend(a)
print(a, len(a))
b = []
b.extend(())
b.extend([])
print(b)
t = Tracked([7, 8])
c = [0]
c.extend(t)
print(c)
t.extend([9])
print(list.copy(t))
c.extend(x * 2 for x in range(3))
c.extend("ab")
c.extend({"k": 1})
print(c)
try:
    c.extend(5)
except TypeError as e:
    print("TypeError:", e)


def interleave(depth):
    acc = []
    for k in range(depth):
        acc.extend((k, -k))
        acc.extend(acc[:1])
        if k % 2:
            acc.extend(acc)
    return acc


print(interleave(4), len(interleave(6)))

alias = c
c.extend([c])
print(alias is c, c[-1] is c, len(c))
