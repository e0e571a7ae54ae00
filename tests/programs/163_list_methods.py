# list methods and their return values.
items = [3, 1, 4, 1, 5]
print(items.append(9), items)
items.extend([2, 6])
items.insert(0, 0)
items.insert(100, "end")
items.insert(-1, "before end")
print(items)
print(items.pop(), items.pop(0), items.pop(-2), items)
items.remove(1)
print(items, items.index(1), items.count(1), items.index(5, 2))
nums = [n for n in items if isinstance(n, int)]
nums.sort()
print(nums, nums.reverse(), nums)
copy = nums.copy()
copy.clear()
print(copy, nums, len(nums))
print([1, 2] + [3], [0] * 3, [[]] * 2, list("abc"), list(range(3)), list({"a": 1}))
grid = [[0] * 2] * 2
grid[0][0] = 1
print(grid)
print(sorted(["b", "A", "c"]), sorted(["b", "A", "c"], key=str.lower), [1, 2, 3][::-1])
try:
    [].remove(5)
except ValueError as e:
    print("ValueError:", e)
a = [1, 2, 3]
b = a
a = a + [4]
print(a, b)
