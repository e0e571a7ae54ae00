# The classic mutable default argument gotcha: defaults are shared between calls.
def append_to(item, target=[]):
    target.append(item)
    return target


first = append_to(1)
second = append_to(2)
print(first, second, first is second)
print(append_to(3, []))
print(append_to(4))


def append_safe(item, target=None):
    if target is None:
        target = []
    target.append(item)
    return target


print(append_safe(1), append_safe(2))


def counter(_cache={"n": 0}):
    _cache["n"] += 1
    return _cache["n"]


print(counter(), counter(), counter())


def memo_fib(n, memo={0: 0, 1: 1}):
    if n not in memo:
        memo[n] = memo_fib(n - 1) + memo_fib(n - 2)
    return memo[n]


print(memo_fib(30), memo_fib(50))
