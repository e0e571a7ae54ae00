# Conditional expressions: only the chosen branch is evaluated.
calls = []


def mark(label, value):
    calls.append(label)
    return value


result = mark("then", 1) if mark("cond", True) else mark("else", 2)
print(result, calls)
calls.clear()
result = mark("then", 1) if mark("cond", 0) else mark("else", 2)
print(result, calls)

for n in range(-2, 3):
    print(n, "neg" if n < 0 else "zero" if n == 0 else "pos")

label = "many" if len([1, 2, 3]) > 2 else "few"
print(label)

values = [x if x % 2 else -x for x in range(6)]
print(values)

safe = (lambda d: d["k"] if "k" in d else "missing")
print(safe({"k": 5}), safe({}))

nested = ("a" if True else "b") + ("c" if False else "d")
print(nested)
