# A finished coroutine refuses send() and throw() ("cannot reuse already awaited coroutine"); close() of it, or of a finished generator, returns None
async def c():
    return 1
x = c()
try:
    x.send(None)
except StopIteration as e:
    print("done", e.value)
for op in ("throw", "send", "close"):
    try:
        r = getattr(x, op)(ValueError("v")) if op == "throw" else (x.send(None) if op == "send" else x.close())
        print(op, "->", r)
    except Exception as e:
        print(op, type(e).__name__, e)
def g():
    yield 1
y = g(); list(y)
for op in ("throw", "close"):
    try:
        r = y.throw(ValueError("v")) if op == "throw" else y.close()
        print(op, "->", r)
    except Exception as e:
        print(op, type(e).__name__, e)
