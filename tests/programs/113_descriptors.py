# Descriptors with __get__/__set__/__set_name__ for validated fields.
class Positive:
    def __set_name__(self, owner, name):
        self.name = name
        self.storage = "_" + name

    def __get__(self, obj, objtype=None):
        if obj is None:
            return self
        return getattr(obj, self.storage, 0)

    def __set__(self, obj, value):
        if value <= 0:
            raise ValueError(f"{self.name} must be positive, got {value}")
        setattr(obj, self.storage, value)


class Item:
    price = Positive()
    quantity = Positive()

    def __init__(self, price, quantity):
        self.price = price
        self.quantity = quantity

    def total(self):
        return self.price * self.quantity


it = Item(2.5, 4)
print(it.price, it.quantity, it.total())
try:
    it.quantity = -1
except ValueError as e:
    print("ValueError:", e)
print(type(Item.price).__name__, Item.price.name, it.quantity)


class Constant:
    def __init__(self, value):
        self.value = value

    def __get__(self, obj, objtype=None):
        return self.value


class Holder:
    answer = Constant(42)


h = Holder()
h.answer = "instance value wins over non-data descriptor"
print(Holder.answer, h.answer)
