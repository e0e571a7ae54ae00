#!/usr/bin/env python3
"""Smoke test of an *installed* smolagents-native (a wheel in a fresh venv).

Run it with the venv's interpreter from a directory outside the source tree (`.ci/run` does,
from a temporary directory): it checks that the package and its extension come from
site-packages, that the metadata is the wheel's (version, SPDX license, LICENSE file), that the
executor runs code and enforces its import policy, and that the command line works.
Exit status 0 when everything holds; a message and 1 otherwise.

Usage: python wheel_smoke.py [--source-tree DIR]   (DIR: the repository, which must NOT be
where the package is imported from)
"""

from __future__ import annotations

import argparse
import importlib.metadata
import os
import subprocess
import sys
import sysconfig
import tempfile


def check(condition: bool, what: str) -> None:
    if not condition:
        print(f"wheel smoke test FAILED: {what}", file=sys.stderr)
        raise SystemExit(1)
    print(f"ok: {what}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--source-tree", help="the repository (must not be imported from)")
    args = parser.parse_args()

    import smolagents_native
    from smolagents_native import InterpreterError, LocalPythonExecutor, _core

    purelib = os.path.realpath(sysconfig.get_paths()["purelib"])
    platlib = os.path.realpath(sysconfig.get_paths()["platlib"])
    pkg = os.path.realpath(os.path.dirname(smolagents_native.__file__))
    core = os.path.realpath(_core.__file__)
    check(pkg.startswith((purelib, platlib)), f"package imported from site-packages ({pkg})")
    check(core.startswith((purelib, platlib)), f"extension imported from site-packages ({core})")
    if args.source_tree:
        tree = os.path.realpath(args.source_tree)
        check(not pkg.startswith(tree + os.sep), "package not imported from the source tree")

    dist = importlib.metadata.distribution("smolagents-native")
    check(dist.version == smolagents_native.__version__,
          f"metadata version {dist.version} == __version__")
    meta = dist.metadata
    check(meta.get("License-Expression") == "Apache-2.0", "License-Expression: Apache-2.0")
    licenses = [f for f in (dist.files or []) if f.name == "LICENSE"]
    check(bool(licenses) and "Apache License" in licenses[0].read_text(),
          "LICENSE shipped in the wheel")
    version = "%d.%d" % sys.version_info[:2]
    check(f"Programming Language :: Python :: {version}" in meta.get_all("Classifier", []),
          f"a classifier for Python {version}")

    ex = LocalPythonExecutor(additional_authorized_imports=["json"])
    ex.send_tools({})
    out = ex("import json\nprint(json.dumps(sorted([3, 1, 2])))\nx = sum(range(10))\nx * 2")
    check(out.output == 90 and out.logs == "[1, 2, 3]\n", "executor runs code")
    try:
        ex("import os")
    except InterpreterError as e:
        check("Import of os is not allowed" in str(e), "import policy enforced")
    else:
        check(False, "import os was refused")

    with tempfile.TemporaryDirectory() as tmp:
        prog = os.path.join(tmp, "prog.py")
        with open(prog, "w") as f:
            f.write("total = 0\nfor i in range(5):\n    total += i\nprint('total', total)\n")
        proc = subprocess.run(
            [sys.executable, "-m", "smolagents_native", "run", prog],
            capture_output=True, text=True, cwd=tmp, timeout=120, check=False,
        )
        check(proc.returncode == 0 and "total 10" in proc.stdout,
              f"command line `python -m smolagents_native run` ({proc.stderr.strip()[-200:]})")
    print(f"wheel smoke test passed on Python {sys.version.split()[0]}")


if __name__ == "__main__":
    main()
