"""Parses in several threads at once (csrc/front/parse.c).

CPython 3.11 counts the depth of the ast objects a parse builds in state every thread shares;
a parse whose construction runs a finalizer that gives up the GIL while another thread parses
fails with "SystemError: AST constructor recursion depth mismatch" (CPython gh-106905). Every
parse of this package goes through one entry point that takes them one at a time where CPython
needs it. These tests make that interleaving happen: cyclic garbage whose finalizer gives up the
GIL, collected during the next parse.
"""

import gc
import os
import sys
import threading
import time
from pathlib import Path

import pytest

from smolagents_native import _core
from smolagents_native.observability import imports_used

THREADS = 4
ROUNDS = 150


_RUNNING = threading.Event()


class _YieldsTheGil:
    """Cyclic garbage whose finalizer gives the GIL to another thread and, while the threads
    run, leaves a few generations of new such garbage for the next collections (which may come
    in the middle of a parse)."""

    def __init__(self, generations=3):
        self.me = self
        self.generations = generations

    def __del__(self):
        time.sleep(0)
        if self.generations and _RUNNING.is_set():
            _YieldsTheGil(self.generations - 1)


def _source(thread: int, i: int, functions: int = 20) -> str:
    # new source every time (the lowering cache would skip the parse), deep enough that the
    # construction of its ast objects allocates many of them
    fns = "\n".join(
        f"def f{k}(a, b):\n    return [(x, {{'k': [a, b, (1, {k})]}}) for x in range(a)]"
        for k in range(functions))
    return f"# {thread} {i}\n{fns}\nresult = f3(2, 3)\n"


def _in_threads(work):
    errors: list[BaseException] = []
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    threshold = gc.get_threshold()
    gc.set_threshold(50)

    def run(t):
        try:
            for i in range(ROUNDS):
                for _ in range(20):
                    _YieldsTheGil()
                work(t, i)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    _RUNNING.set()
    try:
        threads = [threading.Thread(target=run, args=(t,)) for t in range(THREADS)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
    finally:
        _RUNNING.clear()
        sys.setswitchinterval(old)
        gc.set_threshold(*threshold)
    return errors


def test_every_parse_to_ast_objects_goes_through_the_one_entry_point():
    # The lowering's parse and imports_used's are front_parse_ast's; a new parse to ast objects
    # elsewhere in the C core (PyCF_ONLY_AST) would bypass its lock.
    csrc = Path(__file__).resolve().parents[2] / "csrc"
    users = sorted(str(p.relative_to(csrc)) for p in csrc.rglob("*.[ch]")
                   if "PyCF_ONLY_AST" in p.read_text())
    assert users == ["front/parse.c"]
    py = Path(__file__).resolve().parents[2] / "smolagents_native"
    assert not [p for p in py.rglob("*.py") if "ast.parse(" in p.read_text()]


def test_imports_used_in_threads_parses_without_interference():
    def parse(t, i):
        assert imports_used(f"import os\n{_source(t, i)}") == ["os"]

    errors = _in_threads(parse)
    assert errors == [], errors[:3]


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_a_child_forked_while_another_thread_parses_can_parse():
    # A thread is inside a parse (its finalizer, run by the GC during the construction of the
    # ast objects, sleeps with the GIL given up) when the main thread forks: the child must not
    # wait for a lock that thread held.
    inside = threading.Event()

    class Slow:
        def __init__(self):
            self.me = self

        def __del__(self):
            inside.set()
            time.sleep(1.0)

    source = _source(0, 0)

    def parse():
        # nothing allocates between the gc's enabling and the parse: the first collection
        # (its finalizer) comes in the parse's construction of ast objects
        gc.disable()
        Slow()
        gc.set_threshold(1)
        gc.enable()
        _core.parse_ast(source)

    threshold = gc.get_threshold()
    th = threading.Thread(target=parse)
    try:
        th.start()
        assert inside.wait(10)
        pid = os.fork()
        if pid == 0:  # the child: parse, then report by its exit status
            try:
                _core.parse_ast("x = 1")
                os._exit(0)
            finally:
                os._exit(1)
        deadline = time.monotonic() + 20
        while True:
            done, status = os.waitpid(pid, os.WNOHANG)
            if done:
                break
            if time.monotonic() > deadline:
                os.kill(pid, 9)
                os.waitpid(pid, 0)
                pytest.fail("the forked child waited for the parse lock of a thread it lacks")
            time.sleep(0.02)
        assert os.waitstatus_to_exitcode(status) == 0
    finally:
        th.join()
        gc.set_threshold(*threshold)
        gc.enable()
