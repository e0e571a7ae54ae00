# A handler logs and re-raises with bare raise; the original KeyError is reported.
prices = {"apple": 1.2, "pear": 0.9}
basket = ["apple", "pear", "mango"]
total = 0.0
for fruit in basket:
    try:
        total += prices[fruit]
        print("added", fruit, round(total, 2))
    except KeyError:
        print("no price for", fruit, "- giving up")
        raise
