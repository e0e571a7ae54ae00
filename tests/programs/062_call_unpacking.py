# * and ** unpacking in calls, possibly several times and mixed with plain arguments.
def show(*args, **kwargs):
    return f"args={args} kwargs={kwargs}"


nums = [1, 2]
more = (3, 4)
opts = {"x": 1}
extra = {"y": 2}
print(show(*nums))
print(show(0, *nums, 5, *more))
print(show(**opts, **extra))
print(show(*nums, z=0, **opts))
print(show(*"ab", *range(2)))
print(show(*{"k1": 1, "k2": 2}))
print(show(**dict(a=1), b=2))

merged = {**opts, **{"x": 9}}
print(show(**merged))


def point(x, y, z=0):
    return (x, y, z)


print(point(*[1, 2]), point(*[1], **{"y": 5}), point(**{"z": 3, "x": 1, "y": 2}))
coords = [(1, 2), (3, 4)]
print([point(*c) for c in coords])
print(*[1, 2, 3], sep=" | ")
print(*"xyz")
print(max(*[3, 9, 2]), min(*(5, 1)))
args = ([1, 2], [3, 4])
print(list(zip(*args)))
