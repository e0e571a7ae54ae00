"""Every concrete `ast` node class that ast.parse can produce (exec mode) is either
evaluated (`_core.NODE_KINDS`) or refused with a clear error (`_core.REFUSED_NODES`);
every refused construct is reported by name and line; every evaluated construct is
exercised by at least one program of the differential corpus (tests/programs/)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

PROGRAMS_DIR = Path(__file__).resolve().parents[1] / "programs"

# Abstract bases: never instantiated by the parser.
ABSTRACT = {
    "AST", "mod", "stmt", "expr", "expr_context", "boolop", "operator", "unaryop",
    "cmpop", "excepthandler", "pattern", "type_ignore", "type_param", "slice",
}
# Deprecated aliases and classes that ast.parse never produces in exec mode.
NEVER_PRODUCED = {
    "Num", "Str", "Bytes", "NameConstant", "Ellipsis", "Index", "ExtSlice", "Suite",
    "Param", "AugLoad", "AugStore", "Interactive", "Expression", "FunctionType", "TypeIgnore",
}
# Operators and contexts are covered by the node that owns them (BinOp, Name, ...).
OWNED_BY_OTHER_NODES = (ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop)


def _all_subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _all_subclasses(sub)


def concrete_node_classes() -> set[str]:
    names = set()
    for cls in _all_subclasses(ast.AST):
        if cls.__module__ not in ("ast", "_ast"):
            continue
        name = cls.__name__
        if name in ABSTRACT or name in NEVER_PRODUCED or issubclass(cls, OWNED_BY_OTHER_NODES):
            continue
        names.add(name)
    return names


def corpus_node_names() -> set[str]:
    seen = set()
    from test_programs import runs_here  # the corpus's `# requires: 3.N` gate

    for path in sorted(PROGRAMS_DIR.glob("*.py")):
        if not runs_here(path):  # syntax of a newer CPython
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
            seen.add(type(node).__name__)
    return seen


# A minimal program for every concrete node class: (source, line of the node,
# words any of which a refusal message may use to name the construct).
# Lines 1-2 are filler so that the line number is distinctive.
_PRE = "a = 1\nb = 2\n"
SNIPPETS: dict[str, tuple[str, int, tuple[str, ...]]] = {
    "Module": (_PRE, 1, ("Module",)),
    "FunctionDef": (_PRE + "def f():\n    pass\n", 3, ("def", "function")),
    "AsyncFunctionDef": (_PRE + "async def f():\n    pass\n", 3, ("async",)),
    "ClassDef": (_PRE + "class C:\n    pass\n", 3, ("class",)),
    "Return": (_PRE + "def f():\n    return a\n", 4, ("return",)),
    "Delete": (_PRE + "del a\n", 3, ("del",)),
    "Assign": (_PRE + "c = a\n", 3, ("assign",)),
    "AugAssign": (_PRE + "a += b\n", 3, ("augmented", "+=")),
    "AnnAssign": (_PRE + "c: int = a\n", 3, ("annotat",)),
    "For": (_PRE + "for i in []:\n    pass\n", 3, ("for",)),
    "AsyncFor": (_PRE + "async for i in a:\n    pass\n", 3, ("async",)),
    "While": (_PRE + "while False:\n    pass\n", 3, ("while",)),
    "If": (_PRE + "if a:\n    pass\n", 3, ("if",)),
    "With": (_PRE + "with a:\n    pass\n", 3, ("with",)),
    "AsyncWith": (_PRE + "async with a:\n    pass\n", 3, ("async",)),
    "Match": (_PRE + "match a:\n    case _:\n        pass\n", 3, ("match",)),
    "Raise": (_PRE + "raise ValueError\n", 3, ("raise",)),
    "Try": (_PRE + "try:\n    pass\nexcept Exception:\n    pass\n", 3, ("try",)),
    "TryStar": (_PRE + "try:\n    pass\nexcept* Exception:\n    pass\n", 3, ("try", "except*")),
    "Assert": (_PRE + "assert a\n", 3, ("assert",)),
    "Import": (_PRE + "import math\n", 3, ("import",)),
    "ImportFrom": (_PRE + "from math import pi\n", 3, ("import",)),
    "Global": (_PRE + "global a\n", 3, ("global",)),
    "Nonlocal": (_PRE + "def f():\n    x = a\n\n    def g():\n        nonlocal x\n", 7, ("nonlocal",)),
    "Expr": (_PRE + "a\n", 3, ("expression",)),
    "Pass": (_PRE + "pass\n", 3, ("pass",)),
    "Break": (_PRE + "for i in []:\n    break\n", 4, ("break",)),
    "Continue": (_PRE + "for i in []:\n    continue\n", 4, ("continue",)),
    "BoolOp": (_PRE + "a and b\n", 3, ("and", "boolean")),
    "NamedExpr": (_PRE + "(c := a)\n", 3, ("walrus", ":=", "assignment expression")),
    "BinOp": (_PRE + "a + b\n", 3, ("binary", "operator")),
    "UnaryOp": (_PRE + "-a\n", 3, ("unary",)),
    "Lambda": (_PRE + "lambda: a\n", 3, ("lambda",)),
    "IfExp": (_PRE + "a if b else a\n", 3, ("conditional", "if")),
    "Dict": (_PRE + "{a: b}\n", 3, ("dict",)),
    "Set": (_PRE + "{a}\n", 3, ("set",)),
    "ListComp": (_PRE + "[x for x in []]\n", 3, ("comprehension",)),
    "SetComp": (_PRE + "{x for x in []}\n", 3, ("comprehension",)),
    "DictComp": (_PRE + "{x: x for x in []}\n", 3, ("comprehension",)),
    "GeneratorExp": (_PRE + "(x for x in [])\n", 3, ("generator",)),
    "Await": (_PRE + "await a\n", 3, ("await", "async")),
    "Yield": (_PRE + "def f():\n    yield a\n", 4, ("yield",)),
    "YieldFrom": (_PRE + "def f():\n    yield from []\n", 4, ("yield",)),
    "Compare": (_PRE + "a < b\n", 3, ("compar",)),
    "Call": (_PRE + "abs(a)\n", 3, ("call",)),
    "FormattedValue": (_PRE + "f'{a}'\n", 3, ("f-string", "format")),
    "JoinedStr": (_PRE + "f'{a}'\n", 3, ("f-string",)),
    "Constant": (_PRE + "'text'\n", 3, ("constant", "literal")),
    "Attribute": (_PRE + "a.real\n", 3, ("attribute",)),
    "Subscript": (_PRE + "[a][0]\n", 3, ("subscript",)),
    "Starred": (_PRE + "[*[a]]\n", 3, ("star",)),
    "Name": (_PRE + "a\n", 3, ("name",)),
    "List": (_PRE + "[a]\n", 3, ("list",)),
    "Tuple": (_PRE + "(a, b)\n", 3, ("tuple",)),
    "Slice": (_PRE + "[a][0:1]\n", 3, ("slice",)),
    "ExceptHandler": (_PRE + "try:\n    pass\nexcept Exception:\n    pass\n", 5, ("except",)),
    "arguments": (_PRE + "def f(x):\n    pass\n", 3, ("argument", "parameter")),
    "arg": (_PRE + "def f(x):\n    pass\n", 3, ("argument", "parameter")),
    "keyword": (_PRE + "dict(x=a)\n", 3, ("keyword",)),
    "alias": (_PRE + "import math\n", 3, ("import", "alias")),
    "withitem": (_PRE + "with a:\n    pass\n", 3, ("with",)),
    "match_case": (_PRE + "match a:\n    case _:\n        pass\n", 4, ("case",)),
    "comprehension": (_PRE + "[x for x in []]\n", 3, ("comprehension",)),
    "MatchValue": (_PRE + "match a:\n    case 'x':\n        pass\n", 4, ("pattern", "case")),
    "MatchSingleton": (_PRE + "match a:\n    case None:\n        pass\n", 4, ("pattern", "case")),
    "MatchSequence": (_PRE + "match a:\n    case [x]:\n        pass\n", 4, ("pattern", "case")),
    "MatchMapping": (_PRE + "match a:\n    case {'k': x}:\n        pass\n", 4, ("pattern", "case")),
    "MatchClass": (_PRE + "match a:\n    case int():\n        pass\n", 4, ("pattern", "case")),
    "MatchStar": (_PRE + "match a:\n    case [*r]:\n        pass\n", 4, ("pattern", "case")),
    "MatchAs": (_PRE + "match a:\n    case x:\n        pass\n", 4, ("pattern", "case")),
    "MatchOr": (_PRE + "match a:\n    case 'x' | 'y':\n        pass\n", 4, ("pattern", "case")),
    # Python 3.12+ only (PEP 695); ignored where the running Python lacks them.
    "TypeAlias": (_PRE + "type T = int\n", 3, ("type",)),
    "TypeVar": (_PRE + "def f[T](x):\n    pass\n", 3, ("type",)),
    "ParamSpec": (_PRE + "def f[**P](x):\n    pass\n", 3, ("type",)),
    "TypeVarTuple": (_PRE + "def f[*Ts](x):\n    pass\n", 3, ("type",)),
    # Python 3.14+ only (PEP 750)
    "TemplateStr": (_PRE + "c = t'x{a}'\n", 3, ("template", "t-string")),
    "Interpolation": (_PRE + "c = t'x{a}'\n", 3, ("template", "t-string")),
}


def test_node_sets_are_consistent(core_module):
    kinds, refused = set(core_module.NODE_KINDS), set(core_module.REFUSED_NODES)
    assert not kinds & refused, f"both evaluated and refused: {sorted(kinds & refused)}"
    unknown = sorted(n for n in kinds | refused if not isinstance(getattr(ast, n, None), type))
    assert not unknown, f"not ast node classes: {unknown}"
    assert len(core_module.NODE_KINDS) == len(kinds), "NODE_KINDS has duplicates"
    assert len(core_module.REFUSED_NODES) == len(refused), "REFUSED_NODES has duplicates"


def test_every_node_class_is_evaluated_or_refused(core_module):
    handled = set(core_module.NODE_KINDS) | set(core_module.REFUSED_NODES)
    missing = sorted(concrete_node_classes() - handled)
    assert not missing, f"ast node classes neither in NODE_KINDS nor in REFUSED_NODES: {missing}"


def test_snippet_table_covers_every_node_class():
    """Guard for this file: a refusal can only be tested with a snippet."""
    missing = sorted(concrete_node_classes() - set(SNIPPETS))
    assert not missing, f"add SNIPPETS entries for: {missing}"
    for name in concrete_node_classes():
        src, line, _ = SNIPPETS[name]
        found = [n for n in ast.walk(ast.parse(src)) if type(n).__name__ == name]
        assert found, f"snippet for {name} does not contain it"
        linenos = {n.lineno for n in found if hasattr(n, "lineno")}
        # nodes without positions (arguments, withitem, match_case, ...) are
        # reported at the line of their owner, which the table records
        assert not linenos or line in linenos, f"snippet for {name}: node on lines {linenos}, table says {line}"


def test_refused_nodes_raise_interpreter_error_naming_construct_and_line(
    core_module, make_executor, interpreter_error
):
    problems = []
    for name in core_module.REFUSED_NODES:
        if name not in SNIPPETS:
            problems.append(f"{name}: no snippet in SNIPPETS to test the refusal")
            continue
        src, line, words = SNIPPETS[name]
        ex = make_executor()
        try:
            ex(src)
        except interpreter_error as err:
            message = str(err)
        except BaseException as err:  # noqa: BLE001 - report anything else as a failure
            problems.append(f"{name}: raised {type(err).__name__}: {err} (expected InterpreterError)")
            continue
        else:
            problems.append(f"{name}: ran without error")
            continue
        lowered = message.lower()
        if not any(w.lower() in lowered for w in (name,) + words):
            problems.append(f"{name}: message does not name the construct: {message!r}")
        if not re.search(rf"(?<!\d){line}(?!\d)", message):
            problems.append(f"{name}: message does not give line {line}: {message!r}")
    assert not problems, "\n".join(problems)


def test_async_comprehension_is_refused(make_executor, interpreter_error):
    """`async for` inside a comprehension is a flag on ast.comprehension, not a node
    class; CPython refuses it outside async functions, so must the executor."""
    ex = make_executor()
    with pytest.raises(interpreter_error) as info:
        ex(_PRE + "c = [x async for x in a]\n")
    assert "async" in str(info.value).lower()


def test_every_evaluated_node_kind_appears_in_the_corpus(core_module):
    seen = corpus_node_names()
    missing = sorted(n for n in core_module.NODE_KINDS if n not in seen)
    assert not missing, f"node kinds no program in tests/programs/ exercises: {missing}"


def test_every_operator_appears_in_the_corpus():
    """Operators and contexts are covered through their owning nodes: make sure the
    corpus really contains each of them (e.g. MatMult, Invert, Del, FloorDiv)."""
    seen = corpus_node_names()
    ops = sorted(
        cls.__name__
        for base in OWNED_BY_OTHER_NODES
        for cls in _all_subclasses(base)
        if cls.__name__ not in NEVER_PRODUCED
    )
    missing = [o for o in ops if o not in seen]
    assert not missing, f"operators/contexts missing from tests/programs/: {missing}"
