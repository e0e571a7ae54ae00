# Common while-loop idioms: sentinel loops, counters, binary search, gcd.
def binary_search(items, target):
    lo, hi = 0, len(items) - 1
    steps = 0
    while lo <= hi:
        steps += 1
        mid = (lo + hi) // 2
        if items[mid] == target:
            return mid, steps
        if items[mid] < target:
            lo = mid + 1
        else:
            hi = mid - 1
    return -1, steps


data = list(range(0, 100, 3))
for t in (0, 42, 99, 50):
    print(t, binary_search(data, t))


def gcd(a, b):
    while b:
        a, b = b, a % b
    return a


print(gcd(1071, 462), gcd(17, 5), gcd(0, 9))

queue = ["a", "b", "stop", "c"]
processed = []
while (item := queue.pop(0)) != "stop":
    processed.append(item.upper())
print(processed, queue)

digits = []
n = 90210
while n:
    n, d = divmod(n, 10)
    digits.append(d)
print(digits[::-1])
