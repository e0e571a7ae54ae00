# requires: 3.15
# PEP 814: the frozendict builtin
fd = frozendict(a=1, b=2)
print(fd, fd["a"], hash(fd) == hash(frozendict(b=2, a=1)), fd | {"c": 3}, type(fd).__name__, {fd: 1}[frozendict(a=1, b=2)])
try:
    fd["a"] = 2
except TypeError as e:
    print("TypeError:", e)
print(isinstance(fd, dict), len(fd), list(fd.items()), fd.get("z", 0), frozendict({"x": [1]}))
kept = dict(fd)
