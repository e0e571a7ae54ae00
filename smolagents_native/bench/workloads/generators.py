# Generators: generator functions with yield, generator expressions consumed by sum/any/
# max/join, and a lazy pipeline (read -> filter -> window) as an agent streams records.
def read_records(n):
    for i in range(n):
        yield {"id": i, "value": (i * 37) % 101}


def only_even(records):
    for r in records:
        if r["value"] % 2 == 0:
            yield r


def windows(values, size):
    window = []
    for v in values:
        window.append(v)
        if len(window) == size:
            yield sum(window) / size
            window.pop(0)


def fib_gen():
    a, b = 0, 1
    while True:
        yield a
        a, b = b, a + b


values = (r["value"] for r in only_even(read_records(40000)))
averages = list(windows(values, 5))
squares = sum(x * x for x in range(20000))
has_big = any(v > 99.5 for v in averages)
label = ",".join(str(i) for i in range(0, 300, 7))
first_big = None
for i, f in enumerate(fib_gen()):
    if f > 10 ** 40:
        first_big = i
        break
print(len(averages), round(max(averages), 2), squares, has_big, len(label), first_big)
