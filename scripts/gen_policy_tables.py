#!/usr/bin/env python3
"""Generate the tables of docs/security.md, "Tables of the choke point", from csrc/guard/policy.def
(the names the attribute choke point and the value gates list, each with its reason; the C
side, policy.c, expands the same file), and the table of the audit events the tripwire watches
(section 8) from csrc/guard/events.def (tripwire.c expands it).

    python scripts/gen_policy_tables.py           # rewrite the tables
    python scripts/gen_policy_tables.py --check   # exit 1 if they are stale
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "scripts"))

from gen_budgets import _replace_between, check_arg, write_or_check  # noqa: E402

DEF = ROOT / "csrc" / "guard" / "policy.def"
DOC = ROOT / "docs" / "security.md"
BEGIN, END = "<!-- policy-tables:begin -->", "<!-- policy-tables:end -->"
EVENTS_DEF = ROOT / "csrc" / "guard" / "events.def"
EVENTS_BEGIN, EVENTS_END = "<!-- events:begin -->", "<!-- events:end -->"
_STR = r'"((?:[^"\\]|\\.)*)"'
_EVENT = re.compile(rf"^(EVENT|EVENT_PREFIX)\({_STR}, (\w+), (NULL|{_STR}), {_STR}\)\s*$")
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
            raise SystemExit(f"csrc/guard/policy.def: entry not understood: {line}")
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


def read_events(text: str | None = None) -> list[tuple[str, str, str | None, str]]:
    """[(event name, or prefix + "*"; rule; what (DENY's words) or None; why)], in the file's
    order."""
    out = []
    for line in (EVENTS_DEF.read_text() if text is None else text).splitlines():
        if not line.startswith("EVENT"):
            continue
        m = _EVENT.match(line)
        if not m:
            raise SystemExit(f"csrc/guard/events.def: entry not understood: {line}")
        macro, name, rule, _what, what, why = m.groups()
        out.append((name + "*" if macro == "EVENT_PREFIX" else name, rule, what, why))
    return out


def events_table(rows: list[tuple[str, str, str | None, str]]) -> str:
    out = [f"**The watched events** ({len(rows)}; `*`: every event the name starts; rules as "
           "`csrc/guard/events.def` says):", "", "| Event | Rule | Why |", "|---|---|---|"]
    out += [f"| `{name}` | {rule} | {why} |" for name, rule, _what, why in rows]
    return "\n".join(out)


def main(argv: list[str] | None = None) -> int:
    doc = _replace_between(DOC.read_text(), BEGIN, END, tables(read_def()), DOC)
    doc = _replace_between(doc, EVENTS_BEGIN, EVENTS_END, events_table(read_events()), DOC)
    return write_or_check({DOC: doc}, check_arg(argv, __doc__), "gen_policy_tables.py")


if __name__ == "__main__":
    sys.exit(main())
