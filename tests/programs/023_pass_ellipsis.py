# pass, Ellipsis bodies, placeholder functions and classes.
def todo():
    ...


def nothing():
    pass


class Empty:
    pass


class Stub:
    ...


print(todo(), nothing())
print(type(Empty()).__name__, type(Stub()).__name__)
print(..., Ellipsis is ..., type(...).__name__)

for _ in range(3):
    pass

if True:
    pass
else:
    pass

values = [..., None, 0]
print([v is ... for v in values])
print(bool(...), str(...), repr(...))
