# for ... else: the else block runs only when the loop was not broken.
def find(items, target):
    for index, item in enumerate(items):
        if item == target:
            print("found", target, "at", index)
            break
    else:
        print(target, "not found")
        index = -1
    return index


print(find([4, 5, 6], 5))
print(find([4, 5, 6], 9))
print(find([], 1))

for n in range(2, 20):
    for d in range(2, n):
        if n % d == 0:
            break
    else:
        print(n, "is prime")

for i in range(5):
    if i % 2:
        continue
    print("even", i)
else:
    print("loop finished, i =", i)

total = 0
for ch in "a1b2c3":
    if not ch.isdigit():
        continue
    total += int(ch)
print(total)
