"""Training run of the profile-guided build (setup.py, docs/build.md).

    python -I scripts/pgo_train.py PACKAGE_ROOT PROGRAMS_DIR [ROUNDS]

setup.py runs this once, between the instrumented build of `smolagents_native._core` and
the optimized one: PACKAGE_ROOT is a temporary directory holding a copy of the package's
Python files and the instrumented extension, PROGRAMS_DIR the differential-test corpus
(tests/programs). Each program runs in a fresh executor (the step's set-up, lowering and
evaluation), then again in one shared executor (the cached path), ROUNDS times; a program's
own error is part of what the corpus exercises and is ignored. The benchmark's workloads are
not used: what it measures is never what the build was trained on.

Exit status 0 when the run was representative (most programs ran without a crash of the
harness itself), 1 otherwise: setup.py then builds without the profile.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys


def main(argv: list[str]) -> int:
    if len(argv) < 3:
        print(__doc__, file=sys.stderr)
        return 2
    root, programs_dir = argv[1], argv[2]
    rounds = int(argv[3]) if len(argv) > 3 else 3
    sys.path.insert(0, root)
    from smolagents_native import InterpreterError, LocalPythonExecutor

    names = sorted(n for n in os.listdir(programs_dir) if n.endswith(".py"))
    sources = []
    for name in names:
        with open(os.path.join(programs_dir, name), encoding="utf-8") as fh:
            sources.append(fh.read())
    if not sources:
        print(f"pgo_train: no programs in {programs_dir}", file=sys.stderr)
        return 1
    imports = ["collections", "datetime", "functools", "itertools", "json", "math", "random",
               "re", "statistics", "string", "operator", "heapq", "bisect", "dataclasses",
               "enum", "typing", "fractions", "decimal", "copy", "textwrap"]

    def run(ex, src):
        with contextlib.redirect_stdout(io.StringIO()):
            try:
                ex(src)
            except InterpreterError:
                pass  # the program's own error: part of the corpus

    failures = 0
    shared = LocalPythonExecutor(additional_authorized_imports=imports)
    shared.send_tools({})
    for _ in range(rounds):
        for src in sources:
            try:
                ex = LocalPythonExecutor(additional_authorized_imports=imports)
                ex.send_tools({})
                run(ex, src)
                run(shared, src)
            except Exception as e:  # noqa: BLE001 - a harness problem, counted below
                failures += 1
                if failures <= 3:
                    print(f"pgo_train: {type(e).__name__}: {e}", file=sys.stderr)
    total = rounds * len(sources)
    print(f"pgo_train: {total - failures} of {total} program runs", file=sys.stderr)
    return 0 if failures * 10 <= total else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv))
