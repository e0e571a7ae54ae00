"""Data agents in process mode (docs/isolation.md, "Two tiers"): the programs of corpus.py,
run by CPython, by smolagents' executor and by ours, with the libraries authorized by their
base names (`"numpy"`) and by wildcards (`"numpy.*"`). What must hold:

- with wildcards, every program prints what it prints under CPython;
- with base names, every program smolagents runs as CPython does, ours does too (smolagents'
  submodule rule refuses `from scipy import stats` with only `"scipy"`, and so do we).

Runs when the libraries are installed (CI installs them with the `upstream` extra). The counts
are printed (`pytest -s tests/libraries`).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import warnings

import pytest

from .corpus import PROGRAMS, STDLIB

for _name in ("numpy", "pandas", "scipy", "sklearn", "matplotlib", "PIL", "tabulate"):
    pytest.importorskip(_name)

_RUNNER = r"""
import contextlib, io, json, os, sys, tempfile
programs = json.loads(sys.stdin.read())
out = {}
for name, code in programs.items():
    buf = io.StringIO()
    with tempfile.TemporaryDirectory() as d:
        os.chdir(d)
        try:
            with contextlib.redirect_stdout(buf):
                exec(compile(code, "<program>", "exec"), {"__name__": "__main__"})
            out[name] = buf.getvalue()
        except BaseException as exc:
            out[name] = None
print(json.dumps(out))
"""


def _forms(libs: tuple[str, ...]) -> dict[str, list[str]]:
    return {"base": [*STDLIB, *libs], "wildcard": [*STDLIB, *(f"{m}.*" for m in libs)]}


@pytest.fixture(scope="module")
def cpython() -> dict[str, str | None]:
    """Every program's output under CPython (one process, each program with fresh globals
    in a fresh working directory)."""
    proc = subprocess.run(
        [sys.executable, "-c", _RUNNER], input=json.dumps({n: c for n, (_l, c) in PROGRAMS.items()}),
        capture_output=True, text=True, timeout=600, env={**os.environ, "MPLBACKEND": "Agg"})
    assert proc.returncode == 0, proc.stderr
    return json.loads(proc.stdout.strip().splitlines()[-1])


@pytest.fixture(scope="module")
def pool():
    from smolagents_native import WorkerPool

    with WorkerPool(size=4) as shared:
        yield shared


def ours(code: str, imports: list[str], pool) -> tuple[str | None, str]:
    from smolagents_native import InterpreterError, LocalPythonExecutor

    with LocalPythonExecutor(imports, timeout_seconds=120, pool=pool) as ex:
        assert ex.isolation == "process"
        try:
            return ex(code).logs, ""
        except InterpreterError as exc:
            return None, str(exc)


def smolagents_run(code: str, imports: list[str]) -> str | None:
    smol = pytest.importorskip("smolagents.local_python_executor")
    ex = smol.LocalPythonExecutor(additional_authorized_imports=imports)
    ex.send_tools({})
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return ex(code).logs
    except Exception:  # noqa: BLE001 - any failure of smolagents' executor
        return None


RESULTS: dict[str, dict[str, bool]] = {}


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_wildcard_names_run_as_cpython(name, cpython, pool):
    libs, code = PROGRAMS[name]
    expected = cpython[name]
    assert expected is not None, f"{name} fails under CPython itself"
    got, error = ours(code, _forms(libs)["wildcard"], pool)
    RESULTS.setdefault(name, {})["ours_wildcard"] = got == expected
    RESULTS[name]["smolagents_wildcard"] = smolagents_run(code, _forms(libs)["wildcard"]) == expected
    assert got == expected, error or got


@pytest.mark.parametrize("name", sorted(PROGRAMS))
def test_base_names_run_whatever_smolagents_runs(name, cpython, pool):
    libs, code = PROGRAMS[name]
    expected = cpython[name]
    smol_ok = smolagents_run(code, _forms(libs)["base"]) == expected
    got, error = ours(code, _forms(libs)["base"], pool)
    RESULTS.setdefault(name, {})["ours_base"] = got == expected
    RESULTS[name]["smolagents_base"] = smol_ok
    if smol_ok:
        assert got == expected, error or got


def test_counts_are_reported():
    """Printed with `pytest -s`: how many programs each engine runs as CPython does."""
    if not RESULTS:
        pytest.skip("run with the corpus tests")
    cols = ("ours_wildcard", "smolagents_wildcard", "ours_base", "smolagents_base")
    counts = {c: sum(1 for r in RESULTS.values() if r.get(c)) for c in cols}
    print(f"\nlibrary corpus, {len(PROGRAMS)} programs, same output as CPython: {counts}")
    assert counts["ours_wildcard"] >= counts["smolagents_wildcard"]


def test_values_come_back_as_values(pool):
    """numpy and pandas objects, datetimes, Decimals and Fractions a step makes reach the
    host as real objects: the step's output, `state`, a final answer."""
    import datetime
    import decimal
    import fractions

    import numpy as np
    import pandas as pd

    from smolagents_native import LocalPythonExecutor

    with LocalPythonExecutor(["numpy", "pandas", "decimal", "fractions"], pool=pool) as ex:
        out = ex("import numpy as np\nnp.arange(5).sum()")
        assert type(out.output) is np.int64 and out.output + 1 == 11
        ex("import pandas as pd\ndf = pd.DataFrame({'a': [1, 2], 'b': ['x', 'y']})\n"
           "arr = np.linspace(0, 1, 5)\nwhen = pd.Timestamp('2024-01-02', tz='UTC')\n"
           "import datetime, decimal, fractions\nd = datetime.date(2024, 5, 6)\n"
           "money = decimal.Decimal('1.10')\nthird = fractions.Fraction(1, 3)")
        state = ex.state
        assert state["df"].equals(pd.DataFrame({"a": [1, 2], "b": ["x", "y"]}))
        assert np.array_equal(state["arr"], np.linspace(0, 1, 5))
        assert state["when"] == pd.Timestamp("2024-01-02", tz="UTC")
        assert (state["d"], state["money"], state["third"]) == (
            datetime.date(2024, 5, 6), decimal.Decimal("1.10"), fractions.Fraction(1, 3))
        ex.send_tools({"final_answer": lambda answer: answer})
        out = ex("final_answer(df.assign(c=df['a'] * 2))")
        assert out.is_final_answer and out.output["c"].tolist() == [2, 4]
        # what no codec describes is a stand-in, whose text is the object's repr there
        out = ex("decimal.getcontext()")
        assert repr(out.output).startswith("Context(prec=28")


IN_PROCESS = ["pd_read_csv_stringio", "pd_json_roundtrip", "std_csv_json_zip", "np_structured_io",
              "np_median_percentile", "pd_pivot_table", "scipy_linregress"]
# (not scipy_ttest: scipy < 1.16 makes a new distribution for the p-value, whose __init__
# compiles an argument parser from a template; compiling stays refused in process)


@pytest.mark.parametrize("name", IN_PROCESS)
def test_in_process_libraries_get_the_objects_they_are_given(name, cpython):
    """In process (`isolation="none"`), readers and writers receive the StringIO or BytesIO
    they are given (not a deadline wrapper), and library introspection of the installation's
    own functions (np.median, pivot_table, scipy.stats.linregress) runs."""
    from smolagents_native import LocalPythonExecutor

    libs, code = PROGRAMS[name]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        ex = LocalPythonExecutor(_forms(libs)["wildcard"], isolation="none", timeout_seconds=60)
    assert ex(code).logs == cpython[name]
