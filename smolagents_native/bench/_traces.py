"""The trace corpus: one file per agent trace in ``traces/``.

A trace is what an agent runs: a sequence of steps, each new source text, the state (variables,
functions, classes, imports) carried from step to step. A trace file starts with a comment
saying what it represents; a line ``# %% step`` starts each step (the file as a whole is also a
plain Python program, the steps concatenated). The modules the traces import beyond the ones
smolagents authorizes by default are `TRACE_IMPORTS`, authorized for every engine, with those
a trace's header names on a line ``# bench-imports: a, b``. `load_traces(directory)` reads
another directory laid out the same way (``--traces --dir DIR``).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from ._workloads import _header, corpus_files, header_imports

TRACES_DIR = Path(__file__).resolve().parent / "traces"
STEP_MARK = "# %% step"
# Authorized on top of smolagents' BASE_BUILTIN_MODULES (as an agent's
# additional_authorized_imports), for every engine.
TRACE_IMPORTS = ("json",)


@dataclass(frozen=True)
class Trace:
    name: str
    path: Path
    description: str
    steps: tuple[str, ...]
    mode: str = "trace"  # for the runner's sessions (never a per-call step)
    imports: tuple[str, ...] = TRACE_IMPORTS  # authorized besides the base modules

    @property
    def lines_per_step(self) -> float:
        return sum(len(s.strip().splitlines()) for s in self.steps) / len(self.steps)

    def to_dict(self) -> dict:
        return {"name": self.name, "file": self.path.name, "description": self.description,
                "mode": self.mode, "steps": len(self.steps), "imports": list(self.imports),
                "lines_per_step": round(self.lines_per_step, 1),
                "step_lines": [len(s.strip().splitlines()) for s in self.steps]}


def parse_trace(name: str, text: str, path: Path | None = None) -> Trace:
    lines = text.splitlines(keepends=True)
    i = 0  # the header: the comment lines before the first step
    while i < len(lines) and lines[i].startswith("#") and not lines[i].startswith(STEP_MARK):
        i += 1
    steps: list[str] = []
    current: list[str] | None = None
    for line in lines[i:]:
        if line.startswith(STEP_MARK):
            if current is not None:
                steps.append("".join(current).strip("\n") + "\n")
            current = []
        elif current is not None:
            current.append(line)
        elif line.strip():
            raise ValueError(f"{name}: code before the first {STEP_MARK!r} line")
    if current is not None:
        steps.append("".join(current).strip("\n") + "\n")
    if not steps:
        raise ValueError(f"{name}: no {STEP_MARK!r} line")
    description, meta = _header("".join(lines[:i]))
    imports = tuple(dict.fromkeys(TRACE_IMPORTS + header_imports(meta)))
    return Trace(name, path or Path(name + ".py"), description, tuple(steps), imports=imports)


def load_traces(directory: Path | str | None = None) -> list[Trace]:
    """The built-in traces, or the ``*.py`` files of `directory`."""
    return [parse_trace(p.stem, p.read_text(encoding="utf-8"), p)
            for p in corpus_files(directory, TRACES_DIR, "trace")]


def select_traces(traces: list[Trace], names: list[str] | str | None) -> list[Trace]:
    """Filter by comma-separated tokens (a token selects every trace whose name contains it);
    ValueError on a token that selects nothing."""
    if names is None:
        return list(traces)
    if isinstance(names, str):
        names = names.split(",")
    tokens = [n.strip() for n in names if n.strip()]
    if not tokens:
        return list(traces)
    unknown = [t for t in tokens if not any(t in tr.name for tr in traces)]
    if unknown:
        raise ValueError(f"no trace matches {', '.join(unknown)}; available: "
                         + ", ".join(tr.name for tr in traces))
    return [tr for tr in traces if any(t in tr.name for t in tokens)]
