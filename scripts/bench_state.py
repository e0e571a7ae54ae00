"""Process mode's per-step cost against the size of `state` (docs/isolation.md, *State*): the
median time of a tiny step with nothing in `state`, then with about 200 MB in it (a list of
two million strings; a numpy array of 25 million floats, when numpy is installed), and of a
step that builds a small list and prints from it, and of one that reads the big value.

    python scripts/bench_state.py [--steps 30]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from _timing import median_us  # noqa: E402  (this directory)

from smolagents_native import LocalPythonExecutor, WorkerPool  # noqa: E402

CASES = [
    ([], "data = [str(i) for i in range(2_000_000)]", "len(data)"),
    (["numpy"], "import numpy as np\ndata = np.zeros(25_000_000)", "data.shape"),
]


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=30)
    args = p.parse_args()
    print(f"{'state':28} {'x = 1 empty':>12} {'x = 1 full':>11} {'ratio':>6} "
          f"{'small list':>11} {'reads data':>11}   (median µs per step)")
    with WorkerPool(size=1) as pool:
        for imports, setup, read in CASES:
            try:
                ex = LocalPythonExecutor(imports, isolation="process", pool=pool,
                                         timeout_seconds=120)
            except Exception as exc:  # noqa: BLE001 - numpy not installed
                print(f"{setup.splitlines()[-1][:28]:28} skipped: {exc}")
                continue
            with ex:
                ex.send_tools({})
                empty = median_us(ex, "x = 1", args.steps)
                ex(setup)
                full = median_us(ex, "x = 1", args.steps)
                small = median_us(ex, "rows = [i for i in range(10)]\nprint(len(rows))",
                                  args.steps)
                reads = median_us(ex, read, max(3, args.steps // 10))
            print(f"{setup.splitlines()[-1][:28]:28} {empty:12.0f} {full:11.0f} "
                  f"{full / empty:5.2f}x {small:11.0f} {reads:11.0f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
