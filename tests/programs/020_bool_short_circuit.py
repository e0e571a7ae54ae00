# and/or return one of their operands and stop evaluating as soon as possible.
calls = []


def v(label, value):
    calls.append(label)
    return value


print(0 or "default", "x" or "y", "" or 0 or None, [] or [1])
print(1 and "last", 0 and "never", "a" and "b" and "c", None and 1)

r = v("a", 0) and v("b", 1)
print(r, calls)
calls.clear()
r = v("a", 1) or v("b", 1)
print(r, calls)
calls.clear()
r = v("a", 0) or v("b", "") or v("c", "found") or v("d", "unused")
print(r, calls)
calls.clear()
r = v("a", 1) and v("b", 2) and v("c", 0) and v("d", 4)
print(r, calls)

print(not 0, not "x", not not [], not None)
config = {}
name = config.get("name") or "anonymous"
print(name)
items = None
count = items and len(items)
print(count)
mixed = (0 or 5) and (None or "ok")
print(mixed)
print(True + True, False * 3, True == 1, isinstance(True, int))
