# JSON-like nested data walking: an agent traversing a nested API response (dicts,
# lists, scalars), collecting paths, summing numbers and finding keys recursively.
def make(depth, i):
    if depth == 0:
        return [i, str(i), i * 0.5, None, i % 2 == 0][i % 5]
    if depth % 2 == 0:
        return {f"k{j}": make(depth - 1, i * 3 + j) for j in range(3)}
    return [make(depth - 1, i * 2 + j) for j in range(4)]


def walk(node, path, out):
    if isinstance(node, dict):
        for key, value in node.items():
            walk(value, path + "." + key, out)
    elif isinstance(node, list):
        for idx, value in enumerate(node):
            walk(value, path + "[" + str(idx) + "]", out)
    else:
        out.append((path, node))


def total(node):
    if isinstance(node, bool) or node is None:
        return 0
    if isinstance(node, (int, float)):
        return node
    if isinstance(node, str):
        return len(node)
    if isinstance(node, dict):
        return sum([total(v) for v in node.values()])
    return sum([total(v) for v in node])


doc = {"data": make(8, 1), "meta": {"page": 1, "tags": ["a", "b"]}}
leaves = []
walk(doc, "$", leaves)
def kind(value):
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "bool"
    if isinstance(value, int):
        return "int"
    if isinstance(value, float):
        return "float"
    return "str"


kinds = {}
for path, value in leaves:
    name = kind(value)
    kinds[name] = kinds.get(name, 0) + 1
print(len(leaves), leaves[0], leaves[-1])
print(sorted(kinds.items()), total(doc))
