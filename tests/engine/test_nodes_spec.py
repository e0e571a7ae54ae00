"""The typed node layout (csrc/ir/nodes.def) against the generated C and CPython's own ast.

nodes.def is the one spec of node kinds and their fields; scripts/gen_nodes.py generates
the payload structs and the lowering of the automatic fields from it.  These tests check
that the generated files are current, that the spec's kinds are the module's kinds, and
that every field the spec lowers from an ast object is a field of that ast class, of the
type the spec says (on CPython 3.13+, whose ast classes carry `_field_types`), so a
change of CPython's ASDL shows up here rather than as a wrong tree.
"""

from __future__ import annotations

import ast
import importlib.util
import subprocess
import sys
import types
import typing
from pathlib import Path

import pytest

import smolagents_native._core as core

ROOT = Path(__file__).resolve().parents[2]


def _load_generator():
    spec = importlib.util.spec_from_file_location("gen_nodes", ROOT / "scripts" / "gen_nodes.py")
    mod = importlib.util.module_from_spec(spec)
    sys.modules["gen_nodes"] = mod  # dataclasses look their module up
    spec.loader.exec_module(mod)
    return mod


gen = _load_generator()
SPEC = gen.read_spec()


def test_generated_files_are_up_to_date():
    proc = subprocess.run(
        [sys.executable, str(ROOT / "scripts" / "gen_nodes.py"), "--check"],
        capture_output=True,
        text=True,
    )
    assert proc.returncode == 0, proc.stderr


def test_spec_kinds_are_the_module_kinds():
    here = {k.name for k in SPEC.kinds if hasattr(ast, k.name)}
    assert here == set(core.NODE_KINDS)
    refused = {n for n in SPEC.refused if hasattr(ast, n)}
    assert refused == set(core.REFUSED_NODES)


def test_every_layout_is_used_and_shared_layouts_are_declared_once():
    used = {k.layout for k in SPEC.kinds}
    assert used == set(SPEC.layouts)
    for lay in SPEC.layouts.values():
        assert lay.kinds, lay.name


def _ast_class(name):
    cls = getattr(ast, name, None)
    if cls is None:
        pytest.skip(f"ast.{name} does not exist on this CPython")
    return cls


AUTO = [
    (k.name, f)
    for k in SPEC.kinds
    for f in SPEC.layouts[k.layout].fields
    if f.auto
]


@pytest.mark.parametrize(("kind", "field"), AUTO, ids=[f"{k}.{f.name}" for k, f in AUTO])
def test_automatic_fields_are_fields_of_the_ast_class(kind, field):
    cls = _ast_class(kind)
    assert field.name in cls._fields, f"ast.{kind} has no field {field.name!r}"


def _layout_of(kind):
    return next(k.layout for k in SPEC.kinds if k.name == kind)


def _expected_annotation(field):
    """The ast annotation (3.13+) that the spec's type stands for."""
    t = field.type
    if t in ("expr", "expr?", "pattern", "pattern?"):
        base = ast.expr if t.startswith("expr") else ast.pattern
        return (base | None) if t.endswith("?") else base
    if t in ("expr*", "expr?*", "star*"):
        return list[ast.expr]
    if t == "stmt*":
        return list[ast.stmt]
    if t == "pattern*":
        return list[ast.pattern]
    return None  # node*=fn: a list of some other node class, checked below


@pytest.mark.skipif(sys.version_info < (3, 13), reason="ast._field_types is 3.13+")
def test_automatic_fields_have_the_ast_type():
    wrong = []
    for kind, field in AUTO:
        cls = getattr(ast, kind, None)
        if cls is None:
            continue
        got = cls._field_types[field.name]
        want = _expected_annotation(field)
        if want is None:
            ok = typing.get_origin(got) is list and issubclass(typing.get_args(got)[0], ast.AST)
        else:
            ok = got == want
            # a layout shared by several kinds is as loose as its loosest
            # kind (YieldFrom's value is required, Yield's is optional)
            shared = len(SPEC.layouts[_layout_of(kind)].kinds) > 1
            if not ok and shared and field.type.endswith("?"):
                ok = got == typing.get_args(want)[0]
        if not ok:
            wrong.append(f"ast.{kind}.{field.name} is {got}, the spec says {field.type}")
    assert not wrong, wrong


def _node_valued(annotation) -> bool:
    """True when an ast field annotation holds AST nodes (one, optional, or a list)."""
    if isinstance(annotation, type):
        return issubclass(annotation, ast.AST) and not issubclass(
            annotation, (ast.expr_context, ast.boolop, ast.operator, ast.unaryop, ast.cmpop)
        )
    args = typing.get_args(annotation)
    if typing.get_origin(annotation) in (list, types.UnionType, typing.Union):
        return any(a is not type(None) and _node_valued(a) for a in args)
    return False


# ast fields lowering never reads, and why
UNREAD = {
    "Module.type_ignores": "empty unless ast.parse(type_comments=True), which is never used",
}


@pytest.mark.skipif(sys.version_info < (3, 13), reason="ast._field_types is 3.13+")
def test_no_node_valued_ast_field_is_ignored():
    """Every node-valued field of every kind's ast class is one lowering reads (an
    automatic field, or one named in AST_FIELDS for the hand-written lowering)."""
    read = set(SPEC.ast_fields())
    missing = []
    for k in SPEC.kinds:
        cls = getattr(ast, k.name, None)
        if cls is None:
            continue
        for name, annotation in cls._field_types.items():
            if _node_valued(annotation) and name not in read and f"{k.name}.{name}" not in UNREAD:
                missing.append(f"{k.name}.{name}")
    assert not missing, missing


def test_hand_read_field_names_exist_in_ast():
    known = set()
    for name in dir(ast):
        cls = getattr(ast, name)
        if isinstance(cls, type) and issubclass(cls, ast.AST):
            known.update(cls._fields)
            known.update(getattr(cls, "_attributes", ()))
    # type_params, bound and default_value are 3.12+/3.13+ fields, str (Interpolation) 3.14+,
    # is_lazy (Import, ImportFrom) 3.15+
    newer = {"type_params", "bound", "default_value", "str", "is_lazy"}
    unknown = [n for n in SPEC.hand_ast_fields if n not in known and n not in newer]
    assert not unknown, unknown


def test_spec_errors_are_reported(tmp_path):
    bad = tmp_path / "nodes.def"
    bad.write_text('STMT(Foo, "x:nosuchtype!")\n')
    with pytest.raises(gen.SpecError, match="unknown type|`!`"):
        gen.read_spec(bad)
    bad.write_text('STMT(Foo, "@L a:expr")\nSTMT(Bar, "@L b:expr")\n')
    with pytest.raises(gen.SpecError, match="already defined"):
        gen.read_spec(bad)
    bad.write_text('STMT(Foo, "a:expr a:expr")\n')
    with pytest.raises(gen.SpecError, match="named twice"):
        gen.read_spec(bad)


def _ast_classes():
    for name in dir(ast):
        cls = getattr(ast, name)
        if isinstance(cls, type) and issubclass(cls, ast.AST):
            yield cls


# Deprecated aliases the parser never makes (Num, Str, Bytes: 3.8 to 3.11): their `n` / `s`
# are properties of ast.Constant that no lowering reads.
_ALIASES = {"Num", "Str", "Bytes", "NameConstant", "Ellipsis"}


def test_the_lowering_may_read_ast_fields_from_the_instance_dict():
    """lower.c's getf reads a field from the ast object's instance dict (a fifth of the
    instructions of PyObject_GetAttr): that gives what getattr gives only if the objects keep
    their fields there (a `__dict__` at a fixed offset, not a managed one), if no ast class
    defines a data descriptor under a field or location name, and if the parser's objects
    hold every field and location in that dict."""
    read = {*SPEC.hand_ast_fields, "lineno", "col_offset", "end_lineno", "end_col_offset",
            *(f.name for lay in SPEC.layouts.values() for f in lay.fields)}
    descriptors = []
    for cls in _ast_classes():
        assert cls.__dictoffset__ > 0, cls
        assert not cls.__flags__ & (1 << 4), cls  # Py_TPFLAGS_MANAGED_DICT
        if cls.__name__ in _ALIASES:
            continue
        for name in {*cls._fields, *getattr(cls, "_attributes", ()), *read}:
            for klass in cls.__mro__:
                if name in vars(klass):
                    value = type(vars(klass)[name])
                    if hasattr(value, "__set__") or hasattr(value, "__delete__"):
                        descriptors.append(f"{cls.__name__}.{name}")
                    break
    assert not descriptors, descriptors
    source = (ROOT / "smolagents_native" / "bench" / "traces" / "long_steps.py").read_text()
    for node in ast.walk(ast.parse(source + "\nclass C[T]: pass\n" if sys.version_info >= (3, 12)
                                   else source)):
        missing = [f for f in (*node._fields, *node._attributes) if f not in vars(node)]
        assert not missing, (type(node).__name__, missing)
