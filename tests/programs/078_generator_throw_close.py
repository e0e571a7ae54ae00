# throw() raises inside the generator at the paused yield; close() ends it.
def resilient():
    errors = 0
    while True:
        try:
            yield errors
        except ValueError as e:
            errors += 1
            print("generator handled", e)


r = resilient()
print(next(r))
print(r.throw(ValueError("first")))
print(r.throw(ValueError("second")))
try:
    r.throw(KeyError("unhandled"))
except KeyError as e:
    print("propagated out:", e)
print(next(r, "exhausted after unhandled throw"))


def simple():
    yield 1
    yield 2


s = simple()
try:
    s.throw(RuntimeError("before start"))
except RuntimeError as e:
    print("thrown into unstarted generator:", e)
print(list(s))

c = simple()
print(next(c))
print(c.close(), c.close())
print(list(c))


def converter():
    try:
        yield "ready"
    except TypeError:
        yield "converted TypeError"
    yield "after"


cv = converter()
next(cv)
print(cv.throw(TypeError))
print(next(cv))
