"""The memory budget (docs/security.md, "Memory budget"; csrc/budget/memlimit.c).

CPython's allocators are wrapped: net bytes allocated on the step's thread count against
`max_memory_bytes`, whatever C path allocates them. Every payload here has no size pre-check of
its own (or gets past it): the accounting is what stops it. Each must end with InterpreterError
naming the budget, uncatchable, with no side effect, and the executor must work afterwards.
Legitimate programs that allocate a lot within the budget keep working.
"""

from __future__ import annotations

import gc

import pytest
from conftest import refused, slow

from smolagents_native import InterpreterError, LocalPythonExecutor, _core

pytestmark = pytest.mark.skipif(
    not _core.MEMORY_BUDGET, reason="allocator hooks unavailable (debug allocator below us)"
)

MEM = r"Memory budget exceeded.*max_memory_bytes"
IMPORTS = ["collections", "unicodedata", "re", "random", "itertools", "math", "string"]


def executor(max_memory_bytes=64 * 1024 * 1024, imports=IMPORTS):
    # Frees during a step give room back (the budget is net: docs/security.md). Cyclic garbage
    # left by earlier tests, collected in the middle of a payload, would credit it; collect
    # it first so that each payload is measured on its own.
    gc.collect()
    ex = LocalPythonExecutor(
        additional_authorized_imports=list(imports),
        timeout_seconds=60,
        max_memory_bytes=max_memory_bytes,
    )
    ex.send_tools({})
    return ex


# The issue's payloads (class 7), with the default budget (512 MiB).
ISSUE_PAYLOADS = [
    "from collections import deque\nd = deque([0] * 1000)\nd *= 10**6",
    "from collections import UserString\nUserString('x').center(10**9)",
    "from collections import UserList\nUserList([0]) * 10**9",
    "(0).to_bytes(3 * 10**9, 'big')",
    "import random\nrandom.sample(range(10**9), 10**8)",
    "import itertools\n[*itertools.repeat(1)]",
]

# Our own payloads: allocation paths no pre-check knows about. Budget: 64 MiB.
OWN_PAYLOADS = [
    # many allocations each under every size pre-check
    "x = [bytes(10**6) for _ in range(100)]",
    # a dict grown key by key
    "d = {}\nfor i in range(3 * 10**6):\n    d[i] = i",
    # str methods through a Python wrapper class
    "from collections import UserString\ns = UserString('ab')\nt = s.zfill(10**8)",
    # unicodedata expands 18x. Its output buffer grows 10 code points at a time: with glibc's
    # realloc that is cheap, under ASan every realloc copies, which makes it quadratic (hours).
    pytest.param(
        "import unicodedata\nunicodedata.normalize('NFKD', '\\ufdfa' * 3 * 10**6)", marks=slow
    ),
    # re.sub with an empty pattern inserts between every character
    "import re\nre.sub('', 'x' * 100, 'abcdefghij' * 10**6)",
    # a nested structure built by a host function
    "import itertools\nlist(itertools.combinations(range(2000), 2))",
    # a list grown by a host C loop from a materialized argument
    "l = list(range(10**6))\nfor _ in range(20):\n    l = l + l[:10**6]",
    # many big ints, each far below max_int_bits
    "l = [(1 << 8000) + i for i in range(10**5)]",
    # string.Template substitution repeating a big value
    "import string\nt = string.Template('$a' * 10**4)\nt.substitute(a='x' * 10**4)",
    # many objects of a class of the code
    "class P:\n    def __init__(self, i):\n        self.i = i\nps = [P(i) for i in range(10**6)]",
]


@pytest.mark.parametrize("code", ISSUE_PAYLOADS)
def test_issue_payloads(code):
    ex = executor(max_memory_bytes=512 * 1024 * 1024)
    refused(ex, code, match=MEM + "|too large")


@pytest.mark.parametrize("code", OWN_PAYLOADS)
def test_own_payloads(code):
    ex = executor()
    refused(ex, code, match=MEM)


@pytest.mark.parametrize(
    "wrap",
    [
        "try:\n    {c}\nexcept MemoryError:\n    print('CAUGHT')\n",
        "try:\n    {c}\nexcept BaseException:\n    print('CAUGHT')\n",
        "try:\n    {c}\nfinally:\n    print('CAUGHT')\n",
        "class CM:\n    def __enter__(self): return self\n"
        "    def __exit__(self, *a):\n        print('CAUGHT')\n        return True\n"
        "with CM():\n    {c}\n",
    ],
)
def test_uncatchable(wrap):
    ex = executor()
    err = refused(ex, wrap.format(c="x = [bytes(10**6) for _ in range(100)]"), match=MEM)
    assert "CAUGHT" not in ex.state["_print_outputs"].value
    assert "due to: InterpreterError: Memory budget exceeded" in str(err)


def test_host_code_swallowing_memory_error():
    """Host Python code that catches MemoryError does not un-trip the budget."""
    ex = executor(imports=["collections"])
    code = (
        "from collections import UserString\n"
        "out = []\n"
        "for i in range(200):\n"
        "    try:\n"
        "        out.append(UserString('x').center(10**6 + i))\n"
        "    except Exception:\n"
        "        pass\n"
        "len(out)"
    )
    refused(ex, code, match=MEM)


def test_executor_usable_after_deque_repeat():
    ex = executor(max_memory_bytes=512 * 1024 * 1024)
    with pytest.raises(InterpreterError, match=MEM):
        ex("from collections import deque\nd = deque([0] * 1000)\nd *= 10**6")
    assert ex("1 + 1").output == 2
    assert ex("x = [0] * 10**6\nlen(x)").output == 10**6


def test_legitimate_programs_within_budget():
    ex = executor()  # 64 MiB
    # a lot of churn, little held at once: frees are subtracted
    out = ex("t = 0\nfor i in range(200):\n    b = bytes(10**6)\n    t += len(b)\nt")
    assert out.output == 200 * 10**6
    # garbage cycles collected during the step
    out = ex(
        "class N:\n    pass\n"
        "for i in range(200000):\n    a = N(); b = N(); a.b = b; b.a = a\n"
        "'done'"
    )
    assert out.output == "done"
    # 40 MB held: fine; the next step counts afresh (net bytes per step)
    assert ex("big = [bytes(10**6) for _ in range(40)]\nlen(big)").output == 40
    assert ex("big2 = [bytes(10**6) for _ in range(40)]\nlen(big2)").output == 40
    # freeing what an earlier step kept gives the room back
    assert ex("del big, big2\nbig3 = [bytes(10**6) for _ in range(50)]\nlen(big3)").output == 50


def test_budget_is_per_executor_and_none_disables():
    small = executor(max_memory_bytes=16 * 1024 * 1024)
    with pytest.raises(InterpreterError, match=MEM):
        small("x = [bytes(10**6) for _ in range(30)]")
    unlimited = executor(max_memory_bytes=None)
    assert unlimited("x = [bytes(10**6) for _ in range(30)]\nlen(x)").output == 30
    assert small("1 + 1").output == 2


def test_memory_used_reported():
    ex = executor()
    ex("x = bytearray(20 * 10**6)")
    assert ex._interp.memory_used >= 20 * 10**6


def test_hook_called_by_host_after_the_step():
    """An interpreted method the host calls later runs under the same budget."""
    ex = executor()
    ex("class R:\n    def __repr__(self):\n        x = [bytes(10**6) for _ in range(100)]\n"
       "        return 'r'\nr = R()")
    r = ex.state["r"]
    with pytest.raises(InterpreterError, match=MEM):
        repr(r)
    assert ex("1 + 1").output == 2


def test_tracemalloc_started_after_the_hooks_keeps_the_chain_acyclic():
    """tracemalloc started after the budget's hooks chains to them; a step (or a generator
    finalized by the collector, a hook window) must not install the hooks again on top of it:
    that saved tracemalloc as the hooks' "previous" allocator, a cycle through both, and the
    next allocation looped forever or overflowed the stack (a hung or crashed test worker).
    Run in a subprocess: the failure is a hang or a crash of the whole process."""
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent.parent
    code = (
        "import gc, tracemalloc\n"
        "from smolagents_native import LocalPythonExecutor, InterpreterError, _core\n"
        "print('budget' if _core.MEMORY_BUDGET else 'no-budget')\n"
        "ex = LocalPythonExecutor([], max_memory_bytes=64 << 20)\n"
        "ex.send_tools({})\n"
        "ex('x = 1')\n"
        "tracemalloc.start()\n"
        "ex('y = [str(i) for i in range(1000)]\\n'\n"
        "   'def g():\\n    yield 1\\n    yield 2\\nit = g()\\nnext(it)')\n"
        "it = ex.state.pop('it'); del it; gc.collect()  # closed by the collector: a hook\n"
        "try:\n"
        "    ex('big = [bytes(1 << 20) for _ in range(200)]')  # the budget holds under it\n"
        "    print('not refused')\n"
        "except InterpreterError as e:\n"
        "    print('refused' if 'Memory budget' in str(e) else e)\n"
        "tracemalloc.stop()\n"
        "print(ex('z = 2\\nz + 1').output)\n"
    )
    env = {**os.environ, "PYTHONPATH": str(root)}
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr[-2000:]
    lines = proc.stdout.splitlines()
    # the child's own allocator decides whether the budget is enforced (debug hooks: not)
    expected = "refused" if lines[0] == "budget" else "not refused"
    assert lines[1:] == [expected, "3"], proc.stdout
