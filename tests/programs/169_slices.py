# Slicing with negative indices, steps, out-of-range bounds and slice objects.
s = "abcdefghij"
lst = list(range(10))
print(s[2:5], s[:3], s[7:], s[-3:], s[:-3], s[-5:-2], s[::2], s[1::3], s[::-1], s[8:2:-2])
print(lst[::-3], lst[100:], lst[-100:2], lst[5:2], lst[2:5:-1], lst[-1:-4:-1])
sl = slice(1, 8, 3)
print(s[sl], lst[sl], sl.start, sl.stop, sl.step, slice(5), slice(None, None, -1))
print(sl.indices(5), slice(-3, None).indices(10))
t = (1, 2, 3, 4)
print(t[1:3], t[::-1], type(t[1:]).__name__, range(10)[2:8:2], b"bytes"[1:3])
copy = lst[:]
copy[0] = 99
print(lst[0], copy[0], copy is lst)
try:
    s[::0]
except ValueError as e:
    print("ValueError:", e)
print(s[len(s):], s[3:3], "".join(reversed(s[:3])), s[-1], s[-len(s)])
print([s[i:i + 3] for i in range(0, len(s), 3)])
