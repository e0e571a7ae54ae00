"""Presenting the traces' results (``--traces``): plain-text tables, by time or by instructions.
"""

from __future__ import annotations

import sys
from typing import IO

from ._report import _fmt_ratio, _headline, _plain_table, header_lines
from ._runner import ratio_key
from ._trace_runner import GOAL_TRACES, GOALS, TRACE_PAIRS

SHORT = {"cpython": "CPython", "restrictedpython": "RPython", "native-process": "native-proc",
         "smolagents": "smolagents"}
FIGURE_TITLES = {
    "total": "whole trace: new engine + every step (ms)",
    "step_mean": "a new step, mean over the trace's steps (us)",
    "first": "new engine + first step (us)",
}
FIGURE_SCALE = {"total": (1e3, "ms"), "step_mean": (1e6, "us"), "first": (1e6, "us"),
                "create": (1e6, "us")}
STATUS_TEXT = {"unavailable": "n/a", "capped": "capped", "timeout": "TIMEOUT",
               "crashed": "CRASHED", "error": "error", "mismatch": "MISMATCH"}


def _s(engine: str) -> str:
    return SHORT.get(engine, engine)


def _num(v: float) -> str:
    if v >= 1000:
        return f"{v:,.0f}"
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def _pairs(engines: list[str]) -> list[tuple[str, str]]:
    return [(a, b) for a, b in TRACE_PAIRS if a in engines and b in engines]


def _cell(r: dict, figure: str) -> str:
    f = r.get("figures", {}).get(figure, {})
    if r["status"] != "ok" or f.get("min") is None:
        return STATUS_TEXT.get(r["status"], r["status"])
    scale = FIGURE_SCALE[figure][0]
    return f"{_num(f['min'] * scale)} / {_num(f['median'] * scale)}"


def _ratio_cell(entry: dict, figure: str, key: str) -> str:
    r = entry["ratios"][figure].get(key)
    if r is None and figure == "total" and key in entry.get("ratio_bounds", {}):
        return "> " + _fmt_ratio(entry["ratio_bounds"][key])
    return _fmt_ratio(r)


def _check(entry: dict) -> str:
    bad = [f"{n} {r['status']}" for n, r in entry["engines"].items() if r["status"] != "ok"]
    if not bad:
        return "ok" if entry.get("outputs_agree") else "-"
    return "; ".join(bad)


def time_tables(results: dict) -> list[str]:
    engines = list(results["options"]["engines"])
    pairs = _pairs(engines)
    out = []
    for figure in ("total", "step_mean", "first"):
        head = ["trace (steps x lines)"] + [f"{_s(e)} min/med" for e in engines]
        head += [f"{_s(a)}/{_s(b)}" for a, b in pairs]
        if figure == "total":
            head.append("outputs")
        rows = []
        for entry in results["traces"]:
            row = [f"{entry['name']} ({entry['steps']} x {entry['lines_per_step']:g})"]
            row += [_cell(entry["engines"][e], figure) for e in engines]
            row += [_ratio_cell(entry, figure, ratio_key(a, b)) for a, b in pairs]
            if figure == "total":
                row.append(_check(entry))
            rows.append(row)
        out += [f"{FIGURE_TITLES[figure]}, min / median over the runs:",
                _plain_table(head, rows), ""]
    return out


def step_tables(results: dict) -> list[str]:
    """Each step of the goal traces (the ~30-line one and the tiny one), by time."""
    engines = [e for e in ("cpython", "native", "smolagents") if e in
               results["options"]["engines"]]
    pairs = _pairs(engines)
    out = []
    for entry in results["traces"]:
        if entry["name"] not in GOAL_TRACES:
            continue
        head = ["step (lines)"] + [f"{_s(e)} us min/med" for e in engines]
        head += [f"{_s(a)}/{_s(b)}" for a, b in pairs]
        rows = []
        for i, lines in enumerate(entry["step_lines"]):
            row = [f"{i + 1} ({lines})"]
            for e in engines:
                r = entry["engines"][e]
                steps = r.get("figures", {}).get("steps", [])
                if r["status"] != "ok" or i >= len(steps) or steps[i]["min"] is None:
                    row.append(STATUS_TEXT.get(r["status"], r["status"]))
                else:
                    row.append(f"{_num(steps[i]['min'] * 1e6)} / "
                               f"{_num(steps[i]['median'] * 1e6)}")
            for a, b in pairs:
                rs = entry["ratios"]["steps"].get(ratio_key(a, b)) or []
                row.append(_fmt_ratio(rs[i]) if i < len(rs) else "-")
            rows.append(row)
        out += [f"{entry['name']}, step by step (each new source):", _plain_table(head, rows),
                ""]
    return out


def headline_lines(results: dict, figures: tuple[str, ...], unit: str = "traces") -> list[str]:
    out = []
    cap = results.get("options", {}).get("smolagents_cap")
    for figure in figures:
        for key, g in results["summary"]["geomeans"].get(figure, {}).items():
            a, b = key.split("_over_")
            label = f"Geomean {a.replace('_', '-')}/{b} [{figure}]:"
            capped = (f"where {a} was stopped at its cap"
                      + (f" of {cap:g} s" if a == "smolagents" and cap else ""))
            if g["geomean"] is None and not g["bounds"]:
                missed = ", ".join(f"{n} ({s})" for n, s in sorted(g["missed"].items()))
                out.append(f"{label:40s} - (not counted: {missed})")
                continue
            out.append(_headline(label, g, capped).replace(" programs", f" {unit}"))
    return out


def goal_lines(results: dict) -> list[str]:
    out = ["Against the issue's goals (a new step, mean over the trace's steps; "
           "measured, nothing tuned):"]
    for g in results["summary"]["goals"]:
        r = g["ratio"]
        verdict = "n/a" if g["met"] is None else ("met" if g["met"] else "NOT met")
        out.append(f"  {g['trace']}: {g['pair']} {_fmt_ratio(r)} (goal {g['goal']}): {verdict}")
    return out


def problem_lines(results: dict) -> list[str]:
    out = []
    for p in results["summary"]["problems"]:
        msg = (p["message"] or "").replace("\n", " ")
        if len(msg) > 200:
            msg = msg[:197] + "..."
        out.append(f"  - {p['workload']} / {p['engine']}: {p['status'].upper()} {msg}")
    return out


def print_trace_report(results: dict, stream: IO[str] | None = None) -> None:
    stream = stream or sys.stdout
    lines = header_lines(results)[:3]
    o = results["options"]
    lines.append(f"Runs:     {o['warmup']} warm-up + {o['repeat']} measured per engine and trace"
                 f"{' (quick mode)' if o['quick'] else ''}; smolagents cap "
                 f"{o['smolagents_cap']:g}s per trace run; budget {o['budget']:g}s")
    if results["header"].get("label"):
        lines.append(f"Label:    {results['header']['label']}")
    lines.append(f"Authorized imports besides smolagents' base modules: "
                 f"{', '.join(results['imports'])}")
    lines.append("")
    lines += time_tables(results)
    lines += step_tables(results)
    lines += headline_lines(results, ("total", "step_mean", "first"))
    lines += goal_lines(results)
    lines += problem_lines(results)
    stream.write("\n".join(lines) + "\n")
    stream.flush()


# ---------------------------------------------------------------------------------------------
# Instruction counts.

INSTR_FIGURES = (("total", "whole trace: new engine + every step (millions)", 1e6),
                 ("step_mean", "a new step, mean over the trace's steps (thousands)", 1e3),
                 ("first", "new engine + first step (thousands)", 1e3))


def instruction_table(results: dict) -> str:
    engines = results["engines"]
    pairs = _pairs(engines)
    lines = []
    for figure, title, scale in INSTR_FIGURES:
        head = ["trace"] + [f"{_s(e)}" for e in engines] + [f"{_s(a)}/{_s(b)}" for a, b in pairs]
        rows = []
        for name, entry in results["traces"].items():
            row = [name]
            for e in engines:
                r = entry["engines"].get(e, {})
                v = r.get(figure)
                row.append(_num(v / scale) if v is not None else
                           ("n/a" if r.get("unavailable") else "error"))
            row += [_fmt_ratio(entry["ratios"][figure].get(ratio_key(a, b))) for a, b in pairs]
            rows.append(row)
        lines += [f"Instructions, {title}:", _plain_table(head, rows), ""]
    for figure, _, _ in INSTR_FIGURES:
        for key, g in results["summary"]["geomeans"].get(figure, {}).items():
            a, b = key.split("_over_")
            text = f"Geomean {a.replace('_', '-')}/{b} instructions [{figure}]:"
            value = _fmt_ratio(g["geomean"]) if g["geomean"] is not None else "-"
            miss = ", ".join(f"{n} ({s})" for n, s in sorted(g["missed"].items()))
            lines.append(f"{text:52s} {value} over {g['n']} traces"
                         + (f" (not counted: {miss})" if miss else ""))
    lines += goal_lines(results)
    reasons = {e: r["reason"] for entry in results["traces"].values()
               for e, r in entry["engines"].items() if r.get("unavailable")}
    for e, reason in reasons.items():
        lines.append(f"  - {e}: n/a: {reason}")
    for name, entry in results["traces"].items():
        for e, r in entry["engines"].items():
            if r.get("error"):
                lines.append(f"  - {name} / {e}: {r['error'][:200]}")
    return "\n".join(lines)


__all__ = ["GOALS", "instruction_table", "print_trace_report"]
