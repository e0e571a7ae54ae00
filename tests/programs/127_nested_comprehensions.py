# Nested comprehensions: transpose, flatten, matrix products, triangles.
matrix = [[1, 2, 3], [4, 5, 6], [7, 8, 9]]
transposed = [[row[i] for row in matrix] for i in range(3)]
print(transposed)
flat = [x for row in matrix for x in row]
print(flat)
product = [[sum(a * b for a, b in zip(row, col)) for col in zip(*matrix)] for row in matrix]
print(product)
triangle = [[1] * (i + 1) for i in range(4)]
for i in range(2, 4):
    for j in range(1, i):
        triangle[i][j] = triangle[i - 1][j - 1] + triangle[i - 1][j]
print(triangle)
triples = [(a, b, c) for c in range(1, 21) for b in range(1, c) for a in range(1, b) if a * a + b * b == c * c]
print(triples)
table = {row: {col: row * col for col in range(1, 4)} for row in range(1, 4)}
print(table)
words = ["hi", "yo"]
print([[c * n for c in w] for w in words for n in (1, 2)])
diag = [matrix[i][i] for i in range(len(matrix))]
print(diag, [[x for x in row if x % 2] for row in matrix])
