# gi_running, gi_suspended (3.11+), gi_state (3.15+) of generators, as CPython's; gi_yieldfrom
# is in dir()


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
print([a for a in dir(g) if a.startswith("gi_") and a not in ("gi_code", "gi_frame")])
if hasattr(g, "gi_state"):
    print(g.gi_state, outer().gi_state)
