# Less common members of the base modules: OrderedDict, ChainMap, itertools recipes.
from collections import OrderedDict, ChainMap, Counter
from itertools import chain, groupby, pairwise, starmap, takewhile, dropwhile

od = OrderedDict()
od["b"] = 1
od["a"] = 2
od.move_to_end("b")
print(list(od.items()), od.popitem(last=False))

defaults = {"color": "red", "size": "M"}
overrides = {"size": "L"}
settings = ChainMap(overrides, defaults)
print(settings["color"], settings["size"], len(settings), sorted(settings))

print(list(chain([1, 2], (3,), "ab")))
print(list(chain.from_iterable([[1], [2, 3]])))
for key, group in groupby("aaabccdd"):
    print(key, len(list(group)))
print(list(pairwise([1, 2, 4, 7])))
print(list(starmap(pow, [(2, 3), (3, 2)])))
print(list(takewhile(lambda x: x < 3, [1, 2, 3, 1])), list(dropwhile(lambda x: x < 3, [1, 2, 3, 1])))
c = Counter(a=3, b=1) + Counter(a=1, c=2)
print(sorted(c.items()), c.total())
