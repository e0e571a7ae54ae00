# Integer arithmetic between one digit and 64 bits, where the evaluator computes in a long long
# when both operands and the result fit: every operator on values around 2**30, 2**31, 2**53,
# 2**62 and 2**63 with both signs, results that overflow a long long (falling back to int's own
# methods), floor division and modulo with mixed signs, division by zero, bools and int
# subclasses (never on the fast path), in-place forms, and comparisons over the same edges.
edges = [0, 1, -1, 2, -3, 7, 2**30 - 1, 2**30, -(2**30), 2**31 - 1, 2**31, -(2**31) - 5,
         2**53 + 1, -(2**53) - 3, 2**62 - 1, 2**62, -(2**62), 2**63 - 1, -(2**63), 2**63,
         -(2**63) - 1, 2**64 + 7, 1103515245, 12345678901234]
ops = ["+", "-", "*", "//", "%", "&", "|", "^"]


def apply(op, a, b):
    try:
        if op == "+":
            return a + b
        if op == "-":
            return a - b
        if op == "*":
            return a * b
        if op == "//":
            return a // b
        if op == "%":
            return a % b
        if op == "&":
            return a & b
        if op == "|":
            return a | b
        return a ^ b
    except ZeroDivisionError as e:
        return "ZeroDivisionError: " + str(e)


checksum = 0
lines = []
for op in ops:
    for a in edges:
        for b in edges:
            r = apply(op, a, b)
            if isinstance(r, int):
                checksum = (checksum * 31 + r) % (2**127 - 1)
                assert type(r) is int
            else:
                lines.append((op, a, b, r))
print(checksum)
print(len(lines), lines[:3])

# comparisons over the same edges (as long longs when both fit)
bits = []
for a in edges:
    for b in edges:
        bits.append((a < b, a <= b, a == b, a != b, a > b, a >= b, a < b < 2**63 - 1))
print(sum(1 << i for i, t in enumerate(bits) if t[0]) % 1000003, sum(sum(t) for t in bits))

# results at the edges of a long long, exactly
print((2**62) + (2**62), (2**62) + (2**62) - 1, -(2**62) - (2**62), -(2**62) - (2**62) - 1)
print((2**31) * (2**31), (2**31) * (2**32), (-(2**31)) * (2**32), (2**32) * (2**32))
print((-(2**63)) // -1, (-(2**63)) % -1, (2**63 - 1) // -1, -7 // (2**40), -7 % (2**40))
print((2**40 + 3) // -7, (2**40 + 3) % -7, -(2**40) // 7, -(2**40) % 7, (2**62) % (2**31))

# bools and int subclasses keep their own behaviour


class Num(int):
    def __add__(self, other):
        return "Num.__add__"

    def __mod__(self, other):
        return "Num.__mod__"


print(True + (2**40), (2**40) * False, Num(2**40) + 2**40, Num(2**41) % 3, (2**40) + Num(1))

# in-place forms, and an LCG as a numeric loop runs it
x = 12345
acc = 0
for i in range(2000):
    x = (x * 1103515245 + 12345) % 2147483648
    acc ^= x
    acc += x // 7
    acc -= x % 1000
print(x, acc)
big = 2**61
big *= 4
big -= 1
big += 2
print(big, type(big).__name__)
