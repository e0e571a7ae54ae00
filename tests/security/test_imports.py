"""Import rules: smolagents' `check_import_authorized` (a tree of the authorized entries:
"a.b" also authorizes its parent "a", a "*" node authorizes everything below it) and its
messages, plus the stricter rule for values: a parent authorized only through a dotted entry is
a namespace (its only readable attributes are the authorized submodules)."""

from __future__ import annotations

import pytest
from conftest import new_executor, refused

from smolagents_native import BASE_BUILTIN_MODULES, InterpreterError


def tree_rule(name: str, authorized: list[str]) -> bool:
    """An independent statement of smolagents' rule, used as the oracle."""
    tree: dict = {}
    for entry in authorized:
        node = tree
        for part in entry.split("."):
            node = node.setdefault(part, {})
    node = tree
    for part in name.split("."):
        if "*" in node:
            return True
        if part not in node:
            return False
        node = node[part]
    return True


CASES = [
    ("json", ["json"]),
    ("json.decoder", ["json"]),
    ("json", ["json.decoder"]),
    ("json.decoder", ["json.decoder"]),
    ("json.decoder", ["json.*"]),
    ("json", ["json.*"]),
    ("jsonx", ["json.*"]),
    ("json.decoder", ["*"]),
    ("xml.etree.ElementTree", ["xml.*"]),
    ("xml.etree.ElementTree", ["xml.etree"]),
    ("xml.etree", ["xml.etree.ElementTree"]),
    ("xml", ["xml.etree.ElementTree"]),
    ("email.mime.text", ["email.*.text"]),
    ("email.mime", ["email"]),
    ("os", ["os.path"]),
    ("os.path", ["os"]),
]


@pytest.mark.parametrize("name,authorized", CASES)
def test_import_check_matches_smolagents_rule(name, authorized):
    ex = new_executor(imports=authorized)
    expected = tree_rule(name, ex.authorized_imports)
    try:
        from smolagents.local_python_executor import check_import_authorized

        assert check_import_authorized(name, ex.authorized_imports) == expected
    except ImportError:
        pass
    code = f"import {name} as _m"
    if expected:
        ex(code)
    else:
        err = refused(ex, code, match="not allowed")
        assert str(err).endswith(
            f"Import of {name} is not allowed. Authorized imports are: {ex.authorized_imports}"
        )


def test_from_import_message():
    ex = new_executor()
    err = refused(ex, "from json import dumps", match="not allowed")
    assert str(err).endswith(
        f"Import from json is not allowed. Authorized imports are: {ex.authorized_imports}"
    )


def test_base_modules_import():
    ex = new_executor()
    for m in BASE_BUILTIN_MODULES:
        ex(f"import {m}")


def test_wildcard_authorizes_submodules_as_values():
    ex = new_executor(imports=["xml.*"])
    assert ex("import xml.etree.ElementTree as ET\nET.fromstring('<a/>').tag").output == "a"
    assert ex("import xml\nxml.etree.ElementTree.__name__").output == "xml.etree.ElementTree"


def test_parent_of_a_dotted_entry_is_a_namespace():
    ex = new_executor(imports=["os.path"])
    assert ex("import os.path\nos.path.join('a', 'b')").output == "a/b"
    assert ex("from os import path\npath.basename('/x/y')").output == "y"
    assert ex("import os.path as p\np.sep").output == "/"
    refused(ex, "import os\nos.environ", match="only authorized as the parent")


def test_star_import_cannot_rebind_a_tool():
    ex = new_executor()
    ex.send_tools({"pi": lambda: 3})
    refused(ex, "from math import *", match="Cannot assign to name 'pi'")
    assert ex("pi()").output == 3


def test_star_import_without_conflict_works():
    ex = new_executor()
    assert ex("from math import *\nfloor(2.5)").output == 2


def test_star_import_leaves_out_modules_the_code_may_not_use():
    """`from m import *` binds what it may: a name bound to a submodule that is not authorized
    ("numpy" does not authorize "numpy.linalg", nor "math" 3.15's "math.integer") is left out,
    where CPython binds it (and smolagents binds it, then refuses its use)."""
    pytest.importorskip("numpy")
    ex = new_executor(imports=["numpy"])
    assert ex("from numpy import *\nint(array([1, 2]).sum())").output == 3
    with pytest.raises(InterpreterError, match="linalg"):
        ex("linalg")
    ex = new_executor(imports=["numpy", "numpy.linalg"])
    assert ex("from numpy import *\nlinalg.__name__").output == "numpy.linalg"
