# Agent-style: parsing CSV text by hand with type conversion and validation.
raw = """id,name,price,qty,date
1,Widget,2.50,10,2024-01-05
2,Gadget,,3,2024-01-06
3,"Thing, large",12.00,x,2024-01-07
4,Doohickey,0.75,40,2024-01-08
"""


def split_csv_line(line):
    fields, current, quoted = [], "", False
    for ch in line:
        if ch == '"':
            quoted = not quoted
        elif ch == "," and not quoted:
            fields.append(current)
            current = ""
        else:
            current += ch
    fields.append(current)
    return fields


header, *lines = raw.strip().splitlines()
columns = header.split(",")
good, errors = [], []
for n, line in enumerate(lines, start=2):
    row = dict(zip(columns, split_csv_line(line)))
    try:
        row["id"] = int(row["id"])
        row["price"] = float(row["price"]) if row["price"] else None
        row["qty"] = int(row["qty"])
        good.append(row)
    except ValueError as e:
        errors.append((n, str(e)))
print(columns)
for row in good:
    print(row)
print(errors)
priced = [r for r in good if r["price"] is not None]
print(sum(r["price"] * r["qty"] for r in priced), [r["name"] for r in good if r["price"] is None])
