# Sequence repetition and concatenation semantics.
print("ab" * 3, 3 * "ab", "x" * 0, "x" * -2, [1, 2] * 2, (0,) * 3, b"-" * 4)
print([] * 5, [None] * 2, 2 * [[1]])
row = [0] * 3
board = [row] * 2
board[0][1] = 5
print(board, board[0] is board[1])
fresh = [[0] * 3 for _ in range(2)]
fresh[0][1] = 5
print(fresh)
s = "="
s *= 10
print(s, len(s))
lst = [1]
lst *= 3
print(lst)
print("-".join(["ab"] * 3), ["a", "b"] + ["c"], ("a",) + ("b", "c"), "con" + "cat")
print(True * "yes", False * "no" == "", 2 * (1, 2))
line = "-" * 20
print(f"{line}\n{'title':^20}\n{line}")
try:
    "a" * "b"
except TypeError as e:
    print("TypeError:", e)
try:
    [1] * 1.0
except TypeError as e:
    print("TypeError:", e)
