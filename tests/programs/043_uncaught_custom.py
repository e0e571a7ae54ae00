# A custom exception raised from inside nested calls ends the program.
class InventoryError(Exception):
    pass


stock = {"bolts": 5, "nuts": 2}


def take(item, qty):
    have = stock.get(item, 0)
    if qty > have:
        raise InventoryError(f"cannot take {qty} {item}: only {have} left")
    stock[item] = have - qty
    return stock[item]


def process(order):
    for item, qty in order:
        left = take(item, qty)
        print(f"took {qty} {item}, {left} left")


process([("bolts", 2), ("nuts", 1)])
print(stock)
process([("bolts", 3), ("nuts", 5)])
