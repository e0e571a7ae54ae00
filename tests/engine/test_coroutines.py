"""Coroutines (`async def`, `await`, `async with`, `async for`): what holds.

- Defining a coroutine function never needs anything authorized; calling it makes a coroutine
  object (`csrc/eval/generator.c`) that any event loop drives with send() / throw() / close() or
  through `__await__`: `asyncio.run` when the host authorizes asyncio (in process, or in a
  process-mode worker, whose kernel filter lets asyncio make its AF_UNIX self-pipe), or the
  code's own loop of send() calls (tests/programs/272_coroutines.py compares with CPython).
- The body runs as a generator's does: the operations budget and the deadline apply inside it,
  end the step with their error, and the executor stays usable.
- Asynchronous generators and comprehensions are refused by name, with their line.
"""

from __future__ import annotations

import warnings

import pytest

import smolagents_native.executor as executor_module
from smolagents_native import ExecutionTimeoutError, InterpreterError, LocalPythonExecutor
from conftest import new_executor

ASYNCIO_PROGRAM = """
import asyncio

async def work(i):
    await asyncio.sleep(0.002 * (3 - i))
    return i * i

async def main():
    squares = await asyncio.gather(*(work(i) for i in range(3)))
    task = asyncio.create_task(work(5))
    done = await asyncio.wait_for(task, timeout=5)
    queue = asyncio.Queue()
    await queue.put(7)
    lock = asyncio.Lock()
    async with lock:
        got = await queue.get()
    return squares, done, got

asyncio.run(main())
"""


def in_process(imports):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # asyncio in process: the host's choice
        ex = LocalPythonExecutor(imports, isolation="none")
    ex.send_tools({})
    return ex


def test_asyncio_run_in_process():
    assert in_process(["asyncio"])(ASYNCIO_PROGRAM).output == ([0, 1, 4], 25, 7)


# In a process-mode worker: tests/isolation/test_process_executor.py
# (test_asyncio_runs_in_a_worker, on the isolation tests' shared pool).


def test_defining_and_driving_without_asyncio():
    ex = new_executor()
    out = ex(
        "async def f(x):\n    return x + 1\n"
        "c = f(1)\n"
        "try:\n    c.send(None)\nexcept StopIteration as e:\n    r = e.value\n"
        "(type(c).__name__, r)"
    )
    assert out.output == ("coroutine", 2)
    with pytest.raises(InterpreterError, match="Import of asyncio is not allowed"):
        ex("import asyncio")


def test_host_event_loop_drives_a_coroutine_of_the_code():
    import asyncio
    import collections.abc

    ex = new_executor()
    ex("async def f(x):\n    return [x, await g()]\nasync def g():\n    return 'g'\n")
    coro = ex.state["f"](3)
    assert isinstance(coro, collections.abc.Coroutine) and asyncio.iscoroutine(coro)
    assert asyncio.run(coro) == [3, "g"]

    async def host_awaits():
        return await ex.state["g"]()  # through coroutine.__await__ (coroutine_wrapper)

    assert asyncio.run(host_awaits()) == "g"


@pytest.mark.parametrize(
    "loop",
    [
        "async def main():\n    while True:\n        await asyncio.sleep(0)\nasyncio.run(main())",
        "async def spin():\n    while True:\n        pass\nasync def main():\n"
        "    await spin()\nasyncio.run(main())",
    ],
)
def test_budgets_apply_inside_coroutines(monkeypatch, loop):
    monkeypatch.setattr(executor_module, "MAX_OPERATIONS", 100_000)
    ex = in_process(["asyncio"])
    with pytest.raises(InterpreterError, match="max number of operations"):
        ex("import asyncio\n" + loop)
    assert ex("1 + 1").output == 2


def test_the_deadline_applies_inside_coroutines():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ex = LocalPythonExecutor(["asyncio"], isolation="none", timeout_seconds=0.5,
                                 max_operations=None)
    ex.send_tools({})
    with pytest.raises((ExecutionTimeoutError, InterpreterError), match="time"):
        ex("import asyncio\nasync def main():\n    while True:\n        await asyncio.sleep(0)\n"
           "asyncio.run(main())")
    assert ex("2 + 2").output == 4


ASYNC_GEN_PROGRAM = """
import asyncio
closed = []
async def ticks(n):
    try:
        for i in range(n):
            await asyncio.sleep(0)
            yield i
    finally:
        closed.append(n)

async def main():
    a = [x async for x in ticks(3)]
    b = {x: await asyncio.sleep(0, x * x) for x in range(3)}
    g = (x async for x in ticks(2))
    left = ticks(10)
    first = await anext(left)  # left unfinished: asyncio.run's shutdown closes it
    return a, b, [x async for x in g], first

result = asyncio.run(main())
(result, sorted(closed))
"""


def test_async_generators_and_comprehensions_under_asyncio():
    # the loop's hooks (sys.set_asyncgen_hooks) see the code's async generators: asyncio.run
    # closes the unfinished one at shutdown, as under CPython
    expected = {}
    exec(ASYNC_GEN_PROGRAM.replace("(result, sorted(closed))", "out = (result, sorted(closed))"),
         expected)
    assert in_process(["asyncio"])(ASYNC_GEN_PROGRAM).output == expected["out"]
    assert expected["out"] == (([0, 1, 2], {0: 0, 1: 1, 2: 4}, [0, 1], 0), [2, 3, 10])


def test_host_iterates_an_async_generator_of_the_code():
    import asyncio

    ex = new_executor()
    ex("async def agen(n):\n    for i in range(n):\n        yield i * i\n")

    async def host():
        return [x async for x in ex.state["agen"](4)]

    assert asyncio.run(host()) == [0, 1, 4, 9]


@pytest.mark.parametrize(
    "code, message",
    [
        ("await f()", "'await' outside function"),
        ("def f():\n    await g()", "'await' outside async function"),
        ("def f():\n    async with g():\n        pass", "'async with' outside async function"),
        ("def f():\n    async for x in g():\n        pass", "'async for' outside async function"),
    ],
)
def test_placement_is_a_syntax_error(code, message):
    ex = new_executor()
    with pytest.raises(InterpreterError, match=message):
        ex(code)


HOOKS_LEFT_BEHIND = """
import asyncio
got = []
n = [0]
class L(asyncio.SelectorEventLoop):
    def _asyncgen_firstiter_hook(self, agen):
        got.append(agen)
    def _asyncgen_finalizer_hook(self, agen):
        got.append(agen)
    def _set_coroutine_origin_tracking(self, enabled):
        n[0] += 1
        if n[0] == 2:          # run_forever's finally, just before it restores the hooks
            raise ValueError
try:
    L().run_until_complete(asyncio.sleep(0))
except ValueError:
    pass
"""


def test_async_generator_hooks_the_code_sets_end_with_its_step():
    """A loop subclass of the code's can skip asyncio's restoring of the thread's async
    generator hooks: the step's end puts the host's back (else every async generator the
    thread starts later, the host's or another executor's, was handed to the code)."""
    import sys

    before = sys.get_asyncgen_hooks()
    in_process(["asyncio"])(HOOKS_LEFT_BEHIND)
    assert sys.get_asyncgen_hooks() == before

    async def host_agen():
        yield "host"

    g = host_agen()
    assert asyncio_run_first(g) == "host"


def asyncio_run_first(agen):
    try:
        agen.asend(None).send(None)
    except StopIteration as e:
        return e.value
    raise AssertionError("no value")


def test_cpythons_classes_and_code_flags_for_host_code():
    """Host code sees CPython's classes: `__class__` is types.GeneratorType / CoroutineType /
    AsyncGeneratorType (isinstance, inspect, asyncio.iscoroutine), and `types.coroutine`,
    which then reads `gi_code.co_flags`, finds a code object whose flags say generator (not
    an iterable coroutine): a `@types.coroutine` generator of the code is awaitable. The code
    itself still cannot read gi_code (an internal attribute)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ex = LocalPythonExecutor(["asyncio", "types", "inspect"], isolation="none")
    out = ex(
        "import asyncio, types, inspect\n"
        "@types.coroutine\n"
        "def bar():\n"
        "    yield\n"
        "    return 5\n"
        "async def main():\n"
        "    return await bar()\n"
        "def g():\n"
        "    yield 1\n"
        "async def c():\n"
        "    pass\n"
        "async def ag():\n"
        "    yield 1\n"
        "x, y, z = g(), c(), ag()\n"
        "r = (asyncio.run(main()), isinstance(x, types.GeneratorType),\n"
        "     isinstance(y, types.CoroutineType), isinstance(z, types.AsyncGeneratorType),\n"
        "     inspect.isgenerator(x), asyncio.iscoroutine(y), inspect.isasyncgen(z),\n"
        "     x.__class__ is types.GeneratorType)\n"
        "y.close()\n"
        "r").output
    assert out == (5, True, True, True, True, True, True, True)
    g = ex.state["g"]()
    assert g.gi_code.co_flags & 0x20 and not g.gi_code.co_flags & 0x100
    with pytest.raises(InterpreterError, match="internal attribute: gi_code"):
        ex("g().gi_code")
