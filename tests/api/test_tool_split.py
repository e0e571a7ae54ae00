"""The split of an executor's tools into protected tools and extra builtins, remembered by
identity for the next executor (`_engine._split_tools_memo`): the same split as computing it,
for every kind of entry, and no tool kept alive by the memo."""

from __future__ import annotations

import gc
import math
import weakref

from smolagents_native import LocalPythonExecutor, _engine


def _user_tool(x):
    return x


def _normalized(split):
    tools, extra = split
    # final_answer is wrapped afresh each time: compare the tool it wraps
    out = {}
    for name, value in tools.items():
        if name == "final_answer":
            value = ("wraps", value.__closure__[0].cell_contents)
        out[name] = value
    return list(out.items()), list(extra.items())


def _base_static():
    ex = LocalPythonExecutor([])
    ex.send_tools({})
    return dict(ex.static_tools)


def test_the_remembered_split_is_the_computed_split():
    base = _base_static()
    cases = [
        (base, {}),
        ({**base, "final_answer": _user_tool}, {}),
        ({**base, "search": _user_tool}, {"helper": _user_tool}),
        # a base name bound to the host's own function: a protected tool, not a base tool
        ({**base, "sqrt": _user_tool}, {}),
        ({**base, "len": _user_tool}, {}),
        # the same names, other objects, another order
        (dict(reversed(list(base.items()))), {}),
        ({"sqrt": math.sqrt, "search": _user_tool}, {"sqrt": _user_tool}),
    ]
    for static, custom in cases:
        for _ in range(2):  # computed, then remembered
            got = _engine._split_tools_memo(static, custom, False)
            want = _engine._split_tools(static, custom, False)
            assert _normalized(got) == _normalized(want)


def test_a_tool_replaced_under_the_same_name_is_split_again():
    base = _base_static()
    first = {**base, "sqrt": math.sqrt}
    tools, extra = _engine._split_tools_memo(first, {}, False)
    assert "sqrt" in extra and "sqrt" not in tools  # the base tool
    second = {**base, "sqrt": _user_tool}
    tools, extra = _engine._split_tools_memo(second, {}, False)
    assert tools["sqrt"] is _user_tool and "sqrt" not in extra


def test_the_memo_keeps_no_tool_alive():
    class Tool:
        def __call__(self, x):
            return x

    tool = Tool()
    ref = weakref.ref(tool)
    ex = LocalPythonExecutor([])
    ex.send_tools({"t": tool})
    assert ex("t(3)").output == 3
    del ex, tool
    gc.collect()
    assert ref() is None


def test_new_base_tools_forget_the_remembered_splits():
    base = _base_static()
    static = {**base, "sqrt": _user_tool}
    tools, extra = _engine._split_tools_memo(static, {}, False)
    assert tools["sqrt"] is _user_tool and _engine._SPLIT_MEMO
    old_values = dict(_engine._BASE_VALUES)
    try:
        # smolagents found later: its base tools join ours (executor.py)
        _engine._set_base_values({n: v[0] for n, v in old_values.items()}, {"sqrt": _user_tool})
        assert not _engine._SPLIT_MEMO
        tools, extra = _engine._split_tools_memo(static, {}, False)
        assert "sqrt" not in tools and extra["sqrt"] is _user_tool  # now a base tool
    finally:
        _engine._BASE_VALUES, _engine._BASE_IDS = old_values, {
            n: frozenset(map(id, v)) for n, v in old_values.items()
        }
        _engine._SPLIT_MEMO.clear()
