# Agent-style: averaging per category crashes on an empty category.
orders = {
    "books": [12.5, 8.0, 23.9],
    "games": [59.99, 19.99],
    "music": [],
    "tools": [5.0],
}
averages = {}
for category, amounts in orders.items():
    total = sum(amounts)
    print(f"{category}: {len(amounts)} orders, total {total:.2f}")
    averages[category] = total / len(amounts)
print(averages)
