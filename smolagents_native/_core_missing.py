"""A clear error when the C extension `smolagents_native._core` cannot be imported.

The usual case: `pip install .` (not `-e`) installs the package into site-packages, but the
repository's `smolagents_native/` directory has no built `_core*.so`. Run from the repository
root, `python -m smolagents_native` or `import smolagents_native` finds that source directory
first (the current directory leads sys.path), and Python's own message is a confusing "cannot
import name '_core' from partially initialized module ... (most likely due to a circular
import)". `explain()` turns the failure into an ImportError that says what to do.

Only the standard library is used here: this runs while the package is half-imported.
"""

from __future__ import annotations

import importlib.machinery
import os
import sys


def _core_files(package_dir: str) -> list[str]:
    """Every file in package_dir that looks like a build of _core, for any Python."""
    try:
        names = os.listdir(package_dir)
    except OSError:
        return []
    return sorted(
        name for name in names
        if name.startswith("_core.") and name.endswith((".so", ".pyd")) and name != "_core.pyi"
    )


def _loadable_name(files: list[str]) -> str | None:
    """The file among `files` that this interpreter would import, if any."""
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        if "_core" + suffix in files:
            return "_core" + suffix
    return None


def _other_installed_copy(package_dir: str) -> str | None:
    """Another smolagents_native on sys.path that has a loadable _core (e.g. site-packages)."""
    here = os.path.realpath(package_dir)
    for entry in sys.path:
        candidate = os.path.join(entry or os.getcwd(), "smolagents_native")
        if os.path.realpath(candidate) == here or not os.path.isdir(candidate):
            continue
        if _loadable_name(_core_files(candidate)):
            return candidate
    return None


def _is_source_tree(package_dir: str) -> bool:
    parent = os.path.dirname(os.path.abspath(package_dir))
    return os.path.isfile(os.path.join(parent, "setup.py")) and os.path.isdir(
        os.path.join(parent, "csrc")
    )


def explain(exc: ImportError, package_dir: str) -> ImportError:
    """The ImportError to raise instead of `exc` (the failed `from . import _core`)."""
    files = _core_files(package_dir)
    loadable = _loadable_name(files)
    version = "%d.%d" % sys.version_info[:2]
    if loadable is not None:
        # The right file is there but does not load: a broken or mismatched build.
        message = (
            f"the C extension {os.path.join(package_dir, loadable)} exists but cannot be "
            f"loaded by this Python ({version}, {sys.executable}): {exc}. Rebuild it "
            "(`pip install -e .` or `python setup.py build_ext --inplace --force`)."
        )
        return ImportError(message, name="smolagents_native._core")
    if _is_source_tree(package_dir):
        parent = os.path.dirname(os.path.abspath(package_dir))
        message = (
            f"the extension is not built in this tree ({package_dir} has no _core for "
            f"Python {version}): use `pip install -e .` (or `python setup.py build_ext "
            "--inplace`) here, or run from another directory"
        )
        other = _other_installed_copy(package_dir)
        if other is not None:
            message += (
                f" so that the installed copy ({other}) is imported instead of the source "
                f"directory {parent}"
            )
    else:
        message = f"the C extension smolagents_native._core is missing from {package_dir}"
        message += "; reinstall smolagents-native (`pip install --force-reinstall smolagents-native`)"
    if files:
        message += f". Builds found there are for other Pythons: {', '.join(files)}"
    return ImportError(message, name="smolagents_native._core")
