"""What the benchmark ran on: machine, Python, package versions, git commit."""

from __future__ import annotations

import contextlib
import os
import platform
import subprocess
import sys
import time
from importlib import metadata
from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent.parent  # smolagents_native/
REPO_DIR = PACKAGE_DIR.parent


def cpu_model() -> str:
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as f:
            for line in f:
                if line.lower().startswith(("model name", "hardware", "cpu model")):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def cores() -> dict:
    usable = None
    if hasattr(os, "sched_getaffinity"):
        with contextlib.suppress(OSError):
            usable = len(os.sched_getaffinity(0))
    return {"logical": os.cpu_count(), "usable": usable}


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def smolagents_version() -> str | None:
    version = _version("smolagents")
    if version is None:
        try:
            import smolagents  # noqa: PLC0415

            version = getattr(smolagents, "__version__", None)
        except Exception:
            return None
    return version


def native_version() -> str | None:
    try:
        import smolagents_native  # noqa: PLC0415

        return getattr(smolagents_native, "__version__", None)
    except Exception:
        return _version("smolagents-native")


def git_commit() -> str | None:
    """Short commit of the checkout holding this package, ``+dirty`` when the work tree has
    changes; None outside git."""
    try:
        head = subprocess.run(
            ["git", "rev-parse", "--short", "HEAD"], cwd=REPO_DIR, capture_output=True,
            text=True, timeout=10,
        )
        if head.returncode != 0:
            return None
        commit = head.stdout.strip()
        status = subprocess.run(
            ["git", "status", "--porcelain", "--untracked-files=no"], cwd=REPO_DIR,
            capture_output=True, text=True, timeout=10,
        )
        if status.returncode == 0 and status.stdout.strip():
            commit += "+dirty"
        return commit
    except (OSError, subprocess.SubprocessError):
        return None


def load_average() -> list[float] | None:
    try:
        return [round(x, 2) for x in os.getloadavg()]
    except (AttributeError, OSError):
        return None


def native_build() -> str | None:
    """How the extension was optimized (setup.py: compiler, flags, profile-guided or not)."""
    try:
        from smolagents_native import _core
    except ImportError:
        return None
    return getattr(_core, "BUILD", None)


def header() -> dict:
    return {
        "date": time.strftime("%Y-%m-%dT%H:%M:%S%z"),
        "machine": {
            "cpu": cpu_model(),
            "cores": cores(),
            "platform": platform.platform(),
            "load_average_at_start": load_average(),
        },
        "python": {
            "version": platform.python_version(),
            "implementation": platform.python_implementation(),
            "executable": sys.executable,
        },
        "smolagents_version": smolagents_version(),
        "smolagents_native_version": native_version(),
        "smolagents_native_build": native_build(),
        "git_commit": git_commit(),
    }
