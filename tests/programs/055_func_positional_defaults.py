# Positional parameters, defaults, and keyword calls.
def describe(name, age=30, city="Paris"):
    return f"{name}, {age}, {city}"


print(describe("Ann"))
print(describe("Bo", 41))
print(describe("Cy", city="Rome"))
print(describe(city="Oslo", name="Di", age=22))
print(describe("Ed", 5, "Lima"))


def power(base, exponent=2):
    return base ** exponent


print(power(3), power(2, 10), power(exponent=3, base=4))


def defaults_reference_globals(x, scale=None):
    scale = 10 if scale is None else scale
    return x * scale


print(defaults_reference_globals(3), defaults_reference_globals(3, 0))


def returns_multiple(a, b):
    return a // b, a % b


q, r = returns_multiple(17, 5)
print(q, r, returns_multiple(b=4, a=9))


def no_args():
    return "nothing needed"


print(no_args())
