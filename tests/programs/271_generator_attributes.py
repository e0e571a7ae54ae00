# gi_running and gi_suspended (3.11+) of generators, as CPython's; gi_yieldfrom is in dir()


def inner():
    yield 1
    yield 2


def outer():
    me = yield "start"
    print("running inside", me.gi_running)
    yield from inner()


g = outer()
print(g.gi_running)
print(next(g))
print(g.send(g))
print(g.gi_running)
if hasattr(g, "gi_suspended"):
    print("suspended", g.gi_suspended)
print(list(g))
print(g.gi_running)
if hasattr(g, "gi_suspended"):
    print("suspended", g.gi_suspended)
names = [a for a in dir(g) if a.startswith("gi_") and a not in ("gi_code", "gi_frame")]
print(names == ["gi_running", "gi_suspended", "gi_yieldfrom"] or names == ["gi_running", "gi_yieldfrom"])
