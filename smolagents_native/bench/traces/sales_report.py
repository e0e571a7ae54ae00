# Quarterly sales report: parse CSV-like rows into dicts, helpers defined in the first step and
# used by the later ones, grouping by region and product, a final ranking.
# %% step
raw = """2024-01-05,north,widget,12,3.50
2024-01-17,south,gadget,4,12.00
2024-02-02,north,gadget,7,12.00
2024-02-11,east,widget,30,3.25
2024-02-28,west,gizmo,2,45.00
2024-03-03,south,widget,18,3.50
2024-03-09,east,gizmo,1,45.00
2024-03-21,north,widget,25,3.40
2024-03-30,west,gadget,9,11.50
2024-04-02,south,gizmo,3,44.00"""

def parse_row(line):
    date, region, product, qty, price = line.split(",")
    return {"date": date, "region": region, "product": product,
            "qty": int(qty), "price": float(price)}

def revenue(row):
    return round(row["qty"] * row["price"], 2)

rows = [parse_row(line) for line in raw.strip().splitlines()]
print(f"Parsed {len(rows)} rows; first: {rows[0]}")
# %% step
by_region = {}
for row in rows:
    by_region.setdefault(row["region"], []).append(revenue(row))

for region in sorted(by_region):
    values = by_region[region]
    print(f"{region:>6}: {len(values)} sales, total {sum(values):.2f}")
# %% step
by_product = {}
for row in rows:
    entry = by_product.setdefault(row["product"], {"qty": 0, "revenue": 0.0})
    entry["qty"] += row["qty"]
    entry["revenue"] += revenue(row)

for product, entry in sorted(by_product.items(), key=lambda kv: -kv[1]["revenue"]):
    avg = entry["revenue"] / entry["qty"]
    print(product, entry["qty"], round(entry["revenue"], 2), f"avg {avg:.3f}")
# %% step
q1 = [r for r in rows if r["date"] < "2024-04-01"]
months = {}
for r in q1:
    month = r["date"][:7]
    months[month] = months.get(month, 0) + revenue(r)
print("Q1 by month:", {m: round(v, 2) for m, v in months.items()})
best_month = max(months, key=months.get)
print("Best month:", best_month)
# %% step
total = sum(revenue(r) for r in rows)
top_region = max(by_region, key=lambda k: sum(by_region[k]))
share = sum(by_region[top_region]) / total
print(f"Total revenue {total:.2f}; top region {top_region} with {share:.1%}")
answer = {"total": round(total, 2), "top_region": top_region, "best_month": best_month}
print(answer)
