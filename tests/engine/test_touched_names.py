"""`Interpreter.touched_names()` (csrc/eval/globalcache.c): the names a step read, wrote or
deleted in its globals, from the slots it filled as it went (no pass over every name the
module state ever numbered), and from a pass over every slot past GCACHE_FILLED_MAX."""

from __future__ import annotations

from smolagents_native import LocalPythonExecutor


def _ex():
    ex = LocalPythonExecutor([], isolation="none")
    ex.send_tools({})
    return ex


def test_only_this_steps_names_however_many_were_numbered_before():
    ex = _ex()
    ex("\n".join(f"old{i} = {i}" for i in range(3000)))
    ex("x = 1\ny = x + 1")
    assert ex._interp.touched_names() == {"x", "y"}


def test_more_names_than_remembered_are_all_reported():
    ex = _ex()
    names = {f"n{i}" for i in range(5000)}  # past GCACHE_FILLED_MAX (4096)
    ex("\n".join(f"{n} = 1" for n in sorted(names)) + "\nz = n1 + n2")
    assert ex._interp.touched_names() == names | {"z"}
    ex("w = 2")
    assert ex._interp.touched_names() == {"w"}  # the next step starts afresh
