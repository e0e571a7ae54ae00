# Positional-only (/) and keyword-only (*) parameters.
def clamp(value, /, low=0, high=10, *, wrap=False):
    if wrap:
        span = high - low
        return low + (value - low) % span
    return max(low, min(high, value))


print(clamp(15), clamp(-3), clamp(15, wrap=True), clamp(5, 1, 4), clamp(7, high=5))


def kw_only(*, a, b=2):
    return a + b


print(kw_only(a=1), kw_only(b=5, a=1))


def mixed(p1, p2, /, pk, *, k1, k2="d"):
    return (p1, p2, pk, k1, k2)


print(mixed(1, 2, 3, k1=4))
print(mixed(1, 2, pk=3, k1=4, k2=5))


def posonly_and_kwargs(name, /, **kwargs):
    return name, kwargs


print(posonly_and_kwargs("x", name="also allowed in kwargs"))


def star_then_kw(*args, sep="-"):
    return sep.join(str(a) for a in args)


print(star_then_kw(1, 2, 3), star_then_kw(4, 5, sep="+"))


def all_kinds(a, /, b, *args, c, d=4, **kw):
    return f"a={a} b={b} args={args} c={c} d={d} kw={kw}"


print(all_kinds(1, 2, 3, 4, c=5, e=6))
print(all_kinds(1, b=2, c=3))
