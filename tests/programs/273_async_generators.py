# Asynchronous generators (PEP 525) and comprehensions (PEP 530), driven by send() as an event loop does
class Tick:
    def __init__(self, v): self.v = v
    def __await__(self):
        got = yield ("tick", self.v)
        return got

def run(coro):
    trace = []
    value = None
    while True:
        try:
            req = coro.send(value)
        except StopIteration as e:
            return e.value, trace
        trace.append(req)
        value = req[1] * 10

async def countdown(n):
    try:
        while n > 0:
            got = await Tick(n)
            sent = yield (n, got)
            if sent is not None:
                n = sent
            n -= 1
    finally:
        print("countdown finally", n)

async def double(x):
    return 2 * await Tick(x)

async def main():
    out = [v async for v in countdown(3)]
    print("list", out)
    print("set", {v[0] async for v in countdown(2)})
    print("dict", {v[0]: v[1] async for v in countdown(2) if v[0] > 1})
    print("awaited", [await double(x) for x in range(3)])
    async def arange(n):
        for i in range(n):
            yield i
    print("nested", [[a async for a in countdown(k)] async for k in arange(3)])
    g = (v[0] * 100 async for v in countdown(2))
    print(type(g).__name__, [x async for x in g])
    h = (await double(x) for x in range(2))
    print([x async for x in h])

    ag = countdown(5)
    print(await anext(ag))
    print(await ag.asend(2))
    print(await anext(ag, "done"))
    print(await anext(ag, "done"))
    try:
        await anext(ag)
    except StopAsyncIteration:
        print("stop")
    await ag.aclose()

    async def catcher():
        try:
            yield 1
        except KeyError as e:
            yield "caught " + repr(e)
        yield 3
    c = catcher()
    print(await anext(c), await c.athrow(KeyError("k")), await anext(c))
    await c.aclose()
    try:
        await anext(c)
    except StopAsyncIteration:
        print("closed")

    async def stubborn():
        try:
            yield 1
        finally:
            yield 2
    s = stubborn()
    await anext(s)
    try:
        await s.aclose()
    except RuntimeError as e:
        print("RuntimeError", e)

    async def bad():
        yield 1
        raise StopAsyncIteration
    try:
        async for v in bad():
            print("bad", v)
    except RuntimeError as e:
        print("RuntimeError", e)

    async def raiser():
        yield 1
        raise ValueError("boom")
    got = []
    try:
        async for v in raiser():
            got.append(v)
    except ValueError as e:
        print("ValueError", e, got)

    a = countdown(2)
    step = anext(a)
    print(aiter(a) is a, type(step).__name__)
    step.close()
    return "ok"

result, trace = run(main())
print(result, len(trace), trace[:4])
