"""Gadgets (issue 9, part D; seen class 2): host Python functions that traverse attributes,
format or evaluate with names the code chooses are listed in one table (csrc/guard/gadgets.def, one
entry per function with its reason) and refused when their frame starts, however they are
reached. The scan at the end fails on any function of the base modules and the reviewed
standard-library modules that uses getattr / format / eval / exec and is neither in the table
nor reviewed as safe below."""

from __future__ import annotations

import importlib
import re
import sys
import types
from pathlib import Path

import pytest
from conftest import new_executor, refused

import smolagents_native.executor as executor_module
from smolagents_native import InterpreterError, _core

GADGET_MSG = "Forbidden call of|Forbidden value"

PAYLOADS = [
    # the payload
    "import collections\ncollections.UserString('{0.__globals__[_sys].modules[os].environ[KEY]}')"
    ".format(collections.UserString.format)",
    # bound method kept aside, then called
    "import collections\nf = collections.UserString('{0.__class__}').format\nf(1)",
    # format_map
    "import collections\ncollections.UserString('{x.__class__}').format_map({'x': 1})",
    # a subclass that inherits the method
    "import collections\nclass S(collections.UserString):\n    pass\nS('{0.__class__}').format(1)",
    # a subclass that calls it through super()
    "import collections\nclass S(collections.UserString):\n    def format(self, *a):\n"
    "        return super().format(*a)\nS('{0.__class__}').format(1)",
    # a Python wrapper the code writes
    "import collections\ndef w(s, *a):\n    return collections.UserString.format(s, *a)\n"
    "w(collections.UserString('{0}'), 1)",
    # called by a host function: map / sorted key
    "import collections\nlist(map(collections.UserString.format, [collections.UserString('{0}')], [1]))",
    "import collections\nsorted([collections.UserString('{0.real}')], key=collections.UserString.format)",
    # functools.partial
    "import collections, functools\nfunctools.partial(collections.UserString('{0.__class__}').format, 1)()",
    "import functools, collections\nfunctools.reduce(collections.UserString.format, [1], collections.UserString('{0}'))",
    # even with an innocent format string: the function is refused, not the string
    "import collections\ncollections.UserString('{0}').format(1)",
    # string.Formatter, however reached
    "import string\nstring.Formatter().format('{0.__class__}', 1)",
    "import string\nstring.Formatter().vformat('{0}', (1,), {})",
    "import string\nstring.Formatter().get_field('0.real', (1,), {})",
    "import string\nclass F(string.Formatter):\n    pass\nF().format('{0}', 1)",
    # typing evaluates string annotations
    "import typing\ndef g(x: \"__import__('os').system('true')\"): pass\ntyping.get_type_hints(g)",
    "import typing\nclass A:\n    x: 'int'\ntyping.get_type_hints(A)",
    "import typing\ntyping.ForwardRef('1 + 1')._evaluate({}, {}, frozenset())",
    "import functools\n@functools.singledispatch\ndef f(x): pass\n@f.register\ndef _(x: 'print(1)'): pass",
    # operator's C gadgets: refused when they enter with a refused name
    "import operator\noperator.attrgetter('__globals__')",
    "import operator\noperator.attrgetter('a.__class__')",
    "import operator\noperator.methodcaller('__reduce__')",
    "import operator, functools\nfunctools.partial(operator.attrgetter, '_secret')()",
    "import operator\nlist(map(operator.attrgetter, ['__dict__']))[0]",
    # enum writes into a module named by the code (class 10)
    "import enum\nE = enum.Enum('E', 'A', module='math')\nenum.global_enum(E)",
    "import enum\nclass E(enum.IntEnum):\n    A = 1\nE._convert_('pi', 'math', lambda n: n == 'pi')",
    "import enum\nenum.IntEnum._convert_('pi', 'math', lambda n: n == 'pi')",
    # the code's own enum without members: _convert_ would bind math.pi's enum in math
    "import enum\nclass E(enum.IntEnum):\n    pass\nE._convert_('pi', 'math', lambda n: n == 'pi')",
]

# Gadgets a CPython version does not have (the payload then fails as it does under CPython).
SINCE = {"enum.global_enum": (3, 11), "inspect.getmembers_static": (3, 11),
         "annotationlib.ForwardRef.evaluate": (3, 14)}

IMPORTS = ["collections", "functools", "string", "typing", "operator", "enum"]


@pytest.mark.parametrize("i", range(len(PAYLOADS)))
def test_gadget_is_refused(i):
    for name, version in SINCE.items():
        if name.split(".")[-1] + "(" in PAYLOADS[i] and sys.version_info < version:
            pytest.skip(f"{name} is new in {version[0]}.{version[1]}")
    ex = new_executor(imports=IMPORTS)
    # (the tripwire may stop some first: two layers, either refusal will do)
    refused(ex, PAYLOADS[i], match=GADGET_MSG + "|private attribute|dunder|Forbidden by the sandbox")


def test_gadget_refusal_is_uncatchable_and_leaves_no_profile():
    ex = new_executor(imports=IMPORTS)
    refused(ex, "import collections\ntry:\n    collections.UserString('{0}').format(1)\n"
                "except BaseException:\n    pass\n", match=GADGET_MSG)
    assert sys.getprofile() is None


def test_inspect_and_logging_gadgets():
    ex = new_executor(imports=["inspect", "logging"])
    refused(ex, "import inspect\ninspect.getattr_static(1, '__class__')", match=GADGET_MSG)
    refused(ex, "import inspect\ninspect.getmembers(len)", match=GADGET_MSG)
    refused(ex, "import inspect\ndef f(x: 'print(1)'): pass\ninspect.get_annotations(f, eval_str=True)",
            match=GADGET_MSG + "|Forbidden by the sandbox")
    refused(ex, "import logging\nf = logging.Formatter('{name.__class__}', style='{')\n"
                "f.format(logging.makeLogRecord({}))", match=GADGET_MSG)
    # what is not a gadget still works
    assert ex("import inspect\ninspect.cleandoc('  a\\n  b')").output == "a\nb"
    assert ex("import logging\nf = logging.Formatter('%(name)s')\n"
              "f.format(logging.makeLogRecord({'name': 'n'}))").output == "n"


def test_getattr_static_inside_inspect_is_a_catchable_refusal():
    """inspect.getattr_static never runs during a step. Called by inspect's own code (3.13's
    inspect.signature() of a class, which dataclasses uses for the docstring), the refusal is the
    TypeError its callers handle; called by the code, however wrapped, it ends the step."""
    ex = new_executor(imports=["inspect", "dataclasses", "functools"])
    assert ex("import dataclasses\n@dataclasses.dataclass\nclass D:\n    x: int = 1\nD(2).x").output == 2
    for code in (
        "import inspect\ntry:\n    inspect.getattr_static(1, 'real')\nexcept TypeError:\n    pass",
        "import inspect, functools\ntry:\n    functools.partial(inspect.getattr_static, 1)('real')\n"
        "except Exception:\n    pass",
        "import inspect\ntry:\n    sorted(['real'], key=lambda n: inspect.getattr_static(1, n))\n"
        "except Exception:\n    pass",
    ):
        refused(ex, code, match=GADGET_MSG)


def test_pydoc_is_refused_as_a_whole():
    ex = new_executor(imports=["pydoc"])
    refused(ex, "import pydoc\npydoc.render_doc(len)", match=GADGET_MSG)
    refused(ex, "import pydoc\npydoc.locate('os')", match=GADGET_MSG)


LEGIT = [
    ("'{0} {x}'.format(1, x=2)", "1 2"),
    ("import collections\nstr(collections.UserString('ab').upper())", "AB"),
    ("import string\nstring.Template('$a!').substitute(a=1)", "1!"),
    ("import string\nstring.capwords('ab cd')", "Ab Cd"),
    ("import operator\nsorted([(2, 'b'), (1, 'a')], key=operator.itemgetter(0))", [(1, "a"), (2, "b")]),
    ("import operator\nclass P:\n    def __init__(self, n): self.n = n\n"
     "[p.n for p in sorted([P(2), P(1)], key=operator.attrgetter('n'))]", [1, 2]),
    ("import typing\ndef f(x: int) -> typing.List[int]: return [x]\nf(1)", [1]),
    ("import functools\n@functools.singledispatch\ndef f(x): return 'any'\n@f.register(int)\n"
     "def _(x): return 'int'\n(f(1), f('a'))", ("int", "any")),
    ("import enum\nclass E(enum.Enum):\n    A = 1\nE.A.name", "A"),
    ("import dataclasses\n@dataclasses.dataclass\nclass D:\n    x: int = 1\nD()", None),
]


@pytest.mark.parametrize("i", range(len(LEGIT)))
def test_programs_that_are_not_gadgets_work(i):
    code, expected = LEGIT[i]
    ex = new_executor(imports=IMPORTS + ["dataclasses"])
    out = ex(code).output
    if expected is not None:
        assert out == expected


def test_tools_and_host_code_after_the_step_are_not_affected():
    import collections

    ex = new_executor(imports=["collections"])
    ex("x = 1")
    # outside a step, the host uses the gadgets freely
    assert collections.UserString("{0}").format(1) == "1"
    assert sys.getprofile() is None


def test_a_reviewed_caller_of_a_gadget_runs_it():
    """GADGET_CALLER (gadgets.def): 3.15's ExitStack.enter_context looks __enter__ / __exit__
    up with inspect.getattr_static through contextlib._lookup_special, with fixed names; that
    caller runs it, any other call (the code's, a function of the code's named the same) is
    still refused."""
    ex = new_executor(imports=["contextlib", "inspect"])
    ex("import contextlib, inspect\nclass C:\n    def __enter__(self): return 5\n"
       "    def __exit__(self, *a): return False\n")
    assert ex("with contextlib.ExitStack() as s:\n    v = s.enter_context(C())\nv").output == 5
    refused(ex, "inspect.getattr_static(C, '__enter__')", match="getattr_static")
    refused(ex, "def _lookup_special(x, name):\n    return inspect.getattr_static(x, name)\n"
                "_lookup_special(C, '__globals__')", match="getattr_static")


def test_inspect_signature_reads_the_class_through_its_reviewed_callers():
    """3.13+: inspect.signature() of a class looks '__call__', '__new__', '__init__' up with
    inspect.getattr_static (GADGET_CALLER: _signature_get_user_defined_method,
    _signature_from_callable); dataclasses makes every dataclass's docstring from it."""
    ex = new_executor(imports=["dataclasses", "inspect"])
    src = "import dataclasses\n@dataclasses.dataclass\nclass D:\n    x: int = 1\n    y: str = 'a'\n"
    native: dict = {}
    exec(compile(src, "<d>", "exec", dont_inherit=True), native)  # (not this module's __future__)
    assert ex(src + "D.__doc__").output == native["D"].__doc__
    refused(ex, "import inspect\ndef _signature_from_callable(c):\n"
                "    return inspect.getattr_static(c, '__dict__')\n"
                "_signature_from_callable(D)", match="getattr_static")


# ------------------------------------------------------------------ the scan

DEF = Path(__file__).resolve().parents[2] / "csrc" / "guard" / "gadgets.def"

# The standard-library modules reviewed for authorization besides the base modules: the
# in-process table's (csrc/guard/inprocess.def; docs/security.md, "Modules in process").
from smolagents_native import _inprocess  # noqa: E402

REVIEWED_MODULES = sorted(
    m for m in _inprocess.MODULES if m not in executor_module.BASE_BUILTIN_MODULES
)

SCANNED_NAMES = {"getattr", "format", "format_map", "vformat", "eval", "exec"}

# Functions that use one of SCANNED_NAMES with names the code cannot choose. Reason each.
# Functions that use one of SCANNED_NAMES with names the code cannot choose: gadgets.def's
# GADGET_REVIEWED_SAFE entries, each with its reason.
REVIEWED_SAFE = {
    f"{m}.{q}": why
    for m, q, why in re.findall(
        r'^GADGET_REVIEWED_SAFE\("([\w.]+)", "([\w.<>]+)", "((?:[^"\\]|\\.)*)"\)\s*$',
        DEF.read_text(), re.M)
}


def _codes(co):
    yield co
    for c in co.co_consts:
        if isinstance(c, types.CodeType):
            yield from _codes(c)


def _reachable(mod):
    """Python functions reachable from the module's public names, through classes and their
    MRO (a method inherited from another module counts)."""
    seen, out, todo = set(), {}, []
    for k, v in vars(mod).items():
        if not k.startswith("_"):
            todo.append(v)
    while todo:
        v = todo.pop()
        if isinstance(v, (classmethod, staticmethod)):
            v = v.__func__
        if isinstance(v, property):
            todo.extend(x for x in (v.fget, v.fset, v.fdel) if x)
            continue
        if id(v) in seen:
            continue
        seen.add(id(v))
        if isinstance(v, types.FunctionType):
            out[id(v.__code__)] = v
        elif isinstance(v, type):
            for c in v.__mro__:
                todo.extend(vars(c).values())
    return out.values()


def _canonical(name):
    """3.11 renamed enum's metaclass EnumType and kept EnumMeta as an alias of it: both names
    denote one class, whose methods' qualnames say EnumType from 3.11 and EnumMeta on 3.10."""
    return name.replace("enum.EnumMeta.", "enum.EnumType.")


def _table():
    text = DEF.read_text()
    entries = set(re.findall(r'GADGET(?:_IF|_SOFT_INSIDE)?\(\s*"([\w.]+)",\s*"([\w.]+)"', text))
    modules = set(re.findall(r'GADGET_MODULE\(\s*"([\w.]+)"', text))
    return {f"{m}.{q}" for m, q in entries}, modules


def _flagged():
    flagged = {}
    for name in list(executor_module.BASE_BUILTIN_MODULES) + REVIEWED_MODULES:
        mod = importlib.import_module(name)
        for f in _reachable(mod):
            hits = set()
            for co in _codes(f.__code__):
                hits |= SCANNED_NAMES & set(co.co_names)
            if hits:
                flagged[f"{f.__module__}.{f.__qualname__}"] = hits
    return flagged


def test_every_function_that_can_traverse_is_reviewed():
    table, modules = _table()
    table = {_canonical(t) for t in table}
    missing = [
        f"{k} uses {sorted(v)}"
        for k, v in sorted(_flagged().items())
        if _canonical(k) not in table and _canonical(k) not in REVIEWED_SAFE
        and k.split(".")[0] not in modules
    ]
    assert not missing, "neither in csrc/guard/gadgets.def nor reviewed as safe:\n" + "\n".join(missing)


def test_the_scan_finds_the_known_gadgets():
    # the scan is not vacuous: it sees the gadgets of the issue
    flagged = _flagged()
    for k in ("collections.UserString.format", "string.Formatter.get_field", "collections.namedtuple"):
        assert k in flagged, k


def test_every_table_entry_exists():
    table, modules = _table()
    for entry in sorted(table):
        if sys.version_info < SINCE.get(entry, (0,)):
            continue
        mod, _, qual = entry.partition(".")
        # a dotted module name: the longest importable prefix
        parts = entry.split(".")
        for i in range(len(parts) - 1, 0, -1):
            try:
                obj = importlib.import_module(".".join(parts[:i]))
            except ImportError:
                continue
            for p in parts[i:-1]:
                obj = getattr(obj, p)
            # the function itself, where it is defined (not found through a metaclass)
            assert parts[-1] in (vars(obj) if isinstance(obj, type) else dir(obj)), entry
            break
        else:
            raise AssertionError(entry)
    for m in modules:
        importlib.import_module(m)


# Pure calls (csrc/guard/pure.def): reviewed standard-library functions called with inert arguments
# run without the gadget profile (a fast path); anything else keeps it.


@pytest.fixture
def profile_seen_by_randbelow(monkeypatch):
    """Each time random's _randbelow runs (host side), record whether the gadget profile
    is on: the spy runs a gadget (string.Formatter.format), which the profile refuses."""
    import random
    import string

    seen = []
    orig = random.Random._randbelow

    def spy(self, n):
        try:
            string.Formatter().format("{0}", 1)
        except BaseException:
            seen.append(True)  # refused: the profile is on (the step fails anyway)
            raise
        seen.append(False)
        return orig(self, n)

    monkeypatch.setattr(random.Random, "_randbelow", spy)
    return seen


def test_pure_call_runs_without_the_profile(profile_seen_by_randbelow):
    import gc

    ex = new_executor(imports=["random"])
    code = "import random\nrandom.seed(1)\nrandom.randrange(10) + random.randint(1, 5)"
    if _core.GADGET_HOOK == "monitoring":
        # no profile to pause: host frames run at full speed with the gadgets refused, so
        # the spy's gadget ends the step
        refused(ex, code, match=GADGET_MSG)
        assert profile_seen_by_randbelow == [True]
    else:
        assert ex(code).output >= 1
        assert profile_seen_by_randbelow and not any(profile_seen_by_randbelow)
    assert sys.getprofile() is None and gc.isenabled()


def test_gadget_hook_mode():
    """3.12+ sees gadget frames through sys.monitoring events on the table's code objects
    (arming a step then re-instruments nothing); 3.10 and 3.11 through a profile function."""
    if sys.version_info >= (3, 12):
        assert _core.GADGET_HOOK == "monitoring"
        tools = [sys.monitoring.get_tool(i) for i in range(6)]
        assert "smolagents_native gadgets" in tools
    else:
        assert _core.GADGET_HOOK == "profile"


def test_the_hosts_profiler_is_off_during_a_step_and_back_after():
    """In both modes a profiler of the host's sees nothing of a step (host code that runs
    during a step is the code's: a Python profiler reading frame.f_code would trip the
    tripwire) and is put back after it, whether the step succeeds or is refused."""
    import string

    seen = []

    def host_helper(x):
        return x + 1

    target = host_helper.__code__

    def prof(frame, event, arg):
        if event == "call" and frame.f_code is target:
            seen.append(1)

    ex = new_executor(imports=["string"])
    ex.send_variables({"helper": host_helper})
    sys.setprofile(prof)
    try:
        assert ex("sum(helper(i) for i in range(3))").output == 6
        assert sys.getprofile() is prof
        host_helper(0)
        with pytest.raises(InterpreterError, match=GADGET_MSG):
            ex("import string\nstring.Formatter().format('{0}', 1)")
        assert sys.getprofile() is prof
    finally:
        sys.setprofile(None)
    assert seen == [1]
    # after the step, the host calls gadgets freely
    assert string.Formatter().format("{0}", 1) == "1"


@pytest.mark.parametrize("code", [
    # an argument the code made (its __index__ is interpreted): not inert
    "import random\nclass N:\n    def __index__(self): return 10\nrandom.randrange(N())",
    # nested data holding something else than scalars, lists, tuples and dicts
    "import random\nclass C:\n    pass\nrandom.choice([[1], [C()]])",
    "import random\nclass C:\n    pass\nrandom.choice([{'a': [C()]}])",
    # a dict key that is no scalar
    "import random\nrandom.choice([{(1, 2): 3}])",
    # nested deeper than the walk goes (a list that holds itself is one)
    "import random\nx = [1]\nfor _ in range(40):\n    x = [x]\nrandom.choice(x)",
    "import random\nx = [1]\nx.append(x)\nrandom.choice(x)",
    # an instance of a subclass the code wrote
    "import random\nclass R(random.Random):\n    pass\nR(1).randrange(10)",
])
def test_not_inert_calls_keep_the_profile(profile_seen_by_randbelow, code):
    ex = new_executor(imports=["random"])
    refused(ex, code, match=GADGET_MSG)
    assert profile_seen_by_randbelow == [True]


def test_json_like_arguments_are_inert(profile_seen_by_randbelow):
    """Lists, tuples and dicts of scalars, nested: no method of the code's runs on them."""
    ex = new_executor(imports=["random"])
    code = ("import random\nrandom.seed(1)\n"
            "random.choice([[1, 2.5], ('a', None), {'k': [True, b'x', {'n': 1}]}, range(3)])")
    if _core.GADGET_HOOK == "monitoring":
        refused(ex, code, match=GADGET_MSG)
    else:
        ex(code)
        assert profile_seen_by_randbelow and not any(profile_seen_by_randbelow)


def _gadget_spy(seen, orig):
    """`orig` preceded by a gadget call (string.Formatter.format), which appends to `seen`
    whether the gadget profile refused it (then the refusal propagates)."""
    import string

    def spy(*args, **kwargs):
        try:
            string.Formatter().format("{0}", 1)
        except BaseException:
            seen.append(True)
            raise
        seen.append(False)
        return orig(*args, **kwargs)

    return spy


@pytest.fixture
def profile_seen_by_json(monkeypatch):
    """The same spy inside json.dumps and json.loads (host side): their module's encoder and
    decoder run a gadget and record whether the profile refused it."""
    import json

    seen = []
    monkeypatch.setattr(json.JSONEncoder, "encode", _gadget_spy(seen, json.JSONEncoder.encode))
    monkeypatch.setattr(json.JSONDecoder, "decode", _gadget_spy(seen, json.JSONDecoder.decode))
    return seen


@pytest.mark.parametrize("code, pure", [
    ("json.loads(json.dumps({'a': [1, 2.5, None, {'b': (True, 'c')}]}, sort_keys=True, indent=2))",
     True),
    ("json.loads(b'[1, 2]')", True),
    # a default the code chose, a class of the code's, an object hook: the profile stays on
    ("json.dumps({1, 2}, default=list)", False),
    ("class E(json.JSONEncoder):\n    pass\njson.dumps([1], cls=E)", False),
    ("json.loads('{}', object_hook=dict)", False),
    ("class C:\n    pass\njson.dumps([C()])", False),
])
def test_json_runs_without_the_profile_on_json_like_data(profile_seen_by_json, code, pure):
    ex = new_executor(imports=["json"])
    if _core.GADGET_HOOK == "monitoring" or not pure:
        refused(ex, "import json\n" + code, match=GADGET_MSG)
        assert profile_seen_by_json[-1:] == [True]
    else:
        ex("import json\n" + code)
        assert profile_seen_by_json and not any(profile_seen_by_json)


@pytest.fixture
def profile_seen_by_re_and_copy(monkeypatch):
    """The same spy in re._compile (which re's module functions call) and in copy's helper
    for dicts (which copy.deepcopy calls)."""
    import copy
    import re

    seen = []
    monkeypatch.setattr(re, "_compile", _gadget_spy(seen, re._compile))
    monkeypatch.setattr(copy, "_deepcopy_dict", _gadget_spy(seen, copy._deepcopy_dict))
    copy._deepcopy_dispatch[dict] = copy._deepcopy_dict
    yield seen
    monkeypatch.undo()
    copy._deepcopy_dispatch[dict] = copy._deepcopy_dict


@pytest.mark.parametrize("code, pure", [
    ("re.search(r'(\\d+)', 'ab 12').group(1) + re.sub('b', 'c', 'abc') + "
     "str(re.findall(r'\\w+', 'x y')) + str(re.split(',', 'a,b'))", True),
    ("copy.deepcopy({'a': [1, {'b': (2, None)}]})", True),
    # a replacement function of the code's, data holding the code's object: the profile stays
    ("re.sub('b', lambda m: 'c', 'abc')", False),
    ("class C:\n    pass\ncopy.deepcopy({'a': [C()]})", False),
])
def test_re_and_deepcopy_run_without_the_profile_on_inert_data(profile_seen_by_re_and_copy,
                                                               code, pure):
    ex = new_executor(imports=["re", "copy"])
    if _core.GADGET_HOOK == "monitoring" or not pure:
        refused(ex, "import re, copy\n" + code, match=GADGET_MSG)
        assert True in profile_seen_by_re_and_copy  # (pytest's own re calls come after)
    else:
        ex("import re, copy\n" + code)
        assert profile_seen_by_re_and_copy and not any(profile_seen_by_re_and_copy)


@pytest.fixture
def profile_seen_by_counter_and_strptime(monkeypatch):
    """The same spy in what collections.Counter's construction and methods call
    (collections._count_elements, heapq.nlargest or collections._nlargest) and in what the C
    functions datetime.strptime and time.strptime call (_strptime's _strptime_datetime and
    _strptime_time)."""
    import _strptime
    import collections
    import heapq

    seen = []
    # (_strptime_datetime is _strptime_datetime_datetime from 3.14; Counter.most_common calls
    # collections._nlargest, heapq's nlargest imported at load, from 3.15)
    for mod, name in ((collections, "_count_elements"), (heapq, "nlargest"),
                      (collections, "_nlargest"),
                      (_strptime, "_strptime_datetime"), (_strptime, "_strptime_datetime_datetime"),
                      (_strptime, "_strptime_time")):
        if hasattr(mod, name):
            monkeypatch.setattr(mod, name, _gadget_spy(seen, getattr(mod, name)))
    assert hasattr(_strptime, "_strptime_datetime") != hasattr(_strptime, "_strptime_datetime_datetime")
    return seen


@pytest.mark.parametrize("code, pure", [
    ("c = Counter(['a', 'b', 'a'])\nc.update('abc')\nc.update({'z': 2})\nc.subtract(a=1)\n"
     "c.most_common(2), c.total(), sorted(c.elements())", True),
    ("Counter({'a': 1}, b=2).most_common(1)", True),
    ("from datetime import datetime as dt\ndt.strptime('2024-03-05 10:07', '%Y-%m-%d %H:%M').day",
     True),
    ("datetime.datetime.strptime('05/03/24', '%d/%m/%y').month", True),
    ("time.strptime('2024 61', '%Y %j').tm_mday", True),
    # the code's objects counted, held by the counter, or a class of the code's
    ("class K:\n    pass\nCounter([K(), K()])", False),
    ("class V(int):\n    pass\nc = Counter({'a': 1})\nc['b'] = V(2)\nc.most_common(1)", False),
    ("c = Counter('ab')\nc[(1, 2)] = 3\nc.most_common(1)", False),
    ("class C(Counter):\n    pass\nC('abc').most_common(1)", False),
    ("class D(datetime.datetime):\n    pass\nD.strptime('2024', '%Y')", False),
])
def test_counter_and_strptime_run_without_the_profile_on_inert_data(
        profile_seen_by_counter_and_strptime, code, pure):
    ex = new_executor(imports=["collections", "datetime", "time"])
    prelude = "from collections import Counter\nimport datetime, time\n"
    if _core.GADGET_HOOK == "monitoring" or not pure:
        refused(ex, prelude + code, match=GADGET_MSG)
        assert profile_seen_by_counter_and_strptime[-1:] == [True]
    else:
        ex(prelude + code)
        assert profile_seen_by_counter_and_strptime
        assert not any(profile_seen_by_counter_and_strptime)


@pytest.fixture
def profile_seen_by_textwrap_and_heapq(monkeypatch):
    """The same spy in what textwrap's wrap / fill / shorten call (TextWrapper._wrap_chunks)
    and in the `sorted` heapq.nlargest / nsmallest call when n covers the data (a module
    global of heapq's, shadowing the builtin)."""
    import heapq
    import textwrap

    seen = []
    monkeypatch.setattr(textwrap.TextWrapper, "_wrap_chunks",
                        _gadget_spy(seen, textwrap.TextWrapper._wrap_chunks))
    monkeypatch.setattr(heapq, "sorted", _gadget_spy(seen, sorted), raising=False)
    return seen


@pytest.mark.parametrize("code, pure", [
    ("textwrap.wrap('a b c ' * 20, width=12, max_lines=3, placeholder=' ...'), "
     "textwrap.fill('x y ' * 9, 8), textwrap.shorten('hello   there world', 12), "
     "textwrap.dedent('  a\\n  b'), textwrap.indent('a\\nb', '> ')", True),
    ("heapq.nlargest(5, [3, 1, 2]), heapq.nsmallest(4, (2.5, 1, 7))", True),
    # a key or predicate of the code's, a str of the code's class: the profile stays on
    ("heapq.nlargest(5, [3, 1, 2], key=lambda v: -v)", False),
    ("class T(str):\n    pass\ntextwrap.wrap(T('a b c'), 3)", False),
])
def test_textwrap_and_heapq_run_without_the_profile_on_inert_data(
        profile_seen_by_textwrap_and_heapq, code, pure):
    ex = new_executor(imports=["textwrap", "heapq"])
    if _core.GADGET_HOOK == "monitoring" or not pure:
        refused(ex, "import textwrap, heapq\n" + code, match=GADGET_MSG)
        assert profile_seen_by_textwrap_and_heapq[-1:] == [True]
    else:
        ex("import textwrap, heapq\n" + code)
        assert profile_seen_by_textwrap_and_heapq
        assert not any(profile_seen_by_textwrap_and_heapq)


# A class of the code's that binds a special method to a host callable (a partial, a bound
# method) could have it called by host code inside a pure call, with the profile off: the ABC
# checks walk every live subclass of the standard library's ABCs (Counter.update's
# isinstance(x, Mapping) reaches the code's UserDict subclass's __subclasshook__), host caches
# compare the keys the code put there. While such a class lives there are no pure calls
# (provenance.c); the code's own functions turn the profile back on when entered.
_HOOKED = {
    "subclasshook": "class X(collections.UserDict):\n"
                    "    __subclasshook__ = functools.partial(F().format, "
                    "'{0.__globals__[_sys].modules[os].environ[SMOL_PURE_SECRET]}', "
                    "collections.Counter.update)\n",
    "str_eq": "class S(str):\n    __eq__ = functools.partial(F().format, '{0.__class__}')\n",
    # the code's own function hands the host callable over: host code calls what a
    # descriptor's __get__ returns (a second red team's finding)
    "descriptor": "class D:\n    def __get__(self, obj, typ=None):\n"
                  "        return functools.partial(F().format, "
                  "'{0.__globals__[_sys].modules[os].environ[SMOL_PURE_SECRET]}', "
                  "collections.Counter.update)\n"
                  "class X(collections.UserDict):\n    __subclasshook__ = D()\n",
}


@pytest.mark.parametrize("kind", sorted(_HOOKED))
def test_a_special_method_bound_to_a_host_callable_turns_pure_calls_off(
        profile_seen_by_counter_and_strptime, monkeypatch, kind):
    import gc

    monkeypatch.setenv("SMOL_PURE_SECRET", "pure-secret-7d1")
    ex = new_executor(imports=["collections", "functools", "string"])
    code = ("import collections, functools, string\ngot = []\n"
            "class F(string.Formatter):\n    def format_field(self, value, spec):\n"
            "        got.append(value)\n        return ''\n" + _HOOKED[kind] +
            "try:\n    collections.Counter(range(3))\nexcept Exception as e:\n"
            "    got.append(repr(e))\ngot")
    try:
        ex(code)
        message = None
    except InterpreterError as e:
        message = str(e)  # (the exception itself is not kept: it holds the step's objects)
    # refused: by the profile in the hook (when the ABC walk reaches it) or in the spy
    assert message is not None and re.search(GADGET_MSG, message), message
    assert "pure-secret-7d1" not in message
    # the class gone, pure calls again
    del ex
    gc.collect()
    profile_seen_by_counter_and_strptime.clear()
    ex = new_executor(imports=["collections"])
    if _core.GADGET_HOOK == "profile":
        ex("import collections\ncollections.Counter('abc')")
        assert profile_seen_by_counter_and_strptime == [False]


def test_classes_binding_only_the_codes_functions_keep_pure_calls(
        profile_seen_by_counter_and_strptime):
    ex = new_executor(imports=["collections", "dataclasses", "functools", "abc"])
    ex("import abc, functools\nfrom dataclasses import dataclass\n"
       "class A(abc.ABC):\n    def __eq__(self, o):\n        return True\n    __hash__ = None\n"
       "    def __repr__(self):\n        return 'A'\n    @classmethod\n"
       "    def __subclasshook__(cls, c):\n        return NotImplemented\n"
       "@dataclass(order=True)\nclass P:\n    x: int\n"
       "@functools.total_ordering\nclass V:\n    def __init__(self, v):\n        self.v = v\n"
       "    def __eq__(self, o):\n        return self.v == o.v\n"
       "    def __lt__(self, o):\n        return self.v < o.v\n")
    if _core.GADGET_HOOK == "monitoring":
        refused(ex, "import collections\ncollections.Counter('abc')", match=GADGET_MSG)
    else:
        ex("import collections\ncollections.Counter('abc')")
        assert profile_seen_by_counter_and_strptime == [False]


def test_no_pure_calls_when_weakref_is_authorized(profile_seen_by_counter_and_strptime):
    # a weak reference's callback the code chose could run when a pure call's cache eviction
    # frees the code's object
    import warnings

    from smolagents_native import LocalPythonExecutor

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ex = LocalPythonExecutor(additional_authorized_imports=["collections", "weakref"],
                                 timeout_seconds=5, isolation="none")
    ex.send_tools({})
    refused(ex, "import collections\ncollections.Counter('abc')", match=GADGET_MSG)
    assert profile_seen_by_counter_and_strptime == [True]


def test_no_pure_calls_when_signal_is_authorized(profile_seen_by_randbelow):
    # a signal handler the code chose could run in the callee's frames
    import warnings

    from smolagents_native import LocalPythonExecutor

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # in process on purpose
        ex = LocalPythonExecutor(additional_authorized_imports=["random", "signal"],
                                 timeout_seconds=5, isolation="none")
    ex.send_tools({})
    refused(ex, "import random\nrandom.randrange(10)", match=GADGET_MSG)
    assert profile_seen_by_randbelow == [True]


@pytest.mark.parametrize("code", [
    # the code's subclass overrides a method a pure function calls: not the listed class
    "import random, string\nclass R(random.Random):\n    def random(self):\n"
    "        return string.Formatter().format('{0.__class__}', 1)\nR(1).uniform(1, 2)",
    # an argument whose interpreted method reaches a gadget
    "import random, string\nclass N:\n    def __index__(self):\n"
    "        string.Formatter().format('{0}', 1)\n        return 3\nrandom.randrange(N())",
    "import statistics, string\nclass V(float):\n    def __eq__(self, o):\n"
    "        string.Formatter().format('{0}', 1)\n        return False\n    def __hash__(self):\n        return 1\n"
    "statistics.mode([V(1.0), V(2.0)])",
    # state the instance holds counts as an argument: setstate() stores the code's object in
    # gauss_next, which gauss() multiplies (a partial is called without interpreted code)
    "import random, functools, string\nr = random.Random(1)\nclass Z:\n"
    "    __mul__ = functools.partial(string.Formatter().format, '{0.__globals__}', "
    "random.Random.seed)\n"
    "r.setstate((3, r.getstate()[1], Z()))\nr.gauss('', 'x')",
    # (3.14's functools.partial is a method descriptor: the Z instance is get_field's `args`
    # there, so the list is left out)
    "import random, functools, string\nr = random.Random(1)\nclass Z:\n"
    "    __mul__ = functools.partial(string.Formatter().get_field, '0.__globals__'"
    + (")\n" if sys.version_info >= (3, 14) else ", [random.Random.seed])\n") +
    "r.setstate((3, r.getstate()[1], Z()))\nr.gauss((), None)",
    # the same after pure calls on that instance while it held scalars only (its verdict is
    # remembered by the dict's state: setstate changes the dict)
    "import random, functools, string\nr = random.Random(1)\nfor _ in range(20):\n"
    "    r.gauss(0.0, 1.0)\n    r.uniform(1, 2)\nclass Z:\n"
    "    __mul__ = functools.partial(string.Formatter().format, '{0.__globals__}', "
    "random.Random.seed)\n"
    "r.setstate((3, r.getstate()[1], Z()))\nr.gauss('', 'x')",
])
def test_gadgets_stay_refused_around_pure_functions(code):
    ex = new_executor(imports=["random", "string", "statistics", "functools"])
    refused(ex, code, match=GADGET_MSG)


def test_every_pure_entry_exists():
    text = (Path(__file__).resolve().parents[2] / "csrc" / "guard" / "pure.def").read_text(encoding="utf-8")
    lines = [ln for ln in text.splitlines() if ln.startswith("PURE")]
    entries = re.findall(r'^PURE(_C)?\("([^"]+)", "([^"]+)", "([^"]+)"\)$', text, re.M)
    assert len(entries) == len(lines) > 20, "every entry is PURE[_C](module, qualname, why)"
    for c, mod, qual, why in entries:
        assert len(why) > 8, (mod, qual)
        obj = importlib.import_module(mod)
        *owner, name = qual.split(".")
        for p in owner:
            obj = getattr(obj, p)
        fn = vars(obj)[name] if isinstance(obj, type) else getattr(obj, name)
        if c:  # a C function of the module, or a C class method (bound to its class)
            assert isinstance(fn, (types.BuiltinFunctionType, types.ClassMethodDescriptorType)), (mod, qual)
        elif isinstance(fn, type):  # a class call: a Python class
            assert not owner and fn.__module__ == mod and "__init__" in vars(fn), (mod, qual)
        else:
            assert isinstance(fn, types.FunctionType), (mod, qual)


def test_interpreted_code_entered_from_a_pure_call_has_the_profile(monkeypatch):
    # cannot happen with inert arguments; simulated with a host-side patch that calls back
    # into the code's function: that function runs with the profile on again
    import random

    ex = new_executor(imports=["random", "string"])
    ex("import string\ndef f():\n    return string.Formatter().format('{0}', 1)\n")
    f = ex.state["f"]
    orig = random.Random._randbelow
    calls = []

    def spy(self, n):
        calls.append(1)
        f()
        return orig(self, n)

    monkeypatch.setattr(random.Random, "_randbelow", spy)
    refused(ex, "import random\nrandom.randrange(10)", match=GADGET_MSG)
    assert calls
    monkeypatch.undo()
    assert ex("import random\nrandom.randrange(10) < 10").output is True


def test_a_whole_module_entry_covers_only_the_modules_own_functions():
    """pydoc's classes hold other modules' functions (HTMLDoc.repr is a bound
    reprlib.Repr.repr): refusing pydoc as a whole must not refuse reprlib, which asyncio's
    reprs use (found by asyncio.run in a process that had imported pydoc)."""
    import pydoc  # noqa: F401  (the table includes what is imported)

    ex = new_executor(imports=["reprlib", "pydoc"])
    assert ex("import reprlib\nreprlib.repr(list(range(100)))").output.startswith("[0, 1, 2")
    refused(ex, "import pydoc\npydoc.HTMLDoc().repr(1)", match=GADGET_MSG)
