# Group-by and aggregation over a list of dicts: an agent summarising sales records
# (totals, counts, averages and maxima per region and per product), as it would after
# loading rows from a tool.
import random

random.seed(7)
regions = ["north", "south", "east", "west", "central"]
products = ["widget", "gadget", "doohickey", "gizmo", "thingamajig", "whatsit"]
rows = []
for i in range(6000):
    rows.append({
        "id": i,
        "region": regions[random.randrange(len(regions))],
        "product": products[random.randrange(len(products))],
        "units": random.randint(1, 40),
        "price": round(random.uniform(2.0, 90.0), 2),
    })

by_region = {}
for row in rows:
    revenue = row["units"] * row["price"]
    agg = by_region.get(row["region"])
    if agg is None:
        agg = {"count": 0, "units": 0, "revenue": 0.0, "best": 0.0}
        by_region[row["region"]] = agg
    agg["count"] += 1
    agg["units"] += row["units"]
    agg["revenue"] += revenue
    if revenue > agg["best"]:
        agg["best"] = revenue

by_pair = {}
for row in rows:
    key = (row["region"], row["product"])
    if key in by_pair:
        by_pair[key].append(row["units"])
    else:
        by_pair[key] = [row["units"]]

averages = {key: sum(vals) / len(vals) for key, vals in by_pair.items()}
top_pair = max(averages, key=lambda k: averages[k])

for region in sorted(by_region):
    agg = by_region[region]
    print(region, agg["count"], agg["units"], round(agg["revenue"], 2), round(agg["best"], 2))
print("top pair:", top_pair, round(averages[top_pair], 3))
