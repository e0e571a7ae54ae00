# Matrix multiply with lists: an agent doing a small linear-algebra computation by hand
# (triple loop product, transpose, trace) without numpy.
n = 55
a = [[(i * j + 1) % 7 - 3 for j in range(n)] for i in range(n)]
b = [[(i + 2 * j) % 5 - 2 for j in range(n)] for i in range(n)]

c = []
for i in range(n):
    row = []
    ai = a[i]
    for j in range(n):
        s = 0
        for k in range(n):
            s += ai[k] * b[k][j]
        row.append(s)
    c.append(row)

bt = [list(col) for col in zip(*b)]
d = [[sum([x * y for x, y in zip(row, col)]) for col in bt] for row in a]
trace = 0
for i in range(n):
    trace += c[i][i]
print(trace, c == d, c[0][:5], max([max(r) for r in c]))
