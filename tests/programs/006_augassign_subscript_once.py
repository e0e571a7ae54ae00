# d[k()] += 1 evaluates k() (and the container expression) exactly once.
calls = []


def key(name):
    calls.append(name)
    return name


def container(c):
    calls.append("container")
    return c


d = {"a": 0}
d[key("a")] += 1
d[key("a")] += 10
print(d, calls)

calls.clear()
container(d)[key("b") if "b" in d else key("a")] *= 3
print(d, calls)


class Logged:
    def __init__(self):
        self.items = [1, 2, 3]

    def __getitem__(self, i):
        calls.append(("get", i))
        return self.items[i]

    def __setitem__(self, i, v):
        calls.append(("set", i, v))
        self.items[i] = v


calls.clear()
obj = Logged()
obj[key(1)] += 100
print(obj.items, calls)

counter = {}
for word in "a b a c b a".split():
    counter.setdefault(word, 0)
    counter[word] += 1
print(counter)

grid = [[0] * 3 for _ in range(2)]
grid[1][key(2)] -= 5
print(grid)
