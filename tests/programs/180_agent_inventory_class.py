# Agent-style: a small inventory system with classes and error handling.
class OutOfStock(Exception):
    pass


class Item:
    def __init__(self, sku, name, price, qty=0):
        self.sku, self.name, self.price, self.qty = sku, name, price, qty

    def __repr__(self):
        return f"Item({self.sku!r}, qty={self.qty})"


class Inventory:
    def __init__(self):
        self.items = {}
        self.history = []

    def add(self, sku, name, price, qty):
        item = self.items.setdefault(sku, Item(sku, name, price))
        item.qty += qty
        self.history.append(("add", sku, qty))

    def remove(self, sku, qty):
        item = self.items.get(sku)
        if item is None:
            raise KeyError(sku)
        if item.qty < qty:
            raise OutOfStock(f"{item.name}: requested {qty}, have {item.qty}")
        item.qty -= qty
        self.history.append(("remove", sku, qty))

    def value(self):
        return sum(i.price * i.qty for i in self.items.values())

    def low_stock(self, threshold=5):
        return sorted(i.sku for i in self.items.values() if i.qty < threshold)


inv = Inventory()
inv.add("A1", "bolt", 0.25, 100)
inv.add("B2", "nut", 0.1, 3)
inv.add("A1", "bolt", 0.25, 20)
for sku, qty in [("A1", 50), ("B2", 5), ("C3", 1), ("B2", 2)]:
    try:
        inv.remove(sku, qty)
        print("removed", qty, sku)
    except OutOfStock as e:
        print("out of stock:", e)
    except KeyError as e:
        print("unknown sku:", e)
print(inv.items, f"{inv.value():.2f}", inv.low_stock(), len(inv.history))
