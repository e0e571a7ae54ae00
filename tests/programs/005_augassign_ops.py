# Augmented assignment with every operator, and the in-place vs rebinding difference.
n = 10
n += 5; print(n)
n -= 3; print(n)
n *= 4; print(n)
n //= 5; print(n)
n %= 7; print(n)
n **= 3; print(n)
n <<= 2; print(n)
n >>= 1; print(n)
n &= 0b1111; print(n)
n |= 0b10000; print(n)
n ^= 0b101; print(n)
f = 7
f /= 2; print(f)

s = "ab"
s += "cd"
s *= 2
print(s)

lst = [1]
alias = lst
lst += [2, 3]
print(lst, alias, lst is alias)
lst *= 2
print(alias)

tup = (1,)
tup_alias = tup
tup += (2,)
print(tup, tup_alias)

st = {1, 2}
st |= {3}
st &= {2, 3, 4}
st -= {2}
print(st)

counts = {"a": 1}
counts |= {"b": 2}
print(counts)

total = 0
for v in range(1, 11):
    total += v * v
print(total)
