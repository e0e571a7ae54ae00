"""Process mode's `state` after each step is the worker's (docs/isolation.md, *State*): the
worker reports only the names a step may have changed, found from the names the step read,
wrote or deleted (`Interpreter.touched_names`), and falls back to every name when the step
could have reached other values. Each trace below runs step by step in process and in a
process-mode executor; after every step the host's `state` must hold every value that can
cross, equal to the in-process one, and nothing else."""

from __future__ import annotations

import pytest

from smolagents_native import LocalPythonExecutor
from smolagents_native.isolation import protocol as P

SKIP = {"_print_outputs", "_operations_count"}

TRACES = {
    "alias": ["a = [1]\nb = a", "x = 1", "b.append(2)", "y = 2"],
    "contained": ["L = [1]\nd = {'k': L}", "d['k'].append(2)", "z = 0"],
    "function-global": ["L = []\ndef f():\n    L.append(1)", "x = 1", "f()", "f()\nn = 3"],
    "function-default": ["store = []\ndef f(v, into=store):\n    into.append(v)", "f(1)"],
    "closure": ["def mk():\n    acc = []\n    def g():\n        acc.append(1)\n        return acc\n"
                "    return g\ng = mk()\nkept = g()", "g()", "w = 1"],
    "class-attribute": ["class C:\n    items = []\nitems = C.items", "C.items.append(1)"],
    "bound-method": ["L = [1]\napp = L.append", "app(5)", "app(6)\nq = 1"],
    "lambda-in-list": ["L = []\nfs = [lambda: L.append(1)]", "fs[0]()", "fs[0]()"],
    "generator": ["L = [[]]\ng = (x.append(1) for x in L)", "next(g)", "r = 1"],
    "global-statement": ["n = 0\ndef bump():\n    global n\n    n += 1", "bump()", "bump()"],
    "finalizer-on-rebind": [
        "L = []\nclass D:\n    def __init__(self, into):\n        self.into = into\n"
        "    def __del__(self):\n        self.into.append('gone')\nholder = D(L)",
        "holder = 1",
    ],
    "finalizer-in-a-cycle": [
        "L = []\nclass D:\n    def __del__(self):\n        L.append('collected')\n"
        "d = D()\nd.me = d\nd = None",
        "import gc\nif gc.collect() >= 0:\n    pass",  # the cycle freed, in both modes
        "y = 1",
    ],
    "delete": ["a = [1]\nb = a", "del b", "a.append(2)"],
    "rebind-flat": ["rows = [1, 2]\nkeep = {'a': [1]}", "rows = [3]", "rows.append(4)",
                    "keep['a'].append(2)"],
    "annotations": ["x: int = 1", "y: str = 'a'"],
    "star-import": ["from math import *", "v = floor(2.5)"],
    "nested-containers": ["inner = {'a': 1}\nouter = [inner, (inner,)]", "outer[1][0]['a'] = 2"],
    "exception-object": ["L = []\ntry:\n    raise ValueError(L)\nexcept ValueError as e:\n"
                         "    err = e", "err.args[0].append(1)"],
    "comprehension-reaching-data": ["data = [[0] for _ in range(3)]",
                                    "_ = [row.append(1) for row in data]", "k = 0"],
    "dict-view": ["d = {'a': [1]}\nvals = d.values()", "list(vals)[0].append(2)"],
}


def _comparable(ex):
    return {k: v for k, v in ex.state.items() if k not in SKIP}


def _check(inproc, proc, step):
    want = _comparable(inproc)
    got = _comparable(proc)
    for name, value in want.items():
        try:
            P.encode_value(value)
        except Exception:  # noqa: BLE001 - lives in the worker only
            assert name not in got, (step, name)
            continue
        assert name in got, (step, name)
        same = got[name] == value or (got[name] != got[name] and value != value)  # NaN
        assert same, (step, name, got[name], value)
    assert set(got) <= set(want), (step, set(got) - set(want))


@pytest.mark.parametrize("trace", list(TRACES), ids=list(TRACES))
def test_state_follows_every_step(make_process_executor, trace):
    imports = ["gc"] if trace == "finalizer-in-a-cycle" else []
    inproc = LocalPythonExecutor(imports, isolation="none")
    inproc.send_tools({})
    proc = make_process_executor(imports)
    for step in TRACES[trace]:
        a = inproc(step)
        b = proc(step)
        assert a.output == b.output or not _crosses(a.output), step
        _check(inproc, proc, step)


def _crosses(value):
    try:
        P.encode_value(value)
        return True
    except Exception:  # noqa: BLE001
        return False


def test_numpy_views_follow_their_base(make_process_executor):
    np = pytest.importorskip("numpy")
    proc = make_process_executor(["numpy"])
    proc("import numpy as np\na = np.zeros(4)\nb = a[:2]\nc = a.reshape(2, 2)")
    proc("b[0] = 5")
    assert proc.state["a"][0] == 5 and proc.state["c"][0][0] == 5
    proc("x = 1")
    np.testing.assert_array_equal(proc.state["a"], [5, 0, 0, 0])


def test_a_step_that_touches_one_name_reports_only_it(make_process_executor):
    proc = make_process_executor()
    proc("data = [str(i) for i in range(1000)]\nsmall = [1, 2]\nx = 0")
    proc("x = 1")
    assert proc.last_changes == (("x",), ())
    proc("small.append(3)")
    assert proc.last_changes == (("small",), ())
    assert proc.state["small"] == [1, 2, 3] and len(proc.state["data"]) == 1000


def test_touched_names_of_the_interpreter():
    ex = LocalPythonExecutor([], isolation="none")
    ex.send_tools({})
    ex("k = 2\ndef f(a):\n    return a + k\nclass C:\n    z = k\ndata = [1]")
    names = ex._interp.touched_names()
    assert {"k", "f", "C", "data"} <= names
    ex("x = 1")
    assert ex._interp.touched_names() == {"x"}
    ex("y = f(3)")  # the function's read of k is the step's
    assert ex._interp.touched_names() == {"f", "y", "k"}
    ex("del x")
    assert ex._interp.touched_names() == {"x"}
    ex("class E:\n    w = data")  # a class body reads globals off the slots
    assert {"E", "data"} <= ex._interp.touched_names()
