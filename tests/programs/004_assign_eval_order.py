# Evaluation order: the right-hand side first, then each target left to right,
# and within a subscript target the container before the index.
trace = []


def t(label, value):
    trace.append(label)
    return value


class Box:
    def __init__(self):
        self.data = {}

    def __setitem__(self, key, value):
        trace.append(("set", key, value))
        self.data[key] = value


boxes = [Box(), Box()]
t("c0", boxes[0])[t("k0", "a")], t("c1", boxes[1])[t("k1", "b")] = t("rhs", (1, 2))
print(trace)

i = 0
lst = [0, 0, 0]
i, lst[i] = 1, 5
print(i, lst)

lst2 = [0, 0, 0]
j = 2
lst2[j], j = 9, 0
print(j, lst2)

trace.clear()
d = {}
d[t("key", "x")] = t("value", 100)
print(trace, d)

trace.clear()
result = t("left", 1) + t("right", 2) * t("third", 3)
print(result, trace)

trace.clear()
pair = {t("k1", 1): t("v1", "a"), t("k2", 2): t("v2", "b")}
print(pair, trace)
