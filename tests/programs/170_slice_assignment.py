# Slice assignment and deletion change list length; extended slices need equal sizes.
lst = list(range(8))
lst[2:4] = ["a", "b", "c", "d"]
print(lst)
lst[1:7] = []
print(lst)
lst[:0] = [-2, -1]
print(lst)
lst[len(lst):] = [100]
print(lst)
lst[::2] = ["x"] * len(lst[::2])
print(lst)
lst[1:3] = "yz"
print(lst)
nums = list(range(10))
nums[::3] = [0, 0, 0, 0]
print(nums)
try:
    nums[::2] = [1, 2]
except ValueError as e:
    print("ValueError:", e)
try:
    nums[1:3] = 5
except TypeError as e:
    print("TypeError:", e)
nums[-3:] = range(3)
print(nums)
del nums[::4]
print(nums)
alias = nums
nums[:] = [1, 2, 3]
print(alias, alias is nums)
b = bytearray(b"hello")
b[1:3] = b"EE"
print(b)
