"""The deadline at its sources (docs/security.md, "Deadline"; csrc/guard/deadline.c).

C loops over iterators with no end of their own, big-int arithmetic and modular exponentiation
used to outlive the deadline (the clock was read only between interpreted operations). Each
payload must end with ExecutionTimeoutError (or an InterpreterError refusing an operation that
could not be interrupted) within a bounded overshoot of a 1 s timeout, with no side effect, and
the executor must work afterwards.
"""

from __future__ import annotations

import time

import pytest
from conftest import UNDER_SANITIZER, new_executor, refused

from smolagents_native import ExecutionTimeoutError

IMPORTS = ["itertools", "math", "collections", "statistics", "heapq", "functools", "operator"]
# Generous: the machine running the suite may be loaded (2 cores shared).
MAX_ELAPSED = 1.0 + (20.0 if UNDER_SANITIZER else 6.0)
STOPPED = r"maximum execution time|would run too long|too large|Memory budget|max number of operations"

ISSUE_PAYLOADS = [
    "import math, itertools\nmath.fsum(itertools.repeat(1.0))",
    "import itertools\n1 in itertools.repeat(0)",
    "from itertools import repeat\nset().union(repeat(1))",
    "from itertools import repeat\n{}.update(zip(repeat(1), repeat(2)))",
    "from itertools import repeat\nfrom collections import Counter\nCounter().update(repeat(1))",
    "from itertools import repeat\nfrom collections import deque\n"
    "deque(maxlen=0).extendleft(repeat(1))",
    "import statistics, itertools\n"
    "statistics.NormalDist.from_samples(itertools.cycle([1.0, 2.0]))",
    "import itertools\nprint(*itertools.count())",
    # big-int products, each inside max_int_bits
    "x = (1 << 1_990_000) - 1\ny = (1 << 1_990_000) - 3\nfor i in range(10**6):\n    z = x * y",
    # 3-argument pow with a huge exponent
    "pow(3, 10**(10**5), (1 << 3_000_000) + 1)",
    "(0).to_bytes(3 * 10**9, 'big')",
    "import math\nmath.prod([1 << 3_000_000] * 40)",
]

OWN_PAYLOADS = [
    # iter(callable, sentinel) consumed by a host C loop
    "f = lambda: 1\nmax(iter(f, 2))",
    # `not in` on an endless iterator
    "import itertools\n-1 not in itertools.count()",
    # an endless iterator handed to a host function no list knows about
    "import heapq, itertools\nheapq.nsmallest(2, itertools.cycle([3, 1]))",
    # the same through functools / operator
    "import functools, itertools, operator\nfunctools.reduce(operator.add, itertools.repeat(1))",
    # star-unpacking into a target
    "import itertools\na, *rest = itertools.count()",
    # a huge range's iterator consumed in C
    "any(x < 0 for x in range(1))\nsum(iter(range(10**18)))",
    # big-int division, modulo and power in a loop
    "x = (1 << 1_990_000) - 1\nfor i in range(10**6):\n    z = (x * x) % (x - 2)",
    "x = 3 ** 1_000_000\nfor i in range(10**6):\n    z = (x + i) ** 2",
    # modular exponentiation: large modulus, long exponent
    "pow(7, (1 << 200_000) - 1, (1 << 100_000) + 1)",
    # dict / str.join over endless iterators
    "import itertools\ndict(zip(itertools.count(), itertools.count()))",
    "import itertools\n''.join(itertools.repeat('x'))",
    # the same at a warm method-call site (call_descr_plain: the gate's verdict remembered)
    "from itertools import repeat\ns = set()\nfor i in range(3):\n    s.update(repeat(1) if i == 2 else [i])",
    "from itertools import repeat\nfrom collections import deque\nd = deque(maxlen=0)\n"
    "for i in range(3):\n    d.extendleft(repeat(1) if i == 2 else [i])",
    # a huge range (not an iterator) consumed by a C loop no list names: the range iterator
    # is a deadline source itself (deadline_install_sources), cold and warm sites, and a
    # builtin that C code calls as a key or mapped function
    "set().isdisjoint(range(10**18))",
    "s = set()\nfor i in range(3):\n    s.isdisjoint(range(10**18) if i == 2 else [i])",
    "sorted([range(10**18)], key=max)",
    "list(map(max, [range(10**18)]))",
    "sorted([range(2**70)], key=min)",
    # the sources charge themselves, whoever loops over them and through any chain: a
    # subclass (it inherits the slot), a host Python function's loop over a lazy chain, a
    # builtin called by C code as a key, iter() of a builtin callable
    "import itertools\nclass C(itertools.count):\n    pass\nset().isdisjoint(C())",
    "import itertools, heapq\nheapq.nlargest(1, map(abs, itertools.count()))",
    "import itertools\nsorted([itertools.cycle([1])], key=list)",
    "import itertools\nsorted([itertools.repeat(2)], key=frozenset)",
    "set().isdisjoint(iter(int, 1))",
    "import itertools\nset().isdisjoint(enumerate(zip(itertools.count(), itertools.repeat(1))))",
    # the code's own generators consumed in C with no budget iterator (prepare_iterable:
    # nothing kept per item) and loops over a range's own next (loop_iter_next): their
    # bodies are charged on every resume, every item
    "sum(x for x in range(10**18))",
    "any(x < 0 for x in range(10**18))",
    "max(x for x in range(10**18) if x < 0)",
    "def g():\n    for i in range(10**18):\n        yield i\nsum(g())",
    "def g():\n    for i in range(10**18):\n        if i < 0:\n            yield i\nany(g())",
    "def g():\n    for i in range(10**18):\n        try:\n            yield i\n        finally:\n"
    "            pass\nsum(g())",
    "g = (x for x in range(10**18))\nfor _ in range(300):\n    g = (x for x in g)\nsum(g)",
    "[x for x in range(10**18) if x < 0]",
    "{x: 1 for x in range(10**18) for y in ()}",
]


def run_payload(code):
    ex = new_executor(imports=IMPORTS, timeout=1)
    t = time.monotonic()
    refused(ex, code, match=STOPPED, timeout_ok=True)
    elapsed = time.monotonic() - t
    assert elapsed < MAX_ELAPSED, f"overshoot: {elapsed:.1f}s for {code!r}"


@pytest.mark.parametrize("code", ISSUE_PAYLOADS)
def test_issue_payloads(code):
    run_payload(code)


@pytest.mark.parametrize("code", OWN_PAYLOADS)
def test_own_payloads(code):
    run_payload(code)


def test_timeout_is_uncatchable_in_a_c_loop():
    ex = new_executor(imports=IMPORTS, timeout=1)
    code = (
        "import math, itertools\n"
        "try:\n    math.fsum(itertools.repeat(1.0))\n"
        "except BaseException:\n    print('CAUGHT')\n"
    )
    with pytest.raises(ExecutionTimeoutError):
        ex(code)
    assert "CAUGHT" not in ex.state["_print_outputs"].value
    assert ex("1 + 1").output == 2


def test_legitimate_big_int_and_pow_programs():
    ex = new_executor(imports=IMPORTS, timeout=30)
    out = ex(
        "x = 3 ** 100_000\n"
        "y = x * x\n"
        "q, r = divmod(y, x + 1)\n"
        "p = pow(2, 10**6, 10**9 + 7)\n"
        "rsa = pow(65537, (1 << 2048) - 1, (1 << 2048) + 981)\n"
        "(y.bit_length(), q > 0, p, rsa > 0)"
    )
    assert out.output == ((3**100_000 * 3**100_000).bit_length(), True, pow(2, 10**6, 10**9 + 7), True)


def test_the_code_keeps_cpythons_iterators():
    """The deadline is kept by the sources, not by wrapping the code's values: the iterator
    a host call returns, or the code passes to host code, is the object CPython made
    (identity, type, pickling)."""
    ex = new_executor(imports=IMPORTS + ["pickle", "unittest"], timeout=5)
    out = ex(
        "import itertools, pickle, unittest\n"
        "f = lambda: 1\n"
        "it = iter(f, 2)\n"
        "c = itertools.count(3)\n"
        "e = enumerate('abc', 1)\n"
        "t = unittest.TestCase()\n"
        "t.assertIs(iter(e), e)\n"
        "r = reversed((1, 2, 3))\n"
        "next(r)\n"
        "(type(it).__name__, type(c) is itertools.count, type(itertools.repeat(1)).__name__,\n"
        " len(pickle.dumps(r)) > 0, len(pickle.dumps(map(abs, [1]))) > 0,\n"
        " list(itertools.islice(c, 3)))"
    ).output
    assert out == ("callable_iterator", True, "repeat", True, True, [3, 4, 5])
