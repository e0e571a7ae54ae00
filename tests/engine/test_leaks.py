"""Reference-leak checks: running code over and over must not make the process
hold more memory blocks (sys.getallocatedblocks) once caches are warm.

The measuring function is itself tested: a helper that leaks on purpose must be
reported, and plain CPython exec of the same programs must not be."""

from __future__ import annotations

import ctypes
import gc
import sys

import pytest

from conftest import new_executor

ITERATIONS = 300      # runs per measuring window
WARMUP = 30           # runs before measuring: fill caches, freelists, interned strings
WINDOWS = 5           # a leak grows in every window; a one-time cache fill or the noise of a
                      # busy process (growths of -130 to +130 seen on 3.15) in one or two only
SLACK = ITERATIONS // 2   # allowed growth per window: well under one block per run


def _blocks() -> int:
    gc.collect()
    gc.collect()
    return sys.getallocatedblocks()


def measure_growth(fn, iterations=ITERATIONS, warmup=WARMUP, windows=WINDOWS, slack=SLACK):
    """Call fn() `warmup` times, then up to `windows` windows of `iterations` calls;
    return the list of block-count growths, stopping at the first window whose
    growth is below `slack`. The caller asserts on min(result)."""
    for _ in range(warmup):
        fn()
    growths = []
    for _ in range(windows):
        before = _blocks()
        for _ in range(iterations):
            fn()
        growths.append(_blocks() - before)
        if growths[-1] < slack:
            break
    return growths


def assert_no_leak(fn, what):
    growths = measure_growth(fn)
    assert min(growths) < SLACK, (
        f"{what}: allocated blocks grew by {growths} over windows of {ITERATIONS} runs "
        f"(allowed < {SLACK} in at least one window)"
    )


# --------------------------------------------------------------------------- programs

FUNCTIONS = '''
def make_counter(start=0):
    count = start
    def inc(step=1):
        nonlocal count
        count += step
        return count
    return inc

def kinds(a, /, b=2, *args, c, d=4, **kw):
    return a + b + len(args) + c + d + len(kw)

counter = make_counter(10)
values = [counter() for _ in range(5)]
adders = [lambda x, n=n: x + n for n in range(4)]
total = sum(f(1) for f in adders) if False else sum([f(1) for f in adders])
k = kinds(1, 2, 3, 4, c=5, e=6)
deco = (lambda f: (lambda *a, **kw: f(*a, **kw) * 2))(lambda x: x + 1)
r = deco(20)
'''

CLASSES = '''
class Base:
    registry = []
    def __init__(self, name):
        self.name = name
        Base.registry.append(name)
        if len(Base.registry) > 10:
            Base.registry.clear()
    @property
    def upper(self):
        return self.name.upper()
    def __repr__(self):
        return f"{type(self).__name__}({self.name!r})"
    def __eq__(self, other):
        return isinstance(other, Base) and self.name == other.name
    def __hash__(self):
        return hash(self.name)

class Child(Base):
    def __init__(self, name, extra):
        super().__init__(name)
        self.extra = extra
    @classmethod
    def make(cls):
        return cls("made", [1, 2, 3])
    @staticmethod
    def helper(x):
        return x * 2

objs = [Child.make(), Child("b", {"k": "v"}), Base("a")]
text = repr(objs) + objs[0].upper + str(Child.helper(21))
uniq = len(set(objs))
'''

GENERATORS = '''
def gen(n):
    try:
        for i in range(n):
            received = yield i
            if received:
                yield received
    finally:
        pass

def delegate():
    result = yield from gen(3)
    return result

g = gen(10)
first = next(g)
echoed = g.send("x")
g.close()
items = list(delegate())
squares = list(x * x for x in range(20) if x % 3)
partial = gen(5)
next(partial)
partial = None
def thrower():
    try:
        yield 1
    except ValueError:
        yield "caught"
t = thrower()
next(t)
caught = t.throw(ValueError("boom"))
t.close()
'''

EXCEPTIONS = (
'''
class AppError(Exception):
    def __init__(self, code):
        super().__init__(f"code {code}")
        self.code = code

caught = []
for i in range(5):
    try:
        try:
            {}["missing" + str(i)]
        except KeyError as e:
            raise AppError(i) from e
    except AppError as e:
        caught.append(e.code)
    finally:
        caught.append("f")
'''
# except* exists from CPython 3.11
+ ('''try:
    raise ExceptionGroup("g", [ValueError(1), TypeError(2)])
except* ValueError as eg:
    caught.append(len(eg.exceptions))
except* TypeError:
    caught.append("t")
''' if sys.version_info >= (3, 11) else '')
+ '''class CM:
    def __enter__(self):
        return self
    def __exit__(self, *exc):
        return True
with CM():
    1 / 0
'''
)

COMPREHENSIONS = '''
data = [{"k": i % 3, "v": i} for i in range(30)]
groups = {}
for row in data:
    groups.setdefault(row["k"], []).append(row["v"])
summary = {k: (sum(v), max(v)) for k, v in groups.items()}
pairs = [(a, b) for a in range(6) for b in range(a) if (a + b) % 2]
letters = {c for c in "the quick brown fox" if c.isalpha()}
big = 2 ** 200 // 3 + len(f"{3.14159:.2f}{'x'!r:>5}")
match {"type": "point", "xy": [1, 2]}:
    case {"type": "point", "xy": [x, y]}:
        matched = x + y
    case _:
        matched = None
s = ", ".join(sorted(letters)).upper().split(", ")
total = (y := 5) + y
'''

VARIED = "\n".join([FUNCTIONS, CLASSES, GENERATORS, EXCEPTIONS, COMPREHENSIONS])

FAILING = '''
def deep(n):
    if n == 0:
        raise ValueError("bottom reached")
    return deep(n - 1)

class Holder:
    def __init__(self):
        self.payload = [list(range(10)) for _ in range(3)]

h = Holder()
print("about to fail", len(h.payload))
deep(10)
'''

PROGRAMS = {
    "functions": FUNCTIONS,
    "classes": CLASSES,
    "generators": GENERATORS,
    "exceptions": EXCEPTIONS,
    "comprehensions": COMPREHENSIONS,
    "varied": VARIED,
}


# --------------------------------------------------------------------------- self-tests

_LEAK_SINK = []


def _leak_by_keeping():
    _LEAK_SINK.append([len(_LEAK_SINK)])


def _leak_by_incref():
    obj = [object()]
    ctypes.pythonapi.Py_IncRef(ctypes.py_object(obj))


def test_measure_detects_a_leak_kept_in_a_list():
    growths = measure_growth(_leak_by_keeping)
    _LEAK_SINK.clear()
    assert min(growths) >= SLACK, f"a deliberate leak went unnoticed: growths {growths}"


def test_measure_detects_a_reference_count_leak():
    growths = measure_growth(_leak_by_incref)
    assert min(growths) >= SLACK, f"a deliberate refcount leak went unnoticed: growths {growths}"


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_measure_accepts_plain_cpython_exec(name):
    """The noise floor: CPython itself running the same program does not trip the check."""
    code = compile(PROGRAMS[name], f"<{name}>", "exec")
    assert_no_leak(lambda: exec(code, {"__name__": "__main__"}), f"CPython exec of {name}")


# --------------------------------------------------------------------------- executor


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_repeated_runs_in_one_executor_do_not_leak(name):
    ex = new_executor()
    src = PROGRAMS[name]
    ex(src)  # fails the test loudly if the program does not run at all
    assert_no_leak(lambda: ex(src), f"{name} run repeatedly in one executor")


def test_failing_runs_do_not_leak():
    from smolagents_native import InterpreterError

    ex = new_executor()

    def run():
        try:
            ex(FAILING)
        except InterpreterError:
            pass
        else:
            raise AssertionError("FAILING program did not fail")

    assert_no_leak(run, "a failing program run repeatedly in one executor")


def test_fresh_executors_do_not_leak():
    def run():
        new_executor()(VARIED)

    assert_no_leak(run, "the varied program run in a fresh executor each time")


def test_state_is_not_a_hidden_accumulator():
    """Rebinding the same names every run must not grow the executor's state."""
    ex = new_executor()
    ex(VARIED)
    keys = set(ex.state)
    for _ in range(20):
        ex(VARIED)
    assert set(ex.state) == keys
