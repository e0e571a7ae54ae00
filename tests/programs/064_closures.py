# Closures capture variables (cells), not values; nonlocal rebinds them.
def make_counter(start=0):
    count = start
    def increment(step=1):
        nonlocal count
        count += step
        return count
    def peek():
        return count
    return increment, peek

inc, peek = make_counter(10)
inc()
inc(5)
print(peek())
inc2, peek2 = make_counter()
inc2()
print(peek(), peek2())

def make_accumulator():
    items = []
    def add(x):
        items.append(x)
        return list(items)
    return add

acc = make_accumulator()
acc(1)
print(acc(2))

def outer():
    value = "before"
    def show():
        return value
    value = "after"
    return show

print(outer()())

def adders():
    return [lambda x, n=n: x + n for n in range(3)]

print([f(10) for f in adders()])

def bank(balance):
    def deposit(amount):
        nonlocal balance
        balance += amount
        return balance
    def withdraw(amount):
        nonlocal balance
        if amount > balance:
            return "insufficient"
        balance -= amount
        return balance
    return deposit, withdraw

dep, wd = bank(100)
print(dep(50), wd(500), wd(20))
