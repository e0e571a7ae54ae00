# Method calls on builtin objects at call sites that have seen them before (the evaluator
# remembers the method per site): one site meeting lists, deques, sets, dicts and strs in
# turn, subclasses that override the method (also after the site is warm, and by assigning
# to the class), instance attributes that shadow a method, errors raised by the method,
# keyword arguments, and methods whose results are other objects' methods.
from collections import deque

log = []
objs = [[], [], deque(), [], set(), {}, "ab", [], deque()]
for o in objs * 2:
    try:
        o.append(len(log))
        log.append(("append", type(o).__name__))
    except AttributeError as e:
        log.append(("AttributeError", str(e)))
print(log)
print(objs[:4])


class L(list):
    pass


class Loud(list):
    def append(self, x):
        list.append(self, ("loud", x))


a, b, c = [], L(), Loud()
for i, o in enumerate([a, a, a, b, c, a, b, c]):
    o.append(i)
print(a, b, c)

# the class changes after the site is warm: the new method is used at once
for i in range(6):
    if i == 3:
        L.append = lambda self, x: list.append(self, ("patched", x))
    b.append(i)
print(b)
del L.append
b.append("restored")
print(b[-1])


class WithDict(list):
    pass


w = WithDict()
for i in range(4):
    if i == 2:
        w.append = lambda x: log.append(("shadow", x))
    w.append(i)
print(w, log[-2:])

# errors from the method at a warm site
out = []
for o in [[1], [2], [], [3]]:
    try:
        out.append(o.pop())
    except IndexError as e:
        out.append("IndexError: %s" % e)
print(out)

# keyword arguments and defaults through one site
d = {"a": 1}
res = []
for k in ["a", "b", "a", "c"]:
    res.append(d.get(k, "missing"))
    res.append(d.setdefault(k, len(res)))
print(res, d)
print(sorted([3, 1, 2], key=None, reverse=True), "x,y".split(sep=","))

# a method called through its type and through the instance at one site
calls = [list.append, "bound"]
target = []
for i in range(4):
    how = calls[i % 2]
    if how == "bound":
        target.append(i)
    else:
        how(target, -i)
print(target)

# strings: results are new objects each time; chained calls
words = []
for s in ["  Hello ", "World  ", "  !  "]:
    words.append(s.strip().lower().replace("o", "0"))
print(words, "-".join(words).upper().split("-"))
