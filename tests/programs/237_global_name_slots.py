# Module-level names while the globals change under the reader in every way the evaluator's
# per-name slots must notice: a store whose overwritten value runs __del__ that rebinds other
# globals (and the stored name itself), a suspended generator whose `finally` rebinds a global
# when it is dropped, deletes of globals and of shadowed builtins, `except ... as` names bound
# and unbound in a loop, walrus and augmented stores at module level, tuple targets, names
# bound by def, class and import statements, and a function's `global` stores interleaved
# with module-level stores of the same names.
log = []
counter = 0


class D:
    def __init__(self, n):
        self.n = n

    def __del__(self):
        global counter, x, side
        counter = counter + 1
        side = self.n * 10
        log.append((self.n, counter))
        if self.n == 3:
            x = "replaced by __del__"


def make(n):
    # the object that __del__ replaces stays alive: its own end would come when the
    # statement's value is dropped, which the executor defers (the step's last value)
    d = D(n)
    if n == 4:
        alive.append(d)
    return d


alive = []
side = -1
x = D(0)
seen = []
for i in range(1, 6):
    x = make(i)
    seen.append((counter, side, type(x).__name__))
print(seen, log)
x = None
print(counter, side, x)

# straight-line stores: the overwritten object's only reference is the dict's, so its __del__
# runs inside the store, and rebinds the very name being stored and another one
x = D(3)
pad = 0
x = make(4)
print(type(x).__name__, x, side, counter)
x = D(7)
pad = 1
x = D(8)
print(type(x).__name__, side, counter)


def gen():
    try:
        yield 1
    finally:
        global fin, last
        fin = fin + 1
        last = "gen"


fin = 0
last = None
trail = []
for i in range(4):
    y = gen()
    next(y)
    last = i
    y = None
    trail.append((fin, last))
print(trail)

total = 0
for i in range(30):
    if i == 5:
        len = lambda s: -1
    if i == 10:
        del len
    if i == 12:
        total = total + 0
        del total
        total = 1000
    try:
        if i % 7 == 0:
            raise ValueError(i)
    except ValueError as err:
        total += err.args[0]
    total += len("ab")
print(total)
try:
    err
except NameError as e:
    print("unbound after except:", e)

pairs = []
for a, (b, c) in [(1, (2, 3)), (4, (5, 6))]:
    pairs.append(a + b + c)
    if (w := a * 2) > 3:
        pairs.append(w)
print(pairs, a, b, c, w)


def rebind(v):
    global shared
    shared = v
    return shared


shared = 0
out = []
for i in range(5):
    shared = shared + 1
    out.append(rebind(shared * 2))
    out.append(shared)
print(out)

for i in range(3):
    def fn():
        return i * 100

    class K:
        val = i

    import math as m
    if i == 1:
        m = None
    out.append((fn(), K.val, m is None))
print(out[-3:])

try:
    del never_bound
except NameError as e:
    print(e)
z = 1
del z
try:
    del z
except NameError as e:
    print(e)
print(sum(v for v in range(5)), [q * counter for q in range(3)])
