# Agent-style: group-by and aggregation over a list of records.
sales = [
    {"region": "north", "product": "widget", "units": 12, "price": 2.5},
    {"region": "south", "product": "gadget", "units": 3, "price": 10.0},
    {"region": "north", "product": "gadget", "units": 7, "price": 9.5},
    {"region": "east", "product": "widget", "units": 20, "price": 2.25},
    {"region": "south", "product": "widget", "units": 5, "price": 2.5},
    {"region": "north", "product": "widget", "units": 1, "price": 3.0},
]
totals = {}
for row in sales:
    key = row["region"]
    revenue = row["units"] * row["price"]
    entry = totals.setdefault(key, {"units": 0, "revenue": 0.0, "orders": 0})
    entry["units"] += row["units"]
    entry["revenue"] += revenue
    entry["orders"] += 1
for region, t in sorted(totals.items(), key=lambda kv: -kv[1]["revenue"]):
    avg = t["revenue"] / t["orders"]
    print(f"{region:<6} units={t['units']:>3} revenue={t['revenue']:>7.2f} avg/order={avg:.2f}")
by_product = {}
for row in sales:
    by_product.setdefault(row["product"], []).append(row["units"])
summary = {p: {"total": sum(u), "max": max(u), "n": len(u)} for p, u in by_product.items()}
print(summary)
best = max(sales, key=lambda r: r["units"] * r["price"])
print("best sale:", best["region"], best["product"])
grand_total = round(sum(r["units"] * r["price"] for r in sales), 2)
print("grand total:", grand_total)
