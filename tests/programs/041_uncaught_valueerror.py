# Processing stops at the first bad record; prints made before it remain.
records = ["10", "20", "thirty", "40"]
total = 0
for index, raw in enumerate(records):
    value = int(raw)
    total += value
    print(f"record {index}: {value} (running total {total})")
print("done", total)
