# send(): values flow into a generator through the yield expression.
def running_average():
    total = 0
    count = 0
    average = None
    while True:
        value = yield average
        total += value
        count += 1
        average = total / count


avg = running_average()
print(next(avg))
print(avg.send(10))
print(avg.send(20))
print(avg.send(60))


def echo():
    received = []
    while True:
        item = yield len(received)
        if item is None:
            break
        received.append(item)
    return received


e = echo()
print(e.send(None))
print(e.send("a"), e.send("b"))
try:
    e.send(None)
except StopIteration as stop:
    print("returned", stop.value)

fresh = running_average()
try:
    fresh.send(5)
except TypeError as err:
    print("TypeError:", err)


def accumulate_commands():
    state = {"x": 0}
    while True:
        cmd = yield dict(state)
        op, amount = cmd
        state["x"] = state["x"] + amount if op == "add" else state["x"] * amount


acc = accumulate_commands()
next(acc)
for cmd in [("add", 3), ("mul", 4), ("add", -2)]:
    print(acc.send(cmd))
