#!/usr/bin/env python3
"""Run CPython's own ``Lib/test`` modules about the language under CPython and under
smolagents_native's executor, and compare the outcome of every test.

A measurement harness, not a test of the project: it reports, per module, how many of
CPython's tests have the same outcome when the module runs natively and when it runs as one
step of ``LocalPythonExecutor(additional_authorized_imports=["*"], isolation="none")``.

How a module runs (both sides alike, each side in a subprocess of its own):

* The source is read from the running interpreter's ``test`` package (``Lib/test``), never
  copied into this repository. A package (``test_string/``, ``test_lazy_import/``) runs its
  ``__init__.py`` and every ``test_*.py`` directly in it, each as a unit of its own.
* The module namespace gets the dunders an import would give it (``__name__`` is
  ``test.<module>`` as under regrtest, so ``if __name__ == "__main__"`` blocks do not run,
  ``__file__``, ``__package__``, ``__spec__``...), and that module object is in
  ``sys.modules`` while its source runs, as during an import (in the sandbox its ``__dict__``
  is the executor's ``state``: the step's globals are the module's namespace).
* native: ``exec(compile(source, path, "exec"), module.__dict__)``.
  sandbox: ``executor.state = module.__dict__``, then ``executor(source)``. An error of
  that step is "refused at definition" (every test of the module then runs on one side only).
* The ``unittest.TestCase`` subclasses in the namespace (unittest's own excluded) are loaded
  with ``unittest.TestLoader.loadTestsFromTestCase`` and run by the host with a result object
  that records each test id's outcome: pass, fail, error, skip, xfail (expected failure),
  xpass (unexpected success), plus timeout and crashed (below). In the sandbox the test
  methods are interpreted functions: the host calling them runs them under the executor's
  policy and budgets (each call a fresh budget window).
* Doctests (modules whose source mentions ``doctest``): the strings of ``__test__`` and the
  docstrings of the module and of its top-level functions and classes defined in it. Each
  example is a test of its own (id ``<docstring name>:<line>``); every docstring runs in a copy
  of the module namespace, as doctest does. An example's expression statements at the top
  level (outside def / class) are displayed as in doctest's interactive mode: both sides
  rewrite them to ``_dt_show(expr)`` (a function defined in the copy that prints ``repr``), so
  both sides run the same source text. Outputs and exceptions are compared with doctest's own
  ``OutputChecker`` and the example's option flags. In the sandbox each example is one step; an
  error of a step is judged by the exception that caused it (``__cause__``), else by the
  executor's error itself.
* ``--partial`` (on by default): when the sandbox refuses a module at definition, the module
  still counts as refused (its tests are "only native"), and it is defined again a top-level
  statement at a time (each statement a step at its own line numbers, the refused ones left
  out); the tests so defined run as above and are reported apart ("statement by statement":
  same / different / not defined), so one ``async def`` in a class does not hide the rest.
  A refused ``from m import a, b, ...`` is then run a name at a time, so that the names the
  sandbox allows are bound (one refused private name does not undefine the others).
* ``test.support.use_resources`` is ``[]`` unless ``--use-resources`` says otherwise, as under
  regrtest without ``-u``: tests that require a resource ('cpu', 'network'...) are skipped on
  both sides.
* A test's detail is the error of its last failing part: a refusal inside ``with
  self.subTest()`` reaches unittest's subtest context manager as GeneratorExit (the executor
  closes the host's generator), then ends the test with the refusal, which is the one kept.
* Time bounds: ``signal.alarm`` per test (``--timeout-per-test``), and the parent kills a child
  whose current test runs past that bound plus a grace; the test is then "timeout". A child
  that dies (a signal, a non-zero exit) during a test makes that test "crashed". Either way
  the child is started again, skipping every test already recorded, until the module is done,
  ``--timeout-per-module`` seconds have gone (the tests not reached are then missing on that
  side), or 20 restarts.

Outcomes are compared per test id: "same", "different" (both sides ran it, outcomes differ),
"only native" / "only sandbox" (one side never recorded it: refused at definition, a setUpClass
error, the module timed out...).

The metric of issue 40 (``metric()``; printed after the tables, in ``--json`` as ``"metric"``,
and by ``--summarize``, which recomputes it with the current rules): among the tests whose
native outcome is "pass", those whose sandbox-side outcome is a refusal that a reviewed rule
of ``scripts/cpython_tests_reviewed.json`` matches are left out (a rule: a regular expression
on the sandbox-side error text, optionally on the unit and the test id, and the reason why
refusing is right for a sandbox; a test the sandbox never defined is judged by the refusal of
the statement that defines it). N is the rest, P those of N that pass in the sandbox too; per
unit and in total, with each rule's count, the crashes and timeouts, and the most common
causes (normalized messages) of the N - P that do not pass. A crash, a hang, a wrong result
or a wrong message is never matched by a rule; the file's ``not_reviewed`` entries (a refusal
that is a library's own doing or a cascade from an earlier test) are matched first and keep
such tests in N.

Usage::

    python scripts/run_cpython_tests.py                      # every module of MODULES
    python scripts/run_cpython_tests.py --modules test_bool,test_patma --json out.json
    python scripts/run_cpython_tests.py --timeout-per-module 120 --timeout-per-test 20
    python scripts/run_cpython_tests.py --summarize a.json b.json   # tables over several runs

smolagents_native must be importable by the running interpreter: this repository with the
extension built in place for it (``python setup.py build_ext --inplace``), or installed. No
network is used; nothing is written except the ``--json`` file and temporary files.

Exit status: 0 when the run completed (whatever the differences), 2 on a usage error or when
the interpreter has no ``Lib/test``.
"""

from __future__ import annotations

import argparse
import ast
import collections
import io
import json
import os
import platform
import re
import signal
import subprocess
import sys
import tempfile
import time
import traceback

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# The modules, in one place: CPython's tests about the language that a sandbox can reasonably
# run. A module missing from the running interpreter's Lib/test is skipped (noted in the
# output); the version notes are informative only.
MODULES = [
    "test_grammar",
    "test_augassign",
    "test_bool",
    "test_binop",
    "test_class",
    "test_compare",
    "test_contains",
    "test_decorators",
    "test_dict",
    "test_dictcomps",
    "test_exceptions",
    "test_exception_group",  # 3.11+
    "test_except_star",  # 3.11+
    "test_format",
    "test_fstring",
    "test_funcattrs",
    "test_generators",
    "test_genexps",
    "test_global",
    "test_int",
    "test_keywordonlyarg",
    "test_list",
    "test_listcomps",
    "test_named_expressions",
    "test_opcodes",
    "test_patma",
    "test_pow",
    "test_property",
    "test_raise",
    "test_range",
    "test_scope",
    "test_set",
    "test_setcomps",
    "test_slice",
    "test_sort",
    "test_string",  # a package from 3.14 (test_string/test_string.py, test_templatelib.py)
    "test_string_literals",
    "test_super",
    "test_tuple",
    "test_type_aliases",  # 3.12+
    "test_type_params",  # 3.12+
    "test_unary",
    "test_unpack",
    "test_unpack_ex",
    "test_with",
    "test_richcmp",
    "test_iter",
    "test_enumerate",
    "test_lambda",  # not in CPython 3.10 to 3.15 so far: skipped when missing
    "test_tstring",  # 3.14+ (PEP 750)
    "test_lazy_import",  # 3.15+ (PEP 810), a package
    # issue 40: the language's library modules (heavier; --timeout-per-module bounds each side)
    "test_descr",
    "test_descrtut",  # doctests
    "test_types",
    "test_contextlib",
    "test_contextlib_async",
    "test_coroutines",
    "test_float",
    "test_long",
    "test_complex",
    "test_dataclasses",  # a package (test_dataclasses/__init__.py)
    "test_enum",
    "test_itertools",
    "test_functools",
    "test_collections",
    "test_dictviews",
    "test_operator",
    "test_copy",
    "test_heapq",
    "test_bisect",
    "test_math",
    "test_statistics",
    "test_json",  # a package
    "test_re",
    "datetimetester",  # test_datetime only gathers it (load_tests): here against _datetime
]

OUTCOMES = ("pass", "fail", "error", "skip", "xfail", "xpass", "timeout", "crashed")
MAX_RESTARTS = 20
WATCHDOG_GRACE = 15.0  # seconds past --timeout-per-test before the parent kills the child


# --------------------------------------------------------------------------------------------
# Where the tests are


def lib_test_dir() -> str | None:
    try:
        import test  # the running interpreter's Lib/test
    except ImportError:
        return None
    d = os.path.dirname(os.path.abspath(test.__file__))
    return d if os.path.exists(os.path.join(d, "support")) else None


def module_units(test_dir: str, module: str) -> list[tuple[str, str, bool]]:
    """The units of a module: (dotted name, source path, is_package) for a plain module, or
    the package's __init__.py and each test_*.py directly in it. [] when missing."""
    plain = os.path.join(test_dir, module + ".py")
    if os.path.isfile(plain):
        return [(f"test.{module}", plain, False)]
    pkg = os.path.join(test_dir, module)
    init = os.path.join(pkg, "__init__.py")
    if not os.path.isfile(init):
        return []
    units = [(f"test.{module}", init, True)]
    for fn in sorted(os.listdir(pkg)):
        if fn.startswith("test_") and fn.endswith(".py"):
            units.append((f"test.{module}.{fn[:-3]}", os.path.join(pkg, fn), False))
    return units


# --------------------------------------------------------------------------------------------
# The child: runs one unit on one side, writes one JSON object a line to --out


class TestTimeout(Exception):
    pass


def _on_alarm(signum, frame):
    raise TestTimeout("the test ran past --timeout-per-test")


def first_line(text: str, limit: int = 300) -> str:
    text = str(text).strip()
    line = text.splitlines()[0] if text else ""
    return line[:limit]


_FAILED_AT = re.compile(r"^Code execution failed at line '(.*?)' due to: (.*)$", re.S)


def describe_exc(exc: BaseException) -> str:
    """`Type: first line of the message`. The executor's "Code execution failed at line
    '<source>' due to: <error>" (whose source may span lines) becomes `<error> [at: <first
    line of the source>]`."""
    text = str(exc).strip()
    name = type(exc).__name__
    m = _FAILED_AT.match(text)
    if m:
        return f"{first_line(m.group(2))} [at: {first_line(m.group(1), 80)}]"
    msg = first_line(text)
    return f"{name}: {msg}" if msg else name


class Writer:
    def __init__(self, path: str):
        self.f = open(path, "a", encoding="utf-8")

    def __call__(self, **event):
        self.f.write(json.dumps(event, default=repr) + "\n")
        self.f.flush()


def module_dunders(name: str, path: str, is_package: bool):
    """A module object made as an import makes it (its spec, loader, __file__...)."""
    import importlib.util

    spec = importlib.util.spec_from_file_location(
        name, path, submodule_search_locations=[os.path.dirname(path)] if is_package else None
    )
    module = importlib.util.module_from_spec(spec)
    return module


def recording_result(*a, **k):
    """A unittest result that writes each test's outcome as soon as the test ends."""
    import unittest

    if True:

        class _Result(unittest.TestResult):
            PRIORITY = ("error", "fail", "xpass", "pass", "xfail", "skip")

            def __init__(self, write, timeout_per_test):
                super().__init__()
                self.write = write
                self.timeout_per_test = timeout_per_test
                self.marks: dict[str, list[tuple[str, str]]] = {}

            @staticmethod
            def _id(test) -> str:
                test = getattr(test, "test_case", test)  # a subtest counts for its test
                return test.id()

            def _mark(self, test, outcome, detail=""):
                self.marks.setdefault(self._id(test), []).append((outcome, detail))

            def _detail(self, err) -> str:
                exc_type, exc, _tb = err
                if exc is None:
                    return exc_type.__name__
                return describe_exc(exc)

            def startTest(self, test):
                super().startTest(test)
                self.write(event="start", id=self._id(test))
                if self.timeout_per_test:
                    signal.alarm(int(self.timeout_per_test))

            def stopTest(self, test):
                signal.alarm(0)
                super().stopTest(test)
                tid = self._id(test)
                marks = self.marks.pop(tid, [])
                self._emit(tid, marks)

            def _emit(self, tid, marks):
                if not marks:
                    marks = [("pass", "")]
                for outcome in self.PRIORITY:
                    details = [d for o, d in marks if o == outcome]
                    if not details:
                        continue
                    # the last detail: the test's own error comes after its subtests'; a
                    # refusal inside `with self.subTest()` reaches the subtest as GeneratorExit
                    # (the executor closes the host's context manager), then ends the test with
                    # the refusal itself
                    d = ([x for x in details if x != "GeneratorExit"] or details)[-1]
                    o = outcome
                    if o == "error" and d.startswith("TestTimeout"):
                        o = "timeout"
                    self.write(event="result", id=tid, outcome=o, detail=d)
                    return

            def addSuccess(self, test):
                self._mark(test, "pass")

            def addError(self, test, err):
                if not hasattr(test, "id") or type(test).__name__ == "_ErrorHolder":
                    # setUpClass / setUpModule / tearDown... errors: a record of their own
                    self.write(event="result", id=str(test), outcome="error",
                               detail=self._detail(err))
                    return
                self._mark(test, "error", self._detail(err))

            def addFailure(self, test, err):
                self._mark(test, "fail", self._detail(err))

            def addSkip(self, test, reason):
                self._mark(test, "skip", first_line(reason))

            def addExpectedFailure(self, test, err):
                self._mark(test, "xfail", self._detail(err))

            def addUnexpectedSuccess(self, test):
                self._mark(test, "xpass")

            def addSubTest(self, test, subtest, err):
                if err is not None:
                    is_fail = issubclass(err[0], test.failureException)
                    self._mark(test, "fail" if is_fail else "error", self._detail(err))

        return _Result(*a, **k)


def collect_cases(ns: dict) -> list:
    import unittest

    seen, cases = set(), []
    for value in list(ns.values()):
        if (
            isinstance(value, type)
            and issubclass(value, unittest.TestCase)
            and not (value.__module__ or "").startswith("unittest")
            and id(value) not in seen
        ):
            seen.add(id(value))
            cases.append(value)
    cases.sort(key=lambda c: (c.__module__ or "", c.__qualname__))
    return cases


def collect_doctests(ns: dict, name: str, source: str) -> list:
    """(docstring name, docstring) pairs, as doctest's finder would find them."""
    if "doctest" not in source:
        return []
    found = []
    tests = ns.get("__test__")
    if isinstance(tests, dict):
        for key, value in tests.items():
            doc = value if isinstance(value, str) else getattr(value, "__doc__", None)
            if isinstance(doc, str):
                found.append((f"{name}.__test__.{key}", doc))
    if isinstance(ns.get("__doc__"), str):
        found.append((name, ns["__doc__"]))
    for key, value in list(ns.items()):
        if getattr(value, "__module__", None) != name or key.startswith("__"):
            continue
        if not (callable(value) or isinstance(value, type)):
            continue
        doc = getattr(value, "__doc__", None)
        if isinstance(doc, str) and ">>>" in doc:
            found.append((f"{name}.{key}", doc))
        if isinstance(value, type):
            for mname, meth in list(vars(value).items()):
                doc = getattr(meth, "__doc__", None)
                if callable(meth) and isinstance(doc, str) and ">>>" in doc:
                    found.append((f"{name}.{key}.{mname}", doc))
    return [(n, d) for n, d in found if ">>>" in d]


SHOW_DEF = "def _dt_show(value):\n    if value is not None:\n        print(repr(value))\n"


class _ShowExprs(ast.NodeTransformer):
    """Expression statements outside def / class / lambda: `_dt_show(expr)` (doctest's
    interactive-mode display)."""

    def __init__(self):
        self.changed = False

    def visit_FunctionDef(self, node):
        return node

    visit_AsyncFunctionDef = visit_ClassDef = visit_Lambda = visit_FunctionDef

    def visit_Expr(self, node):
        self.changed = True
        call = ast.Call(func=ast.Name(id="_dt_show", ctx=ast.Load()), args=[node.value],
                        keywords=[])
        return ast.copy_location(ast.Expr(value=ast.copy_location(call, node)), node)


def display_source(src: str) -> str:
    """The example's source with its interactive-mode displays made explicit (the same text
    runs on both sides). Source that does not parse is returned as it is."""
    try:
        compile(src, "<doctest>", "exec", dont_inherit=True)
        tree = ast.parse(src)
    except (SyntaxError, ValueError):
        return src  # the SyntaxError the example may expect, from the text it has
    if len(tree.body) == 1 and isinstance(tree.body[0], ast.Expr):
        # the common case, kept textual: no round trip through ast.unparse
        return "_dt_show((\n" + src.rstrip("\n") + "\n))\n"
    shower = _ShowExprs()
    tree = shower.visit(tree)
    if not shower.changed:
        return src
    ast.fix_missing_locations(tree)
    return ast.unparse(tree) + "\n"


def run_doctests(side, doc_tests, base_ns, run_example, make_ns, write, skip, timeout):
    import doctest

    parser = doctest.DocTestParser()
    checker = doctest.OutputChecker()
    strip = getattr(doctest, "_strip_exception_details", None)
    for dname, doc in doc_tests:
        try:
            dt = parser.get_doctest(doc, {}, dname, None, 0)
        except ValueError as e:
            write(event="result", id=dname, outcome="error", detail=describe_exc(e))
            continue
        ns_handle = None
        for example in dt.examples:
            tid = f"{dname}:{example.lineno + 1}"
            if tid in skip:
                continue
            if ns_handle is None:
                ns_handle = make_ns(base_ns)
            flags = 0
            for flag, on in example.options.items():
                flags = flags | flag if on else flags & ~flag
            write(event="start", id=tid)
            if timeout:
                signal.alarm(int(timeout))
            try:
                got, exc = run_example(ns_handle, display_source(example.source))
            except TestTimeout as e:
                got, exc = "", e
            finally:
                signal.alarm(0)
            if got and not got.endswith("\n"):
                got += "\n"  # as doctest's _SpoofOut: the want cannot say a newline is missing
            if isinstance(exc, TestTimeout):
                write(event="result", id=tid, outcome="timeout", detail=describe_exc(exc))
                continue
            if exc is None:
                ok = example.exc_msg is None and checker.check_output(example.want, got, flags)
                detail = "" if ok else (
                    f"expected {first_line(example.want, 120)!r}, got {first_line(got, 120)!r}"
                    if example.exc_msg is None
                    else f"expected {first_line(example.exc_msg, 120)!r}, nothing raised"
                )
            else:
                exc_msg = traceback.format_exception_only(type(exc), exc)[-1]
                if example.exc_msg is None:
                    ok = False
                else:
                    ok = checker.check_output(example.exc_msg, exc_msg, flags)
                    if not ok and flags & doctest.IGNORE_EXCEPTION_DETAIL and strip:
                        ok = checker.check_output(strip(example.exc_msg), strip(exc_msg), flags)
                detail = "" if ok else (
                    describe_exc(exc)
                    if example.exc_msg is None
                    else f"expected {first_line(example.exc_msg, 120)!r}, got "
                    f"{first_line(exc_msg, 120)!r}"
                )
            write(event="result", id=tid, outcome="pass" if ok else "fail", detail=detail)


def bound_names(node: ast.stmt) -> list[str]:
    """The names a top-level statement binds (imports, definitions, assignment targets)."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return [a.asname or a.name.split(".")[0] for a in node.names if a.name != "*"]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, (ast.If, ast.Try, ast.With, ast.For, ast.While)) or \
            type(node).__name__ == "TryStar":
        inner = list(node.body) + list(getattr(node, "orelse", [])) + \
            list(getattr(node, "finalbody", [])) + \
            [s for h in getattr(node, "handlers", []) for s in h.body]
        return [n for s in inner for n in bound_names(s)]
    targets = []
    if isinstance(node, ast.Assign):
        targets = node.targets
    elif isinstance(node, (ast.AnnAssign, ast.AugAssign)):
        targets = [node.target]
    return [n.id for t in targets for n in ast.walk(t) if isinstance(n, ast.Name)]


def preimport(source: str, package: str) -> list[str]:
    """Import in the host every module the source's top-level import statements name (those
    in top-level try / if blocks too); failures are ignored. Returns the modules imported."""
    import importlib

    names = []
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return names
    todo = list(tree.body)
    while todo:
        node = todo.pop(0)
        if isinstance(node, (ast.Try, ast.If)):
            todo.extend(node.body)
            todo.extend(getattr(node, "orelse", []))
            for h in getattr(node, "handlers", []):
                todo.extend(h.body)
        elif isinstance(node, ast.Import):
            names.extend(a.name for a in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            names.append(base)
            names.extend(f"{base}.{a.name}" for a in node.names if a.name != "*")
    done = []
    for name in names:
        if name in sys.modules:
            continue
        try:
            importlib.import_module(name)
            done.append(name)
        except BaseException:  # noqa: BLE001 (a name imported from a module, not a module)
            pass
    return done


def child_main(args) -> int:
    write = Writer(args.out)
    skip = set()
    if args.skip_file and os.path.exists(args.skip_file):
        with open(args.skip_file, encoding="utf-8") as f:
            skip = set(json.load(f))
    signal.signal(signal.SIGALRM, _on_alarm)
    with open(args.unit_path, encoding="utf-8") as f:
        source = f.read()
    name, side = args.unit_name, args.side
    module = module_dunders(name, args.unit_path, args.unit_is_package)
    sys.modules[name] = module
    if "." in name:  # the parent package sees the module as an attribute, as after an import
        import importlib

        try:
            parent = importlib.import_module(name.rpartition(".")[0])
            setattr(parent, name.rpartition(".")[2], module)
        except ImportError:
            pass

    try:  # as regrtest: only the resources given with -u (here --use-resources) are enabled
        from test import support as _support

        _support.use_resources = [r for r in args.use_resources.split(",") if r]
    except ImportError:
        pass
    if args.preimport:  # both sides alike
        write(event="preimported", modules=preimport(source, module.__package__ or ""))
    t0 = time.time()
    if side == "native":
        ns = module.__dict__
        try:
            # dont_inherit: not this script's `from __future__ import annotations`
            exec(compile(source, args.unit_path, "exec", dont_inherit=True), ns)
        except BaseException as e:  # noqa: BLE001 (SystemExit: a module calling exit)
            write(event="refused", reason=describe_exc(e))
            return 0
        write(event="defined", seconds=round(time.time() - t0, 3))

        def make_ns(base):
            copy = dict(base)
            exec(SHOW_DEF, copy)
            return copy

        def run_example(copy, src):
            out, saved = io.StringIO(), sys.stdout
            sys.stdout = out
            try:
                exec(compile(src, "<doctest>", "exec", dont_inherit=True), copy)
                return out.getvalue(), None
            except TestTimeout:
                raise
            except BaseException as e:  # noqa: BLE001
                return out.getvalue(), e
            finally:
                sys.stdout = saved

        base_ns = ns
    else:
        sys.path.insert(0, REPO)
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            from smolagents_native import LocalPythonExecutor

            kwargs = dict(additional_authorized_imports=["*"], isolation="none")
            if args.timeout_per_test:
                kwargs["timeout_seconds"] = int(args.timeout_per_test)
            if args.max_operations:
                kwargs["max_operations"] = args.max_operations
            ex = LocalPythonExecutor(**kwargs)
        ex.send_tools({})
        dunders = {k: v for k, v in module.__dict__.items() if k != "__builtins__"}
        # the step's globals are the module's own namespace (as for an import): the module in
        # sys.modules sees what the step defines, and `patch(f"{__name__}.x")` reaches the code
        initial = {k: v for k, v in ex.state.items() if k != "__name__"}
        module.__dict__.update(initial)
        ex.state = module.__dict__
        try:
            ex(source)
        except BaseException as e:  # noqa: BLE001
            write(event="refused", reason=describe_exc(e))
            if not args.partial:
                return 0
            # --partial: each top-level statement a step of its own, the refused ones left
            # out; the tests then defined are reported apart (they do not count as "same")
            module.__dict__.clear()
            module.__dict__.update(dunders)
            module.__dict__.update(initial)
            ex.state = module.__dict__
            lines = source.splitlines(keepends=True)
            refused, refused_nodes = [], []
            body = ast.parse(source).body
            for node in body:
                start = min([node.lineno] + [d.lineno for d in
                                             getattr(node, "decorator_list", [])])
                text = "".join(lines[start - 1:node.end_lineno])
                try:
                    ex("\n" * (start - 1) + text)  # the statement at its own line numbers
                except BaseException as e2:  # noqa: BLE001
                    refused.append(f"line {start}: {describe_exc(e2)}")
                    refused_nodes.append((node, describe_exc(e2)))
                    if isinstance(node, ast.ImportFrom) and len(node.names) > 1:
                        # `from m import a, b, _c` refused for one name: bind the others
                        # one at a time, so that one refused name does not undefine the rest
                        for alias in node.names:
                            one = ast.ImportFrom(module=node.module, names=[alias],
                                                 level=node.level)
                            try:
                                ex("\n" * (start - 1) + ast.unparse(one))
                            except BaseException:  # noqa: BLE001 (already reported)
                                pass
            # the names a refused statement would have bound and that stay unbound: a later
            # statement's NameError for one of them is that refusal's consequence
            unbound = {}
            for node, why in refused_nodes:
                for name in bound_names(node):
                    if name not in module.__dict__:
                        unbound.setdefault(name, why)
            write(event="partial", statements=len(body), refused=refused, unbound=unbound)
        write(event="defined", seconds=round(time.time() - t0, 3))
        ns = module.__dict__
        base_ns = {k: v for k, v in ns.items() if k not in ("_print_outputs", "_operations_count")}

        def make_ns(base):
            ex.state = dict(base)
            try:
                ex(SHOW_DEF)
            except BaseException:  # noqa: BLE001 (the examples then fail on their own)
                pass
            return ex

        def run_example(executor, src):
            try:
                out = executor(src)
                return out.logs, None
            except TestTimeout:
                raise
            except BaseException as e:  # noqa: BLE001
                if isinstance(e.__cause__, TestTimeout):
                    raise e.__cause__
                if type(e).__name__ == "InterpreterError" and e.__cause__ is not None:
                    return "", e.__cause__
                return "", e

    import unittest

    cases = collect_cases(ns)
    loader = unittest.TestLoader()
    suite = unittest.TestSuite()
    for case in cases:
        try:
            tests = loader.loadTestsFromTestCase(case)
        except BaseException as e:  # noqa: BLE001
            write(event="result", id=f"{case.__module__}.{case.__qualname__}", outcome="error",
                  detail="loading: " + describe_exc(e))
            continue
        for test in tests:
            if test.id() not in skip:
                suite.addTest(test)
    write(event="collected", cases=len(cases), tests=suite.countTestCases())
    result = recording_result(write, args.timeout_per_test)
    try:
        suite.run(result)
    except TestTimeout as e:  # outside a test (setUpClass...)
        write(event="result", id="<suite>", outcome="timeout", detail=describe_exc(e))
    except BaseException as e:  # noqa: BLE001
        write(event="result", id="<suite>", outcome="error", detail=describe_exc(e))
    signal.alarm(0)

    doc_tests = collect_doctests(base_ns, name, source)
    if doc_tests:
        write(event="doctests", docstrings=len(doc_tests))
        run_doctests(side, doc_tests, base_ns, run_example, make_ns, write, skip,
                     args.timeout_per_test)
    write(event="done", seconds=round(time.time() - t0, 3))
    return 0


# --------------------------------------------------------------------------------------------
# The parent: one child at a time, restarts after a crash or a hang


def signal_name(rc: int) -> str:
    if rc < 0:
        try:
            return signal.Signals(-rc).name
        except ValueError:
            return f"signal {-rc}"
    return f"exit status {rc}"


def crash_text(rc: int, log_path: str) -> str:
    """The exit status, with CPython's "Fatal Python error" line (or the log's last line that
    is not a traceback's) when the child printed one."""
    text = signal_name(rc)
    try:
        with open(log_path, encoding="utf-8", errors="replace") as f:
            lines = [ln.rstrip() for ln in f.read().splitlines() if ln.strip()]
    except OSError:
        return text
    fatal = [ln for ln in lines if ln.startswith("Fatal Python error")]
    if fatal:
        before = lines[lines.index(fatal[0]) - 1] if lines.index(fatal[0]) > 0 else ""
        return f"{text}: {fatal[0][:160]}" + (f" (after: {before[:120]})" if before else "")
    plain = [ln for ln in lines if not ln.startswith((" ", "Traceback", "Thread", "Current"))]
    return f"{text}: {plain[-1][:200]}" if plain else text


def run_side(unit, side, args, workdir) -> dict:
    name, path, is_package = unit
    res = {"status": "ok", "reason": "", "tests": {}, "restarts": 0, "seconds": 0.0}
    tests = res["tests"]
    partial_tests: dict = {}

    def bucket() -> dict:
        # after a refusal at definition, the tests of the statement-by-statement run
        return partial_tests if res["status"] == "refused" else tests
    deadline = time.time() + args.timeout_per_module
    t_start = time.time()
    tag = re.sub(r"\W", "_", name) + "-" + side
    out_path = os.path.join(workdir, tag + ".jsonl")
    skip_path = os.path.join(workdir, tag + ".skip.json")
    log_path = os.path.join(workdir, tag + ".log")
    for attempt in range(MAX_RESTARTS + 1):
        res["restarts"] = attempt
        with open(skip_path, "w", encoding="utf-8") as f:
            json.dump(sorted(set(tests) | set(partial_tests)), f)
        open(out_path, "w").close()
        cmd = [sys.executable, os.path.abspath(__file__), "--_child", "--side", side,
               "--unit-name", name, "--unit-path", path, "--out", out_path,
               "--skip-file", skip_path, "--timeout-per-test", str(args.timeout_per_test)]
        if is_package:
            cmd.append("--unit-is-package")
        if args.max_operations:
            cmd += ["--max-operations", str(args.max_operations)]
        if args.preimport:
            cmd.append("--preimport")
        cmd += ["--use-resources", args.use_resources]
        if args.partial and side == "sandbox":
            cmd.append("--partial")
        env = dict(os.environ)
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPATH", None)
        with open(log_path, "wb") as log:
            proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log,
                                    stderr=subprocess.STDOUT, cwd=workdir, env=env)
        pos, current, current_since, done, killed = 0, None, time.time(), False, None
        finished = False

        def drain():
            nonlocal pos, current, current_since, done
            with open(out_path, encoding="utf-8") as f:
                f.seek(pos)
                while True:
                    line = f.readline()
                    if not line or not line.endswith("\n"):
                        break
                    pos = f.tell()
                    ev = json.loads(line)
                    kind = ev["event"]
                    if kind == "start":
                        current, current_since = ev["id"], time.time()
                    elif kind == "result":
                        bucket()[ev["id"]] = {"outcome": ev["outcome"],
                                              "detail": ev.get("detail", "")}
                        current = None
                    elif kind == "refused":
                        res["status"], res["reason"] = "refused", ev["reason"]
                    elif kind == "partial":
                        res["partial"] = {"statements": ev["statements"],
                                          "refused": ev["refused"],
                                          "unbound": ev.get("unbound", {})}
                    elif kind == "defined":
                        res.setdefault("define_seconds", ev["seconds"])
                    elif kind == "collected":
                        res.setdefault("collected", ev["tests"])
                    elif kind == "done":
                        done = True

        while True:
            try:
                proc.wait(timeout=0.2)
                finished = True
            except subprocess.TimeoutExpired:
                pass
            drain()
            if finished:
                break
            now = time.time()
            if current is not None and now - current_since > args.timeout_per_test + WATCHDOG_GRACE:
                killed = "test"
            elif now > deadline:
                killed = "module"
            if killed:
                proc.kill()
                proc.wait()
                drain()
                break
        rc = proc.returncode
        if res["status"] == "refused" and "partial" not in res:
            break
        if done and not killed:
            if rc != 0:
                res["exit"] = signal_name(rc)  # a crash at teardown: results are complete
            break
        # killed or died before "done"
        if current is not None:
            outcome = "timeout" if killed else "crashed"
            detail = ("killed by the harness (hung past --timeout-per-test)" if killed == "test"
                      else "killed: --timeout-per-module reached" if killed == "module"
                      else crash_text(rc, log_path))
            bucket()[current] = {"outcome": outcome, "detail": detail}
        if killed == "module":
            res["status"], res["reason"] = "timeout", (
                f"--timeout-per-module ({args.timeout_per_module:g} s) reached; "
                "the tests not reached are missing on this side")
            break
        if current is None:
            # died outside a test (definition, collection, teardown)
            if res["status"] == "refused":
                res["partial"]["crashed"] = "outside a test: " + crash_text(rc, log_path)
            else:
                res["status"] = "crashed"
                res["reason"] = "outside a test: " + crash_text(rc, log_path)
            break
        if attempt == MAX_RESTARTS:
            res["status"], res["reason"] = "crashed", f"gave up after {MAX_RESTARTS} restarts"
    res["seconds"] = round(time.time() - t_start, 2)
    if "partial" in res:
        res["partial"]["tests"] = partial_tests
    if any(t["outcome"] == "crashed" for t in tests.values()) and res["status"] == "ok":
        res["reason"] = "a test crashed the process (restarted after it)"
    return res


def compare(native: dict, sandbox: dict) -> dict:
    """The strict comparison; with `partial_compare` set when the sandbox refused the module
    at definition and its statement-by-statement run made tests."""
    result = compare_tests(native["tests"], sandbox["tests"])
    part = sandbox.get("partial")
    if part is not None:
        result["partial_compare"] = compare_tests(native["tests"], part.get("tests", {}))
    return result


def compare_tests(n: dict, s: dict) -> dict:
    ids = sorted(set(n) | set(s))
    same, different, only_native, only_sandbox = [], [], [], []
    for tid in ids:
        if tid in n and tid in s:
            if n[tid]["outcome"] == s[tid]["outcome"]:
                same.append(tid)
            else:
                different.append({
                    "id": tid,
                    "native": n[tid]["outcome"], "native_detail": n[tid]["detail"],
                    "sandbox": s[tid]["outcome"], "sandbox_detail": s[tid]["detail"],
                })
        elif tid in n:
            only_native.append(tid)
        else:
            only_sandbox.append(tid)
    return {
        "tests": len(ids),
        "same": len(same),
        "different": len(different),
        "only_native": len(only_native),
        "only_sandbox": len(only_sandbox),
        "native_pass": sum(1 for t in n.values() if t["outcome"] == "pass"),
        "both_pass": sum(1 for t in same if n[t]["outcome"] == "pass"),
        "differences": different,
        "only_native_ids": only_native,
        "only_sandbox_ids": only_sandbox,
    }


def status_text(entry: dict) -> str:
    parts = []
    pc = entry["compare"].get("partial_compare")
    for side in ("native", "sandbox"):
        r = entry.get(side) or {}
        if r.get("status", "ok") != "ok":
            label = "refused at definition" if r["status"] == "refused" else r["status"]
            text = f"{side} {label}: {r.get('reason', '')[:110]}"
            if side == "sandbox" and pc is not None:
                part = r["partial"]
                text += (f" — statement by statement ({len(part['refused'])} of "
                         f"{part['statements']} refused): {pc['same']} same, "
                         f"{pc['different']} different, {pc['only_native']} not defined")
                crashed = sum(1 for t in part.get("tests", {}).values()
                              if t["outcome"] == "crashed")
                if crashed:
                    text += f", {crashed} crashed"
            parts.append(text)
        else:
            crashed = sum(1 for t in r.get("tests", {}).values() if t["outcome"] == "crashed")
            hung = sum(1 for t in r.get("tests", {}).values() if t["outcome"] == "timeout")
            if crashed:
                parts.append(f"{side}: {crashed} test(s) crashed")
            if hung:
                parts.append(f"{side}: {hung} test(s) timed out")
    text = "; ".join(parts)
    return text.replace("|", "\\|")[:320]


def normalize_cause(detail: str) -> str:
    """A grouping key for a difference's error text: numbers and long literals masked."""
    d = detail or "(no detail)"
    d = re.sub(r"0x[0-9a-fA-F]+", "0x…", d)
    d = re.sub(r"\b\d+\b", "N", d)
    d = re.sub(r"'[^']{25,}'", "'…'", d)
    if d.startswith("AssertionError") or d.startswith("expected "):
        # assertion texts are as varied as the tests: group on their shape only
        d = re.sub(r"(AssertionError: ).*", r"\1…", d) if d.startswith("AssertionError") else \
            "doctest: output differs"
    return d[:140]


def print_table(report: dict, file=sys.stdout) -> None:
    p = lambda *a: print(*a, file=file)  # noqa: E731
    p(f"\n### CPython {report['python']} ({report['implementation']})\n")
    p("| module | tests | same | different | only native | only sandbox | refused / crashed |")
    p("|---|---:|---:|---:|---:|---:|---|")
    for mod, entry in report["modules"].items():
        if entry.get("missing"):
            continue
        c = entry["compare"]
        p(f"| {mod} | {c['tests']} | {c['same']} | {c['different']} | {c['only_native']} | "
          f"{c['only_sandbox']} | {status_text(entry)} |")
    t = report["totals"]
    missing = [m for m, e in report["modules"].items() if e.get("missing")]
    p(f"\n**Total (CPython {report['python']}):** {t['tests']} tests in {t['modules']} units, "
      f"{t['same']} same ({100.0 * t['same'] / max(t['tests'], 1):.1f}%), "
      f"{t['different']} different, {t['only_native']} only native, "
      f"{t['only_sandbox']} only sandbox; {t['refused']} refused at definition, "
      f"{t['crashed_units']} with a crash/timeout; {t['seconds']:.0f} s"
      + (f". In the {t['refused']} refused units, run statement by statement: "
         f"{t['partial_same']} same, {t['partial_different']} different, "
         f"{t['partial_undefined']} not defined (of {t['partial_tests']})"
         if t.get("partial_tests") else "")
      + (f"; not in this Lib/test: {', '.join(missing)}" if missing else ""))


def causes(reports: list[dict], top: int = 10) -> list[dict]:
    groups: dict[str, dict] = {}
    for report in reports:
        for mod, entry in report["modules"].items():
            if entry.get("missing"):
                continue
            pc = entry["compare"].get("partial_compare")
            diffs = entry["compare"]["differences"] + (pc["differences"] if pc else [])
            for d in diffs:
                # the side whose detail explains the difference: the one that did worse
                detail = d["sandbox_detail"] if d["sandbox"] not in ("pass", "xfail") else \
                    f"(sandbox {d['sandbox']}; native {d['native']}: {d['native_detail']})"
                key = normalize_cause(detail)
                g = groups.setdefault(key, {"cause": key, "count": 0, "by_version": {},
                                            "example_id": d["id"], "example_text": detail,
                                            "example_python": report["python"]})
                g["count"] += 1
                g["by_version"][report["python"]] = g["by_version"].get(report["python"], 0) + 1
            for side in ("sandbox",):
                r = entry.get(side) or {}
                if r.get("status") == "refused":
                    key = "refused at definition: " + normalize_cause(r["reason"])
                    # the tests it costs: those that the statement-by-statement run could not
                    # define either (all of them without that run)
                    n_tests = (pc or entry["compare"])["only_native"]
                    g = groups.setdefault(key, {"cause": key, "count": 0, "by_version": {},
                                                "example_id": mod, "example_text": r["reason"],
                                                "example_python": report["python"]})
                    g["count"] += n_tests
                    g["by_version"][report["python"]] = \
                        g["by_version"].get(report["python"], 0) + n_tests
    return sorted(groups.values(), key=lambda g: -g["count"])[:top]


def print_causes(reports: list[dict], file=sys.stdout, top: int = 10) -> None:
    p = lambda *a: print(*a, file=file)  # noqa: E731
    p(f"\n### The {top} most common causes of difference\n")
    p("| # | tests | by version | cause | example test | example text |")
    p("|---:|---:|---|---|---|---|")
    for i, g in enumerate(causes(reports, top), 1):
        esc = lambda s: str(s).replace("|", "\\|")[:200]  # noqa: E731
        by = ", ".join(f"{v}: {n}" for v, n in g["by_version"].items())
        p(f"| {i} | {g['count']} | {by} | {esc(g['cause'])} | {esc(g['example_id'])} "
          f"({g['example_python']}) | {esc(g['example_text'])} |")


# --------------------------------------------------------------------------------------------
# The metric: tests that pass natively, less those the sandbox refuses by a reviewed rule

REVIEWED_PATH = os.path.join(REPO, "scripts", "cpython_tests_reviewed.json")


def load_rules(path: str = REVIEWED_PATH) -> list[dict]:
    """The reviewed refusal rules, each with its regular expressions compiled; the file's
    'not_reviewed' entries first, marked (a match with one of them is not a reviewed refusal)."""
    with open(path, encoding="utf-8") as f:
        data = json.load(f)
    rules = [dict(r, _not=True) for r in data.get("not_reviewed", [])] + \
        [dict(r, _not=False) for r in data["rules"]]
    for r in rules:
        r["_message"] = re.compile(r["message"])
        r["_module"] = re.compile(r["module"]) if r.get("module") else None
        r["_test"] = re.compile(r["test"]) if r.get("test") else None
        r["_unless"] = re.compile(r["unless"]) if r.get("unless") else None
    return rules


def through_unbound(detail: str, unbound: dict) -> str:
    """A NameError for a name that a refused top-level statement left unbound is that
    refusal's consequence: the refusal it comes from (followed through chains of them)."""
    seen = set()
    while True:
        n = re.match(r"NameError: name '(\w+)' is not defined", detail)
        if not n or n.group(1) not in unbound or n.group(1) in seen:
            return detail
        seen.add(n.group(1))
        detail = f"{unbound[n.group(1)]} (leaving {n.group(1)!r} unbound)"


def sandbox_side(entry: dict, tid: str) -> tuple[str, str, bool]:
    """(outcome, detail, at_definition) of a test on the sandbox side: its own result, or for
    a test the sandbox never defined ("undefined"), the refusal of the statement that defines
    it (the refused top-level `class` of its test case, else the module's refusal)."""
    sb = entry.get("sandbox") or {}
    tests = sb.get("tests", {})
    if sb.get("status") == "refused":
        tests = sb.get("partial", {}).get("tests", {})
    if tid in tests:
        outcome, detail = tests[tid]["outcome"], tests[tid].get("detail") or ""
        if sb.get("status") == "refused":
            # the test may read a name that a refused top-level statement left unbound
            detail = through_unbound(detail, sb.get("partial", {}).get("unbound", {}))
        return outcome, detail, False
    if sb.get("status") == "refused":
        parts = tid.split(".")
        for stmt in sb.get("partial", {}).get("refused", []):
            m = re.search(r"\[at: class (\w+)\b", stmt)
            if m and m.group(1) in parts:
                detail = through_unbound(re.sub(r"^line \d+: ", "", stmt),
                                         sb["partial"].get("unbound", {}))
                return "undefined", detail, True
        return "undefined", sb.get("reason", ""), True
    if sb.get("status") in ("crashed", "timeout"):
        return sb["status"], sb.get("reason", ""), False
    return "undefined", sb.get("reason", "") or "(the sandbox side never recorded it)", False


def match_rule(rules: list[dict], module: str, tid: str, outcome: str, detail: str):
    """The reviewed rule that covers this sandbox-side outcome, or None. Only an error, a
    failure whose detail is the refusal, or a definition refused: never a crash or a hang."""
    if outcome not in ("error", "fail", "undefined"):
        return None
    for r in rules:
        if r["_module"] and not r["_module"].search(module):
            continue
        if r["_test"] and not r["_test"].search(tid):
            continue
        if r["_message"].search(detail or "") and not (
                r["_unless"] and r["_unless"].search(detail or "")):
            return None if r["_not"] else r
    return None


def metric_cause(detail: str) -> str:
    """normalize_cause, but an assertion's text is kept (numbers, addresses and long
    literals masked): the remaining causes are what to fix, "AssertionError: …" says nothing."""
    d = detail or "(no detail)"
    if not d.startswith("AssertionError"):
        return normalize_cause(d)
    d = re.sub(r"0x[0-9a-fA-F]+", "0x…", d)
    d = re.sub(r"\b\d+\b", "N", d)
    d = re.sub(r"'[^']{25,}'", "'…'", d)
    return d[:140]


def metric(report: dict, rules: list[dict] | None = None, top: int = 15) -> dict:
    """Issue 40's metric for one report (one version): among the tests whose native outcome is
    "pass", those whose sandbox-side outcome a reviewed rule matches are left out; N is the
    rest, P those of N that also pass in the sandbox. Per unit and in total, with the reviewed
    counts per rule, crashes and timeouts (sandbox side, either run), and the top causes of
    the N - P that do not pass."""
    rules = load_rules() if rules is None else rules
    total = collections.Counter()
    reviewed = collections.Counter()
    reviewed_at_def = collections.Counter()
    per_unit = {}
    groups: dict[str, dict] = {}
    for mod, entry in report["modules"].items():
        if entry.get("missing"):
            continue
        u = collections.Counter()
        every = list(entry["sandbox"]["tests"].values()) + \
            list(entry["sandbox"].get("partial", {}).get("tests", {}).values())
        u["crashed"] = sum(1 for v in every if v["outcome"] == "crashed")
        u["timeout"] = sum(1 for v in every if v["outcome"] == "timeout")
        u["native_crashed"] = sum(1 for v in entry["native"]["tests"].values()
                                  if v["outcome"] in ("crashed", "timeout"))
        for tid, v in entry["native"]["tests"].items():
            if v["outcome"] != "pass":
                continue
            u["native_pass"] += 1
            outcome, detail, at_def = sandbox_side(entry, tid)
            if outcome == "pass":
                u["N"] += 1
                u["P"] += 1
                continue
            rule = match_rule(rules, mod, tid, outcome, detail)
            if rule is not None:
                u["reviewed"] += 1
                reviewed[rule["id"]] += 1
                if at_def:
                    reviewed_at_def[rule["id"]] += 1
                continue
            u["N"] += 1
            key = metric_cause(detail) if outcome in ("error", "fail", "undefined") else \
                f"{outcome}: {metric_cause(detail)}"
            if outcome == "undefined":
                key = "not defined: " + key
            g = groups.setdefault(key, {"cause": key, "count": 0, "example_id": tid,
                                        "example_text": detail[:300], "modules": {}})
            g["count"] += 1
            g["modules"][mod] = g["modules"].get(mod, 0) + 1
        u["percent"] = round(100.0 * u["P"] / u["N"], 2) if u["N"] else 100.0
        per_unit[mod] = dict(u)
        for k, n in u.items():
            if k != "percent":
                total[k] += n
    total = dict(total)
    total["percent"] = round(100.0 * total.get("P", 0) / total["N"], 2) if total.get("N") \
        else 100.0
    return {
        "python": report["python"],
        "total": total,
        "per_unit": per_unit,
        "reviewed": {r["id"]: {"count": reviewed[r["id"]],
                               "at_definition": reviewed_at_def[r["id"]],
                               "reason": r["reason"]} for r in rules if not r["_not"]},
        "top_causes": sorted(groups.values(), key=lambda g: -g["count"])[:top],
    }


def print_metric(m: dict, file=sys.stdout, per_unit: bool = True) -> None:
    p = lambda *a: print(*a, file=file)  # noqa: E731
    esc = lambda s: str(s).replace("|", "\\|")[:200]  # noqa: E731
    t = m["total"]
    p(f"\n### Issue 40 metric, CPython {m['python']}\n")
    p(f"Of {t.get('native_pass', 0)} tests that pass natively, {t.get('reviewed', 0)} are "
      f"refused by a reviewed rule; of the other N = {t.get('N', 0)}, P = {t.get('P', 0)} pass "
      f"in the sandbox: **{t['percent']:.2f}%**. Sandbox side: {t.get('crashed', 0)} crashed, "
      f"{t.get('timeout', 0)} timed out (native side: {t.get('native_crashed', 0)}).")
    if per_unit:
        p("\n| unit | native pass | reviewed | N | P | P/N | crashed | timeout |")
        p("|---|---:|---:|---:|---:|---:|---:|---:|")
        for mod, u in m["per_unit"].items():
            p(f"| {mod} | {u.get('native_pass', 0)} | {u.get('reviewed', 0)} | {u.get('N', 0)} | "
              f"{u.get('P', 0)} | {u['percent']:.1f}% | {u.get('crashed', 0)} | "
              f"{u.get('timeout', 0)} |")
    p("\n| reviewed rule | tests | of them at definition | reason |")
    p("|---|---:|---:|---|")
    for rid, r in m["reviewed"].items():
        p(f"| {rid} | {r['count']} | {r['at_definition']} | {esc(r['reason'])} |")
    p(f"\n| # | tests | remaining cause (not passing, not reviewed) | example test | units |")
    p("|---:|---:|---|---|---|")
    for i, g in enumerate(m["top_causes"], 1):
        mods = ", ".join(f"{k}: {n}" for k, n in sorted(g["modules"].items(),
                                                        key=lambda kv: -kv[1])[:4])
        p(f"| {i} | {g['count']} | {esc(g['cause'])} | {esc(g['example_id'])} | {esc(mods)} |")


def totals(report: dict) -> dict:
    t = collections.Counter({k: 0 for k in (
        "modules", "tests", "same", "different", "only_native", "only_sandbox", "native_pass",
        "both_pass", "refused", "crashed_units", "seconds", "partial_tests", "partial_same",
        "partial_different", "partial_undefined")})
    for entry in report["modules"].values():
        if entry.get("missing"):
            continue
        c = entry["compare"]
        t["modules"] += 1
        for k in ("tests", "same", "different", "only_native", "only_sandbox", "native_pass",
                  "both_pass"):
            t[k] += c[k]
        if entry["sandbox"]["status"] == "refused":
            t["refused"] += 1
            pc = c.get("partial_compare")
            if pc:
                t["partial_tests"] += pc["tests"]
                t["partial_same"] += pc["same"]
                t["partial_different"] += pc["different"]
                t["partial_undefined"] += pc["only_native"]
        every = [v for s in ("native", "sandbox") for v in entry[s]["tests"].values()]
        every += list(entry["sandbox"].get("partial", {}).get("tests", {}).values())
        if any(entry[s]["status"] in ("crashed", "timeout") for s in ("native", "sandbox")) or \
                any(v["outcome"] in ("crashed", "timeout") for v in every):
            t["crashed_units"] += 1
        t["seconds"] += entry["native"]["seconds"] + entry["sandbox"]["seconds"]
    return dict(t)


def summarize(paths: list[str]) -> int:
    reports = []
    for path in paths:
        with open(path, encoding="utf-8") as f:
            reports.append(json.load(f))
    # one table, a column group per version
    versions = [r["python"] for r in reports]
    mods = []
    for r in reports:
        for m in r["modules"]:
            if m not in mods:
                mods.append(m)
    print("| module | " + " | ".join(versions) + " |")
    print("|---|" + "---|" * len(versions))
    for m in mods:
        cells = []
        for r in reports:
            e = r["modules"].get(m)
            if e is None or e.get("missing"):
                cells.append("—")
                continue
            c = e["compare"]
            cell = f"{c['same']}/{c['tests']} ({c['different']} diff"
            other = c["only_native"] + c["only_sandbox"]
            if other:
                cell += f", {other} one-side"
            cell += ")"
            st = e["sandbox"]["status"]
            pc = c.get("partial_compare")
            crashed = any(v["outcome"] == "crashed" for v in e["sandbox"]["tests"].values())
            if st != "ok":
                cell += f" **{'refused' if st == 'refused' else st}**"
                if pc:
                    cell += f" [stmt by stmt: {pc['same']} same, {pc['different']} diff]"
                    crashed = any(v["outcome"] == "crashed"
                                  for v in e["sandbox"]["partial"]["tests"].values())
            if crashed:
                cell += " **crash**"
            cells.append(cell)
        print(f"| {m} | " + " | ".join(cells) + " |")
    print()
    for r in reports:
        t = r["totals"]
        print(f"- CPython {r['python']}: {t['same']}/{t['tests']} same "
              f"({100.0 * t['same'] / max(t['tests'], 1):.1f}%), {t['different']} different, "
              f"{t['only_native']} only native, {t['only_sandbox']} only sandbox, "
              f"{t['refused']} unit(s) refused at definition, "
              f"{t['crashed_units']} with a crash/timeout"
              + (f"; refused units statement by statement: {t['partial_same']} same, "
                 f"{t['partial_different']} different, {t['partial_undefined']} not defined"
                 if t.get("partial_tests") else ""))
    print_causes(reports)
    rules = load_rules()
    for r in reports:
        print_metric(metric(r, rules), per_unit=False)
    return 0


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--modules", help="comma-separated module names (default: MODULES)")
    ap.add_argument("--json", help="write the full report (every test's outcome) here")
    ap.add_argument("--timeout-per-module", type=float, default=180.0,
                    help="seconds for one side of one module, restarts included (180)")
    ap.add_argument("--timeout-per-test", type=float, default=20.0,
                    help="seconds for one test or doctest example (20); also the sandbox's "
                         "timeout_seconds")
    ap.add_argument("--max-operations", type=int, default=None,
                    help="the executor's max_operations (default: its own default)")
    ap.add_argument("--preimport", action="store_true",
                    help="before a module runs (both sides), import in the host the modules its "
                         "top-level imports name: measures the language without the sandbox's "
                         "refusals of a module's first import (off by default)")
    ap.add_argument("--use-resources", default="",
                    help="test.support resources to enable, comma-separated (default: none, "
                         "as regrtest without -u: tests that require 'cpu' etc. are skipped)")
    ap.add_argument("--partial", action=argparse.BooleanOptionalAction, default=True,
                    help="when the sandbox refuses a module at definition, define it again a "
                         "top-level statement at a time and run the tests so defined; reported "
                         "apart (columns 'partial'), the module still counts as refused "
                         "(default: on)")
    ap.add_argument("--summarize", nargs="+", metavar="JSON",
                    help="print the cross-version table and causes of several --json files")
    ap.add_argument("--_child", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--side", choices=("native", "sandbox"), help=argparse.SUPPRESS)
    ap.add_argument("--unit-name", help=argparse.SUPPRESS)
    ap.add_argument("--unit-path", help=argparse.SUPPRESS)
    ap.add_argument("--unit-is-package", action="store_true", help=argparse.SUPPRESS)
    ap.add_argument("--out", help=argparse.SUPPRESS)
    ap.add_argument("--skip-file", help=argparse.SUPPRESS)
    args = ap.parse_args(argv)

    if args._child:
        return child_main(args)
    if args.summarize:
        return summarize(args.summarize)

    test_dir = lib_test_dir()
    python = platform.python_version()
    if test_dir is None:
        print(f"CPython {python} ({sys.executable}): no Lib/test available (`import test` "
              "finds no test package with test.support)", file=sys.stderr)
        if args.json:
            with open(args.json, "w", encoding="utf-8") as f:
                json.dump({"python": python, "executable": sys.executable,
                           "error": "no Lib/test available"}, f, indent=1)
        return 2
    modules = args.modules.split(",") if args.modules else list(MODULES)
    report = {
        "python": python,
        "implementation": f"{platform.python_implementation()} {sys.version.split()[0]}, "
                          f"{sys.executable}",
        "lib_test": test_dir,
        "settings": {"timeout_per_module": args.timeout_per_module,
                     "timeout_per_test": args.timeout_per_test,
                     "max_operations": args.max_operations, "preimport": args.preimport,
                     "partial": args.partial, "use_resources": args.use_resources},
        "modules": {},
    }
    with tempfile.TemporaryDirectory(prefix="cpython-libtest-") as workdir:
        for module in modules:
            units = module_units(test_dir, module)
            if not units:
                report["modules"][module] = {"missing": True}
                print(f"{module}: not in {test_dir}, skipped", file=sys.stderr)
                continue
            for unit in units:
                label = unit[0][len("test."):]
                entry = {"source": unit[1]}
                for side in ("native", "sandbox"):
                    entry[side] = run_side(unit, side, args, workdir)
                entry["compare"] = compare(entry["native"], entry["sandbox"])
                if unit[2] and entry["compare"]["tests"] == 0 and all(
                        entry[s]["status"] == "ok" for s in ("native", "sandbox")):
                    continue  # a package __init__ that only gathers its submodules
                report["modules"][label] = entry
                c = entry["compare"]
                print(f"{label}: {c['same']}/{c['tests']} same, {c['different']} different, "
                      f"{c['only_native']}+{c['only_sandbox']} one-side "
                      f"[{entry['native']['seconds']:.1f}s + {entry['sandbox']['seconds']:.1f}s]"
                      f" {status_text(entry)}", file=sys.stderr, flush=True)
    report["totals"] = totals(report)
    report["top_causes"] = causes([report])
    report["metric"] = metric(report)
    if args.json:
        os.makedirs(os.path.dirname(os.path.abspath(args.json)), exist_ok=True)
        with open(args.json, "w", encoding="utf-8") as f:
            json.dump(report, f, indent=1, default=repr)
    print_table(report)
    print_causes([report])
    print_metric(report["metric"])
    return 0


if __name__ == "__main__":
    sys.exit(main())
