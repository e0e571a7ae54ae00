"""Protocols that hand host code raw power (issue 9, part I): a class the code makes may not
define __array_interface__, __array_struct__, __reduce__, __reduce_ex__, __buffer__... however
it is built, and its instances never answer those names (csrc/guard/provenance.c); id() is a keyed
permutation of the address, not the address."""

from __future__ import annotations

import copy

import pytest
from conftest import new_executor, refused

PROTO = "Forbidden class definition|Forbidden access to dunder"

PAYLOADS = [
    "class A:\n    def __reduce__(self):\n        return (print, ('x',))",
    "class A:\n    __array_interface__ = {'shape': (8,), 'typestr': '|u1', 'data': (0, False)}",
    "class A:\n    @property\n    def __array_struct__(self):\n        return None",
    "class A:\n    def __reduce_ex__(self, p):\n        return (print, ())",
    "class A:\n    def __buffer__(self, flags):\n        return memoryview(b'')",
    "class A:\n    def __getstate__(self):\n        return {'__array_interface__': {}}",
    "class A:\n    def __setstate__(self, s):\n        pass",
    "class A:\n    def __dlpack__(self):\n        return None",
    "A = type('A', (), {'__reduce__': lambda self: (print, ('x',))})",
    "A = type('A', (object,), {'__array_interface__': {'data': (0, False)}})",
    "class M(type):\n    pass\nA = M('A', (), {'__reduce_ex__': lambda s, p: None})",
    "class B:\n    pass\nclass A(B):\n    __cuda_array_interface__ = {}",
    "import types\nA = types.new_class('A', (), {}, lambda ns: ns.update({'__reduce__': lambda s: 1}))",
    "from collections import namedtuple\nclass P(namedtuple('P', 'x')):\n    def __reduce__(self):\n        return 1",
    "from dataclasses import make_dataclass\nD = make_dataclass('D', ['x'], namespace={'__reduce__': lambda s: 1})",
    "class A:\n    pass\nA.__reduce__ = lambda self: (print, ())",
    "class A:\n    pass\nsetattr(A, '__reduce_ex__', lambda self, p: None)",
    "class A:\n    pass\na = A()\nsetattr(a, '__array_interface__', {})",
    # a str subclass key whose __eq__ lies to a lookup
    "class S(str):\n    n = 0\n    def __hash__(self):\n        return hash('__reduce__')\n"
    "    def __eq__(self, o):\n        S.n += 1\n        return S.n > 1\n"
    "A = type('A', (), {S('__reduce__'): lambda self: (print, ('x',))})",
]


@pytest.mark.parametrize("i", range(len(PAYLOADS)))
def test_protocol_definitions_are_refused(i):
    ex = new_executor(imports=["types", "dataclasses"])
    refused(ex, PAYLOADS[i], match=PROTO)


def test_getattr_cannot_fake_a_protocol():
    ex = new_executor()
    ex("class A:\n    def __getattr__(self, name):\n        return {'data': (0, False)}\n"
       "class G:\n    def __getattribute__(self, name):\n        return 1\na = A()\ng = G()")
    a, g = ex.state["a"], ex.state["g"]
    # host code (numpy, copy, pickle) looking the protocols up finds nothing
    for obj in (a, g):
        for name in ("__array_interface__", "__array_struct__", "__reduce_ex__", "__getstate__"):
            if hasattr(object, name):
                # object's own method, whatever __getattribute__ says (pickle and deepcopy
                # read __reduce_ex__ from the instance)
                assert type(getattr(obj, name)).__name__ == "builtin_function_or_method"
                continue
            with pytest.raises(AttributeError):
                getattr(obj, name)
    assert a.anything == {"data": (0, False)}
    assert g.anything == 1
    # a copy rebuilt by the host carries no protocol either
    b = copy.copy(a)
    with pytest.raises(AttributeError):
        b.__array_interface__  # noqa: B018


def test_id_is_not_an_address():
    ex = new_executor()
    out = ex("a = []\nb = a\nc = []\n(id(a) == id(b), id(a) != id(c), id(a) == id(a), id(None) == id(None))").output
    assert out == (True, True, True, True)
    ids = ex("[id(x) for x in (a, c, None, 1)]").output
    objs = [ex.state["a"], ex.state["c"], None, 1]
    assert all(i != id(o) for i, o in zip(ids, objs))
    # stable across steps
    assert ex("id(a)").output == ids[0]
    # not a fixed offset or xor of the address
    deltas = {i ^ id(o) for i, o in zip(ids, objs)}
    assert len(deltas) == len(objs)
    assert len({i - id(o) for i, o in zip(ids, objs)}) == len(objs)


LEGIT = [
    ("class A:\n    def __init__(self, x): self.x = x\n    def __repr__(self): return f'A({self.x})'\n"
     "import copy\nrepr(copy.deepcopy(A([1])))", "A([1])"),
    ("class A:\n    def __copy__(self): return 'copied'\nimport copy\ncopy.copy(A())", "copied"),
    ("from dataclasses import dataclass\n@dataclass(slots=True)\nclass P:\n    x: int\nP(1).x", 1),
    ("from enum import Enum\nclass E(bytes, Enum):\n    A = b'a'\nE.A.value", b"a"),
    ("from collections import namedtuple\nP = namedtuple('P', 'x')\nimport copy\ncopy.copy(P(1))", (1,)),
]


@pytest.mark.parametrize("i", range(len(LEGIT)))
def test_legitimate_classes_work(i):
    code, expected = LEGIT[i]
    ex = new_executor(imports=["copy", "dataclasses", "enum"])
    assert ex(code).output == expected


def test_numpy_gets_no_raw_pointer_from_the_codes_objects():
    np = pytest.importorskip("numpy")
    ex = new_executor()
    ex("class A:\n    def __getattr__(self, name):\n"
       "        if 'interface' in name:\n"
       "            return {'shape': (8,), 'typestr': '|u1', 'data': (8, False), 'version': 3}\n"
       "        raise AttributeError(name)\n"
       "a = A()")
    arr = np.asarray(ex.state["a"])
    # an object array holding the instance, not a view of address 8
    assert arr.dtype == object and arr.shape == ()
