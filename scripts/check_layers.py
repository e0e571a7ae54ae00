#!/usr/bin/env python3
"""Check the C core's layers: one folder of csrc/ per layer, against the layout table of
docs/design.md (section 6.1).

The layers, lowest first, are LAYERS; a layer is a folder `csrc/<layer>/` whose public header is
`csrc/<layer>/<layer>.h`. The table (between `<!-- layout:begin -->` and `<!-- layout:end -->`)
names every file of csrc/ with its layer and what it is. This script fails (exit 1, one line per
finding) when:

- a file of csrc/ (.c, .h, .def, .inc) is missing from the table, or the table names a file
  that does not exist, or names one twice, or gives it a layer that is not its folder's; a file
  lies outside a layer's folder; a layer has no public header;
- a file includes a header of a higher layer (an include up), or a header of a lower layer other
  than that layer's public header (the other headers of a layer are its own; its `.def` tables
  may be included by any layer above, which expands them);
- a C file uses a global function or variable that a C file of a *higher* layer defines (the
  definitions and uses are read from the sources: a non-static function is defined where its
  name starts a line followed by `(`, as PEP 7 writes definitions; a global variable where a
  top-level declaration without `extern`/`static` names it). With one header per layer the
  compiler refuses such a use already (the declaration is not in sight); this is the second
  line, for a declaration written by hand.

Run by CI (.ci/run) and by tests/test_c_layers.py. `--graph` prints the layer-to-layer uses and
the count of includes between layers.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CSRC = ROOT / "csrc"
DESIGN = ROOT / "docs" / "design.md"
LAYERS = ["base", "ir", "budget", "guard", "runtime", "eval", "front", "module"]
SUFFIXES = {".c", ".h", ".def", ".inc"}


def read_table(text: str) -> tuple[dict[str, str], list[str]]:
    """file name -> layer, and the problems of the table itself."""
    problems = []
    try:
        block = text.split("<!-- layout:begin -->", 1)[1].split("<!-- layout:end -->", 1)[0]
    except IndexError:
        return {}, ["docs/design.md: no layout table (<!-- layout:begin --> ... end -->)"]
    table: dict[str, str] = {}
    for line in block.splitlines():
        if not line.strip() or line.startswith("```"):
            continue
        parts = line.split()
        if len(parts) < 2 or not parts[1].startswith("csrc/"):
            problems.append(f"docs/design.md: layout line not understood: {line!r}")
            continue
        layer, path = parts[0], parts[1][len("csrc/"):]
        if layer not in LAYERS:
            problems.append(f"docs/design.md: {path}: unknown layer {layer!r}")
        if path in table:
            problems.append(f"docs/design.md: {path} is listed twice")
        table[path] = layer
    return table, problems


_COMMENT = re.compile(r"/\*.*?\*/|//[^\n]*", re.S)
_STRING = re.compile(r'"(?:\\.|[^"\\\n])*"|\'(?:\\.|[^\'\\\n])*\'')
_IDENT = re.compile(r"\b[A-Za-z_]\w*\b")
_FUNC_DEF = re.compile(r"^([A-Za-z_]\w*)\s*\(", re.M)
# a top-level variable definition: at column 0, not static/extern/typedef, ending in `;` or `=`
_VAR_DEF = re.compile(
    r"^(?!static\b|extern\b|typedef\b|return\b|struct\s+\w+\s*\{)"
    r"(?:const\s+)?(?:HOT_TLS\s+)?[A-Za-z_][\w\s\*]*?\b([A-Za-z_]\w*)\s*(?:\[[^\]]*\])?\s*(?:=|;)",
    re.M,
)


def strip(src: str) -> str:
    return _STRING.sub('""', _COMMENT.sub(" ", src))


def definitions(src: str) -> set[str]:
    """The global (non-static) functions and variables a C file defines."""
    code = strip(src)
    lines = code.splitlines()
    names = set()
    for m in _FUNC_DEF.finditer(code):
        lineno = code.count("\n", 0, m.start())
        prev = next((ln for ln in reversed(lines[:lineno]) if ln.strip()), "")
        if re.match(r"\s*(static|#)", prev) or prev.rstrip().endswith((";", "}", "{", ",")):
            continue  # a static function, a macro's use, or a call at top level
        # a definition: the parenthesis closes and a `{` follows before any `;`
        rest = code[m.end():]
        brace, semi = rest.find("{"), rest.find(";")
        if brace >= 0 and (semi < 0 or brace < semi):
            names.add(m.group(1))
    depth = 0
    for line in lines:
        if depth == 0 and not line.startswith((" ", "\t", "#")):
            m = _VAR_DEF.match(line)
            if m and "(" not in line.split("=")[0]:
                names.add(m.group(1))
        depth += line.count("{") - line.count("}")
    return names


def includes(src: str) -> list[str]:
    return re.findall(r'^\s*#\s*include\s+"([^"]+)"', src, re.M)


def resolve(including: str, inc: str) -> str:
    """The csrc-relative path an `#include "inc"` of csrc/`including` names (the including
    file's folder first, then csrc/, as the build's -Icsrc does)."""
    here = str(Path(including).parent / inc)
    return here if (CSRC / here).exists() or "/" not in inc else inc


def tree_files() -> list[str]:
    return sorted(
        str(p.relative_to(CSRC)) for p in CSRC.rglob("*") if p.is_file() and p.suffix in SUFFIXES
    )


def check(
    text: str | None = None, sources_override: dict[str, str] | None = None
) -> tuple[list[str], dict[tuple[str, str], set[str]]]:
    """The problems found, and the uses between layers.  `text` replaces docs/design.md and
    `sources_override` some files' sources, by csrc-relative path (the self-test)."""
    text = DESIGN.read_text() if text is None else text
    table, problems = read_table(text)
    files = tree_files()
    for name in files:
        folder = name.split("/")[0] if "/" in name else None
        if folder not in LAYERS:
            problems.append(f"csrc/{name}: not in a layer's folder (csrc/<layer>/, layers {LAYERS})")
        elif name not in table:
            problems.append(f"csrc/{name}: not in docs/design.md's layout table (give it a line)")
        elif table[name] != folder:
            problems.append(
                f"docs/design.md: csrc/{name} is in the {folder} folder, the table says {table[name]}"
            )
    for name in table:
        if not (CSRC / name).exists():
            problems.append(f"docs/design.md: csrc/{name} does not exist")
    for layer in LAYERS:
        if not (CSRC / layer / f"{layer}.h").exists():
            problems.append(f"csrc/{layer}/{layer}.h: the {layer} layer has no public header")
    layer_of = {n: n.split("/")[0] for n in files if n.split("/")[0] in LAYERS}
    rank = {layer: i for i, layer in enumerate(LAYERS)}
    read = {n: (CSRC / n).read_text() for n in files}
    read.update(sources_override or {})
    sources = {n: read[n] for n in layer_of if n.endswith(".c")}
    defined_in: dict[str, str] = {}
    for name, src in sources.items():
        for sym in definitions(src):
            defined_in.setdefault(sym, name)
    uses: dict[tuple[str, str], set[str]] = defaultdict(set)
    for name, src in sources.items():
        mine = layer_of[name]
        for ident in set(_IDENT.findall(strip(src))):
            owner = defined_in.get(ident)
            if owner is None or owner == name:
                continue
            uses[(mine, layer_of[owner])].add(ident)
            if rank[layer_of[owner]] > rank[mine]:
                problems.append(
                    f"csrc/{name} ({mine}) uses {ident} of csrc/{owner} "
                    f"({layer_of[owner]}): a call up the layers"
                )
    for name in layer_of:
        mine = layer_of[name]
        for inc in includes(read[name]):
            target = resolve(name, inc)
            theirs = layer_of.get(target)
            if theirs is None or theirs == mine:
                continue  # a system header, or one of the layer's own
            uses[(mine, theirs)].add(f"#include {target}")
            if rank[theirs] > rank[mine]:
                problems.append(
                    f"csrc/{name} ({mine}) includes {target} ({theirs}): an include up the layers"
                )
            elif target != f"{theirs}/{theirs}.h" and not target.endswith(".def"):
                problems.append(
                    f"csrc/{name} ({mine}) includes {target}: another layer is reached through "
                    f"its public header ({theirs}/{theirs}.h) only"
                )
    return problems, uses


def main(argv: list[str]) -> int:
    problems, uses = check()
    if "--graph" in argv:
        for (a, b), syms in sorted(uses.items()):
            if a != b:
                incs = sorted(s for s in syms if s.startswith("#include"))
                calls = sorted(s for s in syms if not s.startswith("#include"))
                print(f"{a:8} -> {b:8} {len(calls):4} uses  {len(incs)} includes  "
                      f"{', '.join(calls[:5])}")
    for p in problems:
        print(p)
    if problems:
        print(f"check_layers: {len(problems)} problem(s)")
        return 1
    print(f"check_layers: {len(LAYERS)} layers, one folder and one public header each, "
          "no use or include up the layers")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
