# Equal string literals are one object, as CPython's compiler makes them: name-like ones are
# interned (the same object as a computed equal string that is interned too), others shared
# across the whole program (module, functions, classes, lambdas, comprehensions). Dict lookups
# with literal keys find keys stored by other literals.
a = "units"
b = "units"
c = "unit price"
d = "unit price"


def f():
    return "units", "unit price"


g = lambda: "unit price"  # noqa: E731
same = [a is b, c is d, f()[0] is a, f()[1] is c, g() is c]
print(same)
print([s is a for s in ["units", "uni" + "ts"]][0])
print(("".join(["un", "its"]) == a), len({id(x) for x in ("units", a, b, f()[0])}))

row = {"units": 3, "unit price": 2.5, "region": "north"}
total = 0.0
for _ in range(3):
    total += row["units"] * row["unit price"]
print(total, row["region"], [k for k in row if k in ("units", "region")])


class C:
    kind = "unit price"

    def get(self):
        return self.kind is c


print(C().get(), {v: i for i, v in enumerate(["x y", "x y", "units"])})
