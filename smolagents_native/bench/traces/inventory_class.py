# Inventory management: a class with methods defined in the first step, then orders applied,
# restocking decisions, a subclass with a discount, and a final valuation.
# %% step
class Inventory:
    def __init__(self, name):
        self.name = name
        self.items = {}
        self.log = []

    def add(self, sku, qty, unit_cost):
        current = self.items.get(sku, {"qty": 0, "cost": unit_cost})
        current["qty"] += qty
        current["cost"] = unit_cost
        self.items[sku] = current
        self.log.append(("add", sku, qty))

    def remove(self, sku, qty):
        if sku not in self.items or self.items[sku]["qty"] < qty:
            self.log.append(("short", sku, qty))
            return False
        self.items[sku]["qty"] -= qty
        self.log.append(("remove", sku, qty))
        return True

    def value(self):
        return sum(v["qty"] * v["cost"] for v in self.items.values())

    def __repr__(self):
        return f"Inventory('{self.name}', {len(self.items)} skus)"

inv = Inventory("main")
print(inv)
# %% step
stock = [("A-100", 40, 2.5), ("B-220", 15, 9.99), ("C-310", 100, 0.35), ("D-400", 5, 120.0),
         ("E-555", 60, 1.2)]
for sku, qty, cost in stock:
    inv.add(sku, qty, cost)
print(inv, "value", round(inv.value(), 2))
# %% step
orders = [("A-100", 12), ("C-310", 55), ("D-400", 7), ("B-220", 3), ("E-555", 60),
          ("A-100", 20), ("C-310", 30), ("D-400", 2)]
fulfilled = [sku for sku, qty in orders if inv.remove(sku, qty)]
short = [entry for entry in inv.log if entry[0] == "short"]
print("fulfilled:", len(fulfilled), "short:", short)
# %% step
threshold = 10
to_restock = sorted(sku for sku, v in inv.items.items() if v["qty"] < threshold)
print("restock:", to_restock)
for sku in to_restock:
    inv.add(sku, 25, inv.items[sku]["cost"])
print({sku: v["qty"] for sku, v in inv.items.items()})
# %% step
class DiscountInventory(Inventory):
    def __init__(self, name, discount):
        Inventory.__init__(self, name)
        self.discount = discount

    def value(self):
        return Inventory.value(self) * (1 - self.discount)

outlet = DiscountInventory("outlet", 0.2)
for sku, v in inv.items.items():
    if v["cost"] > 2:
        outlet.add(sku, v["qty"] // 2, v["cost"])
print(outlet, round(outlet.value(), 2))
# %% step
total_value = inv.value() + outlet.value()
entries = len(inv.items) + len(outlet.items)
print(f"Total stock value: {total_value:.2f} across {entries} entries")
print("log length:", len(inv.log), len(outlet.log))
moves = {}
for kind, sku, qty in inv.log + outlet.log:
    moves[kind] = moves.get(kind, 0) + qty
print("units moved by kind:", moves)
