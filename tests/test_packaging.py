"""Packaging: metadata, the source distribution's contents, and the message given when the
package is imported from a source tree whose extension is not built.

The wheels themselves (one per CPython, repaired by auditwheel, installed into a fresh venv
and smoke-tested from outside the tree) are built by `.ci/run`'s packaging phase, which already
loops over every interpreter: doing it here would compile the extension once more per version
on every developer's test run. Building an sdist compiles nothing, so it is checked here.
"""

from __future__ import annotations

import fcntl
import hashlib
import importlib.machinery
import os
import re
import shutil
import subprocess
import sys
import tarfile
import tempfile
from pathlib import Path

import pytest

import smolagents_native

ROOT = Path(__file__).resolve().parent.parent
SUPPORTED = ["3.10", "3.11", "3.12", "3.13", "3.14", "3.15"]

try:
    import tomllib
except ImportError:  # 3.10
    try:
        import tomli as tomllib
    except ImportError:
        tomllib = None


def _pyproject() -> dict:
    if tomllib is None:
        pytest.skip("reading pyproject.toml needs tomllib (3.11+) or tomli")
    with open(ROOT / "pyproject.toml", "rb") as f:
        return tomllib.load(f)


# --- metadata -------------------------------------------------------------------------------


def test_license_is_an_spdx_expression_with_its_file():
    project = _pyproject()["project"]
    assert project["license"] == "Apache-2.0"
    assert project["license-files"] == ["LICENSE"]
    text = (ROOT / "LICENSE").read_text()
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text
    # PEP 639: a license expression replaces the "License ::" classifiers.
    assert not [c for c in project["classifiers"] if c.startswith("License ::")]


def test_one_classifier_per_supported_version():
    project = _pyproject()["project"]
    declared = sorted(
        (m.group(1) for c in project["classifiers"]
         if (m := re.fullmatch(r"Programming Language :: Python :: (3\.\d+)", c))),
        key=lambda v: tuple(map(int, v.split("."))),
    )
    assert declared == SUPPORTED
    assert project["requires-python"] == ">=" + SUPPORTED[0]
    # .ci/run knows the same set of versions, and runs a subset of them by default (3.11 until
    # the other versions' suites are green: issue 10).
    ci = (ROOT / ".ci" / "run").read_text()
    m = re.search(r'^SUPPORTED_PYTHONS="([^"]*)"', ci, re.M)
    assert m, ".ci/run has no SUPPORTED_PYTHONS line"
    assert m.group(1).split() == SUPPORTED
    d = re.search(r'^DEFAULT_PYTHONS="([^"]*)"', ci, re.M)
    assert d and d.group(1).split() and set(d.group(1).split()) <= set(SUPPORTED)


def test_project_urls_and_build_requirement():
    data = _pyproject()
    urls = data["project"]["urls"]
    assert urls and all(u.startswith("https://") for u in urls.values())
    # setuptools >= 77 understands the SPDX expression without deprecation warnings.
    assert "setuptools>=77" in data["build-system"]["requires"]


# --- the source distribution -----------------------------------------------------------------


def _git_files() -> list[str] | None:
    if not (ROOT / ".git").exists() or shutil.which("git") is None:
        return None
    out = subprocess.run(
        ["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    return out.stdout.split() if out.returncode == 0 else None


@pytest.fixture(scope="module")
def sdist(tmp_path_factory) -> Path:
    pytest.importorskip("build", reason="building an sdist needs the `build` package")
    out = tmp_path_factory.mktemp("sdist")
    egg_info = ROOT / "smolagents_native.egg-info"
    # The sdist is staged in the tree (smolagents_native-<version>/ and the egg-info): two
    # pytest-xdist workers that each run this module's fixture would build into, and remove,
    # the same directories. One build at a time, across processes.
    lock_path = Path(tempfile.gettempdir()) / (
        "smolagents-native-sdist-%s.lock" % hashlib.sha256(str(ROOT).encode()).hexdigest()[:16])
    with open(lock_path, "a") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        had_egg_info = egg_info.exists()
        try:
            proc = subprocess.run(
                [sys.executable, "-m", "build", "--sdist", "--outdir", str(out), str(ROOT)],
                capture_output=True,
                text=True,
                timeout=600,
                check=False,
            )
        finally:
            # The sdist step writes the egg-info into the tree; left there, it is on sys.path
            # of later runs from the root (importlib.metadata entry-point scans would read it).
            if not had_egg_info:
                shutil.rmtree(egg_info, ignore_errors=True)
    log = proc.stdout + proc.stderr
    if proc.returncode != 0 and re.search(
        r"Could not find a version|No matching distribution|Network is unreachable", log
    ):
        pytest.skip("no package index reachable for the isolated build environment")
    assert proc.returncode == 0, log
    # No setuptools deprecation warnings (license format, classifiers, config keys, ...).
    assert "Deprecat" not in log, log
    (path,) = out.glob("smolagents_native-*.tar.gz")
    return path


def test_sdist_holds_every_tracked_file(sdist):
    with tarfile.open(sdist) as tar:
        names = tar.getnames()
    top = names[0].split("/")[0]
    inside = {n[len(top) + 1:] for n in names if n.startswith(top + "/")}
    # Always needed to build and test, checked even outside a git checkout.
    for required in ["LICENSE", "README.md", "pyproject.toml", "setup.py", "tests/conftest.py",
                     "tests/security/conftest.py", "tests/engine/switch_harness.c",
                     "scripts/sid_pythons.sh", "docs/security.md", ".ci/run"]:
        assert required in inside, required
    assert any(n.startswith("csrc/") and n.endswith(".def") for n in inside)
    assert any(n.startswith("csrc/") and n.endswith(".h") for n in inside)
    assert any(n.startswith("tests/programs/") for n in inside)
    assert not [n for n in inside if n.endswith((".so", ".o", ".pyc"))]
    tracked = _git_files()
    if tracked is None:
        pytest.skip("not a git checkout: the sdist is compared with `git ls-files` only there")
    # Everything tracked goes in, except the git-only files.
    missing = sorted(set(tracked) - inside - {".gitignore"})
    assert not missing, missing


def test_sdist_passes_twine_check(sdist):
    pytest.importorskip("twine", reason="`twine check` needs twine")
    proc = subprocess.run(
        [sys.executable, "-m", "twine", "check", "--strict", str(sdist)],
        capture_output=True, text=True, timeout=120, check=False,
    )
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "PASSED" in proc.stdout


# --- importing from a source tree without the built extension (issue 10, item 6) -------------


def _fake_tree(tmp_path: Path, extra_files=()) -> Path:
    """A copy of this package's Python files, without any _core build, in a 'source tree'."""
    tree = tmp_path / "tree"
    pkg_src = Path(smolagents_native.__file__).resolve().parent
    shutil.copytree(
        pkg_src, tree / "smolagents_native",
        ignore=shutil.ignore_patterns("_core.*.so", "_core.*.pyd", "__pycache__"),
    )
    (tree / "csrc").mkdir()
    (tree / "setup.py").write_text("raise SystemExit('not for running')\n")
    for name in extra_files:
        (tree / "smolagents_native" / name).write_bytes(b"")
    return tree


def _run_module(tree: Path, pythonpath: str | None):
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if pythonpath:
        env["PYTHONPATH"] = pythonpath
    (tree / "prog.py").write_text("print(1)\n")
    # -S: no site-packages, so an editable install's import hook (which would find the real
    # tree's _core for the copy) plays no part; PYTHONPATH stands for "installed elsewhere".
    return subprocess.run(
        [sys.executable, "-S", "-m", "smolagents_native", "run", "prog.py"],
        cwd=tree, env=env, capture_output=True, text=True, timeout=120, check=False,
    )


def test_running_in_an_unbuilt_source_tree_says_what_to_do(tmp_path):
    tree = _fake_tree(tmp_path)
    proc = _run_module(tree, None)
    assert proc.returncode != 0
    assert "circular import" not in proc.stderr
    assert "the extension is not built in this tree" in proc.stderr, proc.stderr
    assert "pip install -e ." in proc.stderr
    assert "run from another directory" in proc.stderr


def test_the_message_names_the_installed_copy(tmp_path):
    # The package under test plays the part of the copy `pip install .` put in site-packages.
    installed = Path(smolagents_native.__file__).resolve().parent
    tree = _fake_tree(tmp_path)
    proc = _run_module(tree, str(installed.parent))
    assert proc.returncode != 0
    assert "the extension is not built in this tree" in proc.stderr, proc.stderr
    assert f"the installed copy ({installed})" in proc.stderr, proc.stderr


def test_builds_for_other_pythons_are_listed(tmp_path):
    tree = _fake_tree(tmp_path, extra_files=["_core.cpython-39-x86_64-linux-gnu.so"])
    proc = _run_module(tree, None)
    assert "the extension is not built in this tree" in proc.stderr, proc.stderr
    assert "other Pythons: _core.cpython-39-x86_64-linux-gnu.so" in proc.stderr


def test_a_broken_build_is_reported_as_such(tmp_path):
    name = "_core" + importlib.machinery.EXTENSION_SUFFIXES[0]
    tree = _fake_tree(tmp_path, extra_files=[name])  # an empty file: not a loadable library
    proc = _run_module(tree, None)
    assert proc.returncode != 0
    assert "exists but cannot be loaded by this Python" in proc.stderr, proc.stderr
    assert "Rebuild it" in proc.stderr


# --- the optimized build (setup.py) -----------------------------------------------------------


def test_the_profile_training_run_runs_the_whole_corpus():
    """scripts/pgo_train.py, which setup.py runs on the instrumented build, runs every program
    of the corpus without a harness failure: a training run that broke would leave every
    build without its profile (setup.py then falls back, and says so only in the build log)."""
    programs = sorted((ROOT / "tests" / "programs").glob("*.py"))
    proc = subprocess.run(
        [sys.executable, "-I", str(ROOT / "scripts" / "pgo_train.py"), str(ROOT),
         str(ROOT / "tests" / "programs"), "1"],
        capture_output=True, text=True, timeout=300,
    )
    assert proc.returncode == 0, proc.stderr
    assert f"pgo_train: {len(programs)} of {len(programs)} program runs" in proc.stderr


def test_a_release_build_with_gcc_is_profile_guided():
    """The extension in use says how it was built; a GCC release build that lost its profile
    (a broken training run, a refused profile) is a slower build, found here rather than by
    the benchmark."""
    from smolagents_native import _core

    build = _core.BUILD
    if os.environ.get("SMOLAGENTS_NATIVE_SANITIZE", "") not in ("", "0"):
        pytest.skip(f"a sanitizer build ({build})")
    if not build.startswith("gcc ") or "-O3" not in build:
        pytest.skip(f"not a GCC release build ({build})")
    if "SMOLAGENTS_NATIVE_PGO=0" in build or "10 or later is needed" in build:
        pytest.skip(f"built without the profile on request or by an old GCC ({build})")
    assert "-flto" in build and "profile-guided" in build, build
