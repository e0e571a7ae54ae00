# An uncaught exception raised deep inside recursion unwinds all the frames.
def descend(node, depth=0):
    print("  " * depth + node["name"])
    if "error" in node:
        raise LookupError(f"bad node {node['name']} at depth {depth}")
    for child in node.get("children", []):
        descend(child, depth + 1)


tree = {"name": "root", "children": [
    {"name": "a", "children": [{"name": "a1"}, {"name": "a2"}]},
    {"name": "b", "children": [{"name": "b1", "children": [{"name": "b1x", "error": True}]}]},
    {"name": "c"},
]}
descend(tree)
