# Late binding: closures created in a loop all see the variable's final value.
funcs = [lambda: i for i in range(3)]
print([f() for f in funcs])

funcs_bound = [lambda i=i: i for i in range(3)]
print([f() for f in funcs_bound])

handlers = []
for name in ["a", "b", "c"]:
    handlers.append(lambda: name.upper())
print([h() for h in handlers])
name = "z"
print([h() for h in handlers])


def make_all():
    result = []
    for k in range(3):
        def show():
            return k * 10
        result.append(show)
    k = 99
    return result


print([f() for f in make_all()])


def factory(k):
    return lambda: k


print([f() for f in [factory(k) for k in range(3)]])

gens = [(x * m for x in range(2)) for m in range(3)]
print([list(g) for g in gens])
