"""Timings of the wire codec (csrc/module/wire.c, smolagents_native/isolation/wire.py) against pickle.

    python scripts/wire_bench.py [--repeat N] [--cpu]

Four values: a list of 10 million ints, a dict of 1 million str keys, 100 MB of bytes and a
1000x1000 float64 ndarray (skipped without numpy). For each: encode and decode, best of N
runs, the wire codec (through _wire.dumps / _wire.loads, as the process boundary uses it)
next to pickle (protocol 5, pickle.loads with no restriction: the restricted unpickler of
isolation/protocol.py is slower still). --cpu measures process CPU time instead of wall time, which
a machine shared with other jobs disturbs less. Nothing is asserted: the numbers are printed.
"""

from __future__ import annotations

import argparse
import gc
import pickle
import time

from smolagents_native.isolation import wire as _wire


def best(f, arg, repeat, clock):
    t = float("inf")
    for _ in range(repeat):
        gc.collect()
        gc.disable()
        try:
            t0 = clock()
            r = f(arg)
            t = min(t, clock() - t0)
            del r
        finally:
            gc.enable()
    return t


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--cpu", action="store_true", help="process CPU time instead of wall time")
    args = ap.parse_args()
    clock = time.process_time if args.cpu else time.perf_counter

    cases = [
        ("list of 10M ints", lambda: list(range(10_000_000))),
        ("dict of 1M str keys", lambda: {f"key{i}": i for i in range(1_000_000)}),
        ("100 MB bytes", lambda: bytes(range(256)) * (100_000_000 // 256)),
    ]
    try:
        import numpy as np

        cases.append(("1000x1000 float64 ndarray", lambda: np.random.default_rng(0).random((1000, 1000))))
    except ImportError:
        print("numpy is not installed: no ndarray case")

    print(f"{'value':28} {'codec':7} {'encode ms':>10} {'decode ms':>10} {'size MB':>9}")
    for name, make in cases:
        value = make()
        wire = _wire.dumps(value)
        pick = pickle.dumps(value, protocol=5)
        back = _wire.loads(wire)
        if type(back).__module__ == "numpy":
            assert (back == value).all()
        else:
            assert back == value
        del back
        rows = [
            ("wire", lambda v: _wire.dumps(v), _wire.loads, wire),
            ("pickle", lambda v: pickle.dumps(v, protocol=5), pickle.loads, pick),
        ]
        for codec, enc, dec, data in rows:
            te = best(enc, value, args.repeat, clock)
            td = best(dec, data, args.repeat, clock)
            print(f"{name:28} {codec:7} {te * 1e3:10.1f} {td * 1e3:10.1f} {len(data) / 1e6:9.1f}")
        del value, wire, pick


if __name__ == "__main__":
    main()
