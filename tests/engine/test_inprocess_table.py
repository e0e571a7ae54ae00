"""The in-process table (csrc/guard/inprocess.def): one table, deny by default (issue 37, point 1).

It is the only source of the mode choice (`_mode`), the C policy's copy
(`_core.IN_PROCESS`) and the generated one (`_inprocess.py`) agree, the docs table is current,
and every entry names something that exists."""

from __future__ import annotations

import importlib
import random
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import smolagents_native._core as core
from smolagents_native import LocalPythonExecutor, _inprocess, _mode
from smolagents_native.executor import BASE_BUILTIN_MODULES
from smolagents_native.isolation import ProcessExecutor, needs_process

ROOT = Path(__file__).resolve().parents[2]

# Entries that exist only on some supported versions: (module, name) -> first version.
SINCE = {
    ("time", "pthread_getcpuclockid"): (3, 0),
    ("typing", "clear_overloads"): (3, 11),
    ("typing", "reveal_type"): (3, 11),
    ("typing", "dataclass_transform"): (3, 11),
    ("typing", "override"): (3, 12),
    ("contextlib", "chdir.__enter__"): (3, 11),
}
# Entries that exist only up to some version: (module, name) -> first version without it.
UNTIL = {("base64", "test"): (3, 12), ("typing", "no_type_check_decorator"): (3, 15)}
# Module names of one version's layout (re's parser and compiler were renamed in 3.11).
MODULE_SINCE = {"re._parser": (3, 11), "re._compiler": (3, 11)}
MODULE_UNTIL = {"sre_parse": (3, 11), "sre_compile": (3, 11)}


def test_generated_files_are_up_to_date():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_inprocess.py"), "--check"],
        capture_output=True, text=True,
    )
    assert proc.returncode == 0, proc.stderr


def test_the_c_table_equals_the_generated_python_table():
    assert core.IN_PROCESS == _inprocess.TABLE
    modules = [row[0] for row in core.IN_PROCESS]
    assert len(set(modules)) == len(modules)
    assert _inprocess.MODULES == frozenset(modules)


def test_every_row_has_a_reason_and_every_withholding_a_remedy():
    for module, why, withheld, calls, own in core.IN_PROCESS:
        assert len(why) > 20, module
        for name, what, fix in withheld:
            assert name.isidentifier() and what and fix, (module, name)
        for defining, qualname, arg, what, fix in calls:
            assert defining and qualname and what and fix, (module, qualname)
            assert arg is None or arg.isidentifier()
        assert all(own), module


def test_the_base_modules_are_in_the_table():
    assert set(BASE_BUILTIN_MODULES) <= _inprocess.MODULES


def test_every_module_of_the_table_is_a_standard_library_module():
    for module in _inprocess.MODULES:
        assert module.split(".")[0] in sys.stdlib_module_names, module
        importlib.import_module(module)


def test_every_withheld_attribute_and_call_exists():
    for module, _why, withheld, calls, _own in core.IN_PROCESS:
        mod = importlib.import_module(module)
        for name, _what, _fix in withheld:
            if sys.version_info < SINCE.get((module, name), (0,)):
                continue
            if name == "pthread_getcpuclockid" and not hasattr(mod, name):
                continue  # not on every platform
            assert hasattr(mod, name), f"{module}.{name}"
        for defining, qualname, _arg, _what, _fix in calls:
            if sys.version_info < SINCE.get((module, qualname), (0,)):
                continue
            if sys.version_info >= UNTIL.get((module, qualname), (99,)):
                continue
            if sys.version_info < MODULE_SINCE.get(defining, (0,)):
                continue
            if sys.version_info >= MODULE_UNTIL.get(defining, (99,)):
                continue
            obj = importlib.import_module(defining)
            for part in qualname.split("."):
                obj = vars(obj)[part] if isinstance(obj, type) else getattr(obj, part)
            assert hasattr(obj, "__code__"), f"{defining}.{qualname} is not a Python function"


def test_the_docs_table_lists_every_module_and_withholding():
    doc = (ROOT / "docs" / "security.md").read_text()
    table = doc[doc.index("<!-- inprocess:begin -->"):doc.index("<!-- inprocess:end -->")]
    for module, _why, withheld, calls, _own in core.IN_PROCESS:
        assert f"| `{module}` |" in table, module
        for name, _w, _f in withheld:
            assert f"`{module}.{name}`" in table
        for defining, qualname, _a, _w, _f in calls:
            assert f"`{defining}.{qualname}`" in table


def test_the_table_is_the_only_source_of_the_mode_choice():
    # every standard-library module outside the table selects process mode, as a third-party
    # module does; every module of the table runs in process
    for name in sorted(sys.stdlib_module_names):
        expected = [] if name in _inprocess.MODULES else [name]
        assert needs_process([name]) == expected, name
    for name in _inprocess.MODULES:
        assert needs_process([name]) == []
    # the old list of modules that forced process mode is gone
    source = (ROOT / "smolagents_native" / "_mode.py").read_text()
    assert "_STDLIB" not in source and "stdlib_module_names" not in source
    # the modules
    for name in ("posixpath", "ntpath", "os.path", "zipfile", "tarfile", "fileinput",
                 "faulthandler", "logging", "warnings", "locale", "gc", "atexit", "sys",
                 "numpy", "*", "json.tool", "xml.etree.ElementTree", "email.mime.text"):
        assert needs_process([name]) == [name], name


@pytest.mark.parametrize("entry, process", [
    ("collections.abc", False),  # a listed submodule; its parent is only a namespace
    ("math.*", False),           # a listed module without submodules
    ("collections.*", True),     # a package: its submodules are not all reviewed
    ("json.*", True),            # json.tool reads files and argv
    ("re.*", sys.version_info >= (3, 11)),  # a package from 3.11
    ("random.*", False),
    ("*", True),
    ("collections.*.x", True),
    ("os.path", True),
    ("decimal", False),
])
def test_dotted_and_wildcard_entries(entry, process):
    assert needs_process([entry]) == ([entry] if process else [])


def test_the_executor_follows_the_table():
    with LocalPythonExecutor(["json", "decimal", "collections.abc", "typing"]) as ex:
        assert type(ex) is LocalPythonExecutor and ex.isolation == "none"
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no warning for the table's modules
        LocalPythonExecutor(list(_inprocess.MODULES), isolation="none")
    with pytest.warns(RuntimeWarning, match="in-process table"):
        LocalPythonExecutor(["zipfile"], isolation="none")
    assert _mode.resolve_isolation(None, ["posixpath"]) == "process"
    assert _mode.resolve_isolation(None, ["logging", "math"]) == "process"
    assert issubclass(ProcessExecutor, LocalPythonExecutor)


def test_the_withheld_names_stand_down_only_in_a_worker():
    # this process is the host's: the table applies (a worker says otherwise, once, for good:
    # the next test checks it there)
    assert core.process_is_shared() is True


def test_the_withheld_names_stand_down_in_a_worker():
    # a process-mode worker's process is the code's own: what the table withholds in the
    # host's process is allowed there, and the random functions are still a generator of the
    # executor's own (the same results in both modes for a seeded program)
    program = ("import time, copy, random\ntime.tzset()\n"
               "random.seed(5)\n(len(copy.dispatch_table) > 0, random.random())")
    with LocalPythonExecutor(["time", "copy", "random"], isolation="process") as ex:
        assert ex(program).output == (True, random.Random(5).random())
    with LocalPythonExecutor(["time", "copy", "random"], isolation="none") as ex:
        with pytest.raises(Exception, match="time.tzset"):
            ex(program)
