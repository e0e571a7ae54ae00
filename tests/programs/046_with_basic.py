# with statement: __enter__ result bound by as, __exit__ always called.
class Managed:
    def __init__(self, name):
        self.name = name

    def __enter__(self):
        print("enter", self.name)
        return self.name.upper()

    def __exit__(self, exc_type, exc, tb):
        print("exit", self.name, exc_type is None, exc is None, tb is None)
        return False


with Managed("alpha") as value:
    print("inside with", value)

with Managed("beta"):
    print("inside without as")


class Bag:
    def __enter__(self):
        return self

    def __exit__(self, *args):
        print("bag closed with", len(args), "args")
        self.closed = True

    def add(self, x):
        self.items = getattr(self, "items", []) + [x]


with Bag() as bag:
    bag.add(1)
    bag.add(2)
print(bag.items, bag.closed)

with Managed("gamma") as (first, *rest):
    print("unpacked as-target", first, rest)

holder = {}
with Managed("delta") as holder["key"]:
    pass
print(holder)
