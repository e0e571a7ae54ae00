# Agent-style: matrix arithmetic on nested lists.
def mat_mul(a, b):
    return [[sum(x * y for x, y in zip(row, col)) for col in zip(*b)] for row in a]


def transpose(m):
    return [list(r) for r in zip(*m)]


def determinant(m):
    if len(m) == 1:
        return m[0][0]
    total = 0
    for c in range(len(m)):
        minor = [row[:c] + row[c + 1:] for row in m[1:]]
        total += (-1) ** c * m[0][c] * determinant(minor)
    return total


def identity(n):
    return [[int(i == j) for j in range(n)] for i in range(n)]


def mat_pow(m, k):
    result = identity(len(m))
    while k:
        if k & 1:
            result = mat_mul(result, m)
        m = mat_mul(m, m)
        k >>= 1
    return result


A = [[2, 0, 1], [1, 3, 2], [1, 1, 1]]
B = [[1, 2], [0, 1], [4, 0]]
print(mat_mul(A, B), transpose(B), determinant(A), determinant([[1, 2], [2, 4]]))
print(mat_pow([[1, 1], [1, 0]], 30)[0][1])
for row in mat_mul(A, identity(3)):
    print(" ".join(f"{v:>3}" for v in row))
scaled = [[v * 0.5 for v in row] for row in A]
print(scaled, [sum(col) for col in zip(*A)], max(max(r) for r in A))
