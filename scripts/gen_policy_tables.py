#!/usr/bin/env python3
"""Generate the tables of docs/security.md, "Tables of the choke point", from csrc/policy.def
(the names the attribute choke point and the value gates list, each with its reason; the C
side, policy.c, expands the same file).

    python scripts/gen_policy_tables.py           # rewrite the tables
    python scripts/gen_policy_tables.py --check   # exit 1 if they are stale
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEF = ROOT / "csrc" / "policy.def"
DOC = ROOT / "docs" / "security.md"
BEGIN, END = "<!-- policy-tables:begin -->", "<!-- policy-tables:end -->"
_STR = r'"((?:[^"\\]|\\.)*)"'
_LINES = {
    "DUNDER_READ": re.compile(rf"^DUNDER_READ\((\w+), {_STR}\)\s*$"),
    "INTERNAL_NAME": re.compile(rf"^INTERNAL_NAME\((\w+), {_STR}\)\s*$"),
    "BUILTIN_REFUSED": re.compile(rf"^BUILTIN_REFUSED\((\w+), {_STR}\)\s*$"),
    "FUNC_REFUSED": re.compile(rf"^FUNC_REFUSED\((\w+), {_STR}, {_STR}\)\s*$"),
}
TITLES = {
    "DUNDER_READ": ("Dunders readable on any object (reads only)", "Name"),
    "INTERNAL_NAME": ("Interpreter internals refused even without underscores", "Name"),
    "BUILTIN_REFUSED": ("Builtins refused (absent from the code's builtins, refused as values "
                        "and calls however reached)", "Builtin"),
    "FUNC_REFUSED": ("Functions refused as values and calls even when their module is "
                     "authorized (a tool the host gave under its own name is exempt)",
                     "Function"),
}


def read_def(text: str | None = None) -> dict[str, list[tuple[str, str]]]:
    """kind -> [(name, why)] in the file's order (FUNC_REFUSED names as module.path)."""
    out: dict[str, list[tuple[str, str]]] = {k: [] for k in _LINES}
    for line in (DEF.read_text() if text is None else text).splitlines():
        kind = line.split("(", 1)[0]
        if kind not in _LINES:
            continue
        m = _LINES[kind].match(line)
        if not m:
            raise SystemExit(f"csrc/policy.def: entry not understood: {line}")
        g = m.groups()
        out[kind].append((f"{g[0]}.{g[1]}", g[2]) if kind == "FUNC_REFUSED" else (g[0], g[1]))
    return out


def tables(rows: dict[str, list[tuple[str, str]]]) -> str:
    out = []
    for kind, (title, col) in TITLES.items():
        out += [f"**{title}** ({len(rows[kind])}):", "", f"| {col} | Why |", "|---|---|"]
        out += [f"| `{name}` | {why} |" for name, why in rows[kind]]
        out.append("")
    return "\n".join(out).rstrip("\n")


def render(doc: str, rows: dict[str, list[tuple[str, str]]]) -> str:
    head, rest = doc.split(BEGIN, 1)
    _old, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{tables(rows)}\n{END}{tail}"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    doc = DOC.read_text()
    new = render(doc, read_def())
    if args.check:
        if new != doc:
            print("docs/security.md: the choke point's tables are stale: "
                  "run python scripts/gen_policy_tables.py")
            return 1
        return 0
    if new != doc:
        DOC.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
