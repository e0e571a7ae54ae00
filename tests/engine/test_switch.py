"""The stack switch of csrc/budget/switch.c on its own: tests/engine/switch_harness.c, built with the C
compiler (skipped without one), for each implementation this machine can run: the assembly
one, the ucontext fallback and, when a cross compiler and qemu-user are installed, AArch64."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
HARNESS = ROOT / "tests" / "engine" / "switch_harness.c"
SOURCES = [str(HARNESS), str(ROOT / "csrc" / "budget" / "switch.c")]
FLAGS = ["-O2", "-std=c11", "-Wall", "-Wextra", "-Werror", "-I", str(ROOT / "csrc")]


def build_and_run(tmp_path, cc, extra=(), runner=()):
    if shutil.which(cc) is None:
        pytest.skip(f"no {cc}")
    exe = tmp_path / "switch_harness"
    subprocess.run([cc, *FLAGS, *extra, *SOURCES, "-o", str(exe), "-lm"], check=True)
    proc = subprocess.run([*runner, str(exe)], capture_output=True, text=True, timeout=300)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert proc.stdout.splitlines()[-1] == "OK"


@pytest.mark.parametrize(
    "extra",
    [(), ("-DSMOLAGENTS_NATIVE_UCONTEXT",), ("-fcf-protection=full",), ("-O0", "-g")],
    ids=["asm", "ucontext", "cet", "O0"],
)
def test_native(tmp_path, extra):
    import platform

    if "-fcf-protection=full" in extra and platform.machine() not in ("x86_64", "AMD64"):
        pytest.skip("x86 only")
    build_and_run(tmp_path, "cc", extra)


@pytest.mark.parametrize("extra", [(), ("-mbranch-protection=standard",)], ids=["plain", "bti-pac"])
def test_aarch64_under_qemu(tmp_path, extra):
    if shutil.which("qemu-aarch64") is None or not Path("/usr/aarch64-linux-gnu").is_dir():
        pytest.skip("no qemu-aarch64 / AArch64 sysroot")
    build_and_run(
        tmp_path,
        "aarch64-linux-gnu-gcc",
        extra,
        runner=["qemu-aarch64", "-cpu", "max", "-L", "/usr/aarch64-linux-gnu"],
    )
