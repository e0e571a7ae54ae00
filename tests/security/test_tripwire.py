"""The audit-hook tripwire, its grants and the clean entry frame (docs/security.md, "Tripwire").

Issue 9, classes 3 (host code that evaluates strings the code supplies) and 10 (libraries acting
for the code), part C and the dataclasses rule of part I. Every payload must end in
InterpreterError with no side effect (`refused`); the legitimate programs must keep working.
"""

from __future__ import annotations

import os
import sys
import warnings

import pytest
from conftest import REFUSAL, refused

from smolagents_native import InterpreterError, LocalPythonExecutor

TRIPWIRE = r"Forbidden by the sandbox \(host code acting for the code\)"
# A string annotation evaluated by typing: the tripwire refuses the evaluation's compile; from
# 3.14 the compile is annotationlib's syntax check (allowed) and the evaluation is
# ForwardRef.evaluate, a gadget (csrc/guard/gadgets.def), refused when it starts.
STRING_EVAL = TRIPWIRE + (r"|Forbidden call of annotationlib\.ForwardRef\.evaluate"
                          if sys.version_info >= (3, 14) else "")


def executor(imports=(), **grants):
    # The tripwire is the in-process layer: test it in process, although authorizing a
    # third-party or system module makes isolation="process" the default (docs/isolation.md).
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ex = LocalPythonExecutor(
            additional_authorized_imports=list(imports), isolation="none", **grants
        )
    ex.send_tools({})
    return ex


# ------------------------------------------------------------------ class 3: strings evaluated


CLASS3 = [
    # typing.get_type_hints evaluates string annotations in the host
    "import typing\ndef g(x: \"open('CANARY', 'w')\"): pass\ntyping.get_type_hints(g)",
    "import typing\nclass C:\n    a: \"__import__('os').system('touch CANARY')\"\n"
    "typing.get_type_hints(C)",
    "import typing\ndef g() -> \"[c for c in ().__class__.__base__.__subclasses__()]\": pass\n"
    "typing.get_type_hints(g, include_extras=True)",
    # functools.singledispatch(...).register reads the annotation through get_type_hints
    "import functools\n@functools.singledispatch\ndef f(x): return 0\n"
    "def g(x: \"open('CANARY', 'w')\"): return 1\nf.register(g)",
    "import functools\nclass K:\n    @functools.singledispatchmethod\n    def m(self, x): return 0\n"
    "    @m.register\n    def _(self, x: \"open('CANARY', 'w')\"): return 1\n",
    # a ForwardRef evaluated directly
    "import typing\nr = typing.ForwardRef(\"open('CANARY', 'w')\")\ntyping.get_type_hints("
    "type('T', (), {'__annotations__': {'x': r}}))",
    # typing.NamedTuple / TypedDict with string types, then get_type_hints
    "import typing\nN = typing.NamedTuple('N', [('a', \"open('CANARY', 'w')\")])\n"
    "typing.get_type_hints(N)",
]


@pytest.mark.parametrize("code", CLASS3)
def test_class3_string_evaluation_is_refused(code, canary):
    ex = executor(["typing", "functools"])
    refused(ex, code, match=STRING_EVAL, canary=canary)


def test_inspect_eval_str_is_refused(canary):
    ex = executor(["inspect"])
    refused(
        ex,
        "import inspect\nclass C:\n    x: \"open('CANARY', 'w')\"\n"
        "inspect.get_annotations(C, eval_str=True)",
        match=TRIPWIRE,
        canary=canary,
    )


# ------------------------------------------------------------------ class 10: libraries


def test_dataclass_with_crafted_annotations_is_refused(canary):
    ex = executor(["dataclasses"])
    refused(
        ex,
        "from dataclasses import dataclass\n"
        "class P:\n    __annotations__ = {\"x=open('CANARY', 'w')\": int}\n"
        "dataclass(P)",
        match=TRIPWIRE + ".*not identifiers",
        canary=canary,
    )
    refused(
        ex,
        "import dataclasses\n"
        "P = type('P', (), {'__annotations__': {\"a=open('CANARY', 'w')\": int}})\n"
        "dataclasses.dataclass(P)",
        match=TRIPWIRE,
        canary=canary,
    )
    refused(
        ex,
        "import dataclasses\n"
        "@dataclasses.dataclass(frozen=True)\nclass C:\n"
        "    __annotations__ = {'ok': int, \"b\\n  open('CANARY', 'w')\\n  b\": int}\n",
        match=TRIPWIRE,
        canary=canary,
    )


def test_io_fileio_and_open_code_are_refused_outside_the_grant(tmp_path, canary):
    granted = tmp_path / "granted"
    granted.mkdir()
    ex = executor(["io"], readable_dirs=[str(granted)])
    for code in (
        "import io\nio.FileIO('/etc/hostname').read()",
        "import io\nio.open_code('/etc/hostname').read()",
        "import io\nio.FileIO('CANARY', 'w')",
        f"import io\nio.FileIO({str(granted / '..' / '..')!r} + '/x', 'w')",
        "import io\nio.FileIO(0).read()",
        "import io\nio.BufferedReader(io.FileIO('/etc/hostname')).read()",
    ):
        err = refused(ex, code, match=TRIPWIRE, canary=canary)
        assert "readable_dirs" in str(err) or "writable_dirs" in str(err)


@pytest.fixture
def pickle_payload(canary):
    # a pickle that calls os.system when loaded
    return b"cposix\nsystem\n(S'touch " + str(canary).encode() + b"'\ntR."


def test_numpy_load_of_a_pickle_the_code_wrote_is_refused(tmp_path, canary, pickle_payload):
    pytest.importorskip("numpy")
    ex = executor(["numpy"], readable_dirs=[str(tmp_path)], writable_dirs=[str(tmp_path)])
    path = tmp_path / "data.npy"
    code = (
        "import numpy as np\n"
        f"np.frombuffer({pickle_payload!r}, dtype=np.uint8).tofile({str(path)!r})\n"
        f"np.load({str(path)!r}, allow_pickle=True)"
    )
    refused(ex, code, match=TRIPWIRE + ".*unpickling", canary=canary)
    assert path.exists()  # the write was granted; the load was not


def test_pandas_read_pickle_of_bytes_the_code_wrote_is_refused(tmp_path, canary, pickle_payload):
    pytest.importorskip("pandas")
    ex = executor(["pandas", "numpy"], readable_dirs=[str(tmp_path)], writable_dirs=[str(tmp_path)])
    path = tmp_path / "frame.pkl"
    code = (
        "import numpy as np\nimport pandas as pd\n"
        f"np.frombuffer({pickle_payload!r}, dtype=np.uint8).tofile({str(path)!r})\n"
        f"pd.read_pickle({str(path)!r})"
    )
    refused(ex, code, match=TRIPWIRE, canary=canary)


def test_pandas_plotting_backend_cannot_import_by_name(canary):
    pytest.importorskip("pandas")
    ex = executor(["pandas"])
    for name in ("this", "antigravity", "turtle", "xmlrpc.server", "tkinter"):
        if name.split(".")[0] in sys.modules:
            continue
        refused(
            ex,
            f"import pandas as pd\npd.set_option('plotting.backend', {name!r})\n"
            "pd.DataFrame({'a': [1]}).plot()",
            # refused at the import by name, or before it, at pandas' scan of the entry
            # points when a distribution's metadata lies outside the installation (a source
            # tree's egg-info on sys.path, as in the unpacked sdist CI tests; or, where the
            # module is missing (Debian's python3.14 without python3-tk), at the scan's read of
            # an editable install's path-hook entry)
            match=TRIPWIRE + ".*(loading module|entry_points.txt.* outside the granted"
            "|opening '[^']*__path_hook__' for reading is outside the granted)",
            canary=canary,
        )
        assert name not in sys.modules


PANDAS_EVAL = [
    # host names through the frame pandas reads: with the clean entry frame only the code's
    # own variables are there
    "df.eval('@logging.os.environ')",
    "df.query('a > @sys.maxsize')",
    "df.eval('@__builtins__[\"__import__\"](\"os\")')",
    "b = df.eval('@__builtins__')\nb['__import__']('os')",
    # host objects traversed by pandas' evaluator
    "df.eval('@re.compile.__code__')",
    # a host function (not the installation's: its code and constants are the host's)
    "pd.eval('f.__code__.co_consts', local_dict={'f': host_function})",
    "pd.eval('f.__defaults__', local_dict={'f': host_function})",
    "df.eval('@statistics.mean.__globals__')",
    "pd.eval('x.gi_frame', local_dict={'x': (i for i in [1])})",
]


@pytest.mark.parametrize("expr", PANDAS_EVAL)
def test_pandas_eval_reaches_no_host_name(expr):
    pytest.importorskip("pandas")
    ex = executor(["pandas"])
    ex.send_variables({"host_function": _host_function})
    code = ("import pandas as pd\nimport re\nimport statistics\n"
            "df = pd.DataFrame({'a': [1, 2, 3]})\n" + expr)
    refused(ex, code, match=REFUSAL + r"|UndefinedVariableError|Only named functions|has no attribute")


def _host_function(token="S3CR3T-host-token-5f0c1e"):
    """A function of the host's own (its file is not in the Python installation)."""
    return "S3CR3T-host-token-5f0c1e"


def test_library_introspection_is_narrowed_by_what_it_exposes():
    """inspect.signature, functools and numpy's dispatch read `__code__` and `__defaults__`
    of the installation's functions (nothing its files do not show): allowed; a host
    function's stay refused (test above), and a code object never enters the code."""
    pytest.importorskip("numpy")
    ex = executor(["numpy", "inspect", "re"])
    assert ex("import numpy as np\nfloat(np.median(np.arange(10.0)))").output == 4.5
    assert ex("import inspect, re\nstr(inspect.signature(re.sub))").output == (
        "(pattern, repl, string, count=0, flags=0)")
    refused(ex, "import re\nre.sub.__code__", match="Forbidden access to dunder")


def _host_frame_file(depth):
    """A host function (not the installation's) reading the file of a frame it walks to."""
    f = sys._getframe(0)
    for _ in range(depth):
        f = f.f_back
    return f.f_code.co_filename


def test_frame_code_is_readable_only_for_the_installation_and_the_entry_frame():
    """pandas and warnings read `frame.f_code` to report a warning at its caller: allowed for
    frames of the installation's code and for the step's clean entry frame (its caller, as the
    code runs in no Python frame); a host frame's code stays refused, and no frame enters the
    code."""
    ex = executor(["inspect"])
    ex.send_variables({"frame_file": _host_frame_file})
    refused(ex, "frame_file(0)", match=TRIPWIRE + ".*'f_code'")
    entry = ex("frame_file(1)").output
    assert entry != __file__ and "executor" not in entry
    refused(ex, "import inspect\ninspect.currentframe()", match="internal object of type frame")


def test_a_library_warning_is_reported_not_refused():
    """logging finds its caller, and pandas the stack level of its warnings, by walking frames
    (sys._getframe / inspect.currentframe, f_code, f_back) up to the first one outside their
    own files: the step's entry frame."""
    ex = executor(["logging"])
    assert ex("import logging\nlogging.getLogger('t').warning('hello %s', 1)\n7").output == 7
    pytest.importorskip("pandas")
    ex = executor(["pandas"])
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = ex("import pandas as pd\nstr(pd.to_datetime(['13/01/2020'])[0].date())").output
    assert out == "2020-01-13"
    assert [w for w in caught if "dayfirst" in str(w.message)]


def test_importlib_cannot_write_files_for_the_code(tmp_path, canary):
    ex = executor(["importlib.*"])
    cache = tmp_path / "__pycache__"
    cache.mkdir()
    for target in (str(canary), str(cache / "mod.cpython-311.pyc")):
        refused(
            ex,
            "import importlib.machinery\n"
            f"importlib.machinery.SourceFileLoader('x', {str(tmp_path / 'x.py')!r})"
            f".set_data({target!r}, b'data')",
            match=TRIPWIRE + ".*writable_dirs",
            canary=canary,
        )
    assert list(cache.iterdir()) == []


PROCESS_AND_NETWORK = [
    ("numpy", "import numpy as np\nnp.lib.npyio.DataSource().open('http://127.0.0.1:9/x')"),
    ("pandas", "import pandas as pd\npd.read_csv('http://127.0.0.1:9/x.csv')"),
    ("pandas", "import pandas as pd\npd.read_csv('/etc/passwd')"),
    ("pandas", "import pandas as pd\npd.DataFrame({'a': [1]}).to_csv('CANARY')"),
    ("numpy", "import numpy as np\nnp.fromfile('/etc/hostname', dtype=np.uint8)"),
    ("numpy", "import numpy as np\nnp.arange(3).tofile('CANARY')"),
]


@pytest.mark.parametrize("imports,code", PROCESS_AND_NETWORK)
def test_libraries_get_no_file_or_network_without_a_grant(imports, code, canary):
    pytest.importorskip(imports)
    ex = executor([imports])
    refused(ex, code, match=TRIPWIRE + "|Forbidden", canary=canary)


def test_refusal_names_the_missing_grant(tmp_path):
    pytest.importorskip("pandas")
    outside = tmp_path / "outside.csv"
    outside.write_text("a\n1\n")
    ex = executor(["pandas"])
    with pytest.raises(InterpreterError, match="missing grant: readable_dirs"):
        ex(f"import pandas as pd\npd.read_csv({str(outside)!r})")
    ex = executor(["socket"], allow_network=False)
    with pytest.raises(InterpreterError, match="missing grant: allow_network"):
        ex("import socket\nsocket.socket()")


def test_a_tripwire_hit_cannot_be_caught(canary):
    ex = executor(["typing"])
    refused(
        ex,
        "import typing\ndef g(x: \"open('CANARY', 'w')\"): pass\n"
        "try:\n    typing.get_type_hints(g)\nexcept BaseException:\n    pass\n'swallowed'",
        match=STRING_EVAL,
        canary=canary,
    )


def test_tripwire_is_not_armed_outside_steps(tmp_path):
    """After a step (and in other threads) host code is not restricted."""
    ex = executor(["typing"])
    ex("x = 1")
    p = tmp_path / "host.txt"
    p.write_text("host")
    assert eval(compile("1 + 1", "<host>", "eval")) == 2
    assert p.read_text() == "host"


# ------------------------------------------------------------------ grants


def test_reading_a_granted_directory(tmp_path):
    pytest.importorskip("pandas")
    data = tmp_path / "data"
    data.mkdir()
    (data / "t.csv").write_text("a,b\n1,2\n3,4\n")
    ex = executor(["pandas"], readable_dirs=[str(data)])
    out = ex(f"import pandas as pd\nint(pd.read_csv({str(data / 't.csv')!r})['b'].sum())")
    assert out.output == 6
    # writing there is not granted
    with pytest.raises(InterpreterError, match="missing grant: writable_dirs"):
        ex(f"pd.DataFrame({{'a': [1]}}).to_csv({str(data / 'out.csv')!r})")
    assert not (data / "out.csv").exists()


def test_writing_a_granted_directory(tmp_path):
    pytest.importorskip("numpy")
    ex = executor(["numpy"], writable_dirs=[str(tmp_path)])
    path = tmp_path / "a.bin"
    ex(f"import numpy as np\nnp.arange(4, dtype=np.uint8).tofile({str(path)!r})\n"
       f"list(np.fromfile({str(path)!r}, dtype=np.uint8))")
    assert path.read_bytes() == bytes([0, 1, 2, 3])


def test_authorizing_a_file_module_implies_the_grant_and_an_explicit_grant_narrows(tmp_path):
    p = tmp_path / "f.txt"
    p.write_text("content")
    assert executor(["os"])(f"import os\nos.stat({str(p)!r}).st_size").output == 7
    ex = executor(["pathlib"])
    assert ex(f"import pathlib\npathlib.Path({str(p)!r}).read_text()").output == "content"
    ex = executor(["pathlib"], readable_dirs=[str(tmp_path / "elsewhere")])
    with pytest.raises(InterpreterError, match="missing grant: readable_dirs"):
        ex(f"import pathlib\npathlib.Path({str(p)!r}).read_text()")


def test_grants_dict_of_the_core():
    from smolagents_native.grants import effective_grants

    assert effective_grants(["math"]) == {
        "readable_dirs": (), "writable_dirs": (), "allow_network": False,
        "allow_processes": False,
    }
    g = effective_grants(["os", "requests", "subprocess"])
    assert g["readable_dirs"] is None and g["writable_dirs"] is None
    assert g["allow_network"] and g["allow_processes"]
    assert effective_grants(["os.path"])["readable_dirs"] == ()
    assert effective_grants(["*"], allow_network=False)["allow_network"] is False


# ------------------------------------------------------------------ legitimate programs


LEGIT = [
    (["dataclasses"],
     "from dataclasses import dataclass, field, asdict\n"
     "@dataclass(frozen=True, order=True)\nclass P:\n    x: int\n    y: int = 0\n"
     "    tags: list = field(default_factory=list, compare=False)\n"
     "(P(1, 2) < P(1, 3), asdict(P(1)), repr(P(2, 3)))",
     (True, {"x": 1, "y": 0, "tags": []}, "P(x=2, y=3, tags=[])")),
    ([], "from collections import namedtuple\nT = namedtuple('T', 'a b', defaults=[0])\n"
         "t = T(1)\n(t, t._replace(b=5), t._asdict())",
     None),
    (["enum"], "import enum\nclass Color(enum.Enum):\n    RED = 1\n    GREEN = 2\n"
               "F = enum.Flag('F', 'A B C')\n(Color(2).name, (F.A | F.B).value, len(F))",
     ("GREEN", 3, 3)),
    (["typing"], "import typing\ndef f(x: typing.List[int], y: typing.Optional[str] = None)"
                 " -> typing.Dict[str, int]:\n    return {}\n"
                 "sorted(typing.get_type_hints(f))",
     ["return", "x", "y"]),
    (["datetime"], "import datetime\ndatetime.datetime.strptime('2024-02-03', '%Y-%m-%d').day", 3),
    (["pandas"], "import pandas as pd\ndf = pd.DataFrame({'a': [1, 2, 3, 4], 'b': [4, 3, 2, 1]})\n"
                 "threshold = 2\nlimit = 3\n"
                 "(len(df.query('a > @threshold')), df.eval('a + b * @limit').tolist())",
     (2, [13, 11, 9, 7])),
    (["pandas"], "import pandas as pd\nk = 1\ndef f(df):\n    return len(df.query('a > @k'))\n"
                 "f(pd.DataFrame({'a': [0, 1, 2]}))",
     1),
    (["numpy"], "import numpy as np\na = np.arange(12).reshape(3, 4)\n"
                "(int(a.sum()), a.T.shape, float(np.sqrt(np.dot([3.0, 4.0], [3.0, 4.0]))))",
     (66, (4, 3), 5.0)),
    (["functools", "typing"],
     "import functools\n@functools.singledispatch\ndef f(x):\n    return 'any'\n"
     "@f.register\ndef _(x: int):\n    return 'int'\n(f(1), f('s'))",
     ("int", "any")),
]


@pytest.mark.parametrize("imports,code,expected", LEGIT)
def test_legitimate_programs_keep_working(imports, code, expected):
    for mod in imports:
        pytest.importorskip(mod)
    out = executor(imports)(code)
    if expected is not None:
        assert out.output == expected
    else:
        assert out.output[0] == (1, 0)


def test_the_entry_frame_holds_only_the_codes_variables():
    pytest.importorskip("pandas")
    ex = executor(["pandas"])
    ex.send_variables({"given": 5})
    out = ex("import pandas as pd\ndf = pd.DataFrame({'a': [1, 9]})\n"
             "mine = 3\nlen(df.query('a > @mine and a > @given'))")
    assert out.output == 1
    # the host function calling the executor has locals the code never sees
    host_local = "S3CR3T"  # noqa: F841
    with pytest.raises(InterpreterError, match="host_local"):
        ex("df.eval('@host_local')")


@pytest.mark.skipif(not hasattr(os, "fork"), reason="needs fork")
def test_tool_free_process_creation_is_refused(canary):
    pytest.importorskip("pandas")
    ex = executor(["pandas"])
    refused(
        ex,
        "import pandas as pd\npd.io.clipboard.clipboard_set('x')",
        match=TRIPWIRE + "|Forbidden|not allowed",
        canary=canary,
    )


def test_lazy_import_of_a_project_module_writes_its_bytecode_cache(tmp_path, monkeypatch):
    """A library importing its own submodule during a step (outside the installation, with a
    bytecode cache to write) is module loading, not file access for the code."""
    pkg = tmp_path / "st_lazypkg"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("def later():\n    from . import sub\n    return sub.VALUE\n")
    (pkg / "sub.py").write_text("VALUE = 42\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setattr(sys, "dont_write_bytecode", False)
    ex = executor(["st_lazypkg"])
    try:
        assert ex("import st_lazypkg\nst_lazypkg.later()").output == 42
        assert any(p.name.startswith("sub.") for p in (pkg / "__pycache__").iterdir())
    finally:
        for name in ("st_lazypkg", "st_lazypkg.sub"):
            sys.modules.pop(name, None)


def test_the_codes_fspath_runs_armed_inside_the_check(tmp_path, canary):
    """The tripwire resolves path arguments itself; a path object of the code's own class has
    its `__fspath__` run again there, still under the tripwire."""
    ex = executor(["io", "typing"], readable_dirs=[str(tmp_path)])
    refused(
        ex,
        "import io\nimport typing\nclass P:\n    def __fspath__(self):\n"
        "        def g(x: \"open('CANARY', 'w')\"): pass\n"
        "        typing.get_type_hints(g)\n        return '/etc/hostname'\n"
        "io.FileIO(P())",
        match=STRING_EVAL,
        canary=canary,
    )
