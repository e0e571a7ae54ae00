# Assignment expressions: in conditions, loops, comprehensions (which bind
# the enclosing scope), and inside functions.
data = [3, 8, 1, 9, 4]
if (n := len(data)) > 3:
    print("long list", n)

stream = iter([5, 6, 0, 7])
while (value := next(stream)) != 0:
    print("value", value)
print("stopped at", value)

squares = [y for x in data if (y := x * x) > 10]
print(squares, y)

found = any((hit := v) > 7 for v in data)
print(found, hit)


def scan(items):
    total = 0
    results = [(total := total + i) for i in items]
    return results, total


print(scan([1, 2, 3, 4]))

print((z := 10) + z)

matches = [m for word in ["apple", "bob", "kayak"] if (m := word) == word[::-1]]
print(matches, m)

pairs = {k: (last_len := len(k)) for k in ["aa", "bbb"]}
print(pairs, last_len)
