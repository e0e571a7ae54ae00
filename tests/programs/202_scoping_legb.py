# LEGB name resolution: local, enclosing, global, builtin; shadowing builtins.
x = "global"


def outer():
    x = "enclosing"

    def inner():
        x = "local"
        return x

    def reads_enclosing():
        return x

    return inner(), reads_enclosing()


print(outer(), x)


def reads_global():
    return x


print(reads_global())
max = lambda *args: "shadowed max"
print(max(1, 2))
del max
print(max(1, 2))


def local_shadow(list):
    return list * 2


print(local_shadow(3), list("ab"))


def conditional_local(flag):
    if flag:
        y = "set"
    try:
        return y
    except UnboundLocalError:
        return "unbound"


print(conditional_local(True), conditional_local(False))
len_alias = len


def uses_builtin_inside():
    return len_alias([1, 2, 3]), sum(range(4)), str(abs(-2))


print(uses_builtin_inside())
for print_ in [print]:
    print_("loop variable holding print")
