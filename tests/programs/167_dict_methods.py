# dict methods: get, setdefault, pop, update, views, copy, comprehension-free grouping.
stock = {"apple": 3, "pear": 0}
print(stock.get("apple"), stock.get("kiwi"), stock.get("kiwi", -1))
print(stock.setdefault("kiwi", 5), stock.setdefault("apple", 100), stock)
print(stock.pop("pear"), stock.pop("none", "default"), stock)
stock.update(fig=2, apple=4)
stock.update([("date", 1)])
print(stock)
keys = stock.keys()
stock["elder"] = 9
print(keys, len(keys), "elder" in keys, keys & {"fig", "zzz"}, sorted(keys - {"apple"}))
print(list(stock.values()), sum(stock.values()), max(stock, key=stock.get))
shallow = stock.copy()
shallow["apple"] = 0
print(stock["apple"], shallow["apple"])
groups = {}
for word in ["ant", "bee", "asp", "bat", "cat"]:
    groups.setdefault(word[0], []).append(word)
print(groups)
inverted = {}
for k, v in {"a": 1, "b": 2, "c": 1}.items():
    inverted.setdefault(v, []).append(k)
print(inverted, dict(sorted(inverted.items(), reverse=True)))
nested = {"a": {"b": {"c": 42}}}
print(nested["a"]["b"]["c"], nested.get("x", {}).get("y", "safe"))
stock.clear()
print(stock, bool(stock))
