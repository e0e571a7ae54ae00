"""Differential tests: every program in tests/programs/ runs under CPython and
under smolagents_native's LocalPythonExecutor; the two must agree on

  (a) the printed text (for a failing program: the prints made before the failure),
  (b) the uncaught exception, if any: its type name and message,
  (c) the final module-level variables that hold plain data.

CPython is the oracle. A mismatch is a bug in the executor.

A program whose first line is ``# requires: 3.N`` uses syntax or behaviour of
CPython 3.N and later: it is skipped (with that reason) on older versions, and
on newer ones compared with the CPython it runs on, like any other program.
"""

from __future__ import annotations

import contextlib
import difflib
import io
import re
import sys
from pathlib import Path

import pytest

PROGRAMS_DIR = Path(__file__).resolve().parents[1] / "programs"
PROGRAMS = sorted(PROGRAMS_DIR.glob("*.py"))

_PLAIN_SCALARS = (type(None), bool, int, float, str, bytes)
_PLAIN_CONTAINERS = (tuple, list, dict, set, frozenset)
_DUE_TO = re.compile(r"due to: (?P<type>[A-Za-z_][\w.]*): (?P<msg>.*)\Z", re.S)
_REQUIRES = re.compile(r"#\s*requires:\s*(\d+)\.(\d+)\s*\Z")


def required_version(path: Path) -> tuple[int, int] | None:
    """The (major, minor) a program's ``# requires: 3.N`` first line names, or None."""
    with open(path, encoding="utf-8") as fh:
        first = fh.readline().strip()
    m = _REQUIRES.match(first)
    return (int(m.group(1)), int(m.group(2))) if m else None


def runs_here(path: Path) -> bool:
    """True when the running CPython is recent enough for the program."""
    need = required_version(path)
    return need is None or sys.version_info[:2] >= need


def skip_unless_runs_here(path: Path) -> None:
    if not runs_here(path):
        major, minor = required_version(path)
        pytest.skip(f"{path.name} requires CPython {major}.{minor}")


# --------------------------------------------------------------------------- runners


def run_under_cpython(src: str, path: Path):
    """Run ``src`` with exec; return (stdout, exc, globals).

    ``exc`` is None or ``(type name, str(exception))`` for an uncaught exception.
    """
    g = {"__name__": "__main__"}
    buf = io.StringIO()
    exc = None
    code = compile(src, str(path), "exec", dont_inherit=True)
    with contextlib.redirect_stdout(buf):
        try:
            exec(code, g)
        except Exception as e:  # noqa: BLE001 - we record whatever the program raised
            exc = (type(e).__name__, str(e))
    return buf.getvalue(), exc, g


def describe_interpreter_error(err) -> tuple[str, str]:
    """(type name, message) of the user exception behind an InterpreterError."""
    cause = err.__cause__
    if cause is not None:
        return type(cause).__name__, str(cause)
    text = str(err)
    m = _DUE_TO.search(text)
    if m:
        return m.group("type"), m.group("msg")
    return type(err).__name__, text


def run_under_executor(src: str, make_executor):
    """Run ``src`` in a fresh executor; return (printed text, exc, state)."""
    from smolagents_native import InterpreterError

    ex = make_executor()
    stray = io.StringIO()  # nothing should reach the real stdout; keep test output clean
    exc = None
    with contextlib.redirect_stdout(stray):
        try:
            out = ex(src)
            printed = out.logs
        except InterpreterError as err:
            exc = describe_interpreter_error(err)
            printed = str(ex.state.get("_print_outputs", ""))
    return printed, exc, ex.state


# --------------------------------------------------------------------------- plain data


def _is_plain(value, _active=None) -> bool:
    """True for None/bool/int/float/str/bytes and tuple/list/dict/set/frozenset of those."""
    t = type(value)
    if t in _PLAIN_SCALARS:
        return True
    if t not in _PLAIN_CONTAINERS:
        return False
    active = _active if _active is not None else set()
    if id(value) in active:  # self-referential container: not compared
        return False
    active.add(id(value))
    try:
        if t is dict:
            return all(_is_plain(k, active) and _is_plain(v, active) for k, v in value.items())
        return all(_is_plain(item, active) for item in value)
    finally:
        active.discard(id(value))


def canonical_repr(value, _depth=0) -> str:
    """repr() with sets printed sorted (their iteration order is an accident of
    hashing history); dict order is kept, since it is part of Python's semantics.
    A value of a non-plain type shows its type, so a list standing in for a
    tuple, or a subclass standing in for the exact type, is a visible difference."""
    if _depth > 50:
        return "<too deep>"
    t = type(value)
    if t in _PLAIN_SCALARS:
        return repr(value)
    if t is list:
        return "[" + ", ".join(canonical_repr(v, _depth + 1) for v in value) + "]"
    if t is tuple:
        inner = ", ".join(canonical_repr(v, _depth + 1) for v in value)
        return "(" + inner + ("," if len(value) == 1 else "") + ")"
    if t is dict:
        return "{" + ", ".join(
            f"{canonical_repr(k, _depth + 1)}: {canonical_repr(v, _depth + 1)}" for k, v in value.items()
        ) + "}"
    if t in (set, frozenset):
        inner = ", ".join(sorted(canonical_repr(v, _depth + 1) for v in value))
        return f"{t.__name__}({{{inner}}})"
    try:
        text = repr(value)
    except Exception as e:  # noqa: BLE001
        text = f"<repr failed: {type(e).__name__}: {e}>"
    return f"<{t.__module__}.{t.__qualname__}> {text}"


def plain_globals(g: dict) -> dict:
    """User variables of a CPython run that hold plain data, in definition order."""
    return {k: v for k, v in g.items() if not k.startswith("_") and _is_plain(v)}


# --------------------------------------------------------------------------- reporting


def _text_diff(expected: str, actual: str) -> str:
    lines = difflib.unified_diff(
        expected.splitlines(keepends=True),
        actual.splitlines(keepends=True),
        fromfile="cpython stdout",
        tofile="executor output",
    )
    out = "".join(line if line.endswith("\n") else line + "\n" for line in lines)
    return out or "(texts differ only in a trailing newline)\n"


def compare(name: str, cpython_result, executor_result) -> list[str]:
    """Return a list of human-readable problems (empty when the runs agree)."""
    c_out, c_exc, c_globals = cpython_result
    e_out, e_exc, e_state = executor_result
    problems = []
    if c_exc != e_exc:
        problems.append(
            "uncaught exception differs:\n"
            f"  cpython : {c_exc!r}\n"
            f"  executor: {e_exc!r}"
        )
    if c_out != e_out:
        problems.append("printed output differs:\n" + _text_diff(c_out, e_out))
    missing, different = [], []
    for key, value in plain_globals(c_globals).items():
        if key not in e_state:
            missing.append(key)
            continue
        want, got = canonical_repr(value), canonical_repr(e_state[key])
        if want != got:
            different.append(f"  {key}:\n    cpython : {want}\n    executor: {got}")
    if missing:
        problems.append("variables missing from executor state: " + ", ".join(missing))
    if different:
        problems.append("variables differ:\n" + "\n".join(different))
    return problems


# --------------------------------------------------------------------------- tests


def test_version_requirements_are_well_formed():
    """A `requires` line anywhere but first, or misspelt, would silently not gate."""
    for path in PROGRAMS:
        lines = path.read_text(encoding="utf-8").splitlines()
        for i, line in enumerate(lines):
            if "requires:" in line and line.lstrip().startswith("#"):
                assert i == 0 and _REQUIRES.match(line.strip()), f"{path.name}:{i + 1}: {line!r}"
        need = required_version(path)
        assert need is None or (3, 10) < need <= (3, 15), f"{path.name}: requires {need}"


def test_corpus_is_large_enough():
    assert len(PROGRAMS) >= 170, f"only {len(PROGRAMS)} programs in {PROGRAMS_DIR}"


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_program_is_deterministic_under_cpython(path):
    """Guard for the corpus itself: two CPython runs must agree exactly."""
    skip_unless_runs_here(path)
    src = path.read_text(encoding="utf-8")
    first = run_under_cpython(src, path)
    second = run_under_cpython(src, path)
    assert first[:2] == second[:2], f"{path.name} is not deterministic under CPython"
    assert first[0], f"{path.name} prints nothing: it should print its observations"


@pytest.mark.parametrize("path", PROGRAMS, ids=lambda p: p.stem)
def test_program_matches_cpython(path, make_executor):
    skip_unless_runs_here(path)
    src = path.read_text(encoding="utf-8")
    expected = run_under_cpython(src, path)
    actual = run_under_executor(src, make_executor)
    problems = compare(path.name, expected, actual)
    if problems:
        pytest.fail(f"{path.name}: executor disagrees with CPython\n" + "\n\n".join(problems), pytrace=False)
