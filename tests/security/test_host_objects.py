"""Host objects (issue 9, part B; seen classes 4 and 11): which classes the code made is recorded
when they are created (csrc/guard/provenance.c: `type.__new__` is watched while a step runs), not
guessed from `__module__`. Objects and classes the code did not create are read-only and their
`_private` attributes are refused (namedtuple's `_asdict`, `_replace`, `_fields`, `_make`,
`_field_defaults` excepted); what the code made stays fully usable."""

from __future__ import annotations

import collections
import enum
import re
import sys

import pytest
from conftest import new_executor, refused

import smolagents_native.executor as executor_module

# class 4: host state through private attributes and writes
HOST_STATE = [
    "import re\nre.RegexFlag._value2member_map_[10] = re.RegexFlag(0)",
    "import re\nre.I._name_ = 'X'",
    "import re\nre.I._value_ = 0",
    "import re\ndel re.M._name_",
    "import re\nm = re.RegexFlag._member_map_\nm['I'] = None",
    "import re\nsetattr(re.I, '_name_', 'Y')",
    "import re\ngetattr(re.RegexFlag, '_missing_')",
    "import re\nflag = re.I\nflag.extra = 1",
    "import collections\ncollections.UserDict.x = 1",
    "import collections\nd = collections.Counter('ab')\nd._keep = 1",
    "import random\nr = random.Random(1)\nr.random = lambda: 4",
    "import random\nrandom.Random._randbelow_with_getrandbits",
    "import queue\nq = queue.Queue()\nq._put = print",
    "import statistics\nstatistics.NormalDist._mu",
    "import statistics\nnd = statistics.NormalDist(0, 1)\nnd._sigma",
    "import datetime\ndatetime.timezone._Omitted",
    # objects the host handed over are its own
    "thing.attr = 1",
    "thing._hidden",
    "type(thing).helper = None",
    "del thing.attr",
]


@pytest.mark.parametrize("i", range(len(HOST_STATE)))
def test_host_state_is_refused(i):
    ex = new_executor(imports=["enum"])
    from hostside import HostThing

    ex.send_variables({"thing": HostThing()})
    refused(ex, HOST_STATE[i])
    assert re.I | re.M == re.RegexFlag(2 | 8)
    assert re.I.name == "IGNORECASE"


def test_the_issue_payloads_leave_re_intact():
    ex = new_executor()
    refused(ex, "import re\nre.RegexFlag._value2member_map_[10] = re.RegexFlag(0)")
    refused(ex, "import re\nre.I._name_ = 'X'")
    assert re.I.name == "IGNORECASE"
    # a combination of flags has a name from 3.11 (3.10's Flag gives None)
    assert (re.I | re.M).name == ("IGNORECASE|MULTILINE" if sys.version_info >= (3, 11) else None)


# class 11 and B: classes the code made are its own, however made
LEGIT = [
    ("X = type('X', (), {})\nX.a = 1\nX.a", 1),
    ("X = type('X', (object,), {'k': 2})\nx = X()\nx._p = 3\nX._q = 4\n(x._p, X._q, x.k)", (3, 4, 2)),
    ("from collections import namedtuple\nP = namedtuple('P', 'x y')\nP.extra = 5\np = P(1, 2)\n"
     "(P.extra, p._asdict(), p._replace(x=3), P._fields, P._make([7, 8]), P._field_defaults)",
     (5, {"x": 1, "y": 2}, (3, 2), ("x", "y"), (7, 8), {})),
    ("from enum import Enum\nC = Enum('C', 'A B')\nC.note = 'n'\n(C.note, C.A.value, C.B.name)", ("n", 1, "B")),
    ("from enum import Enum\nclass Color(Enum):\n    RED = 1\n    def _hidden(self): return self._value_\n"
     "Color.RED._hidden()", 1),
    ("from dataclasses import make_dataclass, dataclass, field\nB = make_dataclass('B', ['q'])\nB.k = 1\n"
     "@dataclass\nclass A:\n    x: int\n    _y: list = field(default_factory=list)\n"
     "a = A(1)\na._y.append(2)\n(B(3).q, B.k, a._y)", (3, 1, [2])),
    ("class Base:\n    def __init_subclass__(cls, tag=None, **kw):\n        super().__init_subclass__(**kw)\n"
     "        cls.tag = tag\nclass C(Base, tag='t'):\n    pass\nC.tag", "t"),
    ("import typing\nclass P(typing.NamedTuple):\n    a: int\n    b: str = 'x'\nP.z = 1\np = P(1)\n(p._replace(a=2), P.z)",
     ((2, "x"), 1)),
    ("class A:\n    def __init__(self):\n        self._x = 1\n    def _get(self):\n        return self._x\n"
     "class B(A):\n    def get(self):\n        return super()._get() + self._x\nB().get()", 2),
    ("from collections import namedtuple\nP = namedtuple('P', 'x')\nP(1)._asdict()", {"x": 1}),
    ("import re\nm = re.match('a', 'a')\n(m.group(0), re.I.name, re.I.value)", ("a", "IGNORECASE", 2)),
    ("def f(): pass\nf.attr = 3\nf.attr", 3),
]


@pytest.mark.parametrize("i", range(len(LEGIT)))
def test_classes_the_code_made_stay_usable(i):
    code, expected = LEGIT[i]
    ex = new_executor(imports=["enum", "dataclasses", "typing"])
    assert ex(code).output == expected


def test_classes_survive_across_steps():
    ex = new_executor()
    ex("X = type('X', (), {})")
    assert ex("X.a = 7\nX.a").output == 7


def test_module_name_does_not_make_a_host_class():
    # the old guess: __module__ naming a host module made a class read-only (class 11), and
    # naming __main__ made a host class writable; provenance ignores __module__
    ex = new_executor(imports=["enum"])
    code = "from enum import Enum\nE = Enum('E', 'A', module='smolagents_native.executor')\nE.x = 1\nE.x"
    assert ex(code).output == 1
    refused(ex, "import collections\ncollections.UserList.x = 1", match="not defined by the code")


def test_host_classes_made_before_the_step_are_not_the_codes():
    Host = collections.namedtuple("Host", "a")
    ex = new_executor()
    ex.send_variables({"Host": Host, "h": Host(1)})
    refused(ex, "Host.a = 2", match="not defined by the code")
    assert ex("h._asdict()").output == {"a": 1}
    assert ex("h._replace(a=5)").output == Host(5)
    refused(ex, "h._secret", match="private attribute")
    assert Host._fields == ("a",)


def test_classes_defined_by_an_import_are_the_hosts():
    # a module imported during a step defines its classes in its own body: they are the host's
    ex = new_executor(imports=["fractions"])
    refused(ex, "import fractions\nfractions.Fraction.x = 1", match="not defined by the code")


def test_writes_through_host_enum_stay_refused():
    ex = new_executor(imports=["enum"])
    refused(ex, "import enum\nenum.Enum._member_names_", match="private attribute")
    refused(ex, "import enum\nenum.Flag.x = 1", match="not defined by the code")
    assert enum.Flag.__name__ == "Flag"


def test_executor_module_constants_cannot_be_rebound():
    ex = new_executor(imports=["enum"])
    before = executor_module.MAX_OPERATIONS
    if sys.version_info >= (3, 11):  # enum.global_enum is new in 3.11
        refused(ex, "import enum\nE = enum.Enum('MAX_OPERATIONS', 'A', module='smolagents_native.executor')\n"
                    "enum.global_enum(E)")
    # _convert_ (every version) binds a new enum under a name in the module it is given
    refused(ex, "import enum\nclass E(enum.IntEnum):\n    pass\n"
                "E._convert_('MAX_OPERATIONS', 'smolagents_native.executor', lambda n: n == 'MAX_OPERATIONS')")
    assert executor_module.MAX_OPERATIONS == before
