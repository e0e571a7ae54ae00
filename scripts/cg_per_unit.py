#!/usr/bin/env python3
"""Instructions per unit of a program, native against CPython, and where they go.

A program template holds `{N}` (a loop bound, say); it runs at two sizes under valgrind's
callgrind, once with this package's executor and once with CPython's `exec(compile())` of
the same source, and the difference of the two runs' instructions divided by the difference
of the sizes is the cost of one unit: start-up, imports, the executor's creation and the
program's fixed part cancel out. With --functions, the same difference per function (self
cost), the largest first. The figures of docs/performance-log.md's entries that say "a
program run at two sizes and the difference divided" come from this.

    python scripts/cg_per_unit.py TEMPLATE N1 N2 [--engines native,cpython] [--functions K]

Run it with the interpreter whose build is measured (a venv's python; PYTHONPATH picks
another tree's build). Needs valgrind (callgrind_annotate with --functions).
"""

from __future__ import annotations

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

_RUN = r'''
import builtins, contextlib, io, sys
engine, path = sys.argv[1], sys.argv[2]
src = open(path).read()
if engine == "native":
    import smolagents_native.executor as m
    for name in ("MAX_OPERATIONS", "MAX_WHILE_ITERATIONS"):
        if hasattr(m, name):
            setattr(m, name, 10**12)
    ex = m.LocalPythonExecutor(additional_authorized_imports=[], timeout_seconds=None)
    ex.send_tools({})
    ex(src)
else:
    g = {"__name__": "__main__", "__builtins__": builtins}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(src, "<program>", "exec"), g)
'''

_TOTAL = re.compile(r"([\d,]+) \(100\.0%\)\s+PROGRAM TOTALS")
_LINE = re.compile(r"\s*([\d,]+) \([\d. %]+\)\s+(\S.*)$")


def _profile(engine: str, source: str, functions: bool) -> tuple[int, collections.Counter]:
    with tempfile.TemporaryDirectory() as d:
        prog, runner, out = (os.path.join(d, n) for n in ("prog.py", "run.py", "cg.out"))
        with open(prog, "w") as f:
            f.write(source)
        with open(runner, "w") as f:
            f.write(_RUN)
        env = dict(os.environ, PYTHONHASHSEED="0")
        subprocess.run(["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}",
                        sys.executable, runner, engine, prog], env=env, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        text = subprocess.run(["callgrind_annotate", "--threshold=100", "--auto=no", out],
                              capture_output=True, text=True, check=True).stdout
    total = int(_TOTAL.search(text).group(1).replace(",", ""))
    per_fn: collections.Counter = collections.Counter()
    if functions:
        for line in text.splitlines():
            m = _LINE.match(line)
            if m and "PROGRAM TOTALS" not in line:
                name = m.group(2).split(" [")[0].split(":")[-1]
                per_fn[name] += int(m.group(1).replace(",", ""))
    return total, per_fn


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("template", help="a program with {N}")
    ap.add_argument("n1", type=int)
    ap.add_argument("n2", type=int)
    ap.add_argument("--engines", default="native,cpython")
    ap.add_argument("--functions", type=int, default=0, metavar="K",
                    help="also the K functions whose self cost per unit differs most")
    args = ap.parse_args()
    if args.n2 <= args.n1:
        ap.error("N2 must be larger than N1")
    with open(args.template) as f:
        template = f.read()
    if "{N}" not in template:
        ap.error("the template holds no {N}")
    units = args.n2 - args.n1
    per_unit = {}
    for engine in args.engines.split(","):
        t1, f1 = _profile(engine, template.replace("{N}", str(args.n1)), args.functions > 0)
        t2, f2 = _profile(engine, template.replace("{N}", str(args.n2)), args.functions > 0)
        per_unit[engine] = (t2 - t1) / units
        print(f"{engine}: {per_unit[engine]:,.1f} instructions per unit")
        diff = {k: (f2[k] - f1[k]) / units for k in set(f1) | set(f2)}
        for name, v in sorted(diff.items(), key=lambda kv: -abs(kv[1]))[:args.functions]:
            print(f"  {v:12,.1f}  {name}")
    if "native" in per_unit and "cpython" in per_unit:
        print(f"native/cpython: {per_unit['native'] / per_unit['cpython']:.3f}x")
    return 0


if __name__ == "__main__":
    sys.exit(main())
