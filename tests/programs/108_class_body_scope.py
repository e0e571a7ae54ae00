# Class bodies are not enclosing scopes for methods or comprehension bodies,
# though the first iterable of a comprehension is evaluated in the class body.
x = "global x"


class Demo:
    x = "class x"
    y = x + " (read in class body)"
    values = [1, 2, 3]
    doubled = [v * 2 for v in values]
    pairs = [(v, w) for v in values for w in range(1)]

    def method(self):
        return x

    def method_via_class(self):
        return Demo.x, self.x

    try:
        broken = [x for _ in range(2)]
    except NameError as e:
        broken = f"NameError: {e}"


d = Demo()
print(Demo.y)
print(Demo.doubled, Demo.pairs)
print(d.method(), d.method_via_class())
print(Demo.broken)


class Counter:
    count = 0
    count = count + 1
    label = f"count is {count}"


print(Counter.count, Counter.label)


def make():
    local = "function local"

    class Inner:
        seen = local
        items = [local for _ in range(1)]

        def get(self):
            return local

    return Inner


I = make()
print(I.seen, I.items, I().get())
