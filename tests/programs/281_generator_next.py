# next() on generators whose body runs on the caller's stack (flat generators and generator
# expressions), which __next__ resumes by a short path while the step's own code drives
# them: values, the value a `return` gives StopIteration, the end repeated, an error raised
# in the body and the generator finished after it, a generator that resumes itself while it
# runs, PEP 479, a deep chain of them (RecursionError, then usable again), a generator
# expression drained, send() mixed with next(), and a closed one.
def counted(n):
    for i in range(n):
        yield i
    return "done"


it = counted(2)
out = [next(it), next(it)]
for _ in range(2):
    try:
        next(it)
    except StopIteration as e:
        out.append(("stop", e.value))
print(out)


def failing():
    yield 1
    raise ValueError("from the body")


it = failing()
out = [next(it)]
try:
    next(it)
except ValueError as e:
    out.append(str(e))
out.append(list(it))
print(out)


def reentrant():
    yield 1
    yield next(me)


me = reentrant()
out = [next(me)]
try:
    next(me)
except ValueError as e:
    out.append(str(e))
print(out, list(me))


def leaks_stop():
    while True:
        yield 1
        raise StopIteration


it = leaks_stop()
out = [next(it)]
try:
    next(it)
except RuntimeError as e:
    out.append((str(e), type(e.__cause__).__name__))
print(out)


def chain(n):
    if n == 0:
        yield 0
    else:
        for x in chain(n - 1):
            yield x + 1


out = [list(chain(50))]
try:
    list(chain(5000))
except RecursionError:
    out.append("recursion")
out.append(list(chain(10)))
print(out)

doubled = (x * 2 for x in range(3))
print(next(doubled), list(doubled), list(doubled), next(doubled, "empty"))


def echo():
    x = yield 1
    while True:
        x = yield x


it = echo()
print(next(it), it.send(5), next(it), it.send("s"))
it.close()
print(next(it, "closed"), sum(x for x in counted(5)), max(counted(4)))


# the value of a yield resumed by __next__ is None, stored in every target, by a for loop
# as by next(); a value sent in between is stored in its turn
def received():
    seen = []
    a = b = "unset"
    for i in range(3):
        a = b = yield i
        seen.append((a, b))
    c = yield "last"
    seen.append(c)
    yield seen


it = received()
print([v for v in it])
it = received()
print(next(it), it.send(7), next(it), it.send([1]), next(it), next(it, "end"))
squares = (x * x for x in range(4))
print(next(squares), squares.send(None), squares.send("ignored"), list(squares))
