"""Differential fuzzing: random runnable programs (tests/engine/progfuzz.py) run under
CPython and under the executor must agree exactly (printed text, uncaught
exception type and message, final plain variables), as for tests/programs.

In the suite the seeds are fixed (`SEEDS` programs from seed 0), so a failure
is reproducible with `python tests/engine/progfuzz.py SEED`.  The nightly-sized mode
draws a random base seed and runs many more programs:

    SMOLAGENTS_NATIVE_FUZZ_SEED=random SMOLAGENTS_NATIVE_FUZZ_COUNT=20000 \\
        python -m pytest -q tests/engine/test_differential_fuzz.py

(the base seed is printed in the failure message; any integer works too).
"""

from __future__ import annotations

import os
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
import progfuzz  # noqa: E402
from test_programs import compare, run_under_cpython, run_under_executor  # noqa: E402

_seed_env = os.environ.get("SMOLAGENTS_NATIVE_FUZZ_SEED", "0")
BASE_SEED = random.SystemRandom().randrange(2**32) if _seed_env == "random" else int(_seed_env)
COUNT = int(os.environ.get("SMOLAGENTS_NATIVE_FUZZ_COUNT", "400"))
CHUNK = 20


@pytest.mark.parametrize("chunk", range((COUNT + CHUNK - 1) // CHUNK))
def test_random_programs_match_cpython(chunk, make_executor):
    failures = []
    for seed in range(BASE_SEED + chunk * CHUNK, BASE_SEED + min(COUNT, (chunk + 1) * CHUNK)):
        src = progfuzz.generate(seed)
        path = Path(f"<fuzz {seed}>")
        expected = run_under_cpython(src, path)
        actual = run_under_executor(src, make_executor)
        problems = compare(str(path), expected, actual)
        if problems:
            failures.append(f"seed {seed} (python tests/engine/progfuzz.py {seed}):\n" + "\n".join(problems))
    if failures:
        pytest.fail(f"{len(failures)} program(s) disagree with CPython\n\n" + "\n\n".join(failures[:3]), pytrace=False)


def test_generator_is_deterministic_and_varied():
    """The generator depends on the seed alone, and its programs are not all
    alike (a guard against a generator that degenerated)."""
    assert progfuzz.generate(7) == progfuzz.generate(7)
    sources = {progfuzz.generate(s) for s in range(20)}
    assert len(sources) == 20
    joined = "".join(sources)
    for construct in ("def ", "class ", "yield", "try:", "for ", "while ", "with ", "match ", "lambda"):
        assert construct in joined, construct
