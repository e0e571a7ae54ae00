# Agent-style: caching results with a decorator and an LRU built on OrderedDict.
from collections import OrderedDict

calls = {"n": 0}


def memoize(func):
    cache = {}

    def wrapper(*args):
        if args not in cache:
            cache[args] = func(*args)
        return cache[args]
    wrapper.cache = cache
    return wrapper


@memoize
def grid_paths(r, c):
    calls["n"] += 1
    if r == 0 or c == 0:
        return 1
    return grid_paths(r - 1, c) + grid_paths(r, c - 1)


print(grid_paths(16, 16), calls["n"], len(grid_paths.cache))


class LRU:
    def __init__(self, capacity):
        self.capacity = capacity
        self.data = OrderedDict()
        self.hits = self.misses = 0

    def get(self, key, compute):
        if key in self.data:
            self.hits += 1
            self.data.move_to_end(key)
            return self.data[key]
        self.misses += 1
        value = compute(key)
        self.data[key] = value
        if len(self.data) > self.capacity:
            self.data.popitem(last=False)
        return value


lru = LRU(3)
for k in [1, 2, 3, 1, 4, 2, 5, 1, 1]:
    lru.get(k, lambda x: x * x)
print(list(lru.data.items()), lru.hits, lru.misses)
