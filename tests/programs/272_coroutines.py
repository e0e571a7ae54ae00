# Coroutines: async def, await, async with, async for, driven by send() as an event loop does
class Sleep:
    def __init__(self, v): self.v = v
    def __await__(self):
        got = yield ("sleep", self.v)
        return got * 2

async def add(a, b):
    x = await Sleep(a)
    return x + b

async def main():
    r = await add(1, 2)
    log = []
    class CM:
        async def __aenter__(self):
            log.append("enter")
            await Sleep(0)
            return "cm"
        async def __aexit__(self, t, v, tb):
            log.append(("exit", t.__name__ if t else None))
            return t is KeyError
    async with CM() as c:
        log.append(c)
    async with CM():
        raise KeyError("swallowed")
    class AIt:
        def __init__(self): self.i = 0
        def __aiter__(self): return self
        async def __anext__(self):
            self.i += 1
            if self.i > 3: raise StopAsyncIteration
            await Sleep(self.i)
            return self.i
    got = []
    async for v in AIt():
        got.append(v)
    else:
        got.append("done")
    return r, log, got

def drive(coro):
    sent = None
    trace = []
    while True:
        try:
            req = coro.send(sent)
        except StopIteration as e:
            return e.value, trace
        trace.append(req)
        sent = req[1] + 10

c = main()
print(type(c).__name__, repr(c).startswith("<coroutine object main at"))
print(drive(c))
async def bad():
    await 1
try:
    bad().send(None)
except TypeError as e:
    print("TypeError", e)
async def noop(): return 5
n = noop()
try:
    n.send(None)
except StopIteration as e:
    print("value", e.value)
n2 = noop()
try:
    for _ in n2: pass
except TypeError as e:
    print("TypeError", e)
n2.close()
async def thrower():
    try:
        await Sleep(1)
    except ValueError as e:
        return "caught " + str(e)
t = thrower()
t.send(None)
try:
    t.throw(ValueError("x"))
except StopIteration as e:
    print(e.value)


async def chain(n):
    if n == 0:
        return 0
    return 1 + await chain(n - 1)


print(drive(chain(50)))
c = chain(1)
print(c.__name__, c.__qualname__)
c.close()


class Ctx:
    def __enter__(self):
        return self

    def __exit__(self, *a):
        return False


async def wrong_with():
    async with Ctx():
        pass


w = wrong_with()
try:
    w.send(None)
except (TypeError, AttributeError) as e:  # 3.10: AttributeError('__aenter__')
    print(type(e).__name__, e)


async def wrong_for():
    async for x in [1, 2]:
        pass


w = wrong_for()
try:
    w.send(None)
except TypeError as e:
    print("TypeError", e)


async def stops():
    class It:
        def __aiter__(self):
            return self

        async def __anext__(self):
            raise StopAsyncIteration

    async for x in It():
        print("never")
    return "empty"


print(drive(stops()))


async def once():
    return 1


o = once()
print(drive(o))
try:
    o.send(None)
except RuntimeError as e:
    print("RuntimeError", e)
o2 = once()
try:
    o2.send(1)
except TypeError as e:
    print("TypeError", e)
o2.close()
