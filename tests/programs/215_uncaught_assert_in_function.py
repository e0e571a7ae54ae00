# An uncaught AssertionError with a message from inside a validation function.
def validate(order):
    assert order["qty"] > 0, f"order {order['id']}: qty must be positive, got {order['qty']}"
    assert order["price"] >= 0, "negative price"
    return order["qty"] * order["price"]


orders = [{"id": 1, "qty": 2, "price": 3.0}, {"id": 2, "qty": 0, "price": 1.0}]
for o in orders:
    print("order", o["id"], "total", validate(o))
