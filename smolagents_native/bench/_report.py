"""Presenting results: terminal table (rich when installed, plain text otherwise), JSON file,
bar chart of ratios (matplotlib, optional)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import IO, Any

from ._runner import ENGINE_NAMES, RATIO_PAIRS, ratio_key

LOUD = {"mismatch", "crashed"}


def _fmt_ratio(r: float | None) -> str:
    if r is None:
        return "-"
    if r >= 100:
        return f"{r:.0f}x"
    if r >= 10:
        return f"{r:.1f}x"
    return f"{r:.2f}x"


def _num(v: float) -> str:
    if v >= 100:
        return f"{v:.0f}"
    if v >= 10:
        return f"{v:.1f}"
    return f"{v:.2f}"


def _fmt_ratio_or_bound(entry: dict, key: str) -> str:
    """The ratio, or "> N" when the first engine was stopped at its cap (a lower bound)."""
    bound = entry.get("ratio_bounds", {}).get(key)
    if entry["ratios"].get(key) is None and bound is not None:
        return "> " + _fmt_ratio(bound)
    return _fmt_ratio(entry["ratios"].get(key))


def _headline(label: str, g: dict, capped: str) -> str:
    """A geomean line that never leaves out a program a peer could not finish: with capped
    programs, "> N over all" (their bound counted), then the finished ones' geomean."""
    missed = g.get("missed") or {}
    tail = ("; not counted: " + ", ".join(f"{n} ({s})" for n, s in sorted(missed.items()))
            if missed else "")
    if not g.get("bounds"):
        text = f"{label:27s} {_fmt_ratio(g['geomean'])} over {g['n']} programs"
        return text + (f" ({tail[2:]})" if tail else "")
    text = (f"{label:27s} > {_fmt_ratio(g['at_least'])} over {g['n_all']} programs "
            f"({g['bounds']} {capped}, counted at their bound")
    if g["n"]:
        text += f"; {_fmt_ratio(g['geomean'])} over the {g['n']} both finished"
    return text + tail + ")"


def _fmt_time(r: dict, per_call: bool, repeat: int) -> str:
    status = r["status"]
    if r.get("min") is None:
        return {
            "unavailable": "n/a",
            "capped": "capped",
            "timeout": "TIMEOUT",
            "crashed": "CRASHED",
            "error": "error",
        }.get(status, status)
    scale = 1e6 if per_call else 1e3
    text = f"{_num(r['min'] * scale)} / {_num(r['median'] * scale)}"
    if r.get("runs") and r["runs"] < repeat:
        text += f" ({r['runs']})"
    if status == "mismatch":
        text += " MISMATCH"
    elif r.get("note"):
        text += " *"
    return text


def _fmt_mem(r: dict | None) -> str:
    if not r or r.get("memory_kib") is None:
        return "-"
    kib = r["memory_kib"]
    return f"{kib / 1024:.1f}" if kib >= 1024 else f"{kib / 1024:.2f}"


def _check(entry: dict) -> str:
    bad = [name for name, r in entry["engines"].items() if r["status"] in LOUD]
    errs = [name for name, r in entry["engines"].items()
            if r["status"] in ("error", "timeout")]
    parts = []
    if bad:
        parts.append("!! " + ", ".join(
            f"{n} {entry['engines'][n]['status'].upper()}" for n in bad))
    if errs:
        parts.append("error: " + ", ".join(errs))
    if not parts:
        return "ok" if entry.get("outputs_agree") else "-"
    return "; ".join(parts)


SHORT = {"cpython": "CPython", "cpython-cached": "CPython(cached)",
         "native-cached": "native(cached)", "restrictedpython": "RestrictedPython"}


def _short(engine: str) -> str:
    return SHORT.get(engine, engine)


def table_rows(results: dict) -> tuple[list[str], list[list[str]]]:
    engines = [e for e in ENGINE_NAMES if e in results["options"]["engines"]]
    mem = results["options"].get("memory") is not None
    head = ["workload"]
    head += [f"{e} min/med" for e in engines]
    pairs = [(a, b) for a, b in RATIO_PAIRS if a in engines and b in engines]
    head += [f"{_short(a)}/{_short(b)}" for a, b in pairs]
    if mem:
        head += ["MiB " + "/".join(e[:3] for e in engines)]
    head += ["outputs"]
    rows = []
    for entry in results["workloads"]:
        per_call = entry["mode"] == "step"
        name = entry["name"] + (" (us/call)" if per_call else " (ms)")
        row = [name]
        row += [_fmt_time(entry["engines"][e], per_call, results["options"]["repeat"])
                for e in engines]
        row += [_fmt_ratio_or_bound(entry, ratio_key(a, b)) for a, b in pairs]
        if mem:
            row += [" / ".join(_fmt_mem(entry["engines"].get(e)) for e in engines)]
        row.append(_check(entry))
        rows.append(row)
    return head, rows


def header_lines(results: dict) -> list[str]:
    h = results["header"]
    o = results["options"]
    cores = h["machine"]["cores"]
    core_text = f"{cores['logical']} cores" + (
        f" ({cores['usable']} usable)" if cores.get("usable") not in (None, cores["logical"])
        else "")
    load = ""
    if h["machine"].get("load_average_at_start") is not None:
        load = f"; load average {h['machine']['load_average_at_start'][0]:g} at start"
        if h["machine"].get("load_average_at_end") is not None:
            load += f", {h['machine']['load_average_at_end'][0]:g} at end"
    lines = [
        f"Machine:  {h['machine']['cpu']}, {core_text}{load}",
        f"Python:   {h['python']['implementation']} {h['python']['version']}",
        f"Versions: smolagents {h['smolagents_version'] or 'not installed'}; smolagents_native "
        f"{h['smolagents_native_version'] or '?'} at commit {h['git_commit'] or 'unknown'}"
        + (f", built {h['smolagents_native_build']}" if h.get("smolagents_native_build") else ""),
        f"Runs:     {o['warmup']} warm-up + {o['repeat']} measured per engine"
        f"{' (quick mode)' if o['quick'] else ''}; smolagents cap {o['smolagents_cap']:g}s/run; "
        f"budget {o['budget']:g}s; step batches of {o['step_calls']} calls",
    ]
    if h.get("label"):
        lines.append(f"Label:    {h['label']}")
    return lines


def summary_lines(results: dict) -> list[str]:
    s = results["summary"]
    out = []
    g = s["geomean_native_over_cpython"]
    if g is not None:
        line = (f"Geomean native/CPython:     {_fmt_ratio(g)} over "
                f"{s['geomean_native_over_cpython_n']} programs")
        if s["worst_native_over_cpython"]:
            w, b = s["worst_native_over_cpython"], s["best_native_over_cpython"]
            line += (f" (worst {w['workload']} {_fmt_ratio(w['ratio'])}, "
                     f"best {b['workload']} {_fmt_ratio(b['ratio'])})")
        out.append(line)
    cap = results.get("options", {}).get("smolagents_cap")
    for a, b in RATIO_PAIRS[1:]:
        g = s.get("geomeans", {}).get(ratio_key(a, b))
        if g is not None:
            label = f"Geomean {_short(a)}/{_short(b)}:"
            capped = (f"where {a} was stopped at its cap"
                      + (f" of {cap:g} s" if a == "smolagents" and cap else ""))
            out.append(_headline(label, g, capped))
    for name, per in s["steps_us_per_call"].items():
        cells = ", ".join(f"{e} {v:.1f}" if v is not None else f"{e} -"
                          for e, v in per.items())
        out.append(f"Step {name}: us/call {cells}")
    if s["memory_kib"]:
        cells = "; ".join(f"{e} median {v['median'] / 1024:.2f} MiB, max {v['max'] / 1024:.1f} MiB"
                          for e, v in s["memory_kib"].items())
        out.append(f"Peak memory over programs: {cells}")
    if results.get("memory_method"):
        out.append(f"Memory is the {results['memory_method']}.")
    for engine, limits in results.get("limits", {}).items():
        changes = ", ".join(f"{k} {v['was']} -> {v['now']}" for k, v in limits.items())
        out.append(f"Limits changed for {engine}: {changes}")
    out.append("Times: min / median (ms, or us per call for steps), '(n)': only n measured runs "
               "fit the time budget; ratios use the minimum; geomeans count programs where both "
               "engines ran and printed what CPython printed.")
    unavailable: dict[str, str] = {}
    for p in s["problems"]:
        if p["status"] == "unavailable":
            unavailable.setdefault(p["engine"], p["message"] or "")
    for engine, msg in unavailable.items():
        out.append(f"  - {engine}: UNAVAILABLE {msg.splitlines()[0] if msg else ''}")
    for p in s["problems"]:
        if p["status"] == "unavailable":
            continue
        mark = "!!! " if p["status"] in LOUD else "  - "
        msg = (p["message"] or "").replace("\n", " ")
        if len(msg) > 240:
            msg = msg[:237] + "..."
        out.append(f"{mark}{p['workload']} / {p['engine']}: {p['status'].upper()} {msg}")
    return out


def _plain_table(head: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(head[i]), *(len(r[i]) for r in rows)) if rows else len(head[i])
              for i in range(len(head))]

    def fmt(cells: list[str]) -> str:
        return "  ".join(c.ljust(w) if i in (0, len(cells) - 1) else c.rjust(w)
                         for i, (c, w) in enumerate(zip(cells, widths, strict=True))).rstrip()

    sep = "  ".join("-" * w for w in widths)
    return "\n".join([fmt(head), sep] + [fmt(r) for r in rows])


def print_report(results: dict, stream: IO[str] | None = None, plain: bool | None = None) -> None:
    stream = stream or sys.stdout
    head, rows = table_rows(results)
    console = None
    if not plain:
        try:
            from rich.console import Console  # noqa: PLC0415
            from rich.table import Table  # noqa: PLC0415
        except ImportError:
            Console = None  # type: ignore[assignment,misc]  # noqa: N806
        if Console is not None:
            tty = getattr(stream, "isatty", lambda: False)()
            console = Console(file=stream, width=None if tty else 180, highlight=False)
    if console is None:
        for line in header_lines(results):
            stream.write(line + "\n")
        stream.write("\n" + _plain_table(head, rows) + "\n\n")
        for line in summary_lines(results):
            stream.write(line + "\n")
        stream.flush()
        return
    for line in header_lines(results):
        console.print(line, markup=False)
    table = Table(show_lines=False)
    for i, col in enumerate(head):
        table.add_column(col, justify="left" if i in (0, len(head) - 1) else "right",
                         no_wrap=i != len(head) - 1)
    for row in rows:
        style = "bold red" if "!!" in row[-1] else ("yellow" if "error" in row[-1] else None)
        table.add_row(*row, style=style)
    console.print(table)
    for line in summary_lines(results):
        style = "bold red" if line.startswith("!!!") else None
        console.print(line, style=style, markup=False)


def write_json(results: dict, path: str | os.PathLike) -> Path:
    path = Path(path)
    if path.parent and not path.parent.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(results, indent=2, sort_keys=False) + "\n", encoding="utf-8")
    return path


def write_plot(results: dict, path: str | os.PathLike) -> tuple[bool, str]:
    """Bar chart of the two ratios per program workload. Returns (written, message)."""
    try:
        import matplotlib  # noqa: PLC0415

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt  # noqa: PLC0415
    except ImportError:
        return False, ("--plot needs matplotlib, which is not installed "
                       "(pip install matplotlib, or the 'bench' extra); no plot written")
    programs = [e for e in results["workloads"] if e["mode"] == "program"]
    names = [e["name"] for e in programs]
    panels: list[tuple[str, str, list[Any]]] = [
        ("native / CPython (lower is better; 1 = as fast as CPython)", "native_over_cpython",
         []),
        ("smolagents / native (higher = native is faster)", "smolagents_over_native", []),
    ]
    for _, key, values in panels:
        values.extend(e["ratios"][key] for e in programs)
    panels = [p for p in panels if any(v is not None for v in p[2])]
    if not panels:
        return False, "no ratios to plot (an engine is missing); no plot written"
    fig, axes = plt.subplots(1, len(panels), figsize=(6.5 * len(panels), 0.32 * len(names) + 2),
                             squeeze=False)
    y = list(range(len(names)))
    for ax, (title, key, values) in zip(axes[0], panels, strict=True):
        vals = [v if v is not None else 0.0 for v in values]
        colors = []
        for e, v in zip(programs, values, strict=True):
            bad = any(r["status"] == "mismatch" for r in e["engines"].values())
            colors.append("tab:red" if bad else ("tab:gray" if v is None else "tab:blue"))
        ax.barh(y, vals, color=colors)
        ax.set_yticks(y)
        ax.set_yticklabels(names, fontsize=8)
        ax.invert_yaxis()
        ax.axvline(1.0, color="black", linewidth=0.8)
        if key == "smolagents_over_native":
            ax.set_xscale("log")
        ax.set_title(title, fontsize=9)
        left = ax.get_xlim()[0]
        for yi, v in zip(y, values, strict=True):
            ax.text(v if v else left, yi, f" {_fmt_ratio(v)}" if v else " n/a", va="center",
                    fontsize=7)
    h = results["header"]
    s = results["summary"]
    geo = [f"geomean native/CPython {_fmt_ratio(s['geomean_native_over_cpython'])}"
           if s["geomean_native_over_cpython"] else "",
           f"smolagents/native {_fmt_ratio(s['geomean_smolagents_over_native'])}"
           if s["geomean_smolagents_over_native"] else ""]
    build = h.get("git_commit") or h.get("label") or "unknown build"
    fig.suptitle(f"smolagents_native benchmark ({build}); {h['machine']['cpu']}, Python "
                 f"{h['python']['version']}\n" + "; ".join(g for g in geo if g), fontsize=9)
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return True, f"plot written to {path}"
