"""The attack corpus: every payload must be refused, with no side effect (see conftest.refused).

Payloads are grouped in classes (the first field). Sources of the classes: the issue's list,
public advisories against smolagents (CVE-2025-5120 getattr leakage, CVE-2025-9959 class
hierarchy traversal, issue #2395 dunder hooks, #2094 ctypes), asteval (#86 __reduce__, #32
type/str.format), simpleeval (#138 generator frames), Jinja2's sandbox (str.format /
format_map), RestrictedPython, and well-known pyjail techniques.

`CANARY` in a payload is replaced by a path in a temporary directory; the test asserts the file
was never created.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pytest

from smolagents_native import InterpreterError
from conftest import REFUSAL, new_executor, refused, slow

# the coroutine payload creates a host coroutine that is never awaited
pytestmark = pytest.mark.filterwarnings("ignore:coroutine .* was never awaited")


@dataclass
class P:
    cls: str
    code: str
    imports: tuple = ()
    match: str = REFUSAL
    timeout: float = 5
    timeout_ok: bool = False
    variables: dict = field(default_factory=dict)
    heavy: bool = False  # slow under ASan: marked no_sanitizer
    needs: tuple = ()  # (module, attribute) the payload reaches for; absent on some versions


FMT = "Forbidden access to dunder attribute"
INTERNAL = "Forbidden access to internal"
MODULE = "Forbidden access to module"
DEADLINE = "maximum execution time"
TOO_LARGE = "too large for the sandbox's size limit"
TOOL = "Cannot assign to name"

PAYLOADS = [
    # --- dunder attributes: the class hierarchy walk (CVE-2025-9959 shape) and friends
    P("dunder", "().__class__.__bases__[0].__subclasses__()", match=FMT),
    P("dunder", "[].__class__.__mro__[-1].__subclasses__()", match=FMT),
    P("dunder", "object.__subclasses__()", match=FMT),
    P("dunder", "type.__subclasses__(object)", match=FMT),
    P("dunder", "type(1).__subclasses__", match=FMT),
    P("dunder", "int.__dict__", match=FMT),
    P("dunder", "lookup.__globals__['SECRET']", match=FMT),
    P("dunder", "lookup.__code__", match=FMT),
    P("dunder", "lookup.__builtins__", match=FMT),
    P("dunder", "(lambda: 0).__globals__", match=FMT),
    P("dunder", "def f():\n    return 1\nf.__closure__", match=FMT),
    P("dunder", "len.__self__", match=FMT),
    P("dunder", "[].append.__self__", match=FMT),
    P("dunder", "print.__self__", match=FMT),
    P("dunder", "lookup.__init__.__globals__", match=FMT),
    P("dunder", "type(lookup).__base__.__subclasses__()", match=FMT),
    P("dunder", "[c for c in ().__class__.__base__.__subclasses__() if c.__name__ == '_wrap_close']",
      match=FMT),
    # --- getattr / hasattr / setattr / delattr (CVE-2025-5120 shape)
    P("getattr", "getattr(getattr, '__self__')", match=FMT),
    P("getattr", "getattr(lookup, '__glo' + 'bals__')['SECRET']", match=FMT),
    P("getattr", "getattr(lookup, '__globals__', None)", match=FMT),
    P("getattr", "hasattr(lookup, '__globals__')", match=FMT),
    P("getattr", "getattr(lookup, ''.join(['__', 'code', '__']))", match=FMT),
    P("getattr", "getattr(getattr(getattr((), '__class__'), '__bases__')[0], '__subclasses__')", match=FMT),
    P("getattr", "setattr(lookup, '__code__', None)", match=FMT),
    P("getattr", "delattr(lookup, '__doc__')", match=FMT),
    P("getattr", "list(map(getattr, [lookup], ['__globals__']))", match=FMT),
    # --- str subclasses with lying methods passed as attribute names
    P("str_subclass",
      "class S(str):\n    def __eq__(self, o): return False\n    def __hash__(self): return 1\n"
      "    def startswith(self, p): return False\n    def endswith(self, p): return False\n"
      "getattr(lookup, S('__globals__'))", match=FMT),
    P("str_subclass",
      "class S(str):\n    def __len__(self): return 0\ngetattr(lookup, S('__globals__'))", match=FMT),
    P("str_subclass",
      "class S(str):\n    def __getitem__(self, i): return 'x'\nhasattr(lookup, S('__code__'))",
      match=FMT),
    P("str_subclass",
      "class S(str):\n    def __eq__(self, o): return True\n    __hash__ = str.__hash__\n"
      "setattr(lookup, S('__doc__'), 1)", match=FMT),
    # --- str.format / format_map field traversal (Jinja2 CVE-2016-10745 / CVE-2019-10906 shape)
    P("format", "'{0.__class__.__mro__}'.format(1)", match=FMT),
    P("format", "'{0.__globals__[SECRET]}'.format(lookup)", match=FMT),
    P("format", "'{x.__globals__}'.format_map({'x': lookup})", match=FMT),
    P("format", "'{0.__init__.__globals__}'.format(lookup)", match=FMT),
    P("format", "'{0:{1.__class__.__base__}}'.format(1, 2)", match=FMT),
    P("format", "str.format('{0.__class__.__base__}', 1)", match=FMT),
    P("format", "str.format_map('{a.__class__.__base__}', {'a': 1})", match=FMT),
    P("format", "f = '{0.__class__.__base__}'.format", match=FMT),
    P("format", "list(map('{0.__class__.__base__}'.format, [1]))", match=FMT),
    P("format", "'{.__class__.__base__.__subclasses__}'.format(1)", match=FMT),
    P("format", "'{0[0].__class__.__bases__}'.format([1])", match=FMT),
    P("format", "g = (x for x in [1])\n'{0.gi_frame.f_globals}'.format(g)", match=INTERNAL),
    P("format", "'{0.__reduce_ex__}'.format(1)", match=FMT),
    P("format", "getattr('{0.__class__.__base__}', 'format')(1)", match=FMT),
    P("format", "import os.path\n'{0.environ}'.format(os)", imports=("os.path",),
      match="only authorized as the parent"),
    # --- generator / coroutine frames (simpleeval #138 shape)
    P("frames_gen", "(x for x in ()).gi_frame", match=INTERNAL),
    P("frames_gen", "(x for x in ()).gi_frame.f_back.f_globals", match=INTERNAL),
    P("frames_gen", "def g():\n    yield 1\nx = g()\nnext(x)\nx.gi_frame", match=INTERNAL),
    P("frames_gen", "def g():\n    yield 1\ng().gi_code", match=INTERNAL),
    P("frames_gen", "getattr((x for x in ()), 'gi_frame')", match=INTERNAL),
    P("frames_gen", "thing.gen().gi_frame.f_globals", variables={"thing": "HOST_THING"}, match=INTERNAL),
    P("frames_gen", "c = thing.coro()\nf = c.cr_frame", variables={"thing": "HOST_THING"},
      match=INTERNAL),
    P("frames_gen", "def g():\n    yield from (y for y in [1])\nx = g()\nnext(x)\nx.gi_yieldfrom",
      match=INTERNAL),
    # --- tracebacks and exception internals
    P("traceback", "try:\n    1/0\nexcept Exception as e:\n    tb = e.__traceback__", match=FMT),
    P("traceback", "try:\n    1/0\nexcept Exception as e:\n    e.__traceback__.tb_frame", match=FMT),
    P("traceback", "try:\n    1/0\nexcept Exception as e:\n    c = e.__context__.__traceback__", match=FMT),
    P("traceback", "leak_traceback().tb_frame", match=INTERNAL),
    P("traceback", "e = ValueError()\ne.with_traceback(leak_traceback())", match=INTERNAL),
    P("exception_objects", "try:\n    lookup.nope\nexcept AttributeError as e:\n    e.obj", match=INTERNAL),
    P("exception_objects", "try:\n    raise_with_module()\nexcept ValueError as e:\n    m = e.args[0]",
      match=MODULE),
    P("exception_objects", "try:\n    raise_with_module()\nexcept ValueError as e:\n    for a in e.args: pass",
      match=MODULE),
    # --- values that must never enter: call results, subscripts, iteration, unpacking...
    P("call_result", "leak_module()", match=MODULE),
    P("containers", "leak_modules()[0]", match=MODULE),
    P("iteration", "for m in leak_modules(): pass", match=MODULE),
    P("iteration", "[m for m in leak_modules()]", match=MODULE),
    P("containers", "next(iter(leak_modules()))", match=MODULE),
    P("containers", "max(leak_modules(), key=id)", match=MODULE),
    P("containers", "leak_dict()['os']", match=MODULE),
    P("containers", "{**leak_dict()}['os']", match=MODULE),
    P("default_arg", "def f(m=leak_modules()[0]): return m", match=MODULE),
    P("with_as", "with leak_cm() as m:\n    pass", match=MODULE),
    P("iteration", "match leak_modules():\n    case [m, *_]:\n        pass", match=MODULE),
    P("unpacking", "a, b = leak_modules()\na.system('true')", match=MODULE),
    P("call_result", "leak_frame()", match=INTERNAL),
    P("call_result", "leak_code()", match=INTERNAL),
    P("namespaces", "leak_globals()", match="namespace"),
    P("namespaces", "leak_builtins_dict()", match="namespace"),
    P("call_result", "leak_eval()", match="Forbidden access to function"),
    P("call_result", "leak_open()('CANARY', 'w')", match="Forbidden access to function"),
    P("decorators", "@decorator_to_module\ndef f(): pass", match=MODULE),
    P("host_callbacks", "list(map(lambda m: m.getcwd(), leak_modules()))", match=MODULE),
    P("host_callbacks", "sorted(leak_modules(), key=lambda m: m.getpid())", match=MODULE),
    P("decorators", "@decorator_to_eval\ndef f(): pass", match="Forbidden access to function"),
    P("decorators", "def deco(f):\n    return leak_module()\n@deco\ndef g(): pass", match=MODULE),
    P("default_arg", "f = lambda m=leak_dict()['os']: m", match=MODULE),
    P("with_as", "class C:\n    def __enter__(self): return leak_frame()\n    def __exit__(self, *a): pass\n"
      "with C() as fr:\n    pass", match=INTERNAL),
    P("unpacking", "(a, b), c = leak_modules(), 1\na.getcwd()", match=MODULE),
    P("host_callbacks", "list(filter(lambda m: m.system('touch CANARY'), leak_modules()))", match=MODULE),
    P("namespaces", "d = leak_globals\nd()['SECRET']", match="namespace"),
    P("exception_objects", "try:\n    raise_with_module()\nexcept ValueError as e:\n    a, b = e.args\n    a.getcwd()",
      match=MODULE),
    # --- modules reached as attributes of authorized modules
    P("module_attr", "import random\nrandom._os", match="Forbidden access to module: os"),
    P("module_attr", "import statistics\nstatistics.random._os", match="Forbidden access to module: os"),
    P("module_attr", "import collections\ncollections.abc", match=MODULE),
    P("module_attr", "import re\nre.enum", match=MODULE),
    P("module_attr", "import statistics\nstatistics.sys.modules", match=MODULE, needs=("statistics", "sys")),
    P("module_attr", "import queue\nqueue.threading", match=MODULE),
    P("module_attr", "import random\nrandom._inst", match="private module attribute"),
    P("module_attr", "import random\nrandom.__builtins__", match=FMT),
    P("module_attr", "import itertools\nitertools.__loader__", match=FMT),
    P("module_attr", "import math\nmath.__dict__", match=FMT),
    P("module_attr", "import math\nmath.__spec__", match=FMT),
    P("module_attr", "import math\nmath.__init__('os')", match=FMT),
    P("module_attr", "from collections import abc", match=MODULE),
    P("module_attr", "import statistics\ngetattr(statistics, 'sys')", match=MODULE, needs=("statistics", "sys")),
    # --- imports
    P("imports", "import os", match="Import of os is not allowed"),
    P("imports", "from os import system", match="Import from os is not allowed"),
    P("imports", "import subprocess", match="not allowed"),
    P("imports", "import sys", match="not allowed"),
    P("imports", "import builtins", match="not allowed"),
    P("imports", "import ctypes", match="not allowed"),
    P("imports", "import importlib", match="not allowed"),
    P("imports", "import collections.abc", match="not allowed"),
    P("imports", "import os.path", match="not allowed"),
    P("imports", "import posixpath", imports=("os.path",), match="not allowed"),
    P("imports", "import io", match="not allowed"),
    P("imports", "import pickle", match="not allowed"),
    P("imports", "import smolagents_native", match="not allowed"),
    P("imports", "import gc", match="not allowed"),
    # --- a parent of an authorized dotted import is only a namespace
    P("parent_module", "import os\nos.getcwd()", imports=("os.path",),
      match="only authorized as the parent"),
    P("parent_module", "import os.path\nos.listdir('.')", imports=("os.path",),
      match="only authorized as the parent"),
    P("parent_module", "from os import listdir", imports=("os.path",),
      match="only authorized as the parent"),
    P("parent_module", "from os import *", imports=("os.path",), match="only authorized as the parent"),
    P("parent_module", "import os.path\ngetattr(os, 'system')", imports=("os.path",),
      match="only authorized as the parent"),
    P("parent_module", "import os.path\nos.path.os.environ", imports=("os.path",),
      match="only authorized as the parent"),
    # --- dangerous callables stay refused with their module authorized
    P("dangerous_os", "import os\nos.system('touch CANARY')", imports=("os",),
      match="Forbidden access to function"),
    P("dangerous_os", "import os\nos.popen('touch CANARY')", imports=("os",),
      match="Forbidden access to function"),
    P("dangerous_os", "import os\nos.execv('/bin/sh', ['sh', '-c', 'touch CANARY'])", imports=("os",),
      match="Forbidden access to function"),
    P("dangerous_os", "import os\nos.spawnlp(os.P_WAIT, 'touch', 'touch', 'CANARY')", imports=("os",),
      match="Forbidden access to function"),
    P("dangerous_os", "import os\nos.fork()", imports=("os",), match="Forbidden access to function"),
    P("dangerous_os", "import os\nos.kill(os.getpid(), 9)", imports=("os",),
      match="Forbidden access to function"),
    P("dangerous_os", "from os import system", imports=("os",), match="Forbidden access to function"),
    P("dangerous_os", "import os\n[os.system][0]('touch CANARY')", imports=("os",),
      match="Forbidden access to function"),
    P("dangerous_os", "import os\ngetattr(os, 'sys' + 'tem')('touch CANARY')", imports=("os",),
      match="Forbidden access to function"),
    P("dangerous_os", "import os\nlist(map(os.system, ['touch CANARY']))", imports=("os",),
      match="Forbidden access to function"),
    P("dangerous_os", "import os\nos._exit(0)", imports=("os",), match="private module attribute"),
    P("dangerous_os", "import os\nos.posix_spawn('/bin/touch', ['touch', 'CANARY'], {})",
      imports=("os",), match="Forbidden access to function"),
    # --- with `sys` authorized: modules from sys.modules, frame hooks
    P("sys_authorized", "import sys\nsys.modules['os']", imports=("sys",), match=MODULE),
    P("sys_authorized", "import sys\nsys.modules['builtins'].eval", imports=("sys",), match=MODULE),
    P("sys_authorized",
      "import sys\nlist(map(lambda m: m.__name__ == 'os' and m.getcwd(), list(sys.modules.values())))",
      imports=("sys",), match=MODULE),
    P("sys_authorized", "import sys\na, *rest = sorted(list(sys.modules.values()), "
      "key=lambda m: 0 if str(m).startswith(\"<module 'posix'\") else 1)\na.getcwd()",
      imports=("sys",), match=MODULE),
    P("sys_authorized", "import sys\nsys._getframe()", imports=("sys",), match="private"),
    P("sys_authorized", "import sys\nsys.setrecursionlimit(10**6)", imports=("sys",),
      match="Forbidden access to function"),
    P("sys_authorized", "import sys\nsys.settrace(lambda *a: None)", imports=("sys",),
      match="Forbidden access to function"),
    P("sys_authorized", "import sys\nsys.exc_info()", imports=("sys",),
      match="Forbidden access to function"),
    # 3.12+: sys.monitoring would free or take over the gadget table's tool (gadgets.c), or
    # hand the code every code object that starts (the namespace itself is a module the code
    # needs authorized; with it, and with "*", its functions that change tools are refused)
    P("sys_authorized", "import sys\nsys.monitoring.free_tool_id(4)", imports=("sys",),
      match=MODULE, needs=("sys", "monitoring")),
    *(P("sys_authorized", f"import sys\nsys.monitoring.{call}", imports=(*auth,),
        match="Forbidden access to function", needs=("sys", "monitoring"))
      for call in ("free_tool_id(4)", "free_tool_id(3)",
                   "use_tool_id(0, 'x')", "set_events(4, 0)",
                   "register_callback(4, 1, None)", "restart_events()",
                   "set_local_events(4, (lambda: 0).__code__, 0)")
      for auth in (("sys", "sys.monitoring"), ("*",))),
    P("sys_authorized", "import sys\nm = sys.monitoring\nf = m.free_tool_id\nf(4)",
      imports=("sys", "sys.monitoring"), match="Forbidden access to function",
      needs=("sys", "monitoring")),
    # --- builtins that are not there, or refused
    P("builtins", "eval('1')", match="is not defined"),
    P("builtins", "exec('x = 1')", match="is not defined"),
    P("builtins", "compile('1', 'f', 'eval')", match="is not defined"),
    P("builtins", "open('CANARY', 'w').write('x')", match="is not defined"),
    P("builtins", "input()", match="is not defined"),
    P("builtins", "breakpoint()", match="is not defined"),
    P("builtins", "globals()", match="is not defined"),
    P("builtins", "locals()", match="is not defined"),
    P("builtins", "vars(lookup)", match="is not defined"),
    P("builtins", "help(len)", match="is not defined"),
    P("builtins", "memoryview(b'x')", match="is not defined"),
    P("builtins", "__import__('os')", match="is not defined"),
    P("builtins", "__builtins__['eval']", match="is not defined"),
    P("builtins", "__build_class__", match="is not defined"),
    P("builtins", "license()", match="is not defined"),
    # --- class tricks and metaclasses
    P("class_tricks", "class M(type): pass\nclass A(metaclass=M): pass\nA.mro()", match=INTERNAL),
    P("class_tricks", "class A: pass\ntype.mro(A)", match=INTERNAL),
    P("class_tricks", "class A: pass\nsuper(A, A()).__getattribute__('x')", match=FMT),
    P("class_tricks", "class A:\n    def __init_subclass__(cls):\n        cls.__base__.__subclasses__()\n"
      "class B(A): pass", match=FMT),
    P("class_tricks", "class M(type):\n    def __call__(cls):\n        return cls.__base__.__dict__\n"
      "class A(metaclass=M): pass\nA()", match=FMT),
    P("class_tricks", "class A: pass\na = A()\na.__class__ = int", match=FMT),
    P("class_tricks", "A = type('A', (), {})\nA.__bases__ = (int,)", match=FMT),
    # --- descriptors and bound methods
    P("descriptors", "staticmethod(lookup).__func__", match=FMT),
    P("descriptors", "classmethod(lookup).__func__", match=FMT),
    P("descriptors", "property(lookup).fget.__globals__", match=FMT),
    P("descriptors", "class A:\n    def m(self): pass\nA().m.__func__", match=FMT),
    P("descriptors", "thing.method.__self__", variables={"thing": "HOST_THING"}, match=FMT),
    # --- augmented assignment and deletion of dunders
    P("augassign", "def f(): pass\nf.__defaults__ += (1,)", match=FMT),
    P("augassign", "class A: pass\na = A()\na.__dict__ |= {'x': 1}", match=FMT),
    P("augassign", "def f(): pass\nf.__name__ += 'x'", match=FMT),
    P("augassign", "class A: pass\ndel A.__doc__", match=FMT),
    # --- match statements read attributes through the choke point
    P("match_attr", "match lookup:\n    case object(__globals__=g):\n        pass", match=FMT),
    P("match_attr", "g = (x for x in [1])\nmatch g:\n    case object(gi_frame=fr):\n        pass",
      match=INTERNAL),
    P("match_attr", "match 1:\n    case object(__dict__=d):\n        pass", match=FMT),
    # --- tools cannot be rebound, by any binding form
    P("tool_rebind", "lookup = 1", match=TOOL),
    P("tool_rebind", "def lookup(): pass", match=TOOL),
    P("tool_rebind", "class lookup: pass", match=TOOL),
    P("tool_rebind", "import math as lookup", match=TOOL),
    P("tool_rebind", "from math import pi as lookup", match=TOOL),
    P("tool_rebind", "for lookup in [1]: pass", match=TOOL),
    P("tool_rebind", "(lookup := 3)", match=TOOL),
    P("tool_rebind", "try:\n    1/0\nexcept Exception as lookup:\n    pass", match=TOOL),
    P("tool_rebind", "with open_cm() as lookup:\n    pass".replace("open_cm()", "leak_cm()"),
      match=MODULE + "|" + TOOL),
    P("tool_rebind", "class C:\n    def __enter__(self): return 1\n    def __exit__(self, *a): pass\n"
      "with C() as lookup:\n    pass", match=TOOL),
    P("tool_rebind", "match 1:\n    case lookup:\n        pass", match=TOOL),
    P("tool_rebind", "lookup += 1", match=TOOL + "|unsupported operand"),
    P("tool_rebind", "del lookup", match=TOOL),
    P("tool_rebind", "def f():\n    global lookup\n    lookup = 2\nf()", match=TOOL),
    P("tool_rebind", "[1 for lookup in range(3)]", match=TOOL),
    P("tool_rebind", "lookup, x = 1, 2", match=TOOL),
    P("tool_rebind", "class A:\n    lookup = 1", match=TOOL),
    P("tool_rebind", "lookup.x = 1", match="attribute of a tool"),
    P("tool_rebind", "setattr(lookup, 'x', 1)", match="attribute of a tool"),
    P("tool_rebind", "lookup.__init__", match=FMT),
    # --- monkey-patching what the host shares
    P("monkeypatch", "import random\nrandom.Random.random = lambda self: 4",
      match="not defined by the code"),
    P("monkeypatch", "import random\nrandom.seed = print", match="module attribute"),
    P("monkeypatch", "import math\nmath.pi = 3", match="module attribute"),
    P("monkeypatch", "import statistics\nstatistics.NormalDist.mean = 3",
      match="not defined by the code"),
    P("monkeypatch", "import collections\ndel collections.Counter.most_common",
      match="not defined by the code"),
    P("monkeypatch", "import queue\nsetattr(queue.Queue, 'get', None)",
      match="not defined by the code"),
    P("monkeypatch", "import math\ndelattr(math, 'pi')", match="module attribute"),
    P("monkeypatch", "type(thing).method = None", variables={"thing": "HOST_THING"},
      match="not defined by the code"),
    # --- the deadline: blocking calls are bounded, host C loops check it
    P("deadline", "import time\ntime.sleep(100)", timeout=0.3, timeout_ok=True, match=DEADLINE),
    P("deadline", "import time\ntry:\n    time.sleep(100)\nexcept BaseException:\n    pass",
      timeout=0.3, timeout_ok=True, match=DEADLINE),
    P("deadline", "import time\nlist(map(time.sleep, [100]))", timeout=0.3, timeout_ok=True,
      match=DEADLINE),
    P("deadline", "from time import sleep\ns = [sleep][0]\ns(100)", timeout=0.3, timeout_ok=True,
      match=DEADLINE),
    P("deadline", "import queue\nqueue.Queue().get()", timeout=0.3, timeout_ok=True, match=DEADLINE),
    P("deadline", "import queue\nq = queue.Queue(maxsize=1)\nq.put(1)\nq.put(2)", timeout=0.3,
      timeout_ok=True, match=DEADLINE),
    P("deadline", "import queue\nq = queue.Queue()\nq.put(1)\nq.join()", timeout=0.3,
      timeout_ok=True, match=DEADLINE),
    P("deadline", "import queue\nqueue.SimpleQueue().get()", timeout=0.3, timeout_ok=True,
      match=DEADLINE),
    P("deadline", "import queue\nqueue.Queue.get(queue.Queue(), True, 1000)", timeout=0.3,
      timeout_ok=True, match=DEADLINE),
    P("deadline", "import itertools\nsum(itertools.count())", timeout=0.3, timeout_ok=True,
      match=DEADLINE),
    P("deadline", "import itertools\nmax(itertools.repeat(1))", timeout=0.3, timeout_ok=True,
      match=DEADLINE),
    P("deadline", "any(iter(int, 1))", timeout=0.3, timeout_ok=True, match=DEADLINE),
    P("deadline", "import itertools\nnext(filter(None, itertools.repeat(0)))", timeout=0.3,
      timeout_ok=True, match=DEADLINE),
    P("deadline", "sum(range(10**15))", timeout=0.3, timeout_ok=True, match=DEADLINE),
    P("deadline", "import itertools\nfor x in itertools.count():\n    try:\n        pass\n"
      "    finally:\n        continue", timeout=0.3, timeout_ok=True, match=DEADLINE + "|operations"),
    # --- synchronization primitives could block past the deadline
    P("sync", "import queue\nqueue.Queue().mutex", match="synchronization primitive"),
    P("sync", "import queue\nq = queue.Queue()\nwith q.not_empty:\n    q.not_empty.wait()",
      match="synchronization primitive"),
    P("sync", "import queue\ngetattr(queue.Queue(), 'all_tasks_done')",
      match="synchronization primitive"),
    P("sync", "import queue\nq = queue.Queue()\n'{0.mutex}'.format(q)\nq.mutex.acquire()",
      match="synchronization primitive"),
    # --- size budgets
    P("size", "'a' * 10**10", match=TOO_LARGE),
    P("size", "10**10**10", match=TOO_LARGE),
    P("size", "[0] * 10**9", match=TOO_LARGE),
    P("size", "1 << 10**10", match=TOO_LARGE),
    P("size", "x = 10**1000000\ny = x * x", match=TOO_LARGE),
    P("size", "pow(10, 10**10)", match=TOO_LARGE),
    P("size", "bytes(10**10)", match=TOO_LARGE),
    P("size", "bytearray(10**10)", match=TOO_LARGE),
    P("size", "'x'.ljust(10**10)", match=TOO_LARGE),
    P("size", "b'x'.center(10**10)", match=TOO_LARGE),
    P("size", "'\\t'.expandtabs(10**10)", match=TOO_LARGE),
    P("size", "('a' * 1000).replace('a', 'b' * 10**6)", match=TOO_LARGE),
    P("size", "('a' * 1000).translate({97: 'b' * 10**6})", match=TOO_LARGE),
    P("size", "''.join(['x' * 10**7] * 20)", match=TOO_LARGE),
    P("size", "s = 'ab'\nfor i in range(40): s = '{0}{0}'.format(s)", match=TOO_LARGE),
    P("size", "x = [1]\nfor i in range(40): x.extend(x)", match=TOO_LARGE),
    P("size", "x = [[1]]\nfor i in range(40): x = sum([x, x], [])", match=TOO_LARGE),
    P("size", "s = 'a'\nfor i in range(40): s = ''.join(s for _ in range(2))", match=TOO_LARGE),
    P("size", "s = 'a'\nfor i in range(60): s = s.center(len(s) * 2)", match=TOO_LARGE),
    P("size", "import math\nmath.factorial(10**7)", match=TOO_LARGE),
    P("size", "import math\nmath.comb(10**8, 5 * 10**7)", match=TOO_LARGE),
    P("size", "import math\nmath.perm(10**7)", match=TOO_LARGE),
    P("size", "import random\nrandom.getrandbits(10**11)", match=TOO_LARGE),
    P("size", "import random\nrandom.randbytes(10**10)", match=TOO_LARGE),
    P("size", "list(range(10**9))", match=TOO_LARGE),
    P("size", "set(range(10**7))", match=TOO_LARGE),
    P("size", "dict.fromkeys(range(10**8))", match=TOO_LARGE),
    P("size", "import itertools\nlist(itertools.count())", match=TOO_LARGE),
    P("size", "import itertools\nlist(itertools.chain(range(10**7), range(10**7)))", match=TOO_LARGE),
    P("size", "class I:\n    def __index__(self): return 10**10\n'a' * I()", match=TOO_LARGE),
    P("size", "class I:\n    def __index__(self): return 10**10\nbytes(I())", match=TOO_LARGE),
    P("size", "'{:>1000000000}'.format('x')", match=TOO_LARGE),
    P("size", "'{0:.1000000000f}'.format(1.0)", match=TOO_LARGE),
    P("size", "'{:{}}'.format('x', 10**9)", match=TOO_LARGE),
    P("size", "format(1, '1000000000')", match=TOO_LARGE),
    P("size", "class P: pass\np = P()\np.x = 1\n'{0.x:>1000000000}'.format(p)", match=TOO_LARGE),
    P("size", "str.format('{:>1000000000}', 1)", match=TOO_LARGE),
    P("size", "import random\nrandom.choices([1], k=10**9)", match=TOO_LARGE),
    P("size", "import itertools\nitertools.product(range(10), repeat=10**8)", match=TOO_LARGE),
    P("size", "import statistics\nstatistics.mean(range(10**10))", match=TOO_LARGE),
    P("deadline", "import statistics, itertools\nstatistics.mean(itertools.count())", timeout=0.3,
      timeout_ok=True, match=DEADLINE + "|" + TOO_LARGE),
    # --- recursion: a RecursionError, never a crash
    P("recursion", "def f(n): return f(n + 1) if n < 10000 else n\nf(0)", match="RecursionError"),
    P("recursion", "def f(n): return f(n + 1) if n < 100000 else n\nf(0)", match="RecursionError"),
    P("recursion", "def a(n): return b(n + 1)\ndef b(n): return a(n + 1)\na(0)",
      match="RecursionError"),
    P("recursion", "class R:\n    def __repr__(self): return repr(R())\nrepr(R())",
      match="RecursionError"),
    P("recursion", "class E:\n    def __eq__(self, o): return E() == o\nE() == 1",
      match="RecursionError"),
    P("recursion", "class K:\n    def __hash__(self): return hash(K())\n{K()}",
      match="RecursionError"),
    P("recursion", "class S:\n    def __str__(self): return str(S())\nprint(S())",
      match="RecursionError"),
    P("recursion", "def g(n):\n    yield from g(n + 1)\nlist(g(0))", match="RecursionError"),
    P("recursion", "def k(x): return k(x)\nsorted([1, 2], key=k)", match="RecursionError"),
    P("recursion", "def f(n):\n    try:\n        return f(n + 1)\n    except RecursionError:\n"
      "        return f(n + 1)\nf(0)", timeout=0.5, timeout_ok=True, match=DEADLINE + "|operations"),
    # --- deeply nested data
    P("deep_data", "x = ()\nfor i in range(200000): x = (x,)\nprint(x)", match="RecursionError"),
    P("deep_data", "x = []\nfor i in range(200000): x = [x]\nrepr(x)", match="RecursionError"),
    P("deep_data", "x = {}\nfor i in range(200000): x = {1: x}\nstr(x)", match="RecursionError"),
    P("deep_data", "x = []\ny = []\nfor i in range(200000):\n    x = [x]\n    y = [y]\nx == y",
      match="RecursionError"),
    P("deep_data", "import itertools\nx = list(itertools.accumulate(itertools.repeat(iter([1]), 300000), zip))",
      match="accumulate"),
    P("deep_data", "import itertools\nx = list(itertools.accumulate(itertools.repeat(None, 300000), slice))",
      match="accumulate"),
    P("deep_data", "x = slice(None)\nfor i in range(300000): x = slice(x)", match="slice"),
    # --- sizes of concatenation and formatting (closed after the first review)
    P("size", "s = 'x' * 1000\nwhile True: s = s + s", match=TOO_LARGE),
    P("size", "def f():\n    s = 'ab'\n    while True:\n        s += s\nf()", match=TOO_LARGE),
    P("size", "l = [1] * 1000\nwhile True: l += l", match=TOO_LARGE),
    P("size", "x = f'{1:>1000000000}'", match=TOO_LARGE),
    P("size", "x = f'{1.5:.1000000000f}'", match=TOO_LARGE),
    P("size", "x = '%1000000000d' % 1", match=TOO_LARGE),
    P("size", "x = '%*d' % (1000000000, 1)", match=TOO_LARGE),
    P("size", "x = b'%1000000000d' % 1", match=TOO_LARGE),
    P("size", "a = [1] * 1000000\nwhile True: a = [*a, *a]", match=TOO_LARGE),
    P("size", "x = format(1, '>1000000000')", match=TOO_LARGE),
    # --- values from host containers and host callbacks pass the gate
    P("host_values", "a, b = host_list", variables={"host_list": "LIST_WITH_OS"},
      match="Forbidden access to module"),
    P("host_values", "a, *b = host_list", variables={"host_list": "LIST_WITH_OS"},
      match="Forbidden access to module"),
    P("host_values", "def k(x):\n    return 1\nsorted(host_list, key=k)",
      variables={"host_list": "LIST_WITH_OS"}, match="Forbidden access to module"),
    # --- the print buffer
    P("print_cap", "while True: print('x' * 1000)", match="Print outputs exceeded"),
    P("print_cap", "try:\n    while True: print('x' * 100000)\nexcept BaseException:\n    pass",
      match="Print outputs exceeded"),
    # --- operation and loop budgets cannot be swallowed
    P("ops_budget", "while True: pass", match="Maximum number of"),
    P("ops_budget", "try:\n    while True: pass\nexcept BaseException:\n    pass\n'swallowed'",
      match="Maximum number of"),
    P("ops_budget", "class It:\n    def __iter__(self): return self\n    def __next__(self): return 1\n"
      "sorted(It())", match="max number of operations"),
    P("ops_budget", "def f():\n    try:\n        while True: pass\n    finally:\n        return 1\nf()",
      match="Maximum number of"),
    P("ops_budget", "class C:\n    def __enter__(self): return self\n"
      "    def __exit__(self, *a): return True\nwith C():\n    while True: pass",
      match="Maximum number of"),
    # --- unicode and spelling tricks
    P("spelling", "lookup.__ｇlobals__", match=FMT),
    P("spelling", "getattr(lookup, '\\x5f\\x5fglobals\\x5f\\x5f')", match=FMT),
    P("spelling", "ｅval('1')", match="is not defined"),
    P("spelling", "getattr(lookup, '__globals__'.upper().lower())", match=FMT),
]


def _ids():
    seen = {}
    out = []
    for p in PAYLOADS:
        seen[p.cls] = seen.get(p.cls, 0) + 1
        out.append(f"{p.cls}-{seen[p.cls]}")
    return out


def test_corpus_size():
    """The issue asks for at least 150 payloads in at least 30 classes."""
    assert len(PAYLOADS) >= 150
    assert len({p.cls for p in PAYLOADS}) >= 30


HEAVY_CLASSES = {"deep_data", "recursion"}


def _params():
    return [
        pytest.param(p, marks=slow) if p.heavy or p.cls in HEAVY_CLASSES else p for p in PAYLOADS
    ]


# Deep chains of host iterators: CPython 3.11 recurses through them in C with
# no depth check and would crash the host on its default stack.  Steps run on
# a large stack of their own (csrc/budget/bigstack.c), so these now simply run, as
# the same code would in a CPython with an unlimited stack; what matters is
# that the process survives and the executor keeps working.
DEEP_HOST_CHAINS = [
    "it = iter([1])\nfor i in range(200000): it = map(abs, it)\nx = next(it)",
    "import itertools\nit = iter([])\nfor i in range(200000): it = itertools.chain(it)\n"
    "x = next(it, None)",
    "t = ()\nfor i in range(200000): t = (t,)\nx = hash(t) == hash(t)",
    "t = ()\nfor i in range(200000): t = (t,)\nd = {t: 1}\nx = d[t]",
]


@pytest.mark.parametrize("code", [pytest.param(c, marks=slow) for c in DEEP_HOST_CHAINS])
def test_deep_host_recursion_runs_on_the_step_stack(code, canary):
    ex = new_executor()
    try:
        ex(code)
    except InterpreterError as e:  # a budget may stop it first: also fine
        assert "Segmentation" not in str(e)
    assert ex("1 + 1").output == 2


@pytest.mark.parametrize("p", _params(), ids=_ids())
def test_payload_is_refused(p, canary):
    import importlib

    import hostside

    if p.needs and not hasattr(importlib.import_module(p.needs[0]), p.needs[1]):
        pytest.skip(f"{p.needs[0]} has no {p.needs[1]} on this CPython: nothing to reach")
    variables = {k: getattr(hostside, v) for k, v in p.variables.items()}
    ex = new_executor(imports=p.imports, timeout=p.timeout, variables=variables)
    refused(ex, p.code, match=p.match, canary=canary, timeout_ok=p.timeout_ok)
