# Nested loops: break only leaves the innermost loop; flags and else for outer exits.
grid = [
    [1, 2, 3],
    [4, 99, 6],
    [7, 8, 99],
]
for r, row in enumerate(grid):
    for c, cell in enumerate(row):
        if cell == 99:
            print("row", r, "first 99 at col", c)
            break
    else:
        print("row", r, "has no 99")

target = 8
for r, row in enumerate(grid):
    for c, cell in enumerate(row):
        if cell == target:
            break
    else:
        continue
    print("found", target, "at", (r, c))
    break

pairs = []
for a in range(1, 5):
    for b in range(a, 5):
        if (a + b) % 3:
            continue
        pairs.append((a, b))
print(pairs)

table = [[i * j for j in range(1, 4)] for i in range(1, 4)]
for row in table:
    print(" ".join(f"{v:3d}" for v in row))
