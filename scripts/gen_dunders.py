#!/usr/bin/env python3
"""Generate the table of docs/security.md, "Dunder attributes agents read", from
csrc/dunders.def (the reviewed allowlist of dunder reads; the C side expands the same file).

    python scripts/gen_dunders.py           # rewrite the table
    python scripts/gen_dunders.py --check   # exit 1 if it is stale

The table sits between `<!-- dunders:begin -->` and `<!-- dunders:end -->`; entries with the
same "readable on" and "why" share a row.
"""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEF = ROOT / "csrc" / "dunders.def"
DOC = ROOT / "docs" / "security.md"
_LINE = re.compile(r'^DUNDER\((\w+), (\w+), "((?:[^"\\]|\\.)*)", "((?:[^"\\]|\\.)*)"\)\s*$')
BEGIN, END = "<!-- dunders:begin -->", "<!-- dunders:end -->"


def read_def(text: str | None = None) -> list[tuple[str, str, str, str]]:
    """(name, where, readable on, why) per entry, in the file's order."""
    rows = []
    for line in (DEF.read_text() if text is None else text).splitlines():
        if line.startswith("DUNDER("):
            m = _LINE.match(line)
            if not m:
                raise SystemExit(f"csrc/dunders.def: entry not understood: {line}")
            rows.append(m.groups())
    return rows


def table(rows: list[tuple[str, str, str, str]]) -> str:
    out = ["| Name | Readable on | Why it leads nowhere new |", "|---|---|---|"]
    for name, _where, on, why in rows:
        out.append(f"| `{name}` | {on} | {why} |")
    return "\n".join("  " + row for row in out)  # inside the list item of its section


def render(doc: str, rows: list[tuple[str, str, str, str]]) -> str:
    head, rest = doc.split(BEGIN, 1)
    _old, tail = rest.split(END, 1)
    return f"{head}{BEGIN}\n{table(rows)}\n  {END}{tail}"


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args(argv)
    doc = DOC.read_text()
    new = render(doc, read_def())
    if args.check:
        if new != doc:
            print("docs/security.md: the dunder table is stale: run python scripts/gen_dunders.py")
            return 1
        return 0
    if new != doc:
        DOC.write_text(new)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
