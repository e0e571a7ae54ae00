# Augmented assignments of module-level names and globals, warm in loops: every operator on
# ints, floats and containers, a right operand that rebinds or deletes the name it updates, a
# name that shadows a builtin, str targets (the in-place append path), `global` targets in a
# function, operands whose __iadd__ / __radd__ run code, and (in functions and at module level)
# an operand that rebinds the target with `:=`. The target's old value is read before the right
# operand is evaluated, as CPython's LOAD_NAME / LOAD_FAST comes first.
total = 0
prod = 1
flt = 0.5
bits = 0
lst = []
text = ""
big = 2**62


calls = 0


def bump():
    global total, calls
    calls += 1
    total = 1000 * calls
    return 1


class Acc:
    def __init__(self):
        self.n = 0

    def __iadd__(self, other):
        global seen_iadd
        seen_iadd = other
        self.n += other
        return self


class Right:
    def __radd__(self, other):
        global total
        total = -5
        return ("radd", other)


acc = Acc()
seen_iadd = None
for i in range(40):
    total += i
    prod *= 3
    prod %= 1000003
    flt += i / 7
    flt -= 0.25
    bits |= 1 << (i % 9)
    bits ^= i
    bits &= 0xFFFF
    lst += [i]
    text += str(i % 10)
    big += i
    big //= 2
    acc += i
    if i >= 20:
        total += bump()  # old total read first: bump's store is overwritten
    if i == 30:
        len = 7
        len += 1  # shadows the builtin, then a global of its own
print(total, prod, round(flt, 6), bits, len(lst) if callable(len) else len, text, big)
print(acc.n, seen_iadd)
del len
print(len(lst))

x = 10
x += Right()
print(x, total)

r = 0
for j in range(5):
    r **= 1
    r += j
    r <<= 1
    r >>= 1
    r -= 1
    r /= 2
    r = int(r)
print(r)


def g(n):
    global counter
    for k in range(n):
        counter += k
    return counter


counter = 0
print(g(100), counter)


def drop():
    global counter
    del counter
    return 2


for k in range(4):
    counter += drop()  # read before the operand deletes it
print(counter)

try:
    missing += 1
except NameError as e:
    print("NameError", e)
try:
    total += "s"
except TypeError as e:
    print("TypeError", e)
print(total)


def rebind_local(n):
    out = []
    for _ in range(n):
        v = 1
        v += (v := 10)
        w = [1]
        w += (w := [2])
        out.append((v, w))
    return out


print(rebind_local(4))
for _ in range(4):
    gv = 1
    gv += (gv := 10)
    print(gv, end=" ")
print()
