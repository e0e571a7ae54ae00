"""The C core's layers (docs/design.md, section 6.1): one folder of csrc/ per layer with one
public header, every file in the table, no C file using what a higher layer defines and no
include up the layers or past a layer's public header (scripts/check_layers.py, also run by
CI)."""

from __future__ import annotations

import importlib.util
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _checker():
    spec = importlib.util.spec_from_file_location("check_layers", ROOT / "scripts" / "check_layers.py")
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_the_tree_keeps_its_layers():
    problems, uses = _checker().check()
    assert problems == []
    assert uses, "the checker found no use between files at all: it reads nothing"


def test_a_call_up_the_layers_is_found():
    c = _checker()
    limits = (ROOT / "csrc" / "budget" / "limits.c").read_text()
    # the budget layer calling the evaluator
    bad = limits + "\nstatic void up(void) { (void)eval_stmt; }\n"
    problems, _ = c.check(sources_override={"budget/limits.c": bad})
    assert any("limits.c (budget) uses eval_stmt of csrc/eval/eval_stmt.c (eval)" in p for p in problems)


def test_an_include_up_the_layers_is_found():
    c = _checker()
    stack = (ROOT / "csrc" / "budget" / "stack.c").read_text()
    for inc in ('"module/module.h"', '"module/wire.h"', '"eval/eval.h"'):
        problems, _ = c.check(sources_override={"budget/stack.c": f"#include {inc}\n" + stack})
        target = inc.strip('"')
        assert any(f"stack.c (budget) includes {target} (" in p and "an include up" in p
                   for p in problems), (inc, problems)


def test_a_layer_is_reached_through_its_public_header_only():
    c = _checker()
    window = (ROOT / "csrc" / "runtime" / "window.c").read_text()
    # tripwire.h is the guard layer's own header: runtime reaches it through guard/guard.h
    problems, _ = c.check(sources_override={"runtime/window.c": '#include "guard/tripwire.h"\n' + window})
    assert any("window.c (runtime) includes guard/tripwire.h: another layer is reached through "
               "its public header (guard/guard.h) only" in p for p in problems)
    # the public header, and a lower layer's .def table, are fine
    ok = '#include "guard/guard.h"\n#include "ir/nodes.def"\n' + window
    problems, _ = c.check(sources_override={"runtime/window.c": ok})
    assert problems == []


def test_the_table_and_the_tree_agree():
    c = _checker()
    text = c.DESIGN.read_text()
    line = next(ln for ln in text.splitlines() if "csrc/budget/stack.c" in ln)
    problems, _ = c.check(text=text.replace(line, line.replace("csrc/budget/stack.c", "csrc/budget/no_such.c")))
    assert any("csrc/budget/stack.c: not in docs/design.md's layout table" in p for p in problems)
    assert any("csrc/budget/no_such.c does not exist" in p for p in problems)
    # the table's layer is the file's folder
    problems, _ = c.check(text=text.replace(line, line.replace("budget ", "guard  ", 1)))
    assert any("csrc/budget/stack.c is in the budget folder, the table says guard" in p
               for p in problems), problems
