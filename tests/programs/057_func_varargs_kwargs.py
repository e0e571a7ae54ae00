# *args and **kwargs collect extra arguments into a tuple and a dict.
def collect(*args, **kwargs):
    return args, kwargs


print(collect())
print(collect(1, 2, x=3))
print(type(collect(1)[0]).__name__, type(collect(a=1)[1]).__name__)


def total(first, *rest):
    result = first
    for r in rest:
        result += r
    return result


print(total(1), total(1, 2, 3), total("a", "b", "c"), total([1], [2]))


def tag(name, **attrs):
    inner = " ".join(f'{k}="{v}"' for k, v in attrs.items())
    return f"<{name} {inner}>" if inner else f"<{name}>"


print(tag("br"))
print(tag("a", href="/home", title="Home"))
print(tag("img", **{"src": "x.png", "alt": "pic"}))


def forward(*args, **kwargs):
    return tag(*args, **kwargs)


print(forward("div", id="main"))


def mutate_kwargs(**kw):
    kw["added"] = True
    return kw


options = {"a": 1}
print(mutate_kwargs(**options), options)
