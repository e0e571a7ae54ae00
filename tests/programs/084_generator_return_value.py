# A generator's return value travels in StopIteration.value; StopIteration
# raised inside a generator body becomes RuntimeError (PEP 479).
def with_return():
    yield 1
    return {"status": "ok"}


g = with_return()
next(g)
try:
    next(g)
except StopIteration as e:
    print("value:", e.value)


def leaks_stop():
    yield 1
    raise StopIteration("explicit")


try:
    print(list(leaks_stop()))
except RuntimeError as e:
    print("RuntimeError:", e)


def next_on_empty():
    it = iter([])
    yield next(it)


try:
    list(next_on_empty())
except RuntimeError as e:
    print("RuntimeError:", e)


def safe_first(iterable):
    for item in iterable:
        return item
    return None


print(safe_first([]), safe_first("xyz"))
print(list(with_return()))


def returns_none():
    yield "only"


h = returns_none()
next(h)
try:
    next(h)
except StopIteration as e:
    print("value is None:", e.value is None, e.args)
