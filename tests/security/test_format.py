"""str.format / str.format_map with attribute fields run through the sandbox's own renderer
(every attribute step through the choke point). It must render exactly as CPython does, errors
included."""

from __future__ import annotations

import pytest
from conftest import new_executor

from smolagents_native import InterpreterError

SETUP = (
    "class P:\n"
    "    def __init__(self):\n"
    "        self.x = 3\n"
    "        self.name = 'pt'\n"
    "        self.items = [1, 2]\n"
    "        self.d = {'k': 'v'}\n"
    "p = P()\n"
)

CASES = [
    "'{0.x}'.format(p)",
    "'{.x} {.name}'.format(p, p)",
    "'{p.x!r:>5}'.format(p=p)",
    "'{0.items[1]}'.format(p)",
    "'{0.d[k]}'.format(p)",
    "'{0.x:{1}}'.format(p, 4)",
    "'{0.x:{1.x}}'.format(p, p)",
    "'{0.nope}'.format(p)",
    "'{0.x}{}'.format(p)",
    "'{}{0.x}'.format(p)",
    "'{1.x}'.format(p)",
    "'{a.x}'.format_map({'a': p})",
    "'{0.x}'.format_map({'0': p})",
    "'{a.x}'.format(p)",
    "'{0.x!z}'.format(p)",
    "'{0.x'.format(p)",
    "'{0.x}}'.format(p)",
    "'{{{0.x}}}'.format(p)",
    "'{0.}'.format(p)",
    "'{0.x:{0.x:{0.x}}}'.format(p)",
    "str.format('{0.x}-{0.name}', p)",
    "str.format_map('{a.name}', {'a': p})",
    "'{0.real.imag}'.format(5)",
    "'{0.x!a}'.format(p)",
    "f = '{0.name}'.format\nf(p)",
    "list(map('{0.x}'.format, [p, p]))",
]


def cpython(code):
    g: dict = {}
    exec(SETUP, g)
    *stmts, last = code.split("\n")
    try:
        for s in stmts:
            exec(s, g)
        return ("ok", eval(last, g))
    except Exception as e:  # noqa: BLE001
        return (type(e).__name__, str(e))


def native(code):
    ex = new_executor(tools=False)
    ex(SETUP)
    try:
        return ("ok", ex(code).output)
    except InterpreterError as e:
        kind, _, msg = str(e).split(" due to: ", 1)[-1].partition(": ")
        return (kind, msg)


@pytest.mark.parametrize("code", CASES)
def test_attribute_formats_render_like_cpython(code):
    assert native(code) == cpython(code)
