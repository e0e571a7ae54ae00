"""The workload corpus: one plain-Python file per workload in ``workloads/``.

Each file starts with a comment saying what it represents. A line ``# bench-mode: step`` in
that header makes it a per-call step (timed per call on one executor) instead of a program;
a step gives two workloads: ``NAME`` (the same source every call: lowering-cache hit) and
``NAME_uncached`` (a unique source every call). A line ``# bench-imports: json, csv`` names
the modules the file imports beyond smolagents' base ones, authorized for every engine (as
an agent's ``additional_authorized_imports``).

`load_workloads(directory)` reads another directory laid out the same way: the benchmark
run on programs the project did not write (``python -m smolagents_native.bench --dir DIR``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

WORKLOADS_DIR = Path(__file__).resolve().parent / "workloads"


@dataclass(frozen=True)
class Workload:
    name: str
    path: Path
    source: str
    description: str
    mode: str = "program"  # "program" or "step"
    unique_source: bool = False  # step mode: a different source text on every call
    imports: tuple[str, ...] = ()  # authorized besides the base modules (# bench-imports:)

    def to_dict(self) -> dict:
        return {
            "name": self.name,
            "file": self.path.name,
            "description": self.description,
            "mode": self.mode,
            "unique_source": self.unique_source,
            "imports": list(self.imports),
        }


def _header(source: str) -> tuple[str, dict[str, str]]:
    """Return (description, {key: value} from ``# bench-KEY: VALUE`` lines) of the leading
    comment block."""
    text: list[str] = []
    meta: dict[str, str] = {}
    for line in source.splitlines():
        if not line.startswith("#"):
            break
        body = line[1:].strip()
        if body.startswith("bench-") and ":" in body:
            key, _, value = body[len("bench-"):].partition(":")
            meta[key.strip()] = value.strip()
        else:
            text.append(body)
    return " ".join(text).strip(), meta


def header_imports(meta: dict[str, str]) -> tuple[str, ...]:
    """The modules of a ``# bench-imports: a, b`` header line (comma- or space-separated)."""
    return tuple(m for m in meta.get("imports", "").replace(",", " ").split() if m)


def corpus_files(directory: Path | str | None, default: Path, what: str) -> list[Path]:
    """The ``*.py`` files of a corpus directory (not ``_*``), sorted; `default` when
    `directory` is None. ValueError for a directory given that is missing or holds none."""
    path = Path(directory) if directory is not None else default
    if directory is not None and not path.is_dir():
        raise ValueError(f"{what} directory {str(path)!r} does not exist or is not a directory")
    files = [p for p in sorted(path.glob("*.py")) if not p.name.startswith("_")]
    if directory is not None and not files:
        raise ValueError(f"no {what} files (*.py) in {str(path)!r}")
    return files


def load_workloads(directory: Path | str | None = None) -> list[Workload]:
    """All workloads, programs first (by name), then steps: the built-in corpus, or the
    ``*.py`` files of `directory`."""
    programs: list[Workload] = []
    steps: list[Workload] = []
    for path in corpus_files(directory, WORKLOADS_DIR, "workload"):
        source = path.read_text(encoding="utf-8")
        description, meta = _header(source)
        name = path.stem
        imports = header_imports(meta)
        if meta.get("mode") == "step":
            steps.append(Workload(name, path, source, description, "step", False, imports))
            steps.append(Workload(name + "_uncached", path, source,
                                  description + " [unique source per call]", "step", True,
                                  imports))
        else:
            programs.append(Workload(name, path, source, description, imports=imports))
    return programs + steps


def select_workloads(workloads: list[Workload], names: list[str] | str | None) -> list[Workload]:
    """Filter by comma-separated tokens; a token selects every workload whose name contains
    it (so ``tiny`` selects ``tiny`` and ``tiny_uncached``). Raises ValueError on a token that
    selects nothing."""
    if names is None:
        return list(workloads)
    if isinstance(names, str):
        names = [n for n in names.split(",")]
    tokens = [n.strip() for n in names if n.strip()]
    if not tokens:
        return list(workloads)
    unknown = [t for t in tokens if not any(t in w.name for w in workloads)]
    if unknown:
        raise ValueError(
            f"no workload matches {', '.join(unknown)}; available: "
            + ", ".join(w.name for w in workloads)
        )
    return [w for w in workloads if any(t in w.name for t in tokens)]
