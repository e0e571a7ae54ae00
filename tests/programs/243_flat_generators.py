# Generators whose yields are statements of their own inside if / for / while bodies (the
# evaluator resumes them without a C stack of their own): nested loops with break, continue and
# else clauses, values sent in and assigned, throw() and close() at a yield, return values,
# errors raised in the body, StopIteration leaking from the body, iterators released on every
# way out (order observed by __del__), re-entrance, and generators that mix those statements
# with try / with blocks that contain no yield.
log = []


class Src:
    def __init__(self, name, n):
        self.name = name
        self.n = n
        self.i = 0

    def __iter__(self):
        return self

    def __next__(self):
        if self.i >= self.n:
            raise StopIteration
        self.i += 1
        return self.i

    def __del__(self):
        log.append("del " + self.name)


def nested(n):
    for i in Src("outer", n):
        if i == 2:
            continue
        for j in Src("inner%d" % i, 3):
            if j == 2:
                log.append("skip %d %d" % (i, j))
                continue
            if i == 4 and j == 3:
                break
            yield (i, j)
        else:
            log.append("inner else %d" % i)
            yield "else", i
    else:
        log.append("outer else")
    log.append("end")


print(list(nested(5)))
print(log)
log.clear()


def early(n):
    for i in Src("a", n):
        for j in Src("b", n):
            if j > i:
                return i * 100 + j
            yield i, j


g = early(3)
print(next(g))
try:
    next(g)
except StopIteration as e:
    print("returned", e.value)
print(list(early(1)), list(early(0)))
print(log)
log.clear()


def echo():
    total = 0
    while True:
        x = yield total
        if x is None:
            break
        total += x
    yield "done", total
    return "bye"


g = echo()
print(next(g), g.send(3), g.send(4), g.send(None))
try:
    g.send(1)
except StopIteration as e:
    print("stop", e.value)


def unpacking():
    a, (b, c) = yield "first"
    d = e = yield a + b + c
    items = []
    items.append((yield d))
    yield items, e


g = unpacking()
print(next(g), g.send((1, (2, 3))), g.send("x"), g.send("y"))


def closing():
    for i in Src("c", 10):
        if i % 2:
            yield i
        else:
            x = yield -i
            log.append(("sent", x))


g = closing()
print(next(g), next(g), next(g))
g.close()
print(log)
log.clear()
print(list(g))
g = closing()
print(next(g))
try:
    g.throw(KeyError("k"))
except KeyError as e:
    print("thrown back", repr(e))
print(log)
log.clear()
try:
    next(g)
except StopIteration:
    print("finished after throw")


def fails(n):
    for i in Src("f", n):
        yield 10 // (3 - i)


try:
    print(list(fails(5)))
except ZeroDivisionError as e:
    print("error", e, log)
log.clear()


def leaks():
    it = iter([1])
    yield next(it)
    yield next(it)


try:
    print(list(leaks()))
except RuntimeError as e:
    print(type(e).__name__, e, type(e.__cause__).__name__)


def reenter():
    yield 1
    yield next(me)


me = reenter()
print(next(me))
try:
    next(me)
except ValueError as e:
    print("ValueError", e)


def mixed(n):
    i = 0
    while i < n:
        i += 1
        try:
            v = 10 // (i - 2)
        except ZeroDivisionError:
            v = "div"
        if i % 3 == 0:
            continue
        yield i, v
    else:
        yield "while else"
    while True:
        yield "tail"
        return


print(list(mixed(7)))


def counter():
    n = 0
    while n < 3:
        n += 1
        yield n


print([list(counter()) for _ in range(3)])
print(sum(x for x in counter()), max(counter()), sorted(counter(), reverse=True))


def empty_if(flag):
    if flag:
        yield "yes"
    elif flag is None:
        yield "none"
        yield "none again"
    else:
        pass
    yield "after"


print(list(empty_if(True)), list(empty_if(None)), list(empty_if(False)))


def bare():
    x = yield
    yield x


g = bare()
print(next(g), g.send(5))
gens = [closing() for _ in range(3)]
print([next(x) for x in gens])
del gens
print(sorted(log))
