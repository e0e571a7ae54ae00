# yield from delegates to a sub-iterator and evaluates to its return value.
def sub(n):
    for i in range(n):
        yield i
    return f"sub({n}) done"


def delegator():
    result_a = yield from sub(2)
    print("got", result_a)
    result_b = yield from sub(3)
    print("got", result_b)
    yield from "xy"
    yield from [10, 20]
    return "all done"


gen = delegator()
values = []
while True:
    try:
        values.append(next(gen))
    except StopIteration as stop:
        print("final return:", stop.value)
        break
print(values)


def inner_acc():
    total = 0
    while True:
        x = yield total
        if x is None:
            return total
        total += x


def outer_acc():
    final = yield from inner_acc()
    yield f"inner finished with {final}"


o = outer_acc()
next(o)
o.send(5)
print(o.send(7))
print(o.send(None))


def tree_walk(node):
    yield node["name"]
    for child in node.get("kids", []):
        yield from tree_walk(child)


print(list(tree_walk({"name": "root", "kids": [{"name": "a", "kids": [{"name": "a1"}]}, {"name": "b"}]})))
