# Dict displays: when keys are hashed against when keys and values are evaluated
# (CPython builds a display of at most 15 pairs after evaluating all of them; 16 and
# 17 pairs: inserted as they come), a failing key or value mid-display, `**`.
log = []


class Key:
    def __init__(self, n):
        self.n = n

    def __hash__(self):
        log.append(("hash", self.n))
        return hash(self.n)

    def __eq__(self, other):
        log.append(("eq", self.n))
        return isinstance(other, Key) and self.n == other.n

    def __repr__(self):
        return f"Key({self.n})"


def val(x):
    log.append(("value", x))
    return x


d = {Key(1): val(1), Key(2): val(2), Key(1): val(3)}
print(log, d)
log.clear()

log.clear()
made = {Key(0): val(0), Key(1): val(1), Key(2): val(2), Key(3): val(3), Key(4): val(4), Key(5): val(5), Key(6): val(6), Key(7): val(7), Key(8): val(8), Key(9): val(9), Key(10): val(10), Key(11): val(11), Key(12): val(12), Key(13): val(13)}
print(14, len(made), log[:4], log[-3:])
log.clear()
made = {Key(0): val(0), Key(1): val(1), Key(2): val(2), Key(3): val(3), Key(4): val(4), Key(5): val(5), Key(6): val(6), Key(7): val(7), Key(8): val(8), Key(9): val(9), Key(10): val(10), Key(11): val(11), Key(12): val(12), Key(13): val(13), Key(14): val(14)}
print(15, len(made), log[:4], log[-3:])
log.clear()
made = {Key(0): val(0), Key(1): val(1), Key(2): val(2), Key(3): val(3), Key(4): val(4), Key(5): val(5), Key(6): val(6), Key(7): val(7), Key(8): val(8), Key(9): val(9), Key(10): val(10), Key(11): val(11), Key(12): val(12), Key(13): val(13), Key(14): val(14), Key(15): val(15)}
print(16, len(made), log[:4], log[-3:])
log.clear()
made = {Key(0): val(0), Key(1): val(1), Key(2): val(2), Key(3): val(3), Key(4): val(4), Key(5): val(5), Key(6): val(6), Key(7): val(7), Key(8): val(8), Key(9): val(9), Key(10): val(10), Key(11): val(11), Key(12): val(12), Key(13): val(13), Key(14): val(14), Key(15): val(15), Key(16): val(16)}
print(17, len(made), log[:4], log[-3:])

log.clear()
try:
    {Key(1): val(1), []: val(2), Key(3): val(3)}
except TypeError as e:
    print("TypeError:", e, log)

log.clear()
try:
    {Key(1): val(1), Key(2): 1 / 0, Key(3): val(3)}
except ZeroDivisionError as e:
    print("ZeroDivisionError:", e, log)

log.clear()
base = {"b": 0}
merged = {"a": val(1), **base, "b": val(2), Key(9): val(3)}
print(merged, log)

empty = {}
single = {"k": [1, 2]}
nested = {"outer": {"inner": {"x": 1}}, "list": [{"y": 2}]}
print(empty, single, nested, {(1, 2): "t", 1.5: "f", None: "n", True: "b", 1: "one"})
rows = [{"id": i, "value": (i * 37) % 101, "even": i % 2 == 0} for i in range(5)]
print(rows)
