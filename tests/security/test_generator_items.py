"""Items of generators pass the value gate unless they are values of the loop's own code.

A `for` loop, a comprehension, a generator expression or a flat generator's `for` skips the
value gate on the items of a flat generator or a generator expression of the *same* executor:
what those yield is the value of an expression of their own body, which the gate already saw
(csrc/eval/generator.c, generator_yields_gated).  Every other iterator's items are gated: a generator
of another executor (another policy), and a generator that runs on its own stack, whose
`yield from` passes a host iterator's items through unseen.
"""

from __future__ import annotations

import pytest
from conftest import new_executor, refused

# Each loop only binds the item: the item gate is the one check that can refuse it.
LOOPS = [
    "for m in it:\n    pass",
    "[0 for m in it]",
    "list(0 for m in it)",
    "def walk(src):\n    for m in src:\n        yield 0\nlist(walk(it))",
]


# the maker runs in process on purpose (the generator must reach the other executor)
@pytest.mark.filterwarnings("ignore:isolation='none' with os authorized:RuntimeWarning")
@pytest.mark.parametrize("loop", LOOPS)
@pytest.mark.parametrize(
    "maker",
    [
        "def g():\n    yield os\ng()",  # flat generator
        "(m for m in [os])",  # generator expression
    ],
)
def test_generators_of_another_executor_are_gated(maker, loop):
    from smolagents_native import LocalPythonExecutor

    # made in this process where `os` is authorized, iterated where it is not
    a = LocalPythonExecutor(additional_authorized_imports=["os"], isolation="none")
    a.send_tools({})
    it = a("import os\n" + maker).output
    b = new_executor()
    b.send_variables({"it": it})
    refused(b, loop, match="Forbidden access to module")


@pytest.mark.parametrize("loop", LOOPS)
def test_yield_from_a_host_iterator_is_gated_by_the_consumer(loop):
    import os

    ex = new_executor()
    ex.send_variables({"src": iter([os])})
    # `yield from` makes it a generator with a stack of its own: its items are not its values
    refused(ex, "def g():\n    yield from src\nit = g()\n" + loop, match="Forbidden access to module")


def test_own_flat_generators_and_genexps_still_work():
    ex = new_executor()
    code = (
        "def g(n):\n    for i in range(n):\n        yield {'i': i}\n"
        "a = [d['i'] for d in g(5)]\nb = sum(d['i'] for d in g(5))\n"
        "c = []\nfor d in (x for x in g(3)):\n    c.append(d['i'])\n(a, b, c)"
    )
    assert ex(code).output == ([0, 1, 2, 3, 4], 10, [0, 1, 2])
