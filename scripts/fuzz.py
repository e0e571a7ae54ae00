#!/usr/bin/env python3
"""Coverage-guided fuzzer of the executor (atheris / libFuzzer, C edge coverage).

    python scripts/fuzz.py                 # CI mode: about 2 minutes, fixed seed
    python scripts/fuzz.py --seconds 3600  # longer manual run (any seed: --seed N)
    python scripts/fuzz.py --reproduce crash-<hash>   # run one saved input

Inputs are programs, made two ways (the first byte chooses):

* grammar: the bytes drive a small generator of Python programs built for the interpreter's
  risky corners: generators (send / throw / close, `yield from`, abandoned bodies), deep
  structures (nested tuples, chains of property / map / itertools objects, deep recursion),
  classes with dunder methods, exceptions through `finally` and `with`, comprehensions,
  closures, budgets (long loops, big ints, big strings);
* mutation: the rest of the input is the source itself; the corpus starts from the programs of
  tests/programs, which libFuzzer then mutates.

Coverage: the extension is built separately (build/fuzz-lib, SMOLAGENTS_NATIVE_FUZZ=1) with
GCC's `-fsanitize-coverage=trace-pc`; csrc/module/fuzzcov.c turns that into 8-bit counters that this
script registers with libFuzzer, so inputs reaching new C code are kept.

A finding is a crash of the process (libFuzzer reports the signal and saves the input) or an
exception other than the executor's own errors escaping a step, or a SystemError from the
host's repr of the step's value (any other error there is the program's own `__repr__` at work,
as CPython would run it). The exit status is non-zero on a finding.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FUZZ_LIB = ROOT / "build" / "fuzz-lib"


def build_instrumented() -> Path:
    env = dict(os.environ, SMOLAGENTS_NATIVE_FUZZ="1", SMOLAGENTS_NATIVE_WERROR="1")
    env.pop("SMOLAGENTS_NATIVE_SANITIZE", None)
    subprocess.run(
        [sys.executable, "setup.py", "-q", "build_ext", "--build-lib", str(FUZZ_LIB),
         "--build-temp", str(ROOT / "build" / "fuzz-temp")],
        cwd=ROOT, env=env, check=True, stdout=subprocess.DEVNULL,
    )
    found = sorted((FUZZ_LIB / "smolagents_native").glob("_core*.so"))
    if not found:
        raise SystemExit("the instrumented build produced no extension")
    return found[0]


def load_instrumented(so: Path):
    """Import smolagents_native with the instrumented _core in place of the normal one."""
    sys.path.insert(0, str(ROOT))
    spec = importlib.util.spec_from_file_location("smolagents_native._core", so)
    module = importlib.util.module_from_spec(spec)
    sys.modules["smolagents_native._core"] = module
    spec.loader.exec_module(module)
    from smolagents_native import executor

    assert executor._core is module
    if not hasattr(module, "_fuzz_counters"):
        raise SystemExit(f"{so} is not a fuzz build (no _fuzz_counters)")
    return module


def register_counters(core) -> None:
    """Hand the C edge counters to the libFuzzer inside atheris."""
    import ctypes

    import atheris

    libs = sorted(Path(atheris.__file__).parent.glob("core_with_libfuzzer*.so"))
    lib = ctypes.CDLL(str(libs[0]))
    init = lib.__sanitizer_cov_8bit_counters_init
    init.argtypes = [ctypes.c_void_p, ctypes.c_void_p]
    addr, size = core._fuzz_counters()
    init(addr, addr + size)


# --------------------------------------------------------------------------- programs


class Gen:
    """A program generator driven by atheris' FuzzedDataProvider."""

    NAMES = ["a", "b", "c", "d"]

    def __init__(self, fdp):
        self.fdp = fdp
        self.lines: list[str] = []

    def pick(self, seq):
        return seq[self.fdp.ConsumeIntInRange(0, len(seq) - 1)]

    def n(self, lo, hi):
        return self.fdp.ConsumeIntInRange(lo, hi)

    def expr(self, depth=0) -> str:
        if depth > 3 or self.fdp.remaining_bytes() == 0:
            return self.pick(self.NAMES + ["1", "'s'", "None", "(1, 2)", "[]", "2 ** 100"])
        k = self.n(0, 13)
        e = lambda: self.expr(depth + 1)  # noqa: E731
        return [
            lambda: f"({e()} {self.pick(['+', '-', '*', '//', '%', '**', '<<', '&', '==', '<', 'in'])} {e()})",
            lambda: f"[{e()} for {self.pick(self.NAMES)} in range({self.n(0, 50)})]",
            lambda: f"({e()} for {self.pick(self.NAMES)} in {e()})",
            lambda: f"{{{e()}: {e()}}}",
            lambda: f"({e()},)",
            lambda: f"{self.pick(['len', 'hash', 'repr', 'str', 'list', 'tuple', 'sorted', 'sum', 'iter', 'next', 'abs', 'bool', 'set', 'min', 'max', 'any'])}({e()})",
            lambda: f"(lambda x: {e()})({e()})",
            lambda: f"{e()}[{e()}]",
            lambda: f"({e()} if {e()} else {e()})",
            lambda: f"{self.pick(['g', 'f', 'G', 'deep'])}({e()})",
            lambda: f"format({e()}, '>{self.n(0, 9)}')",
            lambda: f"{self.pick(['property', 'staticmethod', 'classmethod', 'itertools.repeat', 'functools.partial'])}({e()})",
            lambda: f"map({self.pick(['abs', 'str', 'len'])}, {e()})",
            lambda: str(self.n(-(10**6), 10**6)),
        ][k]()

    def block(self, indent: int, depth: int) -> None:
        count = self.n(1, 4)
        for _ in range(count):
            self.stmt(indent, depth)

    def emit(self, indent: int, text: str) -> None:
        self.lines.append("    " * indent + text)

    def stmt(self, indent: int, depth: int) -> None:
        if self.fdp.remaining_bytes() == 0:
            self.emit(indent, "pass")
            return
        k = self.n(0, 15 if depth < 3 else 4)
        name = self.pick(self.NAMES)
        if k == 0:
            self.emit(indent, f"{name} = {self.expr()}")
        elif k == 1:
            self.emit(indent, f"{name} = {self.expr()}")
            self.emit(indent, f"print({name})")
        elif k == 2:
            self.emit(indent, f"yield_probe = {self.expr()}")
        elif k == 3:
            self.emit(indent, f"{name} += {self.expr()}")
        elif k == 4:
            self.emit(indent, f"{name} = {self.pick(self.NAMES)}")
        elif k == 5:
            self.emit(indent, f"for {name} in {self.expr()}:")
            self.block(indent + 1, depth + 1)
        elif k == 6:
            self.emit(indent, f"while {self.expr()}:")
            self.block(indent + 1, depth + 1)
            self.emit(indent + 1, "break")
        elif k == 7:
            self.emit(indent, "try:")
            self.block(indent + 1, depth + 1)
            self.emit(indent, f"except {self.pick(['Exception', 'ValueError', 'TypeError', 'BaseException'])} as err:")
            self.block(indent + 1, depth + 1)
            self.emit(indent, "finally:")
            self.block(indent + 1, depth + 1)
        elif k == 8:
            self.emit(indent, f"def {self.pick(['g', 'f', 'G'])}(x=None):")
            self.emit(indent + 1, f"nonlocal_probe = {self.expr()}")
            if self.n(0, 1):
                self.emit(indent + 1, f"yield {self.expr()}")
            self.block(indent + 1, depth + 1)
            self.emit(indent + 1, f"{self.pick(['return', 'yield', 'yield from'])} {self.expr()}")
        elif k == 9:
            self.emit(indent, f"with C() as {name}:")
            self.block(indent + 1, depth + 1)
        elif k == 10:
            self.emit(indent, f"class K{self.n(0, 3)}({self.pick(['object', 'C', 'Exception'])}):")
            self.emit(indent + 1, f"def __{self.pick(['eq', 'hash', 'iter', 'len', 'repr', 'getitem', 'del', 'enter'])}__(self, *a):")
            self.emit(indent + 2, f"return {self.expr()}")
        elif k == 11:
            self.emit(indent, f"it = {self.pick(['g', 'f', 'G'])}({self.expr()})")
            self.emit(indent, f"{name} = {self.pick(['next(it)', 'it.send(None)', 'it.throw(ValueError)', 'it.close()', 'list(it)'])}")
        elif k == 12:
            self.emit(indent, f"{name} = ()")
            self.emit(indent, f"for i in range({self.pick(['10', '1000', '70000', '300000'])}):")
            self.emit(indent + 1, f"{name} = {self.pick(['(X,)', 'property(X)', 'itertools.repeat(X)', 'map(abs, iter([X]))', '[X]', '{1: X}', 'staticmethod(X)'])}".replace("X", name))
            self.emit(indent, f"{name} = {self.pick(['hash', 'len', 'repr', 'str', 'id'])}({name})")
        elif k == 13:
            self.emit(indent, f"{name} = deep({self.n(0, 3000)})")
        elif k == 14:
            self.emit(indent, f"del {name}")
        else:
            self.emit(indent, f"raise {self.pick(['ValueError', 'StopIteration', 'KeyError', 'GeneratorExit', 'RecursionError'])}({self.expr()})")


PRELUDE = """import itertools, functools
class C:
    def __enter__(self):
        return self
    def __exit__(self, *a):
        return len(a) % 2 == 0
def deep(n):
    return 0 if n <= 0 else 1 + deep(n - 1)
def G(x=None):
    v = yield x
    while v is not None:
        v = yield v
    return 3
a = b = c = d = 0
"""


def make_program(data: bytes) -> str:
    import atheris

    if not data:
        return "1"
    if data[0] % 2 == 0:
        return data[1:].decode("utf-8", "replace")  # mutation mode
    fdp = atheris.FuzzedDataProvider(data[1:])
    gen = Gen(fdp)
    gen.block(0, 0)
    return PRELUDE + "\n".join(gen.lines)


def make_target(smolagents_native):
    from smolagents_native import ExecutionTimeoutError, InterpreterError, LocalPythonExecutor
    from smolagents_native.errors import FinalAnswerException

    holder: dict = {}

    def new_executor():
        ex = LocalPythonExecutor(
            ["itertools", "functools", "collections", "math"],
            max_operations=300_000,
            max_while_iterations=20_000,
            timeout_seconds=3,
        )
        ex.send_tools({})
        return ex

    def target(data: bytes) -> None:
        code = make_program(data)
        if "\x00" in code:
            code = code.replace("\x00", "")
        ex = holder.get("ex")
        if ex is None or holder.get("uses", 0) > 50:
            ex = holder["ex"] = new_executor()
            holder["uses"] = 0
        holder["uses"] += 1
        ex.state.clear()
        ex.state["__name__"] = "__main__"
        try:
            out = ex(code)
        except (InterpreterError, ExecutionTimeoutError, FinalAnswerException, MemoryError):
            return
        except KeyboardInterrupt:
            # `raise KeyboardInterrupt` in the code ends the step and reaches the caller
            # (docs/compatibility.md); a Ctrl-C of the run is libFuzzer's (-handle_int)
            return
        try:
            repr(out.output)[:100]  # host code driving what the step returned
        except SystemError:
            raise  # an interpreter bug surfacing in host code: a finding
        except BaseException:
            # the program's own __repr__ raising, returning a non-string or recursing, run by
            # the host: CPython's behaviour for the same object, not a finding (a crash still is)
            pass

    return target


def seed_corpus(directory: Path, seed: int) -> None:
    """tests/programs (mutation mode) and a few random grammar inputs (odd first byte)."""
    import random

    for p in sorted((ROOT / "tests" / "programs").glob("*.py")):
        (directory / p.stem).write_bytes(b"\x00" + p.read_bytes())
    rng = random.Random(seed)
    for i in range(64):
        data = bytes([1]) + bytes(rng.randrange(256) for _ in range(rng.randrange(16, 512)))
        (directory / f"grammar-{i:02d}").write_bytes(data)


def main() -> int:
    ap = argparse.ArgumentParser(description="coverage-guided fuzzer of the executor")
    ap.add_argument("--seconds", type=int, default=120, help="time budget (default 120: CI)")
    ap.add_argument("--seed", type=int, default=1, help="libFuzzer seed (default 1: CI)")
    ap.add_argument("--corpus", type=Path, help="corpus directory to keep (default: a temp dir)")
    ap.add_argument("--artifacts", type=Path, default=ROOT / "build" / "fuzz-artifacts")
    ap.add_argument("--reproduce", type=Path, help="run one saved input and exit")
    ap.add_argument("--no-build", action="store_true", help="use build/fuzz-lib as it is")
    args = ap.parse_args()

    try:
        import atheris  # noqa: F401
    except ImportError:
        print("fuzzer SKIPPED: atheris is not installed (pip install atheris)")
        return 0
    so = None
    if not args.no_build:
        so = build_instrumented()
    else:
        so = sorted((FUZZ_LIB / "smolagents_native").glob("_core*.so"))[0]
    core = load_instrumented(so)
    import atheris

    import smolagents_native

    target = make_target(smolagents_native)
    if args.reproduce:
        data = args.reproduce.read_bytes()
        print(make_program(data))
        target(data)
        print("no finding")
        return 0

    args.artifacts.mkdir(parents=True, exist_ok=True)
    tmp = None
    corpus = args.corpus
    if corpus is None:
        tmp = tempfile.mkdtemp(prefix="smolagents-native-fuzz-")
        corpus = Path(tmp)
    corpus.mkdir(parents=True, exist_ok=True)
    seed_corpus(corpus, args.seed)
    libfuzzer_args = [
        sys.argv[0],
        str(corpus),
        f"-max_total_time={args.seconds}",
        f"-seed={args.seed}",
        "-timeout=30",
        "-rss_limit_mb=4096",
        "-max_len=4096",
        f"-artifact_prefix={args.artifacts}/",
        "-print_final_stats=1",
    ]
    try:
        atheris.Setup(libfuzzer_args, target)
        register_counters(core)
        atheris.Fuzz()  # exits the process; non-zero on a finding
    finally:
        if tmp is not None:
            shutil.rmtree(tmp, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
