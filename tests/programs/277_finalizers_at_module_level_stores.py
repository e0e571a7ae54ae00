# Module-level stores whose old value's finalizer changes the globals, inside loop and `if`
# bodies, where the evaluator's global-name slots are warm: a __del__ that rebinds the very
# name being stored (so the new value dies at once), rebinds and deletes other names, and
# rebinds a name the loop reads next. CPython releases a value as soon as its last reference
# goes, also in a loop body; each read must see what CPython's does.
events = []


class D:
    def __init__(self, n):
        self.n = n

    def __del__(self):
        global z, x, w, seen
        z = z + 1
        events.append(("del", self.n, z))
        if self.n % 5 == 2:
            x = "rebound by del %d" % self.n
        if self.n % 5 == 3:
            z = z + 100
        if self.n % 5 == 4:
            try:
                del w
            except NameError:
                events.append(("no w to delete", self.n))
        seen = self.n


z = 0
w = -1
seen = None
out = []
for i in range(12):
    x = D(i)
    out.append((i, z, x if isinstance(x, str) else x.n, seen))
    try:
        out.append(("w", w))
    except NameError:
        out.append(("w", "unbound"))
    w = i
    k = z
print(out)
print(events)

if k > 0:
    x = D(2)
    x = D(3)
    mid = z
    x = D(7)
    after = z
print(mid, after, z)

# a value replaced within one loop iteration, then read by name
total = 0
for j in range(6):
    holder = D(20 + j)
    holder = D(30 + j)
    total += z
print(total, z, seen)
x = None
holder = None
print(z, seen)
