# Attribute stores and loads at warm sites where CPython keeps an instance's attributes in
# slots after the object (3.13+): the evaluator reads and writes a name's slot directly once
# a site has found it. What the slots must never lose: the order of `__dict__` (a store to an
# empty slot comes last, a deleted attribute leaves the order), attributes deleted and added
# back, one object in several attributes (small ints, None, a shared list), a `__dict__`
# cleared or written directly, `__dict__` read between stores, instances of several classes
# (and a subclass) through one site, a class attribute or property added after the site
# learned, more attributes than the shared keys hold, and `__slots__`.
class Point:
    def __init__(self, x, y):
        self.x = x
        self.y = y


class Point3(Point):
    def __init__(self, x, y, z):
        self.z = z
        self.x = x
        self.y = y


def set_x(o, v):
    o.x = v


def get_x(o):
    try:
        return o.x
    except AttributeError as e:
        return "AttributeError: " + str(e)


def bump(o, n):
    o.x += n


out = []
pts = [Point(i, i * 2) for i in range(6)]
for p in pts:
    set_x(p, p.x + 100)
    bump(p, 1)
out.append([(get_x(p), p.y, list(p.__dict__)) for p in pts])

# an attribute deleted, then added back by the warm store: last in order
q = pts[2]
del q.x
out.append((get_x(q), list(q.__dict__)))
set_x(q, "back")
out.append((get_x(q), list(q.__dict__), q.__dict__))
bump(pts[3], 5)
out.append(pts[3].__dict__)

# a fresh instance whose first attribute comes through the warm store
class Late:
    pass


late = [Late() for _ in range(4)]
for i, o in enumerate(late):
    if i % 2:
        o.y = "y"
    set_x(o, i)
    out.append((get_x(o), list(o.__dict__)))

# one object in several attributes: the sites still store and read the right one
shared = []
s1 = Point(shared, shared)
s2 = Point(0, 0)
s3 = Point(None, None)
for o in (s1, s2, s3):
    for k in range(3):
        set_x(o, k)
        bump(o, 10)
        out.append((get_x(o), o.y is shared, o.y))
set_x(s1, shared)
out.append((s1.x is shared, s1.y is shared))

# __dict__ read (the dict object made) between warm stores and loads
v = Point(1, 2)
for k in range(3):
    set_x(v, k)
d = v.__dict__
set_x(v, "after-vars")
out.append((d["x"], get_x(v), d))
d["x"] = "through-dict"
out.append(get_x(v))
d["new"] = 1
set_x(v, "again")
bump(v, "!")
out.append((v.__dict__, list(d)))
del d["x"]
out.append(get_x(v))
set_x(v, "re-added")
out.append(list(v.__dict__))

# __dict__ cleared and refilled (code cannot assign __dict__; host code can, which the
# check at import covers)
r = Point(1, 2)
for k in range(3):
    set_x(r, k)
r.__dict__.clear()
out.append((get_x(r), dict(r.__dict__)))
r.__dict__.update({"other": 1, "x": "refilled"})
out.append((get_x(r), dict(r.__dict__)))
set_x(r, "stored")
bump(r, "+")
out.append(dict(r.__dict__))
r.__dict__.clear()
out.append(get_x(r))
set_x(r, 7)
out.append(dict(r.__dict__))

# subclass and base through the same sites
mixed = [Point(1, 2), Point3(3, 4, 5), Point(6, 7), Point3(8, 9, 10)]
for rounds in range(3):
    for o in mixed:
        set_x(o, get_x(o) * 2)
        bump(o, 1)
out.append([o.__dict__ for o in mixed])

# a class attribute, then a property, added after the sites learned
w = Point(1, 2)
for k in range(3):
    set_x(w, k)
    out.append(get_x(w))
Point.x = "class-attr"
out.append(get_x(w))
del w.x
out.append(get_x(w))
set_x(w, "own")
out.append((get_x(w), w.__dict__))
del Point.x
Point.x = property(lambda self: "prop", lambda self, val: setattr(self, "_x", val))
set_x(w, "via-setter")
out.append((get_x(w), sorted(w.__dict__.items(), key=str)))
del Point.x
out.append(get_x(w))

# many attributes: more names than the shared keys hold
class Wide:
    pass


def fill(o, n):
    for i in range(n):
        setattr(o, "a%d" % i, i)


wides = [Wide() for _ in range(3)]
for o in wides:
    fill(o, 40)
    for k in range(3):
        set_x(o, k)
        bump(o, 1)
out.append([(get_x(o), len(o.__dict__), list(o.__dict__)[-1]) for o in wides])

# __slots__: no instance values at all
class Slotted:
    __slots__ = ("x",)


sl = Slotted()
for k in range(3):
    set_x(sl, k)
    bump(sl, 1)
out.append(get_x(sl))
del sl.x
out.append(get_x(sl))

for item in out:
    print(item)
