# Failed dict lookups raise KeyError, caught by KeyError and LookupError clauses.
prices = {"apple": 1.25, "pear": 0.8}
for fruit in ["apple", "kiwi"]:
    try:
        print(fruit, prices[fruit])
    except KeyError as e:
        print("KeyError", e, repr(e), e.args)

try:
    prices["banana"]
except LookupError as e:
    print("LookupError caught", type(e).__name__, e)

try:
    [1, 2, 3][3]
except LookupError as e:
    print("LookupError caught", type(e).__name__, e)

for key in [0, (1, 2), None, "", 2.5]:
    try:
        {}[key]
    except KeyError as e:
        print("str:", str(e), "args:", e.args)

nested = {"a": {"b": {"c": 1}}}
try:
    nested["a"]["x"]["c"]
except KeyError as e:
    print("nested missing", e)

print(prices.get("kiwi"), prices.get("kiwi", 0), "kiwi" in prices)

try:
    {1: 2}.pop(3)
except KeyError as e:
    print("pop", e)
try:
    set().pop()
except KeyError as e:
    print("set pop", e)
try:
    {}.popitem()
except KeyError as e:
    print("popitem", e)
try:
    {1}.remove(2)
except KeyError as e:
    print("remove", e)
