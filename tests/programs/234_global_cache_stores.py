# Global and builtin names read at one site while the module's own stores change the globals
# around it: loop targets, rebinding a global the reader uses, shadowing a builtin and deleting
# the shadow, `global` stores from a function, class bodies that bind the same names in their
# own namespace, and names stored under equal but distinct str objects (the evaluator's
# global-lookup caches follow its own stores; each read must give what CPython gives).
total = 0
acc = []


def f(x):
    return x + base + len(acc) + abs(-1)


base = 10
for i in range(60):
    total += f(i)
    if i == 10:
        base = 100
    if i == 20:
        len = lambda s: 1000
    if i == 25:
        abs = lambda v: 7
    if i == 30:
        del len
    if i == 35:
        del abs
    if i == 40:
        acc.append(1)
    acc2 = acc
    k = i
print(total, k, base)

g = 0


def setg(v):
    global g
    g = v


def getg():
    return g


vals = []
for i in range(5):
    setg(i)
    vals.append(getg())
    vals.append(g)
print(vals)


class C:
    base = "class"
    seen = base
    len = "not the builtin"
    seen_len = len


print(C.seen, C.seen_len, base, len([1, 2]))

name = "".join(["ba", "se"])
parts = {}
for j in range(3):
    parts[name] = j
    exec_like = [globals_value for globals_value in (base, j)]
    base = base + 1
    print(f(0), exec_like)
