# The @ operator via __matmul__, __rmatmul__ and __imatmul__.
class Matrix:
    def __init__(self, rows):
        self.rows = [list(r) for r in rows]

    def __matmul__(self, other):
        if isinstance(other, Matrix):
            cols = list(zip(*other.rows))
            return Matrix([[sum(a * b for a, b in zip(row, col)) for col in cols] for row in self.rows])
        return NotImplemented

    def __rmatmul__(self, vector):
        return [sum(v * row[j] for v, row in zip(vector, self.rows)) for j in range(len(self.rows[0]))]

    def __imatmul__(self, other):
        self.rows = (self @ other).rows
        self.inplace = True
        return self

    def __repr__(self):
        return f"Matrix({self.rows})"


a = Matrix([[1, 2], [3, 4]])
b = Matrix([[0, 1], [1, 0]])
print(a @ b)
print(b @ a)
print([1, 1] @ a)
alias = a
a @= b
print(a, alias is a, a.inplace)
identity = Matrix([[1, 0], [0, 1]])
print((a @ identity).rows == a.rows)
try:
    a @ 5
except TypeError as e:
    print("TypeError:", e)
try:
    [1, 2] @ [3, 4]
except TypeError as e:
    print("TypeError:", e)
