"""The package is built in layers, and imports only go down (issue 38, item 6).

Every module of smolagents_native/ is parsed (never imported) and each of its imports, at
module level or inside a function, is resolved to the package's modules; a module may import
a module of a lower layer, or of its own layer, never one above it or of a sibling layer:

    top        the package's __init__, __main__, cli, bench, and the aliases of old paths
    agent      agent/ (the agent loop, model clients, notebook)
    service    service.py, remote.py (HTTP service and client over the process mode)
    isolation  isolation/ (process mode: host, worker, jail, protocol, wire, ray)
    shim       executor.py (smolagents' names and contract), compat.py
    engine     _engine.py (the interpreters, the step)
    base       errors, grants, observability, _budgets, _inprocess, _mode, _display, ...

The layer of each module is the table of docs/design.md, section 6.5 (the one place it is
written; a module missing there, or an entry naming nothing, fails). agent and service are
siblings: neither imports the other. The executor and the engine
reach the process mode only through `executor.register_process_mode`, which the package's
__init__ fills.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import smolagents_native

PACKAGE = "smolagents_native"
PKG_DIR = Path(smolagents_native.__file__).resolve().parent

RANK = {"base": 0, "engine": 1, "shim": 2, "isolation": 3, "service": 4, "agent": 4, "top": 5}

DESIGN = Path(__file__).resolve().parent.parent / "docs" / "design.md"


def read_layout(text: str) -> dict[str, str]:
    """docs/design.md's table of the package (section 6.5), as module (or package prefix,
    ending in ".") -> layer; the longest match wins."""
    block = text.split("<!-- pylayout:begin -->", 1)[1].split("<!-- pylayout:end -->", 1)[0]
    out = {}
    for line in block.splitlines():
        if not line.strip() or line.startswith("```"):
            continue
        layer, path = line.split()[:2]
        assert layer in RANK, f"docs/design.md: unknown layer {layer!r} in {line!r}"
        rel = path[len(PACKAGE) + 1:] if path != PACKAGE else ""
        if rel.endswith("/"):  # a package: itself and everything in it
            out[rel[:-1].replace("/", ".")] = layer
            out[rel[:-1].replace("/", ".") + "."] = layer
            continue
        rel = rel[: -len(".py")] if rel.endswith(".py") else rel
        parts = rel.split("/")
        if parts[-1] == "__init__":
            parts = parts[:-1]
        out[".".join(parts)] = layer
    return out


LAYER_OF = read_layout(DESIGN.read_text(encoding="utf-8"))


def layer_of(module: str) -> str | None:
    """The layer of `module` (relative to the package, "" for the package itself)."""
    if module in LAYER_OF:
        return LAYER_OF[module]
    prefixes = [p for p in LAYER_OF if p.endswith(".") and module.startswith(p)]
    return LAYER_OF[max(prefixes, key=len)] if prefixes else None


def package_modules() -> dict[str, tuple[Path, bool]]:
    """Module name (relative to the package) -> (its file, whether it is a package)."""
    out = {}
    for path in sorted(PKG_DIR.rglob("*.py")):
        rel = path.relative_to(PKG_DIR).with_suffix("")
        parts = list(rel.parts)
        is_package = parts[-1] == "__init__"
        if is_package:
            parts = parts[:-1]
        out[".".join(parts)] = (path, is_package)
    out.setdefault("_core", (PKG_DIR, False))  # the C extension
    return out


def imports_of(name: str, is_package: bool, source: str, known: set[str]) -> list[tuple[int, str]]:
    """(line, module) for every import in `source` that names a module of the package;
    `name` is the importing module (relative to the package, "" for its __init__), `known` the
    package's modules. `from X import y` is an import of X.y when that is a module, else of X
    (so `from . import __version__` imports the package's __init__, the top layer)."""
    tree = ast.parse(source)
    here = name.split(".") if name else []
    package = here if is_package else here[:-1]
    found: list[tuple[int, str]] = []

    def add(line: int, absolute: str) -> None:
        if absolute == PACKAGE:
            found.append((line, ""))
        elif absolute.startswith(PACKAGE + "."):
            found.append((line, absolute[len(PACKAGE) + 1:]))

    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(node.lineno, alias.name)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                up = package[: len(package) - (node.level - 1)] if node.level > 1 else package
                if node.level - 1 > len(package):
                    raise AssertionError(f"{name}:{node.lineno}: relative import beyond the package")
                base = ".".join([PACKAGE, *up, *([node.module] if node.module else [])])
            else:
                base = node.module or ""
            for alias in node.names:
                sub = f"{base}.{alias.name}"
                if sub.startswith(PACKAGE + ".") and sub[len(PACKAGE) + 1:] in known:
                    add(node.lineno, sub)  # a submodule (its package runs first: same layer)
                else:
                    add(node.lineno, base)  # an attribute of `base`
    return found


def violations(sources: dict[str, tuple[str, bool]], known: set[str]) -> list[str]:
    """Every import that goes up a layer or sideways, as "module:line imports X (a -> b)"."""
    out = []
    for name, (source, is_package) in sorted(sources.items()):
        mine = layer_of(name)
        if mine is None:
            out.append(f"{name or '__init__'}: no layer (add it to docs/design.md's table, 6.5)")
            continue
        for line, target in imports_of(name, is_package, source, known):
            theirs = layer_of(target)
            if theirs is None:
                out.append(f"{name}:{line} imports {target}, which has no layer")
            elif theirs != mine and RANK[theirs] >= RANK[mine]:
                path = "/".join([PACKAGE, *(name.split(".") if name else [])])
                path += "/__init__.py" if is_package else ".py"
                dotted = f"{PACKAGE}.{target}" if target else PACKAGE
                out.append(f"{path}:{line} imports {dotted} ({mine} -> {theirs}: an upward import)")
    return out


def test_every_module_has_a_layer_and_imports_only_downward():
    modules = package_modules()
    sources = {
        name: (path.read_text(encoding="utf-8"), is_package)
        for name, (path, is_package) in modules.items() if path.suffix == ".py"
    }
    problems = violations(sources, set(modules))
    assert not problems, "\n".join(problems)


@pytest.mark.parametrize("line", [
    "from .isolation import ProcessExecutor",
    "from . import isolation",
    "import smolagents_native.isolation.host",
    "from smolagents_native.agent import CodeAgent",
    "def f():\n    from .notebook import code_output_html\n",
    "def f():\n    from .agent.notebook import code_output_html\n",
])
def test_an_upward_import_in_the_executor_is_found(line):
    modules = package_modules()
    source = modules["executor"][0].read_text(encoding="utf-8") + "\n" + line + "\n"
    problems = violations({"executor": (source, False)}, set(modules))
    assert problems and all("executor" in p and "upward" in p for p in problems), problems


def test_a_base_module_naming_the_package_init_is_found():
    modules = package_modules()
    problems = violations({"observability": ("def f():\n    from . import __version__\n", False)},
                          set(modules))
    assert problems == ["smolagents_native/observability.py:2 imports smolagents_native "
                        "(base -> top: an upward import)"]


def test_a_sideways_import_between_agent_and_service_is_found():
    modules = package_modules()
    source = "from ..service import encode\n"
    problems = violations({"agent.loop": (source, False)}, set(modules))
    assert problems == ["smolagents_native/agent/loop.py:1 imports smolagents_native.service "
                        "(agent -> service: an upward import)"]


def test_imports_within_a_layer_and_downward_are_allowed():
    modules = package_modules()
    ok = {
        "isolation.host": ("from .. import executor\nfrom . import worker as W\n"
                           "from .._engine import _BASE_IDS\n", False),
        "executor": ("from . import _engine, compat\nfrom ._mode import resolve_isolation\n",
                     False),
        "_engine": ("from . import _core, errors\n", False),
    }
    assert violations(ok, set(modules)) == []


def test_the_table_names_only_what_exists():
    """Every entry of docs/design.md's table is a module or package of the tree, and every file
    of the package (bench's own modules aside: its directory entry covers them) is listed."""
    modules = package_modules()
    block = DESIGN.read_text(encoding="utf-8").split("<!-- pylayout:begin -->", 1)[1]
    block = block.split("<!-- pylayout:end -->", 1)[0]
    listed = {line.split()[1] for line in block.splitlines()
              if line.strip() and not line.startswith("```")}
    root = PKG_DIR.parent
    for path in listed:
        if path.endswith("/_core"):
            continue
        assert (root / path).exists(), f"docs/design.md names {path}, which does not exist"
    for name, (path, is_package) in modules.items():
        if name == "_core" or name == "bench" or name.startswith("bench."):
            continue
        rel = path.relative_to(root).as_posix()
        names = {rel, rel[: -len("__init__.py")]} if is_package else {rel}
        assert names & listed, f"{rel} is not in docs/design.md's table of the package (6.5)"
