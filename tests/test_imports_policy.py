"""Imports every executor allows, and private names of wholesale-authorized modules.

`__future__` is importable whatever the authorized imports (it holds data only; models open
code with `from __future__ import annotations`, whose meaning is tests/programs/270). A private
name (`_x`) of a module is readable only when the host authorized the module wholesale
(`"pkg.*"` or `"*"`); otherwise it is refused with its name, and writing one is always refused.
A module reached through a private name is gated like any other module.
"""

from __future__ import annotations

import warnings

import pytest

from smolagents_native import InterpreterError, LocalPythonExecutor
from conftest import new_executor


def test_future_is_always_importable():
    ex = new_executor()
    out = ex("from __future__ import annotations, division\nimport __future__\n"
             "(annotations.compiler_flag == __future__.annotations.compiler_flag,"
             " __future__.all_feature_names[0])")
    assert out.output == (True, "nested_scopes")


def test_future_does_not_open_other_modules():
    ex = new_executor()
    with pytest.raises(InterpreterError, match="Import of os is not allowed"):
        ex("import os")


@pytest.mark.parametrize(
    "authorized, code, expected",
    [
        (["random.*"], "import random\nrandom._inst.random() < 1", True),
        (["random.*"], "from random import _inst\ntype(_inst).__name__", "Random"),
        (["*"], "from enum import _EnumDict\nissubclass(_EnumDict, dict)", True),
    ],
)
def test_private_names_of_wholesale_modules(authorized, code, expected):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # "*" in process: the host chose it
        ex = LocalPythonExecutor(additional_authorized_imports=authorized, isolation="none")
    ex.send_tools({})
    assert ex(code).output == expected


@pytest.mark.parametrize(
    "authorized, code, match",
    [
        (["enum"], "from enum import _EnumDict", "private module attribute: _EnumDict"),
        (["random"], "import random\nrandom._inst", "private module attribute: _inst"),
        (["random.*"], "import random\nrandom._inst = 1", "private module attribute: _inst"),
        (["random.*"], "import random\nrandom._os", "Forbidden access to module: os"),
        (["random.*"], "import random\nrandom._os.system('true')", "Forbidden access to module: os"),
    ],
)
def test_private_names_refused_otherwise(authorized, code, match):
    ex = LocalPythonExecutor(additional_authorized_imports=authorized)
    ex.send_tools({})
    with pytest.raises(InterpreterError, match=match):
        ex(code)
