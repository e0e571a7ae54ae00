"""Attacks on every module of the in-process table (csrc/guard/inprocess.def; issue 37, point 5).

Five payloads per module, one per kind of host state a module's functions could reach: the
environment, files, processes, process-wide settings, other threads. Each runs in process
(`isolation="none"`) with that module alone authorized, and whatever the payload's verdict
(refused, failed, or ran), the host must be untouched: `host_state()` before and after is the
same, the host's secret is in neither the output nor the logs, no file appeared or changed, no
process or thread was started.

`test_every_module_of_the_table_is_attacked` fails when a module is added to the table
without its payloads. `test_the_state_check_sees_each_kind_of_change` runs a payload of each
kind natively (plain `exec` in a subprocess) to show that `host_state()` would see it.
"""

from __future__ import annotations

import abc
import collections
import collections.abc
import copy
import copyreg
import dataclasses
import decimal
import enum
import faulthandler
import fractions
import functools
import gc
import json
import locale
import logging
import numbers
import os
import random
import subprocess
import sys
import textwrap
import threading
import time
import types
import typing
import warnings
from pathlib import Path

import pytest

from smolagents_native import LocalPythonExecutor, _inprocess
from smolagents_native.errors import ExecutionTimeoutError, InterpreterError

SECRET = "smol-host-secret-7f3a"
os.environ["SMOL_INPROCESS_SECRET"] = SECRET

KINDS = ("environment", "files", "processes", "settings", "threads")

# {DIR}: a directory of the host's with one file, `sentinel`, that no payload may change.
PAYLOADS: dict[str, list[tuple[str, str]]] = {
    "collections": [
        ("environment", "import collections\n"
         "collections._sys.modules['os'].environ['SMOL_INPROCESS_SECRET']"),
        ("files", "import collections\n"
         "collections.__spec__.loader.set_data('{DIR}/pwned', b'x')"),
        ("processes", "import collections\n"
         "collections.__builtins__['__import__']('os').system('touch {DIR}/pwned')"),
        ("settings", "import collections\n"
         "collections.UserDict.__repr__ = lambda self: 'pwned'\n"
         "collections.OrderedDict.__eq__ = lambda a, b: True"),
        ("threads", "import collections\n"
         "t = collections.namedtuple('T', 'a', module='threading')\n"
         "t.__module__, collections._collections_abc.Sequence.register(int)"),
    ],
    "datetime": [
        ("environment", "import datetime\n"
         "datetime.datetime.now().astimezone().tzinfo, "
         "datetime.sys.modules['os'].getenv('SMOL_INPROCESS_SECRET')"),
        ("files", "import datetime\n"
         "datetime.__loader__.get_data('{DIR}/sentinel')"),
        ("processes", "import datetime\n"
         "datetime.timezone.utc.__reduce__()[0].__globals__['__builtins__']"
         "['__import__']('os').fork()"),
        ("settings", "import datetime\n"
         "datetime.MAXYEAR = 3\ndatetime.timezone.utc = datetime.timezone.min"),
        ("threads", "import datetime\n"
         "datetime.datetime.__init_subclass__.__self__.__subclasses__()"),
    ],
    "itertools": [
        ("environment", "import itertools\n"
         "list(itertools.chain(__import__('os').environ))"),
        ("files", "import itertools\n"
         "list(itertools.islice(open('{DIR}/sentinel'), 1))"),
        ("processes", "import itertools\n"
         "list(itertools.starmap(getattr, [(itertools, '__loader__')]))[0]"
         ".load_module('subprocess')"),
        ("settings", "import itertools\n"
         "itertools.count = itertools.repeat\nitertools.__dict__['chain'] = None"),
        ("threads", "import itertools\n"
         "c = itertools.count()\n"
         "for x in c:\n    pass"),
    ],
    "math": [
        ("environment", "import math\n"
         "math.__spec__.loader.exec_module.__globals__['_os'].environ"),
        ("files", "import math\n"
         "math.__loader__.create_module(math.__spec__).__dict__"),
        ("processes", "import math\n"
         "math.factorial(10 ** 9)"),
        ("settings", "import math\n"
         "math.pi = 3\nsetattr(math, 'inf', 0)"),
        ("threads", "import math\n"
         "math.__class__.__subclasses__()"),
    ],
    "queue": [
        ("environment", "import queue\n"
         "queue.threading._os.environ"),
        ("files", "import queue\n"
         "queue.SimpleQueue.__module__, queue.__file__, open(queue.__file__).read()"),
        ("processes", "import queue\n"
         "queue.threading.Thread(target=print).start()"),
        ("settings", "import queue\n"
         "queue.Queue.get = lambda self, *a, **k: 'pwned'\n"
         "queue.Empty = KeyError"),
        ("threads", "import queue\n"
         "q = queue.Queue()\n"
         "lock = q.mutex\nlock.acquire()\n"
         "q.get(timeout=100)"),
    ],
    "random": [
        ("environment", "import random\n"
         "random._os.environ['SMOL_INPROCESS_SECRET']"),
        ("files", "import random\n"
         "random._urandom.__self__.open('{DIR}/pwned', 'w')"),
        ("processes", "import random\n"
         "random._os.register_at_fork(after_in_child=print)"),
        ("settings", "import random\n"
         "random.seed(0)\nrandom.setstate(random.Random(1).getstate())\n"
         "[random.random() for _ in range(1000)]\n"
         "random.Random.random = lambda self: 4"),
        ("threads", "import random\n"
         "g = random.shuffle.__self__\n"
         "g.seed(5)\ng.getstate()"),
    ],
    "re": [
        ("environment", "import re\n"
         "re.sub('x', lambda m: 1, 'x'), re.compile('a').__class__, "
         "re.sys.modules['os'].environ"),
        ("files", "import re\n"
         "re.compile('(?x)a', re.DEBUG)"),
        ("processes", "import re\n"
         "re.enum.sys.modules['subprocess'].run(['true'])"),
        ("settings", "import re\n"
         "re.purge()\nre._MAXCACHE = 0\nre.IGNORECASE = 0\nre.compile = None"),
        ("threads", "import re\n"
         "re.copyreg.pickle(re.Pattern, print)"),
    ],
    "stat": [
        ("environment", "import stat\n"
         "stat.__builtins__['__import__']('os').environ"),
        ("files", "import stat\n"
         "stat.filemode(stat.__loader__.path_stats('{DIR}/sentinel')['mtime'])"),
        ("processes", "import stat\n"
         "stat.__loader__.load_module('os').system('true')"),
        ("settings", "import stat\n"
         "stat.S_IFDIR = 0\nstat.filemode = str"),
        ("threads", "import stat\n"
         "stat.__spec__.loader_state, stat.__spec__.__class__.__init__.__globals__"),
    ],
    "statistics": [
        ("environment", "import statistics\n"
         "statistics.sys.modules['os'].environ"),
        ("files", "import statistics\n"
         "statistics.NormalDist().samples(1, seed=open('{DIR}/sentinel').read())"),
        ("processes", "import statistics\n"
         "statistics.random._os.fork()"),
        ("settings", "import statistics\n"
         "statistics.NormalDist.mean = property(lambda self: 0)\n"
         "statistics.StatisticsError = KeyError"),
        ("threads", "import statistics\n"
         "statistics.NormalDist().samples(3)\nstatistics.random.seed(3)"),
    ],
    "time": [
        ("environment", "import time\n"
         "time.tzset()\ntime.tzname"),
        ("files", "import time\n"
         "time.__loader__.get_data('{DIR}/sentinel')"),
        ("processes", "import time\n"
         "time.clock_settime(time.CLOCK_REALTIME, 0)"),
        ("settings", "import time\n"
         "time.sleep = print\ntime.timezone = 5"),
        ("threads", "import time\n"
         "time.pthread_getcpuclockid(1)"),
    ],
    "unicodedata": [
        ("environment", "import unicodedata\n"
         "unicodedata.__loader__.exec_module.__globals__['_os'].environ"),
        ("files", "import unicodedata\n"
         "open(unicodedata.__file__, 'rb').read(4)"),
        ("processes", "import unicodedata\n"
         "unicodedata.ucd_3_2_0.__class__.__call__(print)"),
        ("settings", "import unicodedata\n"
         "unicodedata.unidata_version = '0'\nunicodedata.name = len"),
        ("threads", "import unicodedata\n"
         "unicodedata.normalize('NFKC', '\\ufdfa' * 10 ** 7)"),
    ],
    "collections.abc": [
        ("environment", "import collections.abc\n"
         "collections.abc.Mapping.register(type(collections.abc.__loader__))\n"
         "collections.abc.sys.modules['os'].environ"),
        ("files", "import collections.abc\n"
         "collections.abc.__loader__.get_data('{DIR}/sentinel')"),
        ("processes", "import collections.abc\n"
         "collections.abc.Callable.__subclasshook__.__func__.__globals__['sys']"),
        ("settings", "import collections.abc\n"
         "collections.abc.Sequence.register(int)\n"
         "collections.abc.Hashable.register(list)"),
        ("threads", "import collections.abc\n"
         "collections.abc.Iterator._abc_registry"),
    ],
    "abc": [
        ("environment", "import abc\n"
         "abc.ABCMeta.__call__.__globals__['os'].environ"),
        ("files", "import abc\n"
         "abc.__loader__.get_data('{DIR}/sentinel')"),
        ("processes", "import abc\n"
         "abc.abstractmethod(abc.ABCMeta.register)\nabc.get_cache_token()"),
        ("settings", "import abc\n"
         "abc.ABC.register(int)\nabc.update_abstractmethods(abc.ABC)\n"
         "abc.abstractmethod(abc.get_cache_token)"),
        ("threads", "import abc\n"
         "abc._reset_registry(abc.ABC)\nabc._abc_subclasscheck"),
    ],
    "numbers": [
        ("environment", "import numbers\n"
         "numbers.ABCMeta.register.__globals__['os'].environ"),
        ("files", "import numbers\n"
         "numbers.__loader__.get_data('{DIR}/sentinel')"),
        ("processes", "import numbers\n"
         "numbers.Number.register(type(numbers.__loader__))"),
        ("settings", "import numbers\n"
         "numbers.Integral.register(str)\nnumbers.Real.register(complex)"),
        ("threads", "import numbers\n"
         "numbers.Complex.__abstractmethods__ = frozenset()"),
    ],
    "bisect": [
        ("environment", "import bisect\n"
         "bisect.__loader__.exec_module.__globals__['_os'].environ"),
        ("files", "import bisect\n"
         "bisect.insort(open('{DIR}/sentinel', 'a').__dict__, 1)"),
        ("processes", "import bisect\n"
         "bisect.bisect(range(10), 3, key=lambda v: __import__('os').fork())"),
        ("settings", "import bisect\n"
         "bisect.insort = bisect.insort_left = print"),
        ("threads", "import bisect\n"
         "bisect.bisect_left([0] * 10, 0, key=lambda v: bisect.__builtins__)"),
    ],
    "heapq": [
        ("environment", "import heapq\n"
         "heapq.nlargest(1, [1], key=lambda v: heapq.__builtins__['__import__']('os').environ)"),
        ("files", "import heapq\n"
         "heapq.merge(open('{DIR}/sentinel'))"),
        ("processes", "import heapq\n"
         "heapq.heappush(heapq.__dict__, print)"),
        ("settings", "import heapq\n"
         "heapq.heappush = heapq.heappop = None"),
        ("threads", "import heapq\n"
         "h = list(range(10 ** 6))\nheapq.heapify(h)\nheapq.__spec__.loader"),
    ],
    "cmath": [
        ("environment", "import cmath\n"
         "cmath.__loader__.exec_module.__globals__['_os'].environ"),
        ("files", "import cmath\n"
         "open(cmath.__file__, 'rb').read(4)"),
        ("processes", "import cmath\n"
         "type(cmath.exp).__call__(cmath.__loader__.load_module, 'os')"),
        ("settings", "import cmath\n"
         "cmath.pi = 3\ncmath.e = 2"),
        ("threads", "import cmath\n"
         "cmath.exp.__self__.__dict__"),
    ],
    "fractions": [
        ("environment", "import fractions\n"
         "fractions.sys.modules['os'].environ"),
        ("files", "import fractions\n"
         "fractions.Fraction(open('{DIR}/sentinel').read())"),
        ("processes", "import fractions\n"
         "fractions.Decimal.__reduce__.__self__, fractions.math.__loader__.load_module('os')"),
        ("settings", "import fractions\n"
         "fractions.Fraction.__add__ = fractions.Fraction.__sub__\n"
         "fractions.Decimal(1).__class__.__add__"),
        ("threads", "import fractions\n"
         "fractions.Decimal.__module__, fractions.numbers.Rational.register(float)"),
    ],
    "decimal": [
        ("environment", "import decimal\n"
         "decimal.Decimal(decimal.__spec__.loader.exec_module.__globals__['_os']"
         ".environ['SMOL_INPROCESS_SECRET'])"),
        ("files", "import decimal\n"
         "decimal.Decimal(open('{DIR}/sentinel').read())"),
        ("processes", "import decimal\n"
         "decimal.__loader__.load_module('os').fork()"),
        ("settings", "import decimal\n"
         "decimal.getcontext().prec = 3\n"
         "decimal.getcontext().traps[decimal.Inexact] = True\n"
         "decimal.setcontext(decimal.Context(prec=2))\n"
         "decimal.DefaultContext.prec = 5"),
        ("threads", "import decimal\n"
         "decimal.BasicContext.prec = 4\ndecimal.ExtendedContext.rounding = 'ROUND_UP'"),
    ],
    "json": [
        ("environment", "import json\n"
         "json.dumps(json.decoder.__loader__.exec_module.__globals__['_os'].environ)"),
        ("files", "import json\n"
         "json.load(open('{DIR}/sentinel'))"),
        ("processes", "import json\n"
         "json.loads('[1]', object_hook=json.__builtins__['exec'])"),
        ("settings", "import json\n"
         "json.dumps = str\njson.decoder.JSONDecodeError = KeyError\n"
         "json._default_encoder.indent = 8"),
        ("threads", "import json\n"
         "json.scanner.make_scanner = None\njson.encoder.c_make_encoder = None"),
    ],
    "string": [
        ("environment", "import string\n"
         "string.Template('$SMOL_INPROCESS_SECRET').substitute(string.__builtins__['__import__']('os').environ)"),
        ("files", "import string\n"
         "string.Formatter().format('{0.__globals__}', string.capwords)"),
        ("processes", "import string\n"
         "'{0.__init__.__globals__[sys]}'.format(string.Template)"),
        ("settings", "import string\n"
         "string.ascii_letters = ''\nstring.Template.delimiter = '#'"),
        ("threads", "import string\n"
         "string.Template.__init_subclass__()\nstring._sentinel_dict"),
    ],
    "textwrap": [
        ("environment", "import textwrap\n"
         "textwrap.re.copyreg.__builtins__['__import__']('os').environ"),
        ("files", "import textwrap\n"
         "textwrap.dedent(open('{DIR}/sentinel').read())"),
        ("processes", "import textwrap\n"
         "textwrap.TextWrapper.__init__.__globals__['re'].sys.modules['subprocess']"),
        ("settings", "import textwrap\n"
         "textwrap.TextWrapper.width = 5\ntextwrap.fill = repr"),
        ("threads", "import textwrap\n"
         "textwrap._whitespace = ''"),
    ],
    "operator": [
        ("environment", "import operator\n"
         "operator.attrgetter('__spec__.loader.exec_module.__globals__')(operator)"),
        ("files", "import operator\n"
         "operator.methodcaller('get_data', '{DIR}/sentinel')(operator.__loader__)"),
        ("processes", "import operator\n"
         "operator.methodcaller('system', 'true')(operator.attrgetter('__loader__')(operator))"),
        ("settings", "import operator\n"
         "operator.add = operator.sub\n"
         "operator.setitem(operator.__dict__, 'mul', None)"),
        ("threads", "import operator\n"
         "operator.attrgetter('__globals__')(operator.attrgetter)"),
    ],
    "copy": [
        ("environment", "import copy\n"
         "copy.deepcopy(copy.__loader__).exec_module.__globals__['_os'].environ"),
        ("files", "import copy\n"
         "copy.copy(open('{DIR}/sentinel'))"),
        ("processes", "import copy\n"
         "copy.dispatch_table[int] = print"),
        ("settings", "import copy\n"
         "copy.Error = KeyError\ncopy._deepcopy_dispatch = {}\n"
         "getattr(copy, 'dispatch_table')[type(None)] = print"),
        ("threads", "import copy\n"
         "from copy import *\ndispatch_table"),
    ],
    "functools": [
        ("environment", "import functools\n"
         "functools.reduce(getattr, ['__builtins__'], functools)['__import__']('os').environ"),
        ("files", "import functools\n"
         "functools.partial(open, '{DIR}/pwned', 'w')()"),
        ("processes", "import functools\n"
         "functools.update_wrapper(functools.total_ordering, print)\n"
         "functools.wraps(print)(functools.cmp_to_key)"),
        ("settings", "import functools\n"
         "functools.total_ordering(functools.partial)\n"
         "functools.WRAPPER_ASSIGNMENTS = ()\n"
         "functools.lru_cache(maxsize=1)(functools.reduce).cache_clear()"),
        ("threads", "import functools\n"
         "functools.singledispatch(print).register(int, lambda x: 'pwned')\n"
         "functools.RLock"),
    ],
    "dataclasses": [
        ("environment", "import dataclasses\n"
         "dataclasses.sys.modules['os'].environ"),
        ("files", "import dataclasses\n"
         "dataclasses.make_dataclass('P', ['a'], namespace={'__init__': open})('{DIR}/pwned', 'w')"),
        ("processes", "import dataclasses\n"
         "dataclasses._create_fn('f', [], 'return 1', globals={})"),
        ("settings", "import dataclasses\n"
         "dataclasses.dataclass(dataclasses.Field)"),
        ("threads", "import dataclasses\n"
         "dataclasses.MISSING.__class__.__repr__ = lambda s: 'pwned'"),
    ],
    "enum": [
        ("environment", "import enum\n"
         "enum.sys.modules['os'].environ"),
        ("files", "import enum\n"
         "class E(enum.Enum):\n    A = open('{DIR}/pwned', 'w')"),
        ("processes", "import enum\n"
         "enum.global_enum(enum.Enum('E', 'A B'))\n"
         "enum.EnumMeta._convert_('E', 'os', lambda n: True)"),
        ("settings", "import enum\n"
         "enum.Enum.__repr__ = lambda s: 'pwned'\nenum.auto.value = 3"),
        ("threads", "import enum\n"
         "enum.Flag._missing_ = classmethod(lambda c, v: 'pwned')"),
    ],
    "typing": [
        ("environment", "import typing\n"
         "typing.sys.modules['os'].environ"),
        ("files", "import typing\n"
         "typing.get_type_hints(typing.NamedTuple('P', [('a', \"open('{DIR}/pwned', 'w')\")]))"),
        ("processes", "import typing\n"
         "typing.reveal_type(1)\ntyping.clear_overloads()"),
        ("settings", "import typing\n"
         "typing.EXCLUDED_ATTRIBUTES.append('x')\n"
         "typing.final(typing.Protocol)\n"
         "typing.no_type_check(typing.NamedTuple)"),
        ("threads", "import typing\n"
         "typing.runtime_checkable(typing.SupportsInt)\n"
         "typing.overload(typing.cast)"),
    ],
    "contextlib": [
        ("environment", "import contextlib\n"
         "contextlib.sys.modules['os'].environ"),
        ("files", "import contextlib\n"
         "with contextlib.chdir('{DIR}'):\n    pass"),
        ("processes", "import contextlib\n"
         "contextlib.closing(contextlib.__loader__).thing.load_module('os')"),
        ("settings", "import contextlib\n"
         "with contextlib.redirect_stdout(None):\n    pass"),
        ("threads", "import contextlib\n"
         "cm = contextlib.redirect_stderr(None)\ncm.__enter__()"),
    ],
    "base64": [
        ("environment", "import base64\n"
         "base64.b64encode(base64.binascii.__loader__.exec_module.__globals__['_os'].environ)"),
        ("files", "import base64\n"
         "base64.encode(open('{DIR}/sentinel', 'rb'), open('{DIR}/pwned', 'wb'))"),
        ("processes", "import base64\n"
         "base64.main()"),
        ("settings", "import base64\n"
         "base64.test()\nbase64.b64encode = base64.b64decode"),
        ("threads", "import base64\n"
         "base64.bytes_types = ()\nbase64.MAXLINESIZE = 1"),
    ],
}


def _module_values(module: types.ModuleType) -> dict:
    """The identity of every value of a module's dict, and of every class's own dict."""
    out = {}
    for k, v in list(vars(module).items()):
        out[k] = id(v)
        if isinstance(v, type):
            out[k + ".__dict__"] = {a: id(b) for a, b in vars(v).items()}
    return out


def host_state(directory: Path) -> dict:
    """What the host shares with code running in its process, as values that compare."""
    import importlib

    ctx = decimal.getcontext()
    state = {
        "environ": dict(os.environ),
        "cwd": os.getcwd(),
        "files": {p.name: p.read_bytes() for p in sorted(directory.iterdir())},
        "stdout": id(sys.stdout), "stderr": id(sys.stderr),
        "warnings.filters": list(warnings.filters),
        "logging": (logging.root.level, logging.root.manager.disable,
                    list(logging.root.handlers)),
        "decimal.context": (id(ctx), repr(ctx)),
        "decimal.templates": tuple(repr(c) for c in (decimal.DefaultContext,
                                                     decimal.BasicContext,
                                                     decimal.ExtendedContext)),
        "random.state": random.getstate(),
        "recursionlimit": sys.getrecursionlimit(),
        "switchinterval": sys.getswitchinterval(),
        "trace": (sys.gettrace(), sys.getprofile(), threading._trace_hook,
                  threading._profile_hook),
        "faulthandler": faulthandler.is_enabled(),
        "gc": (gc.isenabled(), gc.get_threshold()),
        "locale": locale.setlocale(locale.LC_ALL, None),
        "tz": (time.tzname, time.timezone),
        # The host's threads by identity: a thread that an earlier test left ending (a closed
        # executor's tool thread) may be gone after the payload ran; a new one is the payload's.
        "threads": frozenset(["tid %s" % t for t in os.listdir("/proc/self/task")]
                             + ["ident %d" % t.ident for t in threading.enumerate()]),
        "children": _children(),
        "copyreg": dict(copyreg.dispatch_table),
        "abc": (isinstance(1, collections.abc.Sequence), issubclass(list, collections.abc.Hashable),
                issubclass(int, abc.ABC), issubclass(str, numbers.Integral),
                issubclass(float, numbers.Rational), issubclass(complex, numbers.Real),
                issubclass(dict, collections.UserDict)),
        "typing": (tuple(getattr(typing, "EXCLUDED_ATTRIBUTES", ())),
                   getattr(typing.Protocol, "__final__", None),
                   getattr(typing.NamedTuple, "__no_type_check__", None),
                   getattr(typing.SupportsInt, "_is_runtime_protocol", None),
                   len(getattr(typing, "_overload_registry", {}))),
        "functions": tuple(sorted(getattr(f, "__wrapped__", None) is not None
                                  for f in (functools.reduce, functools.cmp_to_key, print))),
        "dataclass": dataclasses.is_dataclass(dataclasses.Field),
    }
    for name in _inprocess.MODULES:
        state["module " + name] = _module_values(importlib.import_module(name))
    return state


def changed_keys(before: dict, after: dict) -> list[str]:
    """The parts of the host state a payload changed; threads count when new ones appear."""
    def differs(k):
        if k == "threads":
            return bool(after[k] - before[k])
        return before[k] != after.get(k)
    return sorted(k for k in before if differs(k))


def _children() -> list[str]:
    """The host's child processes (from /proc)."""
    me = str(os.getpid())
    out = []
    for pid in os.listdir("/proc"):
        if pid.isdigit():
            try:
                with open(f"/proc/{pid}/stat") as f:
                    fields = f.read().rsplit(")", 1)[1].split()
            except OSError:
                continue
            if fields[1] == me:
                out.append(pid)
    return sorted(out)


@pytest.fixture(scope="module")
def hostdir(tmp_path_factory):
    d = tmp_path_factory.mktemp("inprocess_host")
    (d / "sentinel").write_bytes(b"host data\n")
    return d


def _run(module: str, code: str) -> str:
    """Run `code` in process with `module` authorized; its output, logs or error as text."""
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # a table module must not warn
        ex = LocalPythonExecutor([module], isolation="none", timeout_seconds=2)
    try:
        out = ex(code)
        return repr(out.output) + out.logs
    except (InterpreterError, ExecutionTimeoutError) as exc:
        return f"{type(exc).__name__}: {exc}"
    finally:
        del ex
        gc.collect()


CASES = [(m, kind, code) for m, payloads in PAYLOADS.items() for kind, code in payloads]
# Payloads whose one long C call ASan makes quadratic (unicodedata's output buffer grows by
# realloc, which ASan always copies: minutes instead of seconds): not in the sanitizer run.
SLOW_UNDER_SANITIZER = {("unicodedata", "threads")}


def test_every_module_of_the_table_is_attacked():
    assert set(PAYLOADS) == set(_inprocess.MODULES)
    for module, payloads in PAYLOADS.items():
        assert [k for k, _ in payloads] == list(KINDS), module


@pytest.mark.parametrize("module, kind, code", [
    pytest.param(m, k, c, id=f"{m}-{k}",
                 marks=[pytest.mark.no_sanitizer] if (m, k) in SLOW_UNDER_SANITIZER else [])
    for m, k, c in CASES
])
def test_payload_leaves_the_host_untouched(hostdir, module, kind, code):
    code = code.replace("{DIR}", str(hostdir))
    before = host_state(hostdir)
    text = _run(module, code)
    after = host_state(hostdir)
    assert SECRET not in text, text
    changed = changed_keys(before, after)
    assert not changed, (changed, text)


# A payload of each kind that changes the host when run natively: the state check sees it.
NATIVE = {
    "environment": "import os\nos.environ['SMOL_PWNED'] = '1'",
    "files": "open('{DIR}/pwned', 'w').write('x')",
    "processes": "import subprocess, time\nsubprocess.Popen(['sleep', '2'])",
    "settings": "import warnings, decimal, random, collections.abc\n"
                "warnings.simplefilter('error')",
    "threads": "import threading, time\nthreading.Thread(target=time.sleep, args=(2,)).start()",
}
NATIVE_MORE = [
    "import decimal\ndecimal.getcontext().prec = 3",
    "import random\nrandom.seed(1)",
    "import collections.abc\ncollections.abc.Sequence.register(int)",
    "import typing\ntyping.no_type_check(typing.NamedTuple)",
    "import logging\nlogging.disable(50)",
    "import math\nmath.pi = 3",
]


@pytest.mark.parametrize("code", list(NATIVE.values()) + NATIVE_MORE)
def test_the_state_check_sees_each_kind_of_change(hostdir, code):
    script = textwrap.dedent(f"""
        import os, sys
        sys.path.insert(0, {str(Path(__file__).parent)!r})
        from pathlib import Path
        import test_inprocess_modules as t
        d = Path({str(hostdir)!r}) / "native"
        d.mkdir(exist_ok=True)
        (d / "sentinel").write_bytes(b"host data\\n")
        before = t.host_state(d)
        exec({code!r}.replace("{{DIR}}", str(d)), {{}})
        after = t.host_state(d)
        changed = t.changed_keys(before, after)
        print("CHANGED", changed)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)})
    assert proc.returncode == 0, proc.stderr
    line = [ln for ln in proc.stdout.splitlines() if ln.startswith("CHANGED")][-1]
    assert line != "CHANGED []", (code, proc.stdout)
