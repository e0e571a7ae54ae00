# __getattr__ is called only when normal lookup fails.
class Flexible:
    known = "class attribute"

    def __init__(self):
        self.real = "instance attribute"

    def __getattr__(self, name):
        if name.startswith("get_"):
            return lambda: f"generated {name[4:]}"
        raise AttributeError(f"no attribute {name!r} here")


f = Flexible()
print(f.real, f.known, f.get_user(), f.get_order())
try:
    f.missing
except AttributeError as e:
    print("AttributeError:", e)
print(hasattr(f, "get_x"), hasattr(f, "other"), getattr(f, "other", "default"))


class Proxy:
    def __init__(self, target):
        self.target = target
        self.calls = []

    def __getattr__(self, name):
        self.calls.append(name)
        return getattr(self.target, name)


p = Proxy([3, 1, 2])
p.append(0)
p.sort()
print(p.target, p.calls, p.count(1))


class AttrDict(dict):
    def __getattr__(self, name):
        try:
            return self[name]
        except KeyError:
            raise AttributeError(name) from None


ad = AttrDict(a=1, b={"c": 2})
print(ad.a, ad.b, ad["a"], len(ad))
try:
    ad.z
except AttributeError as e:
    print("AttributeError:", e)
