"""Inline caches and verdicts remembered by the evaluator must never change a refusal.

Each fast path keeps an answer that depends on less than the full check reads: the attribute
name of an Attribute node (NF_PLAIN_NAME, decided once when the node is lowered), or the type of
a value (policy_check_value's verdict by type, keyed by the type's version tag). The attacks
here warm each cache with an ordinary object at one node, then hand the same node an object
that must be refused, and check that every refused name stays refused in every form that
reaches the plain-name path (load, method call, augmented assignment).
"""

from __future__ import annotations

import re
import sys
import threading
from pathlib import Path

import pytest
from conftest import new_executor, refused

from smolagents_native import InterpreterError

ROOT = Path(__file__).resolve().parents[2]


def internal_names() -> list[str]:
    """The refused attribute names, as csrc/guard/policy.def lists them (INTERNAL_NAME)."""
    src = (ROOT / "csrc" / "guard" / "policy.def").read_text()
    names = re.findall(r"^INTERNAL_NAME\((\w+),", src, re.M)
    assert len(names) > 20
    return names


@pytest.mark.parametrize("name", internal_names())
def test_every_internal_name_is_refused_in_every_form(name):
    ex = new_executor()
    ex("class C:\n    pass\nc = C()")
    for code in (f"c.{name}", f"c.{name}()", f"c.{name} += 1", f"[c.{name} for _ in (1, 2)]"):
        refused(ex, code, match="Forbidden access to internal attribute")


@pytest.mark.parametrize("name", ["co_code", "co_consts", "co_anything", "obj"])
def test_names_the_object_check_decides_stay_on_the_full_path(name):
    ex = new_executor()
    ex("class C:\n    obj = 1\nc = C()")
    if name == "obj":
        # AttributeError.obj is whatever host object the error came from
        refused(ex, "e = None\ntry:\n    (1).nope\nexcept AttributeError as err:\n"
                    "    e = err\nfor o in [c, e]:\n    o.obj", match="internal attribute")
    else:
        refused(ex, f"c.{name}", match="internal attribute")


def test_a_warm_attribute_node_still_refuses_a_module_that_is_only_a_parent():
    ex = new_executor(imports=["os.path"])
    # `os` is reachable only as the parent of os.path: its other attributes are refused
    for member, form in (("def system(self):\n        return 1", "v = o.system"),
                         ("def system(self):\n        return 1", "v = o.system()"),
                         ("system = 0", "o.system += 1")):
        code = (
            "import os.path\n"
            f"class C:\n    {member}\n"
            "c = C()\n"
            f"for o in [c, c, c, os]:\n    {form}\n"
        )
        refused(ex, code, match="only authorized as the parent")
    assert ex("import os.path\nos.path.join('a', 'b')").output == "a/b"


def test_a_warm_attribute_node_still_refuses_a_denied_module():
    ex = new_executor()
    ex.send_variables({"host_os": __import__("os")})
    refused(ex, "class C:\n    sep = 1\nc = C()\nfor i in range(4):\n"
                "    o = c if i < 3 else host_os\n    v = o.sep",
            match="Forbidden access to module")


def test_plain_names_on_ordinary_objects_work_everywhere():
    ex = new_executor(imports=["collections", "math"])
    out = ex(
        "import collections, math\n"
        "class P:\n"
        "    def __init__(self, x):\n"
        "        self.x = x\n"
        "    def double(self):\n"
        "        return self.x * 2\n"
        "d = collections.deque([1, 2])\n"
        "ps = [P(i) for i in range(5)]\n"
        "total = 0\n"
        "for p in ps:\n"
        "    p.x += 1\n"
        "    total += p.double() + p.x\n"
        "d.append(3)\n"
        "(total, math.pi > 3, len(d), 'a b'.split(), (1.5).real)"
    )
    assert out.output == (45, True, 3, ["a", "b"], 1.5)


def test_the_value_verdict_follows_a_change_of_bases_made_between_steps():
    """A value of a host class passes; the host then makes the class a threading.Event
    subclass (a new version tag): the next step refuses the same value."""

    class Base:
        pass

    class Handle(Base):
        pass

    h = Handle()
    ex = new_executor()
    ex.send_variables({"box": [h]})
    assert ex("v = box[0]\nv is box[0]").output is True
    Handle.__bases__ = (threading.Event,)
    threading.Event.__init__(h)
    refused(ex, "v = box[0]", match="synchronization primitive")
    # and a plain instance of another class is unaffected
    ex.send_variables({"box": [object()]})
    assert ex("v = box[0]\nv is box[0]").output is True


def test_values_whose_verdict_depends_on_the_value_are_never_cached(monkeypatch):
    """Dicts (a module namespace?) and slices (their bounds) are checked every time, even
    after many plain ones passed the same node."""
    import types

    mod = types.ModuleType("hostmod")
    mod.SECRET_VALUE = 1
    monkeypatch.setitem(__import__("sys").modules, "hostmod", mod)
    ex = new_executor()
    ex.send_variables({"items": [{}, {}, {}, mod.__dict__]})
    refused(ex, "for i in range(4):\n    v = items[i]", match="namespace")


def test_refusals_leave_the_executor_usable():
    ex = new_executor()
    with pytest.raises(InterpreterError):
        ex("class C:\n    pass\nC().gi_frame")
    assert ex("class C:\n    y = 2\nC().y").output == 2


def test_a_warm_call_site_still_runs_the_size_checks_of_another_callable():
    """A call site remembers a plain builtin's gate verdict; a callable with a size pre-check
    reaching the same site later still gets it (the verdict is remembered by identity)."""
    ex = new_executor(imports=["math"])
    refused(ex, "import math\nfor fn in [abs, abs, abs, math.factorial]:\n    r = fn(10**7)",
            match="factorial")
    refused(ex, "for fn in [abs, abs, bytes]:\n    r = fn(10**10)", match="allocation|bytes")
    # an unbound method call site: str.splitlines is plain, str.zfill pads
    refused(ex, "for m in [str.splitlines, str.splitlines, str.zfill]:\n"
                "    r = m('x', 10**9)", match="padding|bytes")
    # and the site keeps working for the plain one afterwards
    assert ex("out = []\nfor fn in [abs, len, abs]:\n    out.append(fn(-3) if fn is abs else fn('ab'))\nout").output == [3, 2, 3]


def test_a_warm_call_site_over_a_c_heap_type_keeps_gating_other_callables():
    """Method descriptors of immutable C heap types (re.Pattern everywhere; collections.deque
    and itertools from 3.13) are remembered at call sites as static types' are: another
    callable reaching the same site still gets its checks, and the results stay right."""
    import re as re_module
    HEAPTYPE, IMMUTABLE = 1 << 9, 1 << 8
    flags = re_module.Pattern.__flags__
    assert flags & HEAPTYPE and flags & IMMUTABLE
    ex = new_executor(imports=["re", "collections"])
    # an unbound call site: Pattern.sub is remembered, str.zfill pads
    refused(ex, "import re\np = re.compile('a')\n"
                "for m in [re.Pattern.sub, re.Pattern.sub, str.zfill]:\n"
                "    r = m(p, 'b', 'aa') if m is not str.zfill else m('x', 10**9)",
            match="padding|bytes")
    # a method call site alternating between a heap type's method and others
    out = ex(
        "import re\nfrom collections import deque\n"
        "p = re.compile('a+')\nd = deque()\nout = []\n"
        "for o in [p, p, p, 'xaay', p, [1, 2]]:\n"
        "    out.append(o.count('a') if not isinstance(o, re.Pattern) else o.sub('-', 'baab'))\n"
        "for o in [d, d, d, [], d]:\n"
        "    o.append(1)\n"
        "out, len(d)"
    ).output
    assert out == (["b-b", "b-b", "b-b", 2, "b-b", 0], 4)


def test_a_megamorphic_call_site_keeps_gating_every_callable():
    ex = new_executor()
    out = ex(
        "fns = [abs, len, str, repr, sorted, min, max, sum]\n"
        "args = [-1, 'ab', 5, 'x', [2, 1], [3, 1], [3, 1], [1, 2]]\n"
        "out = []\n"
        "for _ in range(3):\n"
        "    for fn, a in zip(fns, args):\n"
        "        out.append(fn(a))\n"
        "out[:8]"
    ).output
    assert out == [1, 2, "5", "'x'", [1, 2], 1, 3, 3]
    refused(ex, "fns = [abs, len, str, repr, sorted, min, max, sum, bytes]\n"
                "for fn in fns:\n    r = fn(10**10) if fn is bytes else fn([1])",
            match="allocation|bytes")


def test_a_warm_attribute_store_still_refuses_what_the_object_decides():
    """Stores of plain names skip only the name's own checks: modules, tools and objects the
    code did not create are still refused at a site warmed by the code's own objects."""

    class HostThing:
        pi = 0

    ex = new_executor(imports=["math"])
    ex.send_variables({"host_obj": HostThing()})
    prefix = "import math\nclass C:\n    pi = 0\nc = C()\n"
    for target, match in (("math", "module attribute"),
                          ("host_obj", "not created by the code"),
                          ("lookup", "tool")):
        for form in ("o.pi = 1", "o.pi += 1"):
            code = prefix + f"for i in range(4):\n    o = c if i < 3 else {target}\n    {form}\n"
            refused(ex, code, match=match)
    assert ex(prefix + "for i in range(3):\n    c.pi += 1\nc.pi").output == 3


def test_a_module_verdict_lasts_one_window_of_one_executor():
    """A module attribute check remembered at a node holds for the rest of that step only: the
    same source in an executor that authorizes the module only as a parent is refused, before
    and after the other executor ran it."""
    import os

    src = "import os.path\nfor i in range(3):\n    v = os.sep\nv"
    allowed = new_executor(imports=["os", "os.path"])
    parent_only = new_executor(imports=["os.path"])
    assert allowed(src).output == os.sep
    refused(parent_only, src, match="only authorized as the parent")
    assert allowed(src).output == os.sep
    refused(parent_only, src, match="only authorized as the parent")


def test_a_module_verdict_is_for_that_module_only():
    ex = new_executor(imports=["os.path"])
    refused(ex, "import os.path\nfor o in [os.path, os.path, os]:\n    v = o.sep",
            match="only authorized as the parent")
    # the method-call form: a callable both modules would give
    refused(ex, "import os.path\nfor o in [os.path, os.path, os]:\n"
                "    v = o.sep.join(['a', 'b'])", match="only authorized as the parent")


def test_the_tool_identities_follow_every_change_of_the_tools():
    """is_tool() scans a snapshot of the tools taken when they are set: a tool given in a
    later step is protected, one taken away is an ordinary object again (reached through a
    variable), and the same store site serves both."""

    import types

    # instances of a static type: the code may set their attributes unless they are tools
    first, second = types.SimpleNamespace(), types.SimpleNamespace()
    ex = new_executor(tools=False)
    ex.send_tools({"first": first})
    ex.send_variables({"holder": [first, second]})
    ex("def poke(o):\n    o.x = 1\n    return o.x")
    assert ex("poke(holder[1])").output == 1
    refused(ex, "poke(holder[0])", match="attribute of a tool")
    ex.send_tools({"first": first, "second": second})
    refused(ex, "poke(holder[1])", match="attribute of a tool")
    refused(ex, "poke(holder[0])", match="attribute of a tool")
    ex.send_tools({})
    assert ex("poke(holder[0])").output == 1
    assert first.x == 1 and second.x == 1


def test_a_warm_method_site_on_a_code_class_follows_redefinition_and_shadowing():
    ex = new_executor()
    out = ex(
        "class K:\n    def m(self):\n        return 'one'\n"
        "class Sub(K):\n    def m(self):\n        return 'sub'\n"
        "k = K()\nseen = []\n"
        "for i in range(6):\n"
        "    if i == 2:\n        K.m = lambda self: 'two'\n"
        "    if i == 3:\n        k.m = lambda: 'instance'\n"
        "    if i == 4:\n        del k.m\n"
        "    if i == 5:\n        k = Sub()\n"
        "    seen.append(k.m())\n"
        "seen",
    ).output
    assert out == ["one", "one", "two", "instance", "two", "sub"]


def test_a_module_subclass_is_still_a_module_at_warm_attribute_sites():
    """module_check_fast() skips the MRO walk only for objects smaller than a module: a
    subclass of ModuleType (even one with __slots__ and a large instance) is a module to every
    attribute check, at sites warmed with ordinary objects."""
    import types

    class Big(types.ModuleType):
        __slots__ = ("a", "b", "c", "d", "e", "f", "g", "h")

    class Plain(types.ModuleType):
        pass

    for cls in (Big, Plain):
        mod = cls("hostmod")
        mod.value = 1
        mod._secret = 2
        ex = new_executor()
        ex.send_variables({"m": mod})
        ex("class C:\n    pass\nc = C()\nc.value = 3\nc._secret = 4\n"
           "def store(o):\n    o.value = 5\ndef peek(o):\n    return o._secret\n"
           "store(c)\npeek(c)")
        # an unauthorized module: refused as a module, whatever the attribute
        refused(ex, "store(m)", match="Forbidden access to module: hostmod")
        refused(ex, "peek(m)", match="Forbidden access to module: hostmod")
        assert mod.value == 1


def test_module_level_names_follow_changes_the_host_makes_during_the_step():
    """The per-name slots of module-level names (globalcache.c) hold what the globals gave;
    a tool that rebinds, adds or deletes names of the executor's state while the code runs
    in a loop must be seen at once by every later read, at module level and in functions."""
    ex = new_executor(tools=False)

    def rebind(name, value):
        ex.state[name] = value
        return value

    def drop(name):
        del ex.state[name]

    ex.send_tools({"rebind": rebind, "drop": drop})
    out = ex(
        "def peek():\n"
        "    return x\n"
        "x = 0\n"
        "seen = []\n"
        "for i in range(6):\n"
        "    seen.append((x, peek()))\n"
        "    if i == 2:\n"
        "        rebind('x', 100)\n"
        "    if i == 4:\n"
        "        drop('x')\n"
        "        try:\n"
        "            x\n"
        "        except NameError:\n"
        "            seen.append('gone')\n"
        "        x = -1\n"
        "    x = x + 1\n"
        "seen"
    ).output
    assert out == [(0, 0), (1, 1), (2, 2), (101, 101), (102, 102), "gone", (0, 0)]


def test_module_level_stores_of_another_executor_on_the_same_state_are_seen_mid_step():
    """Two executors with one state dict: the stores one makes (its own, which its cache
    adopts; on 3.14+ made with the dict unwatched and the watcher's epoch advanced by hand,
    compat.h compat_globals_quiet) must still move the version every other cache of that
    dict reads. The outer executor, stopped in a tool call inside its own loop, has the
    inner one rebind `x` in a loop and call the outer's function `peek` (which reads `x`
    with the outer's cache) right after each store: each call sees the new value."""
    shared = {"x": 0}
    inner = new_executor(tools=False)
    outer = new_executor(tools=False)
    inner.state = shared
    outer.state = shared

    def bump():
        inner("got = []\nfor _ in range(3):\n    x = x + 10\n    got.append(peek())\n")
        return shared["got"]

    outer.send_tools({"bump": bump})
    out = outer(
        "def peek():\n"
        "    return x\n"
        "seen = []\n"
        "for i in range(3):\n"
        "    seen.append((x, peek()))\n"
        "    if i == 1:\n"
        "        seen.append(bump())\n"
        "seen"
    ).output
    assert out == [(0, 0), (0, 0), [10, 20, 30], (30, 30)]
    assert shared["x"] == 30


def test_a_name_that_shadows_a_builtin_from_the_host_is_seen_at_warm_sites():
    """A global the host adds mid-step under a builtin's name shadows the builtin at a read
    site that already took the builtin; removing it brings the builtin back."""
    ex = new_executor(tools=False)

    def shadow(on):
        if on:
            ex.state["len"] = lambda s: -1
        else:
            ex.state.pop("len", None)

    ex.send_tools({"shadow": shadow})
    out = ex(
        "r = []\n"
        "for i in range(5):\n"
        "    r.append(len('abc'))\n"
        "    shadow(i == 1 or i == 2)\n"
        "r"
    ).output
    assert out == [3, 3, -1, -1, 3]


class _Colliding(str):
    """A str subclass key equal to a name the code uses, with the same hash, whose __eq__
    (host code) rebinds another global of the same dict every `every`-th time it is asked."""

    calls = 0
    every = 1
    state: dict | None = None

    def __hash__(self):
        return str.__hash__(self)

    def __eq__(self, other):
        cls = type(self)
        cls.calls += 1
        if cls.state is not None and cls.calls % cls.every == 0:
            cls.state["side"] = cls.state.get("side", 0) + 1
        return str.__eq__(self, other)


# A loop that stores `counter` (the colliding name) between reads of `side` (the global its
# __eq__ rebinds): a read served from a stale slot differs from CPython's.
_COLLIDING_LOOP = (
    "total = 0\n"
    "sides = []\n"
    "for i in range(20):\n"
    "    total = total + i\n"
    "    sides.append(side)\n"
    "    counter = counter + 1\n"
    "    sides.append(side)\n"
    "result = (total, counter, sides)\n"
)


def test_a_state_with_keys_that_run_code_is_never_cached_wrongly():
    """A host state whose keys are not all exact str can run code inside a dict operation
    (a colliding key's __eq__); the slots then never adopt a store as the only change, and
    every read gives what CPython's exec gives on the same dict."""
    code = _COLLIDING_LOOP
    results = []
    for runner in ("native", "cpython"):
        state: dict = {}
        _Colliding.state = state
        state[_Colliding("counter")] = 0
        state["side"] = 0
        if runner == "native":
            ex = new_executor(tools=False)
            ex.state = state
            state["__name__"] = "__main__"
            ex(code)
        else:
            exec(code, state)  # noqa: S102 - the reference semantics
        _Colliding.state = None
        results.append((state["result"], state["side"] > 0, state["counter"]))
    assert results[0] == results[1]


class _CollidingLater(_Colliding):
    """As _Colliding, but its __eq__ rebinds the other global only every second time it is
    asked: a lookup that runs it once leaves the dict as it was, so only a verdict on the
    keys (never the version) can keep a store's adoption from covering the change."""

    calls = 0
    every = 2
    state: dict | None = None


class _AddsCollidingKey:
    """A value the host leaves in the state whose finalizer adds a colliding key to it."""

    def __init__(self, state):
        self.state = state

    def __del__(self):
        self.state[_CollidingLater("counter")] = self.state.pop("counter", 0)


@pytest.mark.parametrize("how", ["between steps", "finalizer of a replaced value"])
def test_a_colliding_key_added_after_a_step_ends_the_verdict_it_carried(how):
    """The verdict "every key is an exact str" carries from one step to the next on the same
    state only while nothing but the interpreter changed it (globalcache.c, strkeys_dict).
    A colliding key the host adds between two steps, or that the finalizer of a value the
    step's record replaces (`_print_outputs`) adds, must end it: the next step's stores then
    run the colliding __eq__ as CPython's would."""
    code = _COLLIDING_LOOP
    results = []
    for runner in ("native", "cpython"):
        state: dict = {"counter": 0, "side": 0}
        ex = None
        if runner == "native":
            ex = new_executor(tools=False)
            ex.state = state
            state["__name__"] = "__main__"
            ex("a = 1")  # a step that leaves the verdict
            ex("b = 2")  # and one that carries it
        else:
            exec("a = 1", state)  # noqa: S102 - the reference semantics
            exec("b = 2", state)  # noqa: S102
        _CollidingLater.state = state
        _CollidingLater.calls = 0
        if how == "between steps" or runner == "cpython":
            state[_CollidingLater("counter")] = state.pop("counter")
        else:
            state["_print_outputs"] = _AddsCollidingKey(state)
            ex("c = 3")  # its record replaces _print_outputs: the finalizer runs
        if runner == "native":
            ex(code)
        else:
            exec(code, state)  # noqa: S102
        _CollidingLater.state = None
        results.append((state["result"], state["side"] > 0))
    assert results[0] == results[1]
    assert results[0][1], "the colliding key's __eq__ never ran: it was not in the state"


def test_a_warm_instance_attribute_site_still_gates_and_substitutes_the_value():
    """A plain-name load from an instance whose type's lookup is the generic one skips the
    attribute check (the verdict depends on the type) but never the value's: a host object's
    attribute that becomes a module mid-loop is refused at the warm site, and one that becomes
    time.sleep is handed over as the bounded substitute, not the host's function."""
    import os
    import time

    class Holder:
        pass

    h = Holder()
    h.value = 1
    ex = new_executor(tools=False)

    def swap(what):
        h.value = {"os": os, "sleep": time.sleep, "one": 1}[what]

    ex.send_tools({"swap": swap})
    ex.send_variables({"holder": h})
    loop = "seen = []\nfor i in range(4):\n    v = holder.value\n    seen.append(v)\n    if i == 1:\n        swap('{}')"
    refused(ex, loop.format("os"), match="Forbidden access to module")
    h.value = 1
    ex(loop.format("sleep"))
    assert ex.state["seen"][:2] == [1, 1]
    assert all(v is not time.sleep for v in ex.state["seen"])
    assert callable(ex.state["seen"][2])
    h.value = 1
    assert ex(loop.format("one") + "\nseen").output == [1, 1, 1, 1]


def test_the_managed_dict_layout_is_known_on_the_versions_that_have_it():
    """Instance dicts are read where CPython keeps them (the word three before the object)
    only where a check at import found them there: 3.11 and 3.13+, not 3.12, whose word
    there is a tagged dict-or-values pointer, nor 3.10, which has no managed dicts."""
    from smolagents_native import _core

    expected = sys.version_info >= (3, 13) or sys.version_info[:2] == (3, 11)
    assert _core.MANAGED_DICT_LAYOUT == int(expected)


def test_the_inline_values_layout_is_known_on_the_versions_that_have_it():
    """An instance's attributes are read and written in the slots CPython keeps after the
    object only where a check at import found them there as CPython 3.13+ keeps them
    (`compat_inline_values_check`): the slots, their order, `valid`, and stores seen
    through getattr and the dict object."""
    from smolagents_native import _core

    assert _core.INLINE_VALUES_LAYOUT == int(sys.version_info >= (3, 13))


def test_the_shared_keys_layout_is_known_on_the_versions_that_have_it():
    """A warm method site reads whether an instance has an attribute of the method's name
    from the type's shared keys (the names of the inline slots) only where a check at
    import found them laid out as CPython 3.13+ lays them out
    (`compat_inline_values_check`: found by name, by an equal name that is another
    object, absent, added later)."""
    from smolagents_native import _core

    assert _core.SHARED_KEYS_LAYOUT == int(sys.version_info >= (3, 13))


_METHOD_SHADOWS = (
    "class K:\n"
    "    def __init__(self, a):\n"
    "        self.a = a\n"
    "    def meth(self):\n"
    "        return ('K', self.a)\n"
    "class Sub(K):\n"
    "    def meth(self):\n"
    "        return ('Sub', self.a)\n"
    "class J:\n"
    "    def __init__(self):\n"
    "        self.x = 1\n"
    "    def meth(self):\n"
    "        return ('J', self.x)\n"
    "def call(o):\n"
    "    return o.meth()\n"
    "objs = [K(i) for i in range(4)]\n"
    "seen = []\n"
    "for k in range(8):\n"
    "    for n, o in enumerate(objs):\n"
    "        if k == 2 and n == 1:\n"
    "            o.meth = lambda: 'own'\n"  # the name joins K's shared keys, after `a`
    "        if k == 3 and n == 2:\n"
    "            o.meth = lambda: 'own-2'\n"  # a second instance, the key already there
    "        if k == 4 and n == 1:\n"
    "            del o.meth\n"
    "        if k == 5 and n == 3:\n"
    "            make_dict(o)['meth'] = lambda: 'via-dict'\n"  # a dict object made
    "        if k == 6 and n == 0:\n"
    "            objs[0] = o = Sub(-1)\n"  # another type at the same site
    "        seen.append((k, n, call(o)))\n"
    "j1, j2, j3 = J(), J(), J()\n"
    "seen.append(('J', call(j1), call(j2), call(j3)))\n"
    # the name enters J's shared keys as another object than the code's (a name built at
    # run time, through j1's dict object); j2 then stores under it without a dict object
    "make_dict(j1)[''.join(['me', 'th'])] = lambda: 'j1-own'\n"
    "j2.meth = lambda: 'j2-own'\n"
    "for o in (j1, j2, j3, J()):\n"
    "    seen.append(('J', call(o)))\n"
    # `vars` makes a dict object: only once every call is made
    "seen.append([keys(o) for o in objs + [j1, j2, j3]])\n"
    "result = seen\n"
)


def test_a_warm_method_site_sees_every_instance_attribute_that_shadows_the_method():
    """A warm method call site asks whether the instance has an attribute of the method's
    name: on 3.13+ from the names of the inline slots (the type's shared keys, remembered
    absent per site while their count stays the same) rather than a dict object made for
    the instance. An attribute added by a store, by another instance (a key new to the
    site's memory), deleted again, through a dict object, under an equal name that is
    another object, and another type at the same site: the same calls as CPython's."""
    out = _same_as_cpython_with_dict_tools(_METHOD_SHADOWS)
    assert (2, 1, "own") in out and (3, 2, "own-2") in out and (7, 2, "own-2") in out
    assert ("J", "j2-own") in out and ("J", "j1-own") in out
    assert (7, 0, ("Sub", -1)) in out and (7, 1, ("K", 1)) in out
    assert out[-1] == [["a"], ["a"], ["a", "meth"], ["a", "meth"], ["meth", "x"],
                       ["meth", "x"], ["x"]]


_SLOT_SITES = (
    "class P:\n"
    "    def __init__(self, a, b):\n"
    "        self.a = a\n"
    "        self.b = b\n"
    "def put(o, v):\n"
    "    o.a = v\n"
    "def get(o):\n"
    "    try:\n"
    "        return o.a\n"
    "    except AttributeError:\n"
    "        return 'missing'\n"
    "def bump(o):\n"
    "    o.a += 1\n"
    "objs = [P(i * 10, -i) for i in range(4)]\n"
    "seen = []\n"
    "for k in range(6):\n"
    "    for n, o in enumerate(objs):\n"
    "        if k == 3 and n == 1:\n"
    "            own_dict(o)\n"           # the host replaces a warm object's __dict__
    "        if k == 4 and n == 2:\n"
    "            make_dict(o)['a'] = 'via-dict'\n"
    "        put(o, get(o) if isinstance(get(o), str) else get(o) + 1)\n"
    "        if not isinstance(get(o), str):\n"
    "            bump(o)\n"
    "        seen.append((get(o), keys(o)))\n"
    "result = seen\n"
)


def test_warm_slot_sites_follow_a_dict_the_host_replaces():
    """Load, store and augmented-assignment sites that learned an attribute's inline slot
    (3.13+) see a `__dict__` the host replaced (the slots are no longer the attributes:
    CPython marks them invalid) and a dict written directly, as CPython does."""
    out = _same_as_cpython_with_dict_tools(_SLOT_SITES)
    assert out[13] == (-3, ["a", "extra"]) and out[18] == ("via-dict", ["a", "b"])


class _Mover:
    """A value whose release (as a store replaces it) moves another attribute: it deletes
    `a` from its holder and stores the new value under `c`, so that right after the store
    the value sits in c's slot and `a` is gone."""

    def __init__(self, holder, new):
        self.holder, self.new = holder, new

    def __del__(self):
        h = self.holder
        if "a" in vars(h):
            del h.a
        h.c = self.new


def test_a_store_site_does_not_learn_a_slot_a_finalizer_moved_its_value_to():
    """A store site learns the name's slot after its store, where the release of the
    value it replaced may have run code that moved things: it learns only a slot that the
    name, read back, shows the value in (3.13+). Stores after it put values under `a`,
    never under `c`, as CPython's do."""

    src = (
        "class H:\n"
        "    pass\n"
        "hs = [H() for _ in range(3)]\n"
        "for h in hs:\n"
        "    h.c = 'c0'\n"
        "    h.a = 'a0'\n"
        "for k in range(4):\n"
        "    for h in hs:\n"
        "        h.a = marker(h, k)\n"
        "out = [sorted(vars_of(h).items(), key=str) for h in hs]\n"
    )
    made: list = []

    def marker(h, k):
        if k == 0:
            # the value this store replaces will move the new one when released (the
            # site's first stores: one of them looks for the slot)
            new = ("new", k)
            vars(h)["a"] = _Mover(h, new)
            made.append(new)
            return new
        return ("plain", k)

    ex = new_executor(tools=False)
    ex.send_tools({"marker": marker, "vars_of": vars})
    out = ex(src + "out").output
    assert all(dict(items)["a"] == ("plain", 3) for items in out), out
    assert all(dict(items)["c"] in made for items in out), out


class _Propertizer:
    """A value whose release (as a store replaces it) gives its holder's class a property
    for the name just stored, whose getter counts its calls: right after the store, reading
    the name back would call the getter."""

    def __init__(self, cls, getter, setter):
        self.cls, self.getter, self.setter = cls, getter, setter

    def __del__(self):
        self.cls.a = property(self.getter, self.setter)


_PROPERTY_ADDED = (
    "class H:\n"
    "    pass\n"
    "calls = []\n"
    "def getter(self):\n"
    "    calls.append('get')\n"
    "    return 'from-property'\n"
    "def setter(self, v):\n"
    "    calls.append('set')\n"
    "hs = [H() for _ in range(3)]\n"
    "for h in hs:\n"
    "    h.a = 'a0'\n"
    "for h in hs:\n"
    "    h.a = marker(h, H, getter, setter)\n"
    "result = (list(calls), [h.a for h in hs], list(calls))\n"
)


def test_a_store_site_reads_nothing_back_once_a_finalizer_changed_the_class():
    """A store site reads the name back to learn its slot only while the class is still
    at the version tag the store was for (3.13+): a finalizer run by the store that gives
    the class a property for the name changes the tag, and the property's getter is not
    called by the store, as CPython's store does not call it."""

    def make_marker():
        n = [0]

        def marker(h, cls, getter, setter):
            n[0] += 1
            if n[0] == 2:  # the site's first store on its remembered path
                vars(h)["a"] = _Propertizer(cls, getter, setter)
            return ("v", n[0])

        return marker

    ex = new_executor(tools=False)
    ex.send_tools({"marker": make_marker()})
    out = ex(_PROPERTY_ADDED + "result").output
    ns = {"marker": make_marker()}
    exec(_PROPERTY_ADDED, ns)
    assert out == ns["result"]
    assert out[0] == ["set"] and out[2] == ["set", "get", "get", "get"]


_MANAGED_STORES = (
    "class P:\n"
    "    def __init__(self, a):\n"
    "        self.a = a\n"
    "objs = [P(i) for i in range(8)]\n"
    "made = make_dict(objs[2])\n"     # a dict object made before the stores
    "own_dict(objs[5])\n"             # a dict of the host's
    "for k in range(3):\n"
    "    for o in objs:\n"
    "        o.b = k\n"                # a warm store site: a new name
    "        o.a = o.a + 1\n"          # a warm read and store of a present one
    "result = [(o.a, o.b, keys(o)) for o in objs]\n"
    "result.append(made is make_dict(objs[2]))\n"
)


def _dict_tools() -> dict:
    def own_dict(o):
        o.__dict__ = {"a": -5, "extra": 1}

    return {"make_dict": vars, "own_dict": own_dict, "keys": lambda o: sorted(vars(o))}


def _same_as_cpython_with_dict_tools(src: str):
    """`result` of `src` run by an executor with the dict tools, checked equal to
    CPython's."""
    ex = new_executor(tools=False)
    ex.send_tools(_dict_tools())
    out = ex(src + "result").output
    ns: dict = dict(_dict_tools())
    exec(src, ns)
    assert out == ns["result"]
    return out


def test_warm_instance_stores_with_and_without_a_dict_object_agree_with_cpython():
    """A store at a warm site goes to CPython's own store while CPython keeps an instance's
    values without a dict object, and to the dict once there is one (made by `vars`, or
    the host's own `__dict__`): the same attributes, values and dict as CPython's."""
    out = _same_as_cpython_with_dict_tools(_MANAGED_STORES)
    assert out[5] == (-2, 2, ["a", "b", "extra"]) and out[-1] is True


class _DictSwapper(str):
    """An instance-dict key with the hash of `b` whose __eq__ (host code, run inside the
    dict's lookup of `b`) gives its object a new __dict__, a copy: the dict the store is
    writing to loses its last other reference mid-lookup."""

    target = None
    held: list[int] = []  # the old dict's reference count once replaced

    def __hash__(self):
        return str.__hash__("b")

    def __eq__(self, other):
        obj, type(self).target = type(self).target, None
        if obj is not None:
            old = obj.__dict__
            obj.__dict__ = dict(old)
            # what getrefcount sees of `old` (3.14 counts fewer of the frame's own)
            type(self).held.append(sys.getrefcount(old))
        return False


def test_a_warm_store_holds_the_dict_a_key_s_eq_replaces_mid_lookup():
    """The store path reads the instance dict where CPython keeps it (borrowed): it holds
    the dict across the store, which a colliding key's __eq__ may replace; without the hold
    the dict would be freed while the store writes to it (not seen by ASan: CPython keeps
    freed dicts on a free list, so the test counts the references instead: one more than
    in CPython's own store, which holds none on 3.10 to 3.15). The step ends normally, the
    object has the new dict, and the executor stays usable."""

    class Host:
        pass

    host = Host()
    vars(host)[_DictSwapper("zz")] = 0
    _DictSwapper.target, _DictSwapper.held = host, []
    host.b = 1
    (unheld,) = _DictSwapper.held
    ex = new_executor(tools=False)
    _DictSwapper.held = []

    def poison(o):
        vars(o)[_DictSwapper("zz")] = 0
        _DictSwapper.target = o
        return o

    ex.send_tools({"poison": poison})
    out = ex(
        "class P:\n"
        "    def __init__(self, a):\n"
        "        self.a = a\n"
        "objs = [P(i) for i in range(6)]\n"
        "poison(objs[4])\n"
        "for o in objs:\n"
        "    o.b = 1\n"
        "[hasattr(o, 'b') for o in objs]"
    ).output
    assert out[:4] == [True] * 4 and out[5] is True
    assert _DictSwapper.held == [unheld + 1]
    assert ex("1 + 1").output == 2


def test_a_warm_instance_attribute_site_follows_lookup_hooks_the_host_adds_mid_step():
    """The host gives a class of the code __getattr__, then a property, while a loop reads an
    attribute of its instance at one site: each change is seen by the next read."""
    ex = new_executor(tools=False)

    def patch(cls, how):
        if how == "getattr":
            cls.__getattr__ = lambda self, name: "hooked " + name
        else:
            cls.v = property(lambda self: "property")

    ex.send_tools({"patch": patch})
    out = ex(
        "class C:\n"
        "    pass\n"
        "c = C()\n"
        "seen = []\n"
        "for i in range(6):\n"
        "    try:\n"
        "        seen.append(c.v)\n"
        "    except AttributeError:\n"
        "        seen.append('missing')\n"
        "    if i == 1:\n"
        "        patch(C, 'getattr')\n"
        "    if i == 3:\n"
        "        patch(C, 'property')\n"
        "seen"
    ).output
    assert out == ["missing", "missing", "hooked v", "hooked v", "property", "property"]


def test_a_warm_instance_store_site_follows_a_setattr_hook_the_host_adds_mid_step():
    """Stores at a warm site go straight to the generic store only while the type's version
    tag is the one the verdict was found for: a __setattr__ the host gives the class mid-loop
    runs for the next store."""
    ex = new_executor(tools=False)

    def patch(cls):
        def hook(self, name, value):
            object.__setattr__(self, name, ("hooked", value))

        cls.__setattr__ = hook

    ex.send_tools({"patch": patch})
    out = ex(
        "class C:\n"
        "    pass\n"
        "c = C()\n"
        "seen = []\n"
        "for i in range(4):\n"
        "    c.v = i\n"
        "    seen.append(c.v)\n"
        "    if i == 1:\n"
        "        patch(C)\n"
        "seen"
    ).output
    assert out == [0, 1, ("hooked", 2), ("hooked", 3)]


def test_a_warm_instance_dict_store_follows_a_descriptor_the_host_adds_mid_step():
    """A store site that learned that the type has nothing of the name (so the store is an item
    store in the instance's dict, Attribute.stag) does so only at the type's version tag: a
    property with a setter, or a slot-like data descriptor, that the host gives the class
    mid-loop runs for the next store; a subclass instance with the descriptor is not stored
    past it either."""
    ex = new_executor(tools=False)

    def patch(cls):
        def setter(self, value):
            self.__dict__["v"] = value * 100

        cls.v = property(lambda self: self.__dict__["v"], setter)

    ex.send_tools({"patch": patch})
    out = ex(
        "class C:\n"
        "    pass\n"
        "c = C()\n"
        "seen = []\n"
        "for i in range(5):\n"
        "    c.v = i\n"
        "    c.v += 10\n"
        "    seen.append(c.v)\n"
        "    if i == 2:\n"
        "        patch(C)\n"
        "seen"
    ).output
    # after the patch both the store and the augmented store go through the setter
    assert out == [10, 11, 12, (3 * 100 + 10) * 100, (4 * 100 + 10) * 100]
    out = ex(
        "class B:\n"
        "    pass\n"
        "class D(B):\n"
        "    @property\n"
        "    def v(self):\n"
        "        return 'D.v'\n"
        "    @v.setter\n"
        "    def v(self, value):\n"
        "        pass\n"
        "seen = []\n"
        "for o in [B(), B(), B(), D(), B()]:\n"
        "    o.v = 1\n"
        "    seen.append(o.v)\n"
        "seen"
    ).output
    assert out == [1, 1, 1, "D.v", 1]


def test_a_warm_builtin_method_site_still_checks_what_the_object_decides():
    """A method-call site that called a builtin method (list.append) before skips the
    attribute check and the method lookup for objects of the same type at the same version
    tag. Any other object at that site -- a module with an attribute of that name, a module
    subclass, an object of another type -- takes the full checks again."""
    import types

    host = types.ModuleType("hostmod")
    host.append = lambda x: x
    host.pop = lambda: 0

    class ListModule(types.ModuleType):
        pass

    sub = ListModule("hostsub")
    sub.append = lambda x: x
    ex = new_executor()
    ex.send_variables({"host": host, "sub": sub})
    for target in ("host", "sub"):
        refused(ex, f"lst = []\nfor o in [lst, lst, lst, {target}]:\n    o.append(1)",
                match="Forbidden access to module")
        refused(ex, f"lst = [1, 2, 3]\nfor o in [lst, lst, {target}]:\n    o.pop()",
                match="Forbidden access to module")
    # a method with a pre-check (str.zfill pads) is remembered by the call gate as not
    # plain, so a warm site still runs its check (the fast path passes the object unbound,
    # and an unbound call skips the checks only for methods remembered as plain)
    refused(ex, "s = 'x'\nfor i in range(4):\n    r = s.zfill(10 if i < 3 else 10**9)",
            match="padding")
    # the site keeps working for lists, and follows another type at the same site
    out = ex(
        "class Mine(list):\n    def append(self, x):\n        list.append(self, -x)\n"
        "a, b = [], Mine()\nfor o in [a, a, a, b, a, b]:\n    o.append(2)\n(a, b)"
    ).output
    assert out == ([2, 2, 2, 2], [-2, -2])



@pytest.mark.skipif(sys.version_info >= (3, 12), reason="3.12+ assigns tags with PyUnstable_Type_AssignVersionTag")
def test_the_code_s_classes_get_a_version_tag_for_the_caches_without_running_their_code():
    """On 3.10 and 3.11 a type's version tag, which keys the inline caches, is assigned only
    by a cached type lookup; nothing of the host makes one for a class without __init__ or
    for a class whose attribute a loop just changed, so the executor asks for the tag itself
    (compat_type_assign_version). It never does by running code: a class whose MRO holds
    anything but object's __init_subclass__ under that name stays without a tag."""
    ex = new_executor()
    ex(
        "class Plain:\n"
        "    def m(self):\n"
        "        return 1\n"
        "class Hook:\n"
        "    def __init_subclass__(cls):\n"
        "        pass\n"
        "    def m(self):\n"
        "        return 2\n"
        "p, h = Plain(), Hook()\n"
        "for i in range(5):\n"
        "    Plain.count = i\n"
        "    n = p.m() + h.m()\n"
    )
    valid = 1 << 19  # Py_TPFLAGS_VALID_VERSION_TAG
    assert ex.state["Plain"].__flags__ & valid
    assert not ex.state["Hook"].__flags__ & valid
    assert ex.state["n"] == 3


def test_a_warm_instantiation_site_follows_the_class_the_host_changes_mid_loop():
    """A call site that makes instances of the code's class without type_call
    (Call.icache: object_new, then the interpreted __init__) does so only at the type's version
    tag: an __init__ the host puts on the class, a __new__, or abstract methods it adds mid-loop
    take effect at the next instantiation, through the full host-call path."""
    ex = new_executor(tools=False)
    host_inits = []

    def patch(cls, what):
        if what == "init":

            def host_init(self, v):
                host_inits.append(v)
                self.v = ("host", v)

            cls.__init__ = host_init
        elif what == "new":
            cls.__new__ = staticmethod(lambda c, v: ("new", v))
        elif what == "abstract":
            cls.__abstractmethods__ = frozenset({"m"})

    ex.send_tools({"patch": patch})
    out = ex(
        "class C:\n"
        "    def __init__(self, v):\n"
        "        self.v = v\n"
        "seen = []\n"
        "for i in range(6):\n"
        "    o = C(i)\n"
        "    seen.append(o if isinstance(o, tuple) else o.v)\n"
        "    if i == 1:\n"
        "        patch(C, 'init')\n"
        "    if i == 3:\n"
        "        patch(C, 'new')\n"
        "seen"
    ).output
    assert out == [0, 1, ("host", 2), ("host", 3), ("new", 4), ("new", 5)]
    assert host_inits == [2, 3]
    with pytest.raises(InterpreterError, match="Can't instantiate abstract class A"):
        ex(
            "class A:\n"
            "    def __init__(self):\n"
            "        self.x = 1\n"
            "for i in range(3):\n"
            "    A()\n"
            "    patch(A, 'abstract')\n"
        )
    # the executor stays usable and the site still makes plain instances
    assert ex("class P:\n    def __init__(self, v):\n        self.v = v\n[P(i).v for i in range(3)]").output == [0, 1, 2]


# --- who writes the caches (docs/design.md 6.4; csrc/eval/specialize.c's head) --------------

_C_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)


def _cache_fields() -> set[str]:
    sys.path.insert(0, str(ROOT / "scripts"))
    try:
        import gen_nodes
    finally:
        sys.path.pop(0)
    spec = gen_nodes.read_spec()
    fields = {f.name for lay in spec.layouts.values() for f in lay.fields if f.cache}
    assert {"hc_func", "tcache", "itype", "mval", "checked_epoch"} <= fields
    return fields


def _sources(*layers: str) -> dict[str, str]:
    out = {}
    for layer in layers:
        for p in sorted((ROOT / "csrc" / layer).glob("*.[ch]")):
            out[f"{layer}/{p.name}"] = _C_COMMENT.sub(" ", p.read_text())
    return out


def cache_writes(sources: dict[str, str]) -> list[str]:
    """Every place outside eval/specialize.c that writes a cache field of nodes.def's CACHE
    lines: an assignment, an increment, or its address taken other than for a const
    pointer (through which nothing is written)."""
    names = "|".join(sorted(_cache_fields()))
    write = re.compile(
        rf"\.({names})\b(\s*\[[^\]]*\])?(\.\w+)?\s*(=(?!=)|\+=|-=|\|=|&=|\+\+|--)"
        rf"|(\+\+|--)\s*[\w>().-]*\.({names})\b"
    )
    # unary `&` (after an operator, a parenthesis, a comma or `return`; not `&&`, not `a & b`)
    address = re.compile(rf"(?:^|[(,=?:!]|\breturn)\s*&(?!&)\s*[\w>().-]*\.({names})\b")
    const_ptr = re.compile(rf"\bconst\s+\w+\s*\*\s*\w+\s*=\s*&\s*[\w>().-]*\.({names})\b")
    found = []
    for name, src in sources.items():
        if name == "eval/specialize.c":
            continue
        for lineno, line in enumerate(src.splitlines(), 1):
            taken = len(address.findall(line)) > len(const_ptr.findall(line))
            if write.search(line) or taken:
                found.append(f"{name}:{lineno}: {line.strip()}")
    return found


def test_specialize_c_is_the_one_writer_of_inline_caches():
    found = cache_writes(_sources("base", "ir", "budget", "guard", "runtime", "eval", "front", "module"))
    assert found == [], "inline caches written outside eval/specialize.c:\n" + "\n".join(found)


def test_the_writer_check_finds_a_write():
    src = {
        "eval/x.c": "void f(Node *e) { e->Attribute.itype = tp; }\n"
        "void g(Node *e) { e->Call.hc_fills++; }\n"
        "void h(Node *e) { fill(&e->Attribute.tcache); }\n"
        "void k(Node *e) { const CompatTypeCache *tc = &e->Attribute.tcache; }\n"
    }
    found = cache_writes(src)
    assert [f.split(":")[1] for f in found] == ["1", "2", "3"], found


def test_the_guards_never_touch_a_node():
    """The layers below the evaluator give verdicts: none of their C files names a node, and
    none of their functions takes one (a layout they share, FunctionObject's `def`, may hold a
    pointer the evaluator reads)."""
    sources = _sources("base", "budget", "guard", "runtime")
    touching = []
    for name, src in sources.items():
        for lineno, line in enumerate(src.splitlines(), 1):
            in_c = name.endswith(".c") and re.search(r"\bNode\b", line)
            if in_c or re.search(r"->(Call|Attribute|Name)\.", line):
                touching.append(f"{name}:{lineno}: {line.strip()}")
        # prototypes and inline functions of the headers: no Node parameter
        for m in re.finditer(r"\b\w+\s*\(([^;{}()]*)\)\s*[;{]", src):
            if re.search(r"\bNode\b", m.group(1)):
                touching.append(f"{name}: {m.group(0).strip()}")
    assert touching == [], "\n".join(touching)
