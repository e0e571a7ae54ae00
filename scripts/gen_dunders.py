#!/usr/bin/env python3
"""Generate the table of docs/security.md, "Dunder attributes agents read", from
csrc/guard/dunders.def (the reviewed allowlist of dunder reads; the C side expands the same file).

    python scripts/gen_dunders.py           # rewrite the table
    python scripts/gen_dunders.py --check   # exit 1 if it is stale

The table sits between `<!-- dunders:begin -->` and `<!-- dunders:end -->`; entries with the
same "readable on" and "why" share a row.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from gen_budgets import _replace_between, check_arg, write_or_check  # noqa: E402

DEF = ROOT / "csrc" / "guard" / "dunders.def"
DOC = ROOT / "docs" / "security.md"
_LINE = re.compile(r'^DUNDER\((\w+), (\w+), "((?:[^"\\]|\\.)*)", "((?:[^"\\]|\\.)*)"\)\s*$')
# indented: the table sits in a list item of its section
BEGIN, END = "  <!-- dunders:begin -->", "  <!-- dunders:end -->"


def read_def(text: str | None = None) -> list[tuple[str, str, str, str]]:
    """(name, where, readable on, why) per entry, in the file's order."""
    rows = []
    for line in (DEF.read_text() if text is None else text).splitlines():
        if line.startswith("DUNDER("):
            m = _LINE.match(line)
            if not m:
                raise SystemExit(f"csrc/guard/dunders.def: entry not understood: {line}")
            rows.append(m.groups())
    return rows


def table(rows: list[tuple[str, str, str, str]]) -> str:
    out = ["| Name | Readable on | Why it leads nowhere new |", "|---|---|---|"]
    for name, _where, on, why in rows:
        out.append(f"| `{name}` | {on} | {why} |")
    return "\n".join("  " + row for row in out)  # inside the list item of its section


def main(argv: list[str] | None = None) -> int:
    doc = _replace_between(DOC.read_text(), BEGIN, END, table(read_def()), DOC)
    return write_or_check({DOC: doc}, check_arg(argv, __doc__), "gen_dunders.py")


if __name__ == "__main__":
    sys.exit(main())
