# NameError and UnboundLocalError messages.
try:
    print(undefined_thing)
except NameError as e:
    print("NameError:", e)

counter = 0


def broken_increment():
    counter += 1
    return counter


try:
    broken_increment()
except UnboundLocalError as e:
    print("UnboundLocalError:", e)
    print("is NameError too:", isinstance(e, NameError))


def uses_before_assign(flag):
    if flag:
        value = 1
    return value


print(uses_before_assign(True))
try:
    uses_before_assign(False)
except NameError as e:
    print(type(e).__name__ + ":", e)


def outer():
    def inner():
        return captured
    try:
        inner()
    except NameError as e:
        print("free variable:", e)
    captured = 5
    return inner()


print(outer())

try:
    len = len
    del len
    print(len("still builtin"))
except NameError as e:
    print("NameError:", e)

try:
    Undefined.attribute
except NameError as e:
    print("NameError:", e)
