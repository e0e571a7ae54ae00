"""CPython's own `Lib/test` language modules under the executor (issue 40; docs/compatibility.md,
"CPython's Lib/test").

`scripts/run_cpython_tests.py` runs every module of its list under CPython and as a step of
`LocalPythonExecutor(["*"], isolation="none")`, test by test, each side in subprocesses of its
own with a time bound per test and per module; its metric leaves out the tests a reviewed rule
of `scripts/cpython_tests_reviewed.json` refuses on purpose. This test holds the issue's bar on
CPython 3.13 (the version it names; about four minutes, in one process of the suite's):

* no test crashes or hangs in the sandbox (none past its time bound);
* at least 98% of the tests that pass natively and are not refused by a reviewed rule pass;
* every module of the list ran on both sides.

On other versions it is skipped (the script measures them by hand: the closing notes give
their counts). Where the interpreter has no `test` package (a distribution that strips it) it
is skipped outside CI and fails in CI.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
VERSION = (3, 13)
MIN_PERCENT = 98.0

pytestmark = pytest.mark.skipif(
    sys.version_info[:2] != VERSION,
    reason=f"Lib/test is measured in the suite on {VERSION[0]}.{VERSION[1]} only")


def test_lib_test_language_modules_pass_under_the_executor(tmp_path):
    try:
        import test.support  # noqa: F401
    except ImportError:
        if os.environ.get("CI"):
            pytest.fail("this interpreter has no Lib/test (the `test` package)")
        pytest.skip("this interpreter has no Lib/test (the `test` package)")
    out = tmp_path / "libtest.json"
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "run_cpython_tests.py"), "--json", str(out)],
        cwd=tmp_path, capture_output=True, text=True, timeout=1500)
    assert proc.returncode == 0, proc.stderr[-4000:]
    report = json.loads(out.read_text())
    total = report["metric"]["total"]
    causes = "\n".join(f"  {c['count']}: {c['cause']} ({c['example_id']})"
                       for c in report["metric"]["top_causes"][:15])
    assert total["crashed"] == 0 and total["timeout"] == 0, (total, causes)
    missing = [m for m, unit in report["modules"].items()
               if "sandbox" not in unit and not unit.get("missing")]
    assert not missing, missing
    assert total["percent"] >= MIN_PERCENT, (
        f"{total['P']}/{total['N']} = {total['percent']}% < {MIN_PERCENT}%; "
        f"most common causes:\n{causes}")
