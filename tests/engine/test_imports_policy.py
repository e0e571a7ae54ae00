"""`from __future__ import ...` in every executor, and private names of wholesale-authorized
modules in a process-mode worker.

`from __future__ import annotations` (or any feature) needs no authorized import: it is a
compiler directive (tests/programs/270 checks its meaning) and binds the feature's `_Feature`
record, never the `__future__` module, whose `all_feature_names` list is state the whole host
shares (the standard library reads it at import). `import __future__` is an import like any
other. A private name (`_x`) of a module is readable only in a process-mode worker whose host
authorized the module wholesale (`"pkg.*"` or `"*"`): in the host's process private names reach
process-wide tables (`random._inst`, `copy._deepcopy_dispatch`, `abc._abc_register`), so they
are refused there, with their name; writing one is always refused, and a module reached through
a private name is gated like any other module.
"""

from __future__ import annotations

import pytest

from smolagents_native import InterpreterError, LocalPythonExecutor
from conftest import new_executor


def test_future_statements_need_no_authorization():
    ex = new_executor()
    out = ex("from __future__ import annotations, division as d\n"
             "(type(annotations).__name__, d.mandatory[0], annotations.compiler_flag > 0)")
    assert out.output == ("_Feature", 3, True)


@pytest.mark.parametrize(
    "code, match",
    [
        ("import __future__", "Import of __future__ is not allowed"),
        ("from __future__ import all_feature_names", "future feature all_feature_names"),
        ("from __future__ import annotations\nannotations.__dict__", "dunder"),
        ("import os", "Import of os is not allowed"),
    ],
)
def test_future_gives_nothing_else(code, match):
    import __future__

    before = list(__future__.all_feature_names)
    ex = new_executor()
    with pytest.raises(InterpreterError, match=match):
        ex(code)
    assert __future__.all_feature_names == before


# In a process-mode worker: tests/isolation/test_process_executor.py
# (test_private_names_of_wholesale_modules_in_a_worker, on the shared pool).


@pytest.mark.parametrize(
    "authorized, code, match",
    [
        (["enum"], "from enum import _EnumDict", "private module attribute: _EnumDict"),
        (["random"], "import random\nrandom._inst", "private module attribute: _inst"),
        (["random.*"], "import random\nrandom._inst = 1", "private module attribute: _inst"),
        # in the host's process, even when authorized wholesale: process-wide tables
        (["random.*"], "import random\nrandom._inst.seed(1)", "private module attribute: _inst"),
        (["copy.*"], "import copy\ncopy._deepcopy_dispatch", "private module attribute"),
        (["random.*"], "import random\nrandom._os", "Forbidden access to module: os"),
        (["random.*"], "import random\nrandom._os.system('true')", "Forbidden access to module: os"),
    ],
)
def test_private_names_refused_otherwise(authorized, code, match):
    ex = LocalPythonExecutor(additional_authorized_imports=authorized)
    ex.send_tools({})
    with pytest.raises(InterpreterError, match=match):
        ex(code)


FIRST_IMPORT = """
import sys, warnings
warnings.simplefilter("ignore")
sys.path.insert(0, {root!r})
assert "array" not in sys.modules
from smolagents_native import LocalPythonExecutor, InterpreterError
ex = LocalPythonExecutor(["array", "collections", "collections.abc"], isolation="none")
print(ex("import array\\narray.array('i', [1, 2]).tolist()").output)
try:
    ex("import collections.abc\\nclass C: pass\\ncollections.abc.Sequence.register(C)")
except InterpreterError as e:
    print("refused", "ABC the whole process" in str(e))
"""


def test_a_module_first_imported_by_a_step_initializes_itself():
    """A module's own initialisation is not the code's doing: `array`, imported first by a
    step, registers itself with collections.abc.MutableSequence, which the code itself may not
    do (the gadget refusals are paused while an import runs module bodies, as the tripwire is)."""
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[2])
    proc = subprocess.run([sys.executable, "-c", FIRST_IMPORT.format(root=root)],
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert proc.stdout.split("\n")[:2] == ["[1, 2]", "refused True"]
