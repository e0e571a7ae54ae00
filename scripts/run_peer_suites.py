#!/usr/bin/env python3
"""Run two peer sandboxes' test programs under CPython and under smolagents_native's executor,
and compare the outcomes.

The peers:

* **monty** (pydantic's Python sandbox written in Rust): the ``crates/monty/test_cases/*.py``
  directory of its repository, one program per file, most with the outcome CPython 3.14 gives
  in a comment on their last line (``# Return=<repr>``, ``# Return.str=``, ``# Return.type=``,
  ``# Raise=<exception repr>``), or a ``TRACEBACK:`` string at their end (the traceback's last
  line is used), or nothing (the program must run without an exception; its asserts check it).
  ``# ref-counts=`` (a Monty-internal check) counts as "runs without an exception". A
  ``# /// monty`` header block holds per-case settings (below).
* **RestrictedPython** (Zope's restricting compiler): the programs its own tests compile with
  its default policy (below, "allowed programs").

Where the material comes from (pinned, sha256-checked, downloaded into ``--cache-dir``,
default ``<repo>/.upstream-cache/`` which ignores itself in git; nothing of the peers is copied
into this repository):

* RestrictedPython: its source distribution, with ``pip download --no-binary :all: --no-deps
  RestrictedPython==9.0`` (setuptools; it holds ``src/`` and ``tests/``).
* monty: the source distribution of ``pydantic-monty-runtime==1.4.0`` (the crate workspace of
  the ``monty`` worker binary; it holds ``crates/monty/test_cases/``, 710 files). The
  ``pydantic-monty`` distribution itself is a 8 kB meta package without them. pip cannot
  download this sdist: ``pip download`` always prepares the metadata, and maturin's metadata
  step runs ``cargo metadata``, which needs crates.io. So the file is fetched from the package
  index pip is configured with (``$PIP_INDEX_URL``, else ``https://pypi.org/simple``) through
  its standard JSON API (PEP 691: the project page lists the file and its URL) and checked
  against the pinned sha256.

How a case runs (both sides get the same program text):

* CPython: a fresh subprocess of the running interpreter per case. The program is compiled
  whole (a ``SyntaxError`` is its outcome), then run in a ``__main__`` namespace with
  ``sys.stdout`` captured; when its last statement is an expression, that expression is
  evaluated apart and its value is the program's value (as a ``Return=`` of monty, as an
  executor step's output).
* smolagents_native: ``LocalPythonExecutor(additional_authorized_imports=<the modules the
  program imports that exist here>)``, a fresh executor per case, ``executor(program)``: the
  value is ``.output`` (compared only when the last statement is an expression), the printed
  text ``.logs`` (on an error, ``state["_print_outputs"]``), the exception the step's
  ``InterpreterError`` was raised from (``__cause__``), else that error. These run in child
  processes, a batch of cases each, with a deadline per case: a case that kills or hangs its
  child is "crashed" and the batch goes on in a new child.

Outcomes:

* same: same printed text, same value (reprs, with memory addresses masked), same exception
  (type name and ``str()``; for ``SyntaxError`` its ``msg``).
* refused: our executor raised an error CPython did not raise (or a different one), of the
  policy's kind (an ``InterpreterError`` of our own, or a message naming a refusal:
  "not allowed", "Forbidden", "Maximum number of", ...). A refusal listed in
  ``scripts/peer_suites_reviewed.json`` (suite, case, message substring, reason) is "reviewed";
  any other is "unreviewed".
* differ: anything else that is not the same.
* crashed: the executor's child process died or passed the deadline during the case.
* excluded: the case is not a comparison of CPython with us: CPython itself crashed on it
  (3.10 segfaults on one of monty's cases), monty cases that need Monty's
  host (``call-external``: external functions its runner provides; ``mount-fs``: its mounted
  file system), cases it marks as failing on CPython (``xfail = ['cpython']``), and cases whose
  CPython outcome here disagrees with the outcome monty keeps (they test Monty's quirks, or the
  expectation is 3.14's and this CPython differs). For excluded cases whose programs ran on
  both sides, the comparison is still reported (informational).

monty's ``run-async = true`` cases use top-level ``await``: both sides run them wrapped in an
``async def`` run by ``asyncio.run`` (the last expression statement becomes the return value).
``timezone = '...'`` sets ``TZ`` (and ``time.tzset()``) in the child before the case.

RestrictedPython's allowed programs: its test suite is run (``pytest`` on the sdist's
``tests/``, its ``src/`` on the path; a small stand-in for pytest-mock's ``mocker`` fixture is
provided) with a plugin that records every ``str`` source compiled by
``RestrictedPython.compile._compile_restricted_mode`` with the default policy
(``RestrictingNodeTransformer``) and no error, during a test that passes. Each distinct source
is then run once more under RestrictedPython's standard environment (``safe_globals`` plus
``limited_builtins`` and ``utility_builtins``, and its default guards: ``safer_getattr``,
``default_guarded_getitem`` / ``getiter``, ``guarded_(iter_)unpack_sequence``,
``full_write_guard``, ``PrintCollector``, an ``_inplacevar_`` applying the operator); the
programs that run to completion there are "allowed programs" (they compile and run under its
policy) and are compared. The others (a name the test passes in, an import, a guard's refusal)
are counted apart, not compared. RestrictedPython 9.0 needs Python 3.11 or later.

Usage::

    python scripts/run_peer_suites.py                       # both suites, print the summary
    python scripts/run_peer_suites.py --suite monty --json out.json
    python scripts/run_peer_suites.py --suite monty --case str__methods -v

Needs: smolagents_native importable (this repository built in place, or installed) and, for
RestrictedPython, pytest. The last line printed is ``peer suites: N passed, M failed`` (cases
same or excluded or reviewed-refused count as passed; differ, crashed and unreviewed refusals
as failed).

Exit status: 0 when no case differs, crashed or was refused unreviewed; 1 otherwise;
2 on a usage error; 3 when a suite's material could not be obtained.
"""

from __future__ import annotations

import argparse
import ast
import builtins
import hashlib
import json
import os
import re
import selectors
import subprocess
import sys
import tarfile
import tempfile
import time
import urllib.parse
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
REVIEWED_FILE = Path(__file__).resolve().parent / "peer_suites_reviewed.json"

MONTY = {
    "project": "pydantic-monty-runtime",
    "version": "1.4.0",
    "filename": "pydantic_monty_runtime-1.4.0.tar.gz",
    "sha256": "5275beb451201bd23669a253c8be93b90cad018b449fcdd0a1ad57daeed15187",
    "cases": "crates/monty/test_cases",
}
RESTRICTED = {
    "project": "RestrictedPython",
    "version": "9.0",
    "filename": "restrictedpython-9.0.tar.gz",
    "sha256": "9e809cc073b9398f41084f1b801cf9a8c2a126feb0003b6af52fedeb2a3408e1",
}

EXIT_OK, EXIT_DIFF, EXIT_USAGE, EXIT_UNAVAILABLE = 0, 1, 2, 3

# An error of our executor counts as a refusal when it is an InterpreterError of our own (the
# policy, a budget) or when its message says so (a refusal surfacing as TypeError / ImportError
# from a gadget or a module guard).
REFUSAL_RE = re.compile(
    r"not allowed|Forbidden|forbidden|is refused|refused|Maximum number of|Reached the max|"
    r"not among the explicitly allowed|not supported in the sandbox|budget|exceeded the"
)
ADDRESS_RE = re.compile(r"0x[0-9a-fA-F]+")


def log(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --------------------------------------------------------------------------------------------
# Obtaining the material


def _sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def _checked(path: Path, pin: dict) -> Path | None:
    if path.is_file() and _sha256(path) == pin["sha256"]:
        return path
    if path.is_file():
        log(f"{path.name}: sha256 mismatch, ignored")
    return None


def _pip_download(pin: dict, cache: Path, timeout: float) -> Path | None:
    target = cache / pin["filename"]
    cmd = [sys.executable, "-m", "pip", "download", f"{pin['project']}=={pin['version']}",
           "--no-binary", ":all:", "--no-deps", "--disable-pip-version-check", "-q",
           "-d", str(cache)]
    for extra in ([], ["--no-build-isolation"]):
        log(f"downloading {pin['project']}=={pin['version']} (source distribution) with pip ...")
        try:
            result = subprocess.run(cmd + extra, capture_output=True, text=True, timeout=timeout)
        except subprocess.TimeoutExpired:
            log(f"pip download timed out after {timeout:.0f}s")
            continue
        found = _checked(target, pin)
        if found is not None:
            return found
        log(f"pip download failed (status {result.returncode}):\n{result.stderr.strip()[-1500:]}")
    return None


def _index_download(pin: dict, cache: Path, timeout: float) -> Path | None:
    """One file from the configured index's project page (PEP 691 JSON), sha256-checked."""
    index = os.environ.get("PIP_INDEX_URL", "https://pypi.org/simple").rstrip("/")
    name = re.sub(r"[-_.]+", "-", pin["project"]).lower()
    url = f"{index}/{name}/"
    log(f"fetching {pin['filename']} from the index ({url}) ...")
    try:
        request = urllib.request.Request(
            url, headers={"Accept": "application/vnd.pypi.simple.v1+json"})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            page = json.load(response)
        entry = next((f for f in page.get("files", []) if f.get("filename") == pin["filename"]),
                     None)
        if entry is None:
            log(f"the index lists no {pin['filename']}")
            return None
        file_url = urllib.parse.urljoin(url, entry["url"])
        with urllib.request.urlopen(file_url, timeout=timeout) as response:
            data = response.read()
    except (OSError, ValueError) as error:
        log(f"index download failed: {error}")
        return None
    if hashlib.sha256(data).hexdigest() != pin["sha256"]:
        log(f"{pin['filename']}: sha256 mismatch, not used")
        return None
    target = cache / pin["filename"]
    tmp = target.with_suffix(".part")
    tmp.write_bytes(data)
    tmp.replace(target)
    return target


def _prepare_cache(cache: Path) -> None:
    cache.mkdir(parents=True, exist_ok=True)
    ignore = cache / ".gitignore"
    if not ignore.exists():
        ignore.write_text("# downloaded by scripts/run_*.py\n*\n")


def obtain_monty(cache: Path, timeout: float) -> Path | None:
    """The directory of monty's test cases (extracted once), or None."""
    dest = cache / f"monty-{MONTY['version']}-test_cases"
    if dest.is_dir() and (dest / ".complete").exists():
        return dest
    _prepare_cache(cache)
    sdist = _checked(cache / MONTY["filename"], MONTY) or _index_download(MONTY, cache, timeout)
    if sdist is None:
        return None
    dest.mkdir(parents=True, exist_ok=True)
    with tarfile.open(sdist) as archive:
        for member in archive.getmembers():
            parts = member.name.split("/")
            if (member.isfile() and "/".join(parts[1:-1]) == MONTY["cases"]
                    and parts[-1].endswith(".py")):
                source = archive.extractfile(member)
                assert source is not None
                (dest / parts[-1]).write_bytes(source.read())
    (dest / ".complete").write_text("")
    return dest


def obtain_restricted(cache: Path, timeout: float) -> Path | None:
    """The extracted RestrictedPython source distribution (src/ and tests/), or None."""
    dest = cache / f"restrictedpython-{RESTRICTED['version']}"
    if dest.is_dir() and (dest / ".complete").exists():
        return dest
    _prepare_cache(cache)
    sdist = (_checked(cache / RESTRICTED["filename"], RESTRICTED)
             or _pip_download(RESTRICTED, cache, timeout))
    if sdist is None:
        return None
    with tarfile.open(sdist) as archive:
        for member in archive.getmembers():
            parts = member.name.split("/")
            if len(parts) < 3 or parts[1] not in ("src", "tests") or not member.isfile():
                continue
            source = archive.extractfile(member)
            assert source is not None
            target = dest.joinpath(*parts[1:])
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(source.read())
    (dest / ".complete").write_text("")
    return dest


# --------------------------------------------------------------------------------------------
# monty's cases


def _monty_config(text: str) -> dict:
    """The `# /// monty` block at the top of a case: key = value lines (TOML-ish)."""
    config: dict = {}
    match = re.match(r"# /// monty\n((?:#.*\n)*?)# ///\n", text)
    if not match:
        return config
    for line in match.group(1).splitlines():
        body = line.lstrip("#").strip()
        if "=" not in body:
            continue
        key, _, value = body.partition("=")
        value = value.split("  #")[0].strip()
        try:
            config[key.strip()] = ast.literal_eval(
                {"true": "True", "false": "False"}.get(value, value))
        except (ValueError, SyntaxError):
            config[key.strip()] = value
    return config


def parse_monty_case(path: Path) -> dict:
    text = path.read_text(encoding="utf-8")
    config = _monty_config(text)
    lines = text.rstrip("\n").split("\n")
    expect: dict = {"kind": "no-exception"}
    code = text
    marker = '"""\nTRACEBACK:\n'
    if marker in text:
        head, _, rest = text.partition(marker)
        traceback_text = rest.split('\n"""')[0]
        code = head.rstrip() + "\n"
        expect = {"kind": "raise-line", "value": traceback_text.strip().splitlines()[-1]}
    else:
        last = lines[-1]
        for prefix, kind in (("# ref-counts=", "no-exception"), ("# Return.str=", "str"),
                             ("# Return.type=", "type"), ("# Return=", "repr"),
                             ("# Raise=", "raise")):
            if last.startswith(prefix):
                expect = {"kind": kind, "value": last[len(prefix):]}
                code = "\n".join(lines[:-1]) + "\n"
                break
    exclude = None
    if config.get("call-external"):
        exclude = "call-external: needs the external functions Monty's test runner provides"
    elif config.get("mount-fs"):
        exclude = "mount-fs: needs Monty's mounted file system"
    elif "cpython" in (config.get("xfail") or []):
        exclude = "xfail cpython: the peer marks the case as failing on CPython"
    if config.get("run-async"):
        code = _wrap_async(code)
    return {"suite": "monty", "id": path.stem, "source": code, "expect": expect,
            "tz": config.get("timezone"), "exclude": exclude}


def _wrap_async(code: str) -> str:
    """Top-level await: the body in an async def run by asyncio.run; a last expression
    statement becomes the returned value (the program's value)."""
    tree = ast.parse(code)
    body = code.split("\n")
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = tree.body[-1]
        segment = ast.get_source_segment(code, last)
        if segment is not None and last.lineno == last.end_lineno:
            body[last.lineno - 1] = body[last.lineno - 1].replace(segment, "return " + segment, 1)
    indented = "\n".join(("    " + line) if line.strip() else line for line in body)
    return (f"import asyncio\n\n\nasync def __peer_main():\n{indented}\n    pass\n\n\n"
            "asyncio.run(__peer_main())\n")


def monty_cases(directory: Path) -> list[dict]:
    return [parse_monty_case(path) for path in sorted(directory.glob("*.py"))]


def check_expectation(expect: dict, result: dict) -> str | None:
    """None when CPython's outcome agrees with what monty keeps, else why not."""
    kind, value = expect["kind"], expect.get("value")
    error = result.get("error")
    if kind in ("raise", "raise-line"):
        if error is None:
            return f"CPython raised nothing, monty expects {value}"
        got = error["repr"] if kind == "raise" else (
            f"{error['type']}: {error['str']}" if error["str"] else error["type"])
        if kind == "raise-line" and error["type"] == "SyntaxError":
            got = f"SyntaxError: {error['str']}"
        return None if got == value else f"CPython {got}, monty expects {value}"
    if error is not None:
        return f"CPython raised {error['type']}: {error['str']}"
    if kind in ("repr", "str", "type"):
        got = result.get({"repr": "value", "str": "value_str", "type": "value_type"}[kind])
        return None if got == value else f"CPython {got!r}, monty expects {value!r}"
    return None


# --------------------------------------------------------------------------------------------
# RestrictedPython's allowed programs

CAPTURE_PLUGIN = r'''
"""Generated by smolagents_native's scripts/run_peer_suites.py: record the sources that
RestrictedPython's own tests compile with its default policy, in tests that pass."""
import ast, inspect, json, operator, os
from unittest import mock

import pytest
import RestrictedPython.compile as _compile
from RestrictedPython import (PrintCollector, RestrictingNodeTransformer, limited_builtins,
                              safe_builtins, utility_builtins)
from RestrictedPython.Eval import default_guarded_getitem, default_guarded_getiter
from RestrictedPython.Guards import (full_write_guard, guarded_iter_unpack_sequence,
                                     guarded_unpack_sequence, safer_getattr)

_ORIGINAL = _compile._compile_restricted_mode
_SIGNATURE = inspect.signature(_ORIGINAL)
_STATE = {"test": None}
_SEEN = []
_OUTCOME = {}


def _recording(*args, **kwargs):
    result = _ORIGINAL(*args, **kwargs)
    bound = _SIGNATURE.bind(*args, **kwargs)
    bound.apply_defaults()
    a = bound.arguments
    if (_STATE["test"] and isinstance(a["source"], str) and a["policy"] is RestrictingNodeTransformer
            and result.code is not None and not result.errors):
        _SEEN.append((_STATE["test"], a["mode"], a["source"]))
    return result


_compile._compile_restricted_mode = _recording


class _Mocker:  # the few parts of pytest-mock's fixture that RestrictedPython's tests use
    Mock, MagicMock, call = mock.Mock, mock.MagicMock, mock.call

    def __init__(self):
        self._patches = []

    def stub(self, name=None):
        return mock.MagicMock(spec=lambda *args, **kwargs: None, name=name)

    def patch(self, *args, **kwargs):
        p = mock.patch(*args, **kwargs)
        self._patches.append(p)
        return p.start()

    def stopall(self):
        for p in reversed(self._patches):
            p.stop()


@pytest.fixture
def mocker():
    m = _Mocker()
    yield m
    m.stopall()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    _STATE["test"] = item.nodeid


def pytest_runtest_logreport(report):
    if report.when == "call":
        _OUTCOME[report.nodeid] = report.outcome
    elif report.failed:
        _OUTCOME[report.nodeid] = "failed"


def pytest_runtest_teardown(item):
    _STATE["test"] = None


def _inplacevar(op, x, y):
    return {"+=": operator.iadd, "-=": operator.isub, "*=": operator.imul,
            "/=": operator.itruediv, "//=": operator.ifloordiv, "%=": operator.imod,
            "**=": operator.ipow, "<<=": operator.ilshift, ">>=": operator.irshift,
            "&=": operator.iand, "|=": operator.ior, "^=": operator.ixor,
            "@=": operator.imatmul}[op](x, y)


def _runs_restricted(mode, source):
    """Does the source run to completion under RestrictedPython's standard environment?"""
    builtins = dict(safe_builtins)
    builtins.update(limited_builtins)
    builtins.update(utility_builtins)
    glb = {"__builtins__": builtins, "__name__": "restricted_module", "__metaclass__": type,
           "_getattr_": safer_getattr, "_getitem_": default_guarded_getitem,
           "_getiter_": default_guarded_getiter,
           "_iter_unpack_sequence_": guarded_iter_unpack_sequence,
           "_unpack_sequence_": guarded_unpack_sequence, "_write_": full_write_guard,
           "_print_": PrintCollector, "_inplacevar_": _inplacevar,
           "_apply_": lambda f, *a, **k: f(*a, **k)}
    try:
        code = _ORIGINAL(source, "<peer>", mode).code
        if code is None:
            return "does not compile alone"
        eval(code, glb) if mode == "eval" else exec(code, glb)
    except BaseException as error:  # noqa: BLE001
        return f"{type(error).__name__}: {error}"[:200]
    return None


def pytest_sessionfinish(session, exitstatus):
    out, seen = [], set()
    for test, mode, source in _SEEN:
        if _OUTCOME.get(test) != "passed" or (mode, source) in seen:
            continue
        seen.add((mode, source))
        out.append({"test": test, "mode": mode, "source": source,
                    "restricted_error": _runs_restricted(mode, source)})
    with open(os.environ["PEER_CAPTURE_OUT"], "w") as f:
        json.dump({"programs": out, "tests": _OUTCOME}, f)
'''


def restricted_programs(root: Path, timeout: float) -> dict | None:
    """Run RestrictedPython's tests with the capture plugin; the captured programs (cached per
    interpreter version), or None when that could not run."""
    tag = f"py{sys.version_info[0]}{sys.version_info[1]}"
    out = root / f"programs-{tag}.json"
    if out.is_file():
        return json.loads(out.read_text())
    plugin_dir = root / "capture"
    plugin_dir.mkdir(exist_ok=True)
    (plugin_dir / "peer_capture.py").write_text(CAPTURE_PLUGIN)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join([str(root / "src"), str(plugin_dir), str(root)])
    env["PEER_CAPTURE_OUT"] = str(out.with_suffix(".tmp"))
    env.pop("PYTEST_ADDOPTS", None)
    cmd = [sys.executable, "-m", "pytest", "-q", "-p", "peer_capture", "-p", "no:cacheprovider",
           "-p", "no:randomly", "--rootdir", str(root), "-c", os.devnull, "tests"]
    log("collecting RestrictedPython's programs: " + " ".join(cmd))
    try:
        proc = subprocess.run(cmd, cwd=root, env=env, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        log(f"RestrictedPython's tests did not finish in {timeout:.0f}s")
        return None
    tmp = out.with_suffix(".tmp")
    if not tmp.is_file():
        log("RestrictedPython's tests wrote no programs:\n" + proc.stdout[-2000:]
            + proc.stderr[-2000:])
        return None
    tmp.replace(out)
    data = json.loads(out.read_text())
    data["pytest_summary"] = (proc.stdout.strip().splitlines() or [""])[-1]
    out.write_text(json.dumps(data))
    return data


def restricted_cases(data: dict) -> list[dict]:
    cases, counters = [], {}
    for program in data["programs"]:
        test = program["test"]
        counters[test] = counters.get(test, 0) + 1
        case_id = f"{test}#{counters[test]}"
        exclude = None
        if program["restricted_error"] is not None:
            exclude = "not run to completion under RestrictedPython's standard environment: " + \
                program["restricted_error"]
        cases.append({"suite": "restricted", "id": case_id, "source": program["source"],
                      "expect": None, "tz": None, "exclude": exclude})
    return cases


# --------------------------------------------------------------------------------------------
# Running: one child program for both sides

CHILD = r'''
import ast, builtins, io, json, os, re, sys, time, traceback
from contextlib import redirect_stdout, redirect_stderr

ADDRESS = re.compile(r"0x[0-9a-fA-F]+")
SIDE, OUT_FD = sys.argv[1], int(sys.argv[2])
out = os.fdopen(OUT_FD, "w", buffering=1)


def describe(value):
    def safe(f):
        try:
            return ADDRESS.sub("0x?", f(value))
        except BaseException as e:  # noqa: BLE001
            return "<%s failed: %s>" % (f.__name__, type(e).__name__)
    return {"value": safe(repr), "value_str": safe(str), "value_type": type(value).__name__}


def error_info(e):
    text = e.msg if isinstance(e, SyntaxError) else None
    try:
        s = str(e) if text is None else text
    except BaseException:  # noqa: BLE001
        s = "<str failed>"
    try:
        r = repr(e)
    except BaseException:  # noqa: BLE001
        r = "<repr failed>"
    return {"type": type(e).__name__, "str": ADDRESS.sub("0x?", s), "repr": ADDRESS.sub("0x?", r)}


def imports_of(tree):
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def run_cpython(case):
    source = case["source"]
    result = {"value_kind": None}
    buf = io.StringIO()
    ns = {"__name__": "__main__", "__builtins__": builtins}
    try:
        tree = ast.parse(source, "<case>")
        compile(tree, "<case>", "exec")
    except SyntaxError as e:
        result.update(error=error_info(e), logs="")
        return result
    last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    try:
        with redirect_stdout(buf):
            if last is None:
                exec(compile(tree, "<case>", "exec"), ns)
            else:
                exec(compile(ast.Module(tree.body[:-1], []), "<case>", "exec"), ns)
                value = eval(compile(ast.Expression(last.value), "<case>", "eval"), ns)
                result.update(describe(value))
                result["value_kind"] = "expr"
        result["error"] = None
    except BaseException as e:  # noqa: BLE001
        result["error"] = error_info(e)
    result["logs"] = ADDRESS.sub("0x?", buf.getvalue())
    return result


STEP_RE = re.compile(r"Code execution failed at line '.*?' due to: ([A-Za-z_][\w.]*): ?(.*)\Z", re.S)
PARSE_RE = re.compile(r"Code parsing failed on line \d+ due to: (\w+): (.*?) \(<unknown>, line \d+\)(\n|\Z)", re.S)


def from_message(text):
    """A process-mode step's error arrives as an InterpreterError whose message names the
    exception ('... due to: Type: message'): that exception, or None."""
    m = STEP_RE.match(text) or PARSE_RE.match(text)
    if m is None:
        return None
    kind, message = m.group(1), m.group(2)
    if kind == "InterpreterError":
        return from_message(message) or {"type": kind, "str": message, "repr": "", "ours": True}
    return {"type": kind.rsplit(".", 1)[-1], "str": ADDRESS.sub("0x?", message), "repr": "",
            "ours": False}


def run_native(case):
    import importlib.util
    import smolagents_native
    from smolagents_native import InterpreterError
    source = case["source"]
    try:
        tree = ast.parse(source)
    except SyntaxError:
        tree = ast.Module([], [])
    imports = sorted(m for m in imports_of(tree)
                     if m != "__future__" and importlib.util.find_spec(m) is not None)
    result = {"value_kind": None, "imports": imports}
    ex = smolagents_native.LocalPythonExecutor(additional_authorized_imports=imports,
                                               timeout_seconds=CASE_TIMEOUT)
    last = tree.body[-1] if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    try:
        with redirect_stdout(io.StringIO()), redirect_stderr(io.StringIO()):
            output = ex(source)
        result["error"] = None
        result["logs"] = output.logs
        if last is not None:
            result.update(describe(output.output))
            result["value_kind"] = "expr"
    except BaseException as e:  # noqa: BLE001
        info = None
        cause = e
        while True:
            if cause.__cause__ is not None:
                cause = cause.__cause__
                continue
            if isinstance(cause, InterpreterError):
                info = from_message(str(cause))
            break
        if info is None:
            info = error_info(cause)
            info["ours"] = isinstance(cause, InterpreterError)
        info["step"] = str(e)[:500]
        result["error"] = info
        logs = ex.state.get("_print_outputs", "")
        result["logs"] = str(getattr(logs, "value", logs))
    result["logs"] = ADDRESS.sub("0x?", result["logs"] or "")
    return result


CASE_TIMEOUT = float(os.environ.get("PEER_CASE_TIMEOUT", "20"))
def one(case):
    t0 = time.perf_counter()
    try:
        result = run_cpython(case) if SIDE == "cpython" else run_native(case)
    except BaseException as e:  # noqa: BLE001  (a failure of the harness itself)
        result = {"harness_error": traceback.format_exc()[-1500:]}
    result["key"] = case["key"]
    result["secs"] = round(time.perf_counter() - t0, 3)
    return result


TZ = os.environ.get("TZ")
cases = json.load(sys.stdin)
for case in cases:
    out.write(json.dumps({"start": case["key"]}) + "\n")
    if SIDE == "cpython":
        # A fresh process per case: a fork of this pristine interpreter.
        pid = os.fork()
        if pid == 0:
            try:
                import signal
                signal.alarm(int(CASE_TIMEOUT) + 5)
                if case.get("tz"):
                    os.environ["TZ"] = case["tz"]
                    time.tzset()
                out.write(json.dumps(one(case)) + "\n")
                out.flush()
            finally:
                os._exit(0)
        _, status = os.waitpid(pid, 0)
        if status:
            out.write(json.dumps({"key": case["key"], "crashed": "CPython's process: wait status %d" % status}) + "\n")
        continue
    if case.get("tz"):
        os.environ["TZ"] = case["tz"]
        time.tzset()
    out.write(json.dumps(one(case)) + "\n")
    if case.get("tz"):
        if TZ is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = TZ
        time.tzset()
out.close()
'''


def _child_env(tz: str | None = None) -> dict:
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO)] + ([env["PYTHONPATH"]] if env.get("PYTHONPATH") else []))
    env["PYTHONHASHSEED"] = "0"
    env.pop("PYTHONSTARTUP", None)
    return env


def _kill_group(proc: subprocess.Popen) -> None:
    try:
        os.killpg(proc.pid, 9)
    except ProcessLookupError:
        pass


def run_batch(side: str, cases: list[dict], case_timeout: float) -> dict[str, dict]:
    """Run `cases` in one child process of `side` ("cpython" or "native"), restarting after a
    crash or a hang: results keyed by case key."""
    results: dict[str, dict] = {}
    pending = list(cases)
    while pending:
        read_fd, write_fd = os.pipe()
        with tempfile.TemporaryFile() as stderr_file:
            proc = subprocess.Popen(
                [sys.executable, "-c", CHILD, side, str(write_fd)],
                stdin=subprocess.PIPE, stdout=subprocess.DEVNULL, stderr=stderr_file,
                pass_fds=(write_fd,), env=_child_env(), cwd=tempfile.gettempdir(),
                start_new_session=True)
            os.close(write_fd)
            payload = json.dumps(
                [{k: c[k] for k in ("key", "source", "tz")} for c in pending]).encode()
            try:
                proc.stdin.write(payload)
                proc.stdin.close()
            except BrokenPipeError:
                pass
            current, deadline, buffer = None, time.monotonic() + case_timeout + 30, b""
            selector = selectors.DefaultSelector()
            selector.register(read_fd, selectors.EVENT_READ)
            eof = False
            while not eof:
                remaining = deadline - time.monotonic()
                if remaining <= 0:
                    _kill_group(proc)
                    break
                if not selector.select(timeout=min(remaining, 1.0)):
                    continue
                chunk = os.read(read_fd, 65536)
                if not chunk:
                    eof = True
                    break
                buffer += chunk
                while b"\n" in buffer:
                    line, buffer = buffer.split(b"\n", 1)
                    message = json.loads(line)
                    if "start" in message:
                        current = message["start"]
                        deadline = time.monotonic() + case_timeout
                    else:
                        results[message["key"]] = message
                        current = None
            selector.close()
            os.close(read_fd)
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                _kill_group(proc)
                proc.wait()
            stderr_file.seek(0)
            stderr_text = stderr_file.read().decode("utf-8", "replace")[-1500:]
        done = {c["key"] for c in pending if c["key"] in results}
        if current is not None and current not in results:
            hung = not eof
            results[current] = {"key": current, "crashed": (
                f"no result within {case_timeout:.0f}s" if hung else
                f"child exited with status {proc.returncode}") + (
                    f"; stderr: {stderr_text.strip()[-600:]}" if stderr_text.strip() else "")}
            done.add(current)
        elif len(done) < len(pending) and current is None and not done and proc.returncode:
            # died before starting any case: the harness cannot run this side at all
            for c in pending:
                results[c["key"]] = {"key": c["key"], "crashed":
                                     f"child failed to start: {stderr_text.strip()[-600:]}"}
            break
        pending = [c for c in pending if c["key"] not in done]
    return results


def run_side(side: str, cases: list[dict], batch: int, case_timeout: float,
             verbose: bool) -> dict[str, dict]:
    results: dict[str, dict] = {}
    size = batch
    started = time.monotonic()
    for i in range(0, len(cases), size):
        results.update(run_batch(side, cases[i:i + size], case_timeout))
        if verbose and (i // size) % 50 == 0:
            log(f"  {side}: {min(i + size, len(cases))}/{len(cases)} "
                f"({time.monotonic() - started:.0f}s)")
    return results


# --------------------------------------------------------------------------------------------
# Comparing


def load_reviewed(path: Path = REVIEWED_FILE) -> tuple[list[dict], list[dict]]:
    data = json.loads(path.read_text())
    return data["refusals"], data.get("differences", [])


def _error_text(error: dict | None) -> str:
    if error is None:
        return "no exception"
    return f"{error['type']}: {error['str']}"


def _missing_builtin(error: dict) -> bool:
    """NameError for a builtin CPython has and the sandbox does not offer (exec, open...)."""
    match = re.fullmatch(r"name '(\w+)' is not defined", error["str"])
    return error["type"] == "NameError" and match is not None and \
        match.group(1) in vars(builtins)


def compare(case: dict, cpy: dict, ours: dict, reviewed: list[dict],
            known_differences: list[dict]) -> dict:
    """The outcome of one case: status and details."""
    row = {"suite": case["suite"], "id": case["id"]}
    if "crashed" in ours:
        row.update(status="crashed", detail=ours["crashed"])
        return row
    for side, res in (("cpython", cpy), ("ours", ours)):
        if "harness_error" in res or "crashed" in res:
            row.update(status="crashed",
                       detail=f"{side}: " + res.get("harness_error", res.get("crashed", "")))
            return row
    problems = []
    c_err, o_err = cpy.get("error"), ours.get("error")
    if (c_err is None) != (o_err is None) or (
            c_err and o_err and (c_err["type"], c_err["str"]) != (o_err["type"], o_err["str"])):
        problems.append(f"exception: CPython {_error_text(c_err)} | ours {_error_text(o_err)}")
    if cpy.get("logs", "") != ours.get("logs", ""):
        problems.append(f"printed: CPython {cpy.get('logs', '')[-300:]!r} | "
                        f"ours {ours.get('logs', '')[-300:]!r}")
    if c_err is None and o_err is None and cpy.get("value_kind") == "expr" and \
            cpy.get("value") != ours.get("value"):
        problems.append(f"value: CPython {cpy.get('value')!r} | ours {ours.get('value')!r}")
    if not problems:
        row["status"] = "same"
        return row
    row["detail"] = "; ".join(problems)
    refused = o_err is not None and (
        o_err.get("ours") or REFUSAL_RE.search(o_err["str"]) is not None
        or _missing_builtin(o_err) or o_err["type"] == "KeyboardInterrupt") and (
        c_err is None or (c_err["type"], c_err["str"]) != (o_err["type"], o_err["str"]))
    if refused:
        row["status"] = "refused"
        row["message"] = f"{o_err['type']}: {o_err['str']}"
        match = next((r for r in reviewed if r["suite"] == case["suite"]
                      and r["case"] == case["id"] and r["message"] in row["message"]), None)
        row["reviewed"] = match["reason"] if match else None
    else:
        row["status"] = "differ"
        match = next((d for d in known_differences if d["suite"] == case["suite"]
                      and d["case"] == case["id"] and d["detail"] in row["detail"]), None)
        row["known"] = match["reason"] if match else None
    return row


def evaluate(cases: list[dict], cpy_results: dict, our_results: dict,
             reviewed: list[dict], known_differences: list[dict]) -> list[dict]:
    rows = []
    for case in cases:
        key = case["key"]
        cpy = cpy_results.get(key, {"crashed": "no CPython result"})
        ours = our_results.get(key)
        disagreement = None
        if case["exclude"] is None and case.get("expect") and "error" in cpy:
            disagreement = check_expectation(case["expect"], cpy)
        exclude = case["exclude"] or (
            f"CPython disagrees with the peer's expectation: {disagreement}"
            if disagreement else None)
        if exclude is None and "crashed" in cpy:
            # CPython itself died on the program (3.10 segfaults on one of monty's cases).
            exclude = "CPython itself crashed: " + cpy["crashed"]
        if ours is None:  # not run on our side (excluded up front)
            rows.append({"suite": case["suite"], "id": case["id"], "status": "excluded",
                         "detail": exclude})
            continue
        row = compare(case, cpy, ours, reviewed, known_differences)
        if exclude is not None:
            row = {"suite": case["suite"], "id": case["id"], "status": "excluded",
                   "detail": exclude, "informational": row["status"],
                   "informational_detail": row.get("detail")}
        rows.append(row)
    return rows


# --------------------------------------------------------------------------------------------


def summarize(rows: list[dict]) -> dict:
    counts: dict = {}
    for row in rows:
        per = counts.setdefault(row["suite"], {k: 0 for k in (
            "same", "differ (known)", "differ (new)", "refused (reviewed)",
            "refused (unreviewed)", "crashed", "excluded")})
        status = row["status"]
        if status == "refused":
            status = "refused (reviewed)" if row.get("reviewed") else "refused (unreviewed)"
        elif status == "differ":
            status = "differ (known)" if row.get("known") else "differ (new)"
        per[status] += 1
    return counts


def _line(text: str | None, limit: int = 400) -> str:
    text = (text or "").replace("\n", "\\n")
    return text if len(text) <= limit else text[:limit] + "..."


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", choices=["monty", "restricted", "all"], default="all")
    parser.add_argument("--case", action="append", default=[],
                        help="run only the cases whose id contains this (repeatable)")
    parser.add_argument("--cache-dir", type=Path,
                        default=Path(os.environ.get("SMOLAGENTS_NATIVE_UPSTREAM_CACHE",
                                                    REPO / ".upstream-cache")),
                        help="where downloads are kept (default <repo>/.upstream-cache, or "
                        "$SMOLAGENTS_NATIVE_UPSTREAM_CACHE)")
    parser.add_argument("--json", type=Path, default=None, help="write every case's row here")
    parser.add_argument("--batch", type=int, default=100,
                        help="cases per child process on our side (default 100)")
    parser.add_argument("--case-timeout", type=float, default=30.0)
    parser.add_argument("--download-timeout", type=float, default=300.0)
    parser.add_argument("--no-restricted-replay", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("-v", "--verbose", action="store_true",
                        help="progress, and the excluded cases' informational comparison")
    args = parser.parse_args(argv)

    cache = args.cache_dir.resolve()
    unavailable = []
    cases: list[dict] = []
    meta: dict = {"python": sys.version.split()[0]}
    if args.suite in ("monty", "all"):
        directory = obtain_monty(cache, args.download_timeout)
        if directory is None:
            unavailable.append(f"monty ({MONTY['project']}=={MONTY['version']})")
        else:
            cases += monty_cases(directory)
            meta["monty"] = f"{MONTY['project']}=={MONTY['version']}"
    if args.suite in ("restricted", "all"):
        if sys.version_info < (3, 11):
            log(f"RestrictedPython {RESTRICTED['version']} needs Python 3.11+: suite skipped")
        else:
            root = obtain_restricted(cache, args.download_timeout)
            data = restricted_programs(root, 600) if root is not None else None
            if data is None:
                unavailable.append(f"RestrictedPython=={RESTRICTED['version']}")
            else:
                cases += restricted_cases(data)
                meta["restricted"] = (f"RestrictedPython=={RESTRICTED['version']}, its tests: "
                                      f"{data.get('pytest_summary', '')}")
    if args.case:
        cases = [c for c in cases if any(s in c["id"] for s in args.case)]
    for index, case in enumerate(cases):
        case["key"] = str(index)

    reviewed, known_differences = load_reviewed()
    # Excluded up front (needs the peer's host): not run at all. The others run on both sides.
    runnable = [c for c in cases if not (c["exclude"] or "").startswith(
        ("call-external", "mount-fs", "not run to completion"))]
    started = time.monotonic()
    log(f"running {len(runnable)} cases under CPython (a forked process each) ...")
    cpy_results = run_side("cpython", runnable, args.batch, args.case_timeout, args.verbose)
    log(f"... {time.monotonic() - started:.0f}s; under smolagents_native "
        f"(batches of {args.batch}) ...")
    our_results = run_side("native", runnable, args.batch, args.case_timeout, args.verbose)
    log(f"... {time.monotonic() - started:.0f}s")
    rows = evaluate(cases, cpy_results, our_results, reviewed, known_differences)

    counts = summarize(rows)
    failing = [r for r in rows if r["status"] == "crashed"
               or (r["status"] == "differ" and not r.get("known"))
               or (r["status"] == "refused" and not r.get("reviewed"))]
    stale = [r for r in reviewed
             if not any(x["suite"] == r["suite"] and x["id"] == r["case"]
                        and x["status"] == "refused" and x.get("reviewed") for x in rows)
             and any(c["suite"] == r["suite"] and c["id"] == r["case"] for c in cases)]

    print(f"Python {meta['python']}: " + "; ".join(
        f"{meta[s]}" for s in ("monty", "restricted") if s in meta))
    for suite, per in counts.items():
        print(f"  {suite:10s} " + ", ".join(f"{k} {v}" for k, v in per.items()))
    if args.verbose:
        for row in rows:
            if row["status"] == "excluded" and row.get("informational") not in (None, "same"):
                print(f"  [excluded, {row['informational']}] {row['suite']}:{row['id']}: "
                      f"{_line(row.get('informational_detail'))}")
    for row in rows:
        if row["status"] == "refused" and row.get("reviewed") and args.verbose:
            print(f"  [refused, reviewed] {row['suite']}:{row['id']}: {_line(row['message'])}")
        if row["status"] == "differ" and row.get("known"):
            print(f"  [differ, known] {row['suite']}:{row['id']}: {_line(row['detail'])}")
    for row in failing:
        label = row["status"] + (" (unreviewed)" if row["status"] == "refused" else "")
        print(f"  [{label}] {row['suite']}:{row['id']}: {_line(row.get('detail'))}")
    for r in stale if args.verbose else ():
        # Often version-specific: on this version the case passes, or is excluded.
        print(f"  [review unused here] {r['suite']}:{r['case']}: not refused with "
              f"{r['message']!r}")
    if unavailable:
        log("error: could not obtain: " + ", ".join(unavailable))
    if args.json is not None:
        args.json.write_text(json.dumps({"meta": meta, "counts": counts, "rows": rows,
                                         "unavailable": unavailable,
                                         "stale_reviews": stale}, indent=1) + "\n")
    passed = len(rows) - len(failing)
    print(f"peer suites: {passed} passed, {len(failing)} failed", flush=True)
    if unavailable:
        return EXIT_UNAVAILABLE
    return EXIT_DIFF if failing else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
