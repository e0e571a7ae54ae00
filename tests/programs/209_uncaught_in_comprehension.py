# An uncaught ZeroDivisionError raised inside a comprehension inside a function.
def ratios(pairs):
    return [round(a / b, 3) for a, b in pairs]


print(ratios([(1, 3), (2, 7)]))
data = [(10, 4), (3, 0), (5, 5)]
print("computing", len(data), "ratios")
out = ratios(data)
