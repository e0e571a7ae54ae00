# Small classes with methods: an agent modelling an inventory and bank accounts with
# __init__, methods, inheritance, method overrides, __repr__ and class attributes.
class Item:
    tax_rate = 0.2

    def __init__(self, sku, price, qty):
        self.sku = sku
        self.price = price
        self.qty = qty

    def value(self):
        return self.price * self.qty

    def gross(self):
        return self.value() * (1 + self.tax_rate)

    def __repr__(self):
        return f"Item('{self.sku}', {self.price}, {self.qty})"


class Perishable(Item):
    tax_rate = 0.05

    def __init__(self, sku, price, qty, days):
        self.sku = sku
        self.price = price
        self.qty = qty
        self.days = days

    def value(self):
        factor = 0.5 if self.days < 3 else 1.0
        return Item.value(self) * factor


class Inventory:
    def __init__(self):
        self.items = {}

    def add(self, item):
        self.items[item.sku] = item

    def restock(self, sku, n):
        self.items[sku].qty += n

    def total(self):
        return sum([it.gross() for it in self.items.values()])


class Account:
    def __init__(self, owner):
        self.owner = owner
        self.balance = 0
        self.history = []

    def deposit(self, amount):
        self.balance += amount
        self.history.append(("dep", amount))

    def withdraw(self, amount):
        if amount > self.balance:
            return False
        self.balance -= amount
        self.history.append(("wd", amount))
        return True


inv = Inventory()
for i in range(3000):
    if i % 4 == 0:
        inv.add(Perishable(f"P{i}", 1.5 + i % 7, i % 13, i % 5))
    else:
        inv.add(Item(f"S{i}", 3.25 + i % 11, i % 17))
for i in range(0, 3000, 3):
    inv.restock(("P" if i % 4 == 0 else "S") + str(i), 2)

accounts = [Account(f"acct{i}") for i in range(50)]
refused = 0
for step in range(20000):
    acct = accounts[step % 50]
    if step % 3 == 0:
        if not acct.withdraw(step % 40):
            refused += 1
    else:
        acct.deposit(step % 25)
print(round(inv.total(), 2), str(inv.items["S1"]), str(inv.items["P0"]))
print(refused, sum([a.balance for a in accounts]), len(accounts[7].history))
