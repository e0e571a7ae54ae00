# collections.Counter and defaultdict in everyday use.
from collections import Counter, defaultdict

text = "the quick brown fox jumps over the lazy dog the end"
words = Counter(text.split())
print(words.most_common(2), words["the"], words["missing"], len(words))
letters = Counter(c for c in text if c.isalpha())
print(letters.most_common(3), sum(letters.values()))
a = Counter(x=3, y=1)
b = Counter(x=1, y=2, z=1)
print(a + b, a - b, a & b, a | b, sorted(b.elements()))
a.update({"x": 1, "w": 5})
a.subtract(["w", "w"])
print(a, dict(a), list(a))
print(Counter("hello") == Counter("olleh"), +Counter({"neg": -1, "pos": 2}))
groups = defaultdict(list)
for name, team in [("ann", "red"), ("bo", "blue"), ("cy", "red")]:
    groups[team].append(name)
print(dict(groups), groups["green"], sorted(groups))
counts = defaultdict(int)
for ch in "abracadabra":
    counts[ch] += 1
print(sorted(counts.items()), counts.default_factory is int)
tree = lambda: defaultdict(tree)
root = tree()
root["a"]["b"]["c"] = 1
print(root["a"]["b"]["c"], "x" in root, len(root))
nested = defaultdict(lambda: defaultdict(float))
nested["2024"]["jan"] += 9.5
print({k: dict(v) for k, v in nested.items()})
