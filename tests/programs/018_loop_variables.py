# Loop variables remain bound after the loop; an empty loop leaves them unbound.
for i in range(3):
    pass
print("after loop i =", i)

for j in []:
    pass
try:
    print(j)
except NameError as e:
    print("NameError:", e)

values = [1, 2, 3, 4, 5, 6]
for v in values[:]:
    if v % 2 == 0:
        values.remove(v)
print(values)

acc = []
for x in range(3):
    x = x * 10
    acc.append(x)
print(acc, x)

d = {"a": 1, "b": 2}
try:
    for key in d:
        d["c"] = 3
except RuntimeError as e:
    print("RuntimeError:", e)

seen = []
for item in [1, 2, 3]:
    seen.append(item)
    if item == 1:
        seen.append("inserted")
print(seen)

for idx, (name, score) in enumerate([("ann", 3), ("bo", 5)]):
    last = (idx, name, score)
print(last)
