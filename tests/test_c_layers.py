"""The C core's layers (docs/design.md, section 6.1): every file has a layer, and no C file
uses what a higher layer defines (scripts/check_layers.py, also run by CI)."""

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
    limits = (ROOT / "csrc" / "limits.c").read_text()
    # the budget layer calling the evaluator
    bad = limits + "\nstatic void up(void) { (void)eval_stmt; }\n"
    problems, _ = c.check(sources_override={"limits.c": bad})
    assert any("limits.c (budget) uses eval_stmt of csrc/eval_stmt.c (eval)" in p for p in problems)


def test_an_include_up_the_layers_is_found():
    c = _checker()
    stack = (ROOT / "csrc" / "stack.c").read_text()
    problems, _ = c.check(sources_override={"stack.c": '#include "wire.h"\n' + stack})
    assert any("stack.c (budget) includes wire.h (module)" in p for p in problems)


def test_the_table_and_the_tree_agree():
    c = _checker()
    text = c.DESIGN.read_text()
    problems, _ = c.check(text=text.replace("budget   csrc/stack.c", "budget   csrc/no_such.c"))
    assert any("csrc/stack.c: not in docs/design.md's layout table" in p for p in problems)
    assert any("csrc/no_such.c does not exist" in p for p in problems)
