# yield used as an expression: next() sends None, values in expressions and calls.
def show_received():
    while True:
        received = yield
        print("received", repr(received))


s = show_received()
next(s)
s.send(1)
next(s)
s.send("text")


def doubled():
    x = yield 1
    y = yield (x or 0) * 2
    z = yield [x, y]
    return z


d = doubled()
print(next(d))
print(d.send(5))
print(d.send(6))


def yields_in_expressions():
    total = (yield "a") + (yield "b")
    yield f"total={total}"


y = yields_in_expressions()
print(next(y), y.send(10), y.send(32))


def yield_in_call():
    print("value printed:", (yield "first"))
    yield "second"


yc = yield_in_call()
print(next(yc))
print(yc.send("sent value"))


def yield_tuple():
    yield 1, 2
    yield


print(list(yield_tuple()))
