"""The interpreter's cache of lowered programs (csrc/module/module.c, docs/core-api.md): keyed by
source text, bounded by the memory its programs hold, evicting the least recently served
first (CLOCK) instead of clearing everything when full."""

from __future__ import annotations

import pytest

from smolagents_native import executor as executor_module


@pytest.fixture
def interp():
    return executor_module._new_interpreter([])


def test_a_source_seen_again_is_served_from_the_cache(interp):
    assert interp.run("x = 1\nx", {}) == (1, False)
    assert interp.run("x = 1\nx", {}) == (1, False)
    info = interp.cache_info()
    assert (info["programs"], info["misses"], info["hits"]) == (1, 1, 1)
    assert 16 * 1024 <= info["bytes"] <= info["limit"]


def test_the_cache_stays_within_its_bytes_and_keeps_what_is_used(interp):
    """Far more distinct programs than fit: the cache never holds more than its limit, and a
    program served between the others survives every eviction pass (a clear would lose it)."""
    hot = "h = sum(range(10))\nh"
    interp.run(hot, {})
    limit = interp.cache_info()["limit"]
    n = 0
    while interp.cache_info()["evictions"] < 3 * interp.cache_info()["programs"] + 10:
        src = f"v{n} = {n}\n" + "w = [i * 2 for i in range(3)]\n" * 40
        interp.run(src, {})
        misses = interp.cache_info()["misses"]
        assert interp.run(hot, {}) == (45, False)
        assert interp.cache_info()["misses"] == misses, "the hot program was evicted"
        info = interp.cache_info()
        assert info["bytes"] <= limit
        n += 1
    info = interp.cache_info()
    assert info["programs"] < n  # it did evict
    assert info["bytes"] <= limit


def test_programs_outlive_their_eviction_while_functions_use_them(interp):
    state = {}
    interp.run("def f(a):\n    return a + 1", state)
    f = state["f"]
    i = 0
    while interp.cache_info()["evictions"] == 0 or i < 10:
        interp.run(f"y{i} = {i}\n" + "z = 1\n" * 200, {})
        i += 1
    assert interp.run("f(41)", state) == (42, False)
    assert f(1) == 2
