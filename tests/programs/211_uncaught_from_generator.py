# An exception raised inside a generator propagates out of the for loop consuming it.
def read_numbers(lines):
    for n, line in enumerate(lines, 1):
        if not line.strip().lstrip("-").isdigit():
            raise ValueError(f"line {n}: not an integer: {line!r}")
        yield int(line)


total = 0
for value in read_numbers(["4", "-2", "17", "seven", "5"]):
    total += value
    print("running total", total)
