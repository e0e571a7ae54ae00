#!/usr/bin/env python3
"""Generate the typed node layout from csrc/ir/nodes.def (the one spec of node kinds).

    python scripts/gen_nodes.py           # rewrite the generated files
    python scripts/gen_nodes.py --check   # exit 1 if one of them is stale

Generated (never edit them by hand):

* csrc/ir/nodes_gen.h -- one payload struct per layout (``NodeBinOp``, ``NodeTry``
  for Try and TryStar, ...), ``NODE_PAYLOAD``: the anonymous union that
  ``struct Node`` in ir.h ends with, so a field is ``n->BinOp.left``; and
  ``NODE_AST_FIELDS(X)``: every ast field name lowering reads, from which
  lower.c builds its interned field names.
* csrc/front/lower_gen.inc -- ``lower_fields_<Layout>(L, o, n)`` per layout with
  automatic fields: it reads each such field of the ast object `o` in spec
  order and lowers it with the helper its type names.  lower.c includes it
  and calls it from the hand-written part of each kind.

The format of a field list is described at the top of csrc/ir/nodes.def.  The
same file is the X-macro list of kinds for the C code.  This module is also
imported by tests/engine/test_nodes_spec.py, which checks the spec against the
running CPython's ast classes.
"""

from __future__ import annotations

import argparse
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
DEF = ROOT / "csrc" / "ir" / "nodes.def"
HEADER = ROOT / "csrc" / "ir" / "nodes_gen.h"
LOWER = ROOT / "csrc" / "front" / "lower_gen.inc"

CATEGORIES = ("STMT", "EXPR", "PAT", "AUX")

# node-valued field types: C declaration kind, lowering call template
# ({f} = the ast field constant, {dst} = the field, {n} = its count)
_SINGLE = {
    "expr": "lower_opt_expr(L, o, {f}, &{dst})",
    "expr?": "lower_opt_expr(L, o, {f}, &{dst})",
    "pattern": "lower_opt_with(L, o, {f}, lower_pattern, &{dst})",
    "pattern?": "lower_opt_with(L, o, {f}, lower_pattern, &{dst})",
    "node": None,
}
_LIST = {
    "expr*": "lower_list(L, o, {f}, lower_expr, &{dst}, &{n}, 0)",
    "expr?*": "lower_list(L, o, {f}, lower_expr, &{dst}, &{n}, 1)",
    "star*": "lower_list(L, o, {f}, lower_star_ok_expr, &{dst}, &{n}, 0)",
    "stmt*": "lower_body(L, o, {f}, &{dst}, &{n})",
    "pattern*": "lower_list(L, o, {f}, lower_pattern, &{dst}, &{n}, 0)",
    "node*": None,
}
_IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
_CTYPE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*\**$")


@dataclass
class Field:
    name: str
    type: str  # as written, without `!` and `=fn`
    manual: bool  # `!`: lowered by hand
    fn: str | None = None  # node*=fn
    cache: bool = False  # declared by a CACHE line: an inline cache, not the schema

    @property
    def is_node(self) -> bool:
        return self.type in _SINGLE or self.type in _LIST

    @property
    def is_list(self) -> bool:
        return self.type in _LIST

    @property
    def auto(self) -> bool:
        """Lowered by the generated code."""
        if not self.is_node or self.manual:
            return False
        if self.type == "node*":
            return self.fn is not None
        return self.type != "node"


@dataclass
class Layout:
    name: str
    fields: list[Field]
    kinds: list[str] = field(default_factory=list)


@dataclass
class Kind:
    name: str
    category: str
    layout: str


@dataclass
class Spec:
    kinds: list[Kind]
    layouts: dict[str, Layout]
    refused: list[str]
    hand_ast_fields: list[str]

    def ast_fields(self) -> list[str]:
        """Every ast field lowering reads: the node-valued fields, then the
        hand-read ones (first occurrence order, no duplicates)."""
        seen: dict[str, None] = {}
        for lay in self.layouts.values():
            for f in lay.fields:
                if f.is_node:
                    seen.setdefault(f.name)
        for name in self.hand_ast_fields:
            seen.setdefault(name)
        return list(seen)


class SpecError(ValueError):
    pass


def _strip_comments(text: str) -> str:
    text = re.sub(r"/\*.*?\*/", " ", text, flags=re.S)
    return re.sub(r"//[^\n]*", " ", text)


def _strings(args: str) -> str:
    """Concatenate the adjacent C string literals of a macro argument."""
    parts = re.findall(r'"((?:[^"\\]|\\.)*)"', args)
    rest = re.sub(r'"((?:[^"\\]|\\.)*)"', "", args).strip()
    if rest:
        raise SpecError(f"expected string literals, got {rest!r}")
    return "".join(parts)


def _parse_field(word: str, where: str) -> Field:
    if ":" not in word:
        raise SpecError(f"{where}: field {word!r} is not name:type")
    name, typ = word.split(":", 1)
    if not _IDENT.match(name):
        raise SpecError(f"{where}: bad field name {name!r}")
    manual = typ.endswith("!")
    typ = typ.rstrip("!")
    fn = None
    if "=" in typ:
        typ, fn = typ.split("=", 1)
        if typ != "node*" or not _IDENT.match(fn):
            raise SpecError(f"{where}: only node* takes =fn ({word!r})")
    if typ not in _SINGLE and typ not in _LIST and not _CTYPE.match(typ):
        raise SpecError(f"{where}: unknown type {typ!r}")
    if manual and typ not in _SINGLE and typ not in _LIST:
        raise SpecError(f"{where}: `!` on the C-typed field {name!r}")
    return Field(name, typ, manual, fn)


def read_spec(path: Path = DEF) -> Spec:
    text = _strip_comments(path.read_text())
    # the default macro definitions at the top are not entries
    text = re.sub(r"^\s*#.*$", " ", text, flags=re.M)
    kinds: list[Kind] = []
    layouts: dict[str, Layout] = {}
    refused: list[str] = []
    hand: list[str] = []
    entry = re.compile(r"\b(STMT|EXPR|PAT|AUX|REFUSED|AST_FIELDS|CACHE)\s*\(", re.S)
    pos = 0
    while True:
        m = entry.search(text, pos)
        if not m:
            break
        # the macro's arguments: up to the matching parenthesis
        depth, i, in_str = 1, m.end(), False
        while depth:
            ch = text[i]
            if in_str:
                if ch == "\\":
                    i += 1
                elif ch == '"':
                    in_str = False
            elif ch == '"':
                in_str = True
            elif ch == "(":
                depth += 1
            elif ch == ")":
                depth -= 1
            i += 1
        args = text[m.end() : i - 1]
        pos = i
        macro = m.group(1)
        if macro == "AST_FIELDS":
            hand.extend(_strings(args).split())
            continue
        name, _, rest = args.partition(",")
        name = name.strip()
        if not _IDENT.match(name):
            raise SpecError(f"bad kind name {name!r}")
        if macro == "REFUSED":
            refused.append(name)
            continue
        if macro == "CACHE":
            kind = next((k for k in kinds if k.name == name), None)
            if kind is None:
                raise SpecError(f"CACHE({name}): no kind {name} before it")
            lay = layouts[kind.layout]
            if kind.layout != name:
                raise SpecError(f"CACHE({name}): {name} shares layout {kind.layout}")
            if any(f.cache for f in lay.fields):
                raise SpecError(f"CACHE({name}): a second CACHE line for {name}")
            for w in _strings(rest).split():
                f = _parse_field(w, f"CACHE({name})")
                if f.is_node:
                    raise SpecError(f"CACHE({name}): {f.name} is node-valued; a cache is C-typed")
                if any(g.name == f.name for g in lay.fields):
                    raise SpecError(f"CACHE({name}): {f.name} is also a field of the schema")
                f.cache = True
                lay.fields.append(f)
            continue
        words = _strings(rest).split()
        where = f"{macro}({name})"
        lay_name = name
        if words and words[0].startswith("@"):
            lay_name = words.pop(0)[1:]
            if not _IDENT.match(lay_name):
                raise SpecError(f"{where}: bad layout name {lay_name!r}")
        fields = [_parse_field(w, where) for w in words]
        names = [f.name for f in fields]
        if len(set(names)) != len(names):
            raise SpecError(f"{where}: a field is named twice")
        if lay_name in layouts:
            if fields:
                raise SpecError(
                    f"{where}: layout {lay_name} is already defined; "
                    "only its first kind gives fields"
                )
        else:
            layouts[lay_name] = Layout(lay_name, fields)
        layouts[lay_name].kinds.append(name)
        if any(k.name == name for k in kinds):
            raise SpecError(f"{where}: kind listed twice")
        kinds.append(Kind(name, macro, lay_name))
    return Spec(kinds, layouts, refused, hand)


# ------------------------------------------------------------------ output

_BANNER = (
    "/* Generated by scripts/gen_nodes.py from csrc/ir/nodes.def -- do not edit.\n"
    " * Regenerate with `python scripts/gen_nodes.py`. */\n"
)


def _decl(f: Field) -> list[str]:
    if f.is_list:
        return [f"struct Node **{f.name};", f"Py_ssize_t n{f.name};"]
    if f.is_node:
        return [f"struct Node *{f.name};"]
    base = f.type.rstrip("*")
    stars = f.type[len(base) :]
    if base == "Scope":
        base = "struct Scope"
    return [f"{base} {stars}{f.name};"]


def render_header(spec: Spec) -> str:
    out = [_BANNER]
    out.append("#ifndef SMOLAGENTS_NATIVE_NODES_GEN_H\n")
    out.append("#define SMOLAGENTS_NATIVE_NODES_GEN_H\n\n")
    out.append("struct Node;\nstruct Scope;\n\n")
    for lay in spec.layouts.values():
        kinds = ", ".join(lay.kinds)
        if not lay.fields:
            continue  # nothing beyond the common header
        out.append(f"/* {kinds} */\n")
        out.append("typedef struct {\n")
        for f in lay.fields:
            if f.cache and not any(g.cache for g in lay.fields[: lay.fields.index(f)]):
                out.append("    /* inline caches (nodes.def CACHE): written by eval/specialize.c only */\n")
            for d in _decl(f):
                out.append(f"    {d}\n")
        out.append(f"}} Node{lay.name};\n\n")
    out.append("/* The kind's payload, the last member of struct Node. */\n")
    out.append("#define NODE_PAYLOAD \\\n    union { \\\n")
    for lay in spec.layouts.values():
        if lay.fields:
            out.append(f"        Node{lay.name} {lay.name}; \\\n")
    out.append("    }\n\n")
    out.append("/* Every ast field name lowering reads (F_<name> in lower.c). */\n")
    out.append("#define NODE_AST_FIELDS(X) \\\n")
    names = spec.ast_fields()
    for i in range(0, len(names), 6):
        chunk = " ".join(f"X({n})" for n in names[i : i + 6])
        out.append(f"    {chunk} \\\n")
    out.append("    /* end */\n\n")
    out.append("#endif\n")
    return "".join(out)


def render_lower(spec: Spec) -> str:
    out = [_BANNER]
    out.append(
        "/* Included by lower.c after its lowering helpers.  Each function "
        "lowers\n * the automatic fields of one layout, in spec order: 0, or "
        "-1 with an\n * exception set. */\n\n"
    )
    for lay in spec.layouts.values():
        auto = [f for f in lay.fields if f.auto]
        if not auto:
            continue
        out.append("static int\n")
        out.append(f"lower_fields_{lay.name}(Lower *L, PyObject *o, Node *n)\n{{\n")
        for f in auto:
            dst = f"n->{lay.name}.{f.name}"
            cnt = f"n->{lay.name}.n{f.name}"
            if f.type == "node*":
                call = (
                    f"lower_list(L, o, F_{f.name}, {f.fn}, &{dst}, &{cnt}, 0)"
                )
            elif f.is_list:
                call = _LIST[f.type].format(f=f"F_{f.name}", dst=dst, n=cnt)
            else:
                call = _SINGLE[f.type].format(f=f"F_{f.name}", dst=dst)
            out.append(f"    if ({call} < 0) {{\n        return -1;\n    }}\n")
            if f.type in ("expr", "pattern"):
                # required: None here is a malformed tree, never a parse
                out.append(
                    f"    if ({dst} == NULL) {{\n"
                    f"        return missing_field(o, \"{f.name}\");\n    }}\n"
                )
        out.append("    return 0;\n}\n\n")
    return "".join(out).rstrip("\n") + "\n"


def outputs(spec: Spec) -> dict[Path, str]:
    return {HEADER: render_header(spec), LOWER: render_lower(spec)}


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--check", action="store_true", help="exit 1 if stale")
    args = ap.parse_args(argv)
    try:
        spec = read_spec()
    except SpecError as e:
        print(f"csrc/ir/nodes.def: {e}", file=sys.stderr)
        return 2
    stale = []
    for path, text in outputs(spec).items():
        old = path.read_text() if path.exists() else None
        if old == text:
            continue
        if args.check:
            stale.append(path.relative_to(ROOT))
        else:
            path.write_text(text)
            print(f"wrote {path.relative_to(ROOT)}")
    if stale:
        names = ", ".join(map(str, stale))
        print(
            f"stale: {names} (run python scripts/gen_nodes.py)", file=sys.stderr
        )
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
