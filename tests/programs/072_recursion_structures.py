# Recursion over nested data: flattening, depth, permutations, tree sums.
def flatten(items):
    out = []
    for item in items:
        if isinstance(item, (list, tuple)):
            out.extend(flatten(item))
        else:
            out.append(item)
    return out

print(flatten([1, [2, [3, (4, 5)], []], 6]))

def depth(node):
    if isinstance(node, dict):
        return 1 + max((depth(v) for v in node.values()), default=0)
    if isinstance(node, list):
        return 1 + max((depth(v) for v in node), default=0)
    return 0

print(depth({"a": [1, {"b": {}}], "c": 2}), depth([]), depth(5))

def permutations(seq):
    if len(seq) <= 1:
        return [seq]
    result = []
    for i, ch in enumerate(seq):
        for rest in permutations(seq[:i] + seq[i + 1:]):
            result.append(ch + rest)
    return result

print(permutations("abc"))

tree = {"value": 1, "children": [
    {"value": 2, "children": []},
    {"value": 3, "children": [{"value": 4, "children": []}]},
]}

def tree_sum(node):
    return node["value"] + sum(tree_sum(c) for c in node["children"])

def paths(node, prefix=()):
    here = prefix + (node["value"],)
    if not node["children"]:
        return [here]
    return [p for c in node["children"] for p in paths(c, here)]

print(tree_sum(tree), paths(tree))

def ackermann(m, n):
    if m == 0:
        return n + 1
    if n == 0:
        return ackermann(m - 1, 1)
    return ackermann(m - 1, ackermann(m, n - 1))

print(ackermann(2, 3))
