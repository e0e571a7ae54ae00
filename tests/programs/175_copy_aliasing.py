# Aliasing versus copying of nested containers.
original = {"name": "cfg", "tags": ["a", "b"], "limits": {"cpu": 2}}
alias = original
shallow = dict(original)
deep = {k: (list(v) if isinstance(v, list) else dict(v) if isinstance(v, dict) else v) for k, v in original.items()}
original["tags"].append("c")
original["limits"]["cpu"] = 8
original["name"] = "changed"
print(alias["name"], shallow["name"], deep["name"])
print(shallow["tags"], deep["tags"], shallow["limits"], deep["limits"])
print(alias is original, shallow is original, shallow["tags"] is original["tags"])
grid_bad = [[0] * 3] * 3
grid_good = [[0] * 3 for _ in range(3)]
grid_bad[0][0] = 1
grid_good[0][0] = 1
print(grid_bad, grid_good)
lst = [1, 2, 3]
copies = [lst[:], list(lst), lst.copy(), [*lst], lst]
lst.append(4)
print([len(c) for c in copies])


def modify(seq, value):
    seq.append(value)
    seq = [value]
    return seq


data = [0]
result = modify(data, 9)
print(data, result)
t = (1, [2])
t[1].append(3)
print(t)
