"""The reviewed dunder allowlist (docs/security.md, "Dunder attributes agents read").

Each allowed name is read the way agent code reads it, and then attacked: from the value it
returns, try to go one step further (frames, host namespaces, subclasses, host classes' and
modules' dicts, host functions' metadata). Every further step must be refused, and refusals
must be InterpreterErrors with no effect on the host.
"""

from __future__ import annotations

import sys

import pytest

from conftest import new_executor  # tests/security/conftest.py


def run(code, imports=()):
    ex = new_executor(list(imports))
    return ex(code)


# --------------------------------------------------------------- what agents read


@pytest.mark.parametrize(
    "code, expected",
    [
        # exception chaining
        ("try:\n    try:\n        1/0\n    except ZeroDivisionError as z:\n        raise KeyError('k') from z\n"
         "except KeyError as e:\n    r = (type(e.__cause__).__name__, e.__suppress_context__)\nr",
         ("ZeroDivisionError", True)),
        ("try:\n    try:\n        {}['x']\n    except KeyError:\n        int('z')\n"
         "except ValueError as e:\n    r = repr(e.__context__)\nr", "KeyError('x')"),
        pytest.param("e = ValueError('v')\ne.add_note('first')\ne.__notes__", ["first"],
                     marks=pytest.mark.skipif(sys.version_info < (3, 11),
                                              reason="BaseException.add_note is new in 3.11")),
        ("e = ValueError()\n(e.__cause__, e.__context__, e.__suppress_context__)", (None, None, False)),
        # class hierarchy
        ("class A: pass\nclass B(A): pass\n[c.__name__ for c in B.__mro__]", ["B", "A", "object"]),
        ("class A: pass\nclass B(A): pass\n(B.__bases__[0].__name__, B.__base__.__name__)", ("A", "A")),
        ("[c.__name__ for c in type(True).__mro__]", ["bool", "int", "object"]),
        ("import collections\n[c.__name__ for c in collections.OrderedDict.__mro__]", ["OrderedDict", "dict", "object"]),
        # __dict__ of the code's own objects and classes
        ("class P:\n    def __init__(self):\n        self.x = 1\n        self.y = 'a'\nP().__dict__", {"x": 1, "y": "a"}),
        ("class P:\n    def __init__(self, **kw):\n        self.__dict__.update(kw)\np = P(a=1, b=2)\n(p.a, p.b)", (1, 2)),
        ("import json\nclass P:\n    def __init__(self):\n        self.x = [1]\njson.dumps(P().__dict__)", '{"x": [1]}'),
        ("class K:\n    a = 1\n    def m(self): pass\nsorted(k for k in K.__dict__ if not k.startswith('__'))", ["a", "m"]),
        # annotations of the code's own functions and classes
        ("def f(a: int, b: 'str' = 'x') -> list: pass\nf.__annotations__", {"a": int, "b": "str", "return": list}),
        pytest.param("class C:\n    x: int\n    y: str = 'a'\nC.__annotations__", {"x": int, "y": str},
                     marks=pytest.mark.skipif(
                         sys.version_info >= (3, 14),
                         reason="3.14: a class's __annotations__ is refused (type's getter calls "
                         "__annotate__, PEP 649; test_new_syntax.py checks the refusal)")),
        # module versions, slots, match args, wrapped
        ("import json\njson.__version__", __import__("json").__version__),
        ("class S:\n    __slots__ = ('a', 'b')\nS.__slots__", ("a", "b")),
        ("import collections\nPt = collections.namedtuple('Pt', 'x y')\nPt.__match_args__", ("x", "y")),
        ("class M:\n    __match_args__ = ('a',)\n    def __init__(self): self.a = 3\nmatch M():\n    case M(v):\n        r = v\nr", 3),
        ("import functools\ndef deco(f):\n    @functools.wraps(f)\n    def w(*a): return f(*a)\n    return w\n"
         "@deco\ndef base(x): return x + 1\n(base.__wrapped__(1), base.__wrapped__.__name__)", (2, "base")),
    ],
)
def test_allowed_reads_work_as_in_cpython(code, expected):
    assert run(code, imports=["json", "collections", "functools"]).output == expected


# ------------------------------------------------------------ ... and lead nowhere


@pytest.mark.parametrize(
    "code",
    [
        # from an exception: no traceback, no frame
        "try:\n    1/0\nexcept ZeroDivisionError as e:\n    e.__traceback__",
        "try:\n    try:\n        1/0\n    except ZeroDivisionError:\n        raise KeyError()\nexcept KeyError as e:\n"
        "    e.__context__.__traceback__.tb_frame",
        "e = ValueError()\ne.__cause__ = KeyError()",  # dunder writes stay refused
        "e = ValueError()\ne.__notes__ = ['x']",
        # from the class hierarchy: no subclasses, no host class dicts, no writes
        "type(1).__mro__[-1].__subclasses__()",
        "object.__subclasses__()",
        "().__class__.__bases__[0].__subclasses__()",
        "int.__dict__",
        "type(1).__mro__[-1].__dict__",
        "import collections\ncollections.OrderedDict.__dict__",
        "class A: pass\nA.__bases__ = (int,)",
        "class A: pass\nA.__mro__[1].__init__.__globals__",
        "class A: pass\nA.__dict__['x'] = 1",
        # __dict__ of host objects, modules and functions
        "import json\njson.__dict__",
        "import collections\ncollections.Counter().__dict__",
        "import json\njson.dumps.__dict__",
        "import collections\nc = collections.Counter()\nc.__dict__['most_common'] = print",
        # annotations / wrapped / version of host things
        "import json\njson.dumps.__annotations__",
        "import functools\n@functools.lru_cache\ndef f(x): return x\nf.__wrapped__.__globals__",
        "import json\njson.dumps.__wrapped__",
        "import json\nclass K: pass\nK.__version__",
        # the code's own function: still no globals, code or closure
        "def f(): pass\nf.__globals__",
        "def f(): pass\nf.__wrapped__ = 1\nf.__code__",
        "def f(): pass\nf.__dict__['__globals__']",
    ],
)
def test_going_further_is_refused(code):
    from smolagents_native import InterpreterError

    ex = new_executor(["json", "collections", "functools"])
    with pytest.raises(InterpreterError):
        ex(code)
    assert ex("1 + 1").output == 2


def test_the_docs_table_is_generated_from_the_def_file():
    """docs/security.md's table of dunder reads is csrc/guard/dunders.def's (scripts/gen_dunders.py),
    and every listed name is one the interpreter allows somewhere (on some object)."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    r = subprocess.run([sys.executable, str(root / "scripts" / "gen_dunders.py"), "--check"],
                       capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    sys.path.insert(0, str(root / "scripts"))
    try:
        import gen_dunders
    finally:
        sys.path.pop(0)
    names = [row[0] for row in gen_dunders.read_def()]
    assert len(names) == len(set(names)) >= 17
    doc = (root / "docs" / "security.md").read_text()
    for name in names:
        assert f"| `{name}` |" in doc
