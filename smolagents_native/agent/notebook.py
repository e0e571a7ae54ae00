"""IPython / Jupyter integration: the ``%%sandbox`` cell magic and rich displays.

::

    %load_ext smolagents_native.notebook      # or: %load_ext smolagents_native

    %%sandbox --authorized-imports numpy --timeout 5
    import numpy as np
    x = np.arange(4)
    print(x.sum())
    x * 2

The cell runs in a :class:`~smolagents_native.LocalPythonExecutor` kept for the IPython
session, so variables persist from one ``%%sandbox`` cell to the next (they are not shared
with the notebook's own namespace). What the code prints is shown as output, the value of its
last line becomes the cell's result (``Out[n]``), and an error is shown on stderr.
``final_answer(x)`` is available, as for agent code: it prints ``Final answer: x``.

Options:
    ``--authorized-imports M [M ...]``  also authorize these modules, for this cell and the
                                        following ones (the sandbox's variables are kept).
    ``--timeout S``                     wall-clock limit for this cell only (default 30 s).
    ``--reset``                         start from a new sandbox (no variables, default
                                        imports) before running the cell.
    ``--raise``                         raise the InterpreterError instead of printing it
                                        (to make a notebook run fail on errors).

``%sandbox --reset`` (line magic) resets without running anything.

The HTML/Markdown helpers (defined in `smolagents_native._display`, re-exported here) escape
everything they show: text coming out of the sandbox is untrusted.
"""

from __future__ import annotations

import sys
from typing import Any

from .._display import (  # noqa: F401  (re-exported; CodeOutput renders with them too)
    _MAX_SHOWN,
    _fence,
    _pre,
    _short,
    _status_html,
    code_output_html,
    code_output_markdown,
    run_result_html,
    run_result_markdown,
    step_record_html,
    step_record_markdown,
)
from ..executor import LocalPythonExecutor

__all__ = [
    "SandboxSession",
    "code_output_html",
    "code_output_markdown",
    "load_ipython_extension",
    "run_result_html",
    "run_result_markdown",
    "step_record_html",
    "step_record_markdown",
    "unload_ipython_extension",
]

DEFAULT_TIMEOUT = 30


# ---------------------------------------------------------------------------------------------
# The session executor and the magic.


def _final_answer(answer: Any) -> Any:
    return answer


class SandboxSession:
    """The executor behind ``%%sandbox`` for one IPython shell, and its settings."""

    def __init__(self) -> None:
        self.imports: list[str] = []
        self.executor: LocalPythonExecutor = self._new_executor()
        self.last_output: Any = None  # the last CodeOutput, None after an error
        self.last_error: Exception | None = None

    def _new_executor(self, state: dict | None = None) -> LocalPythonExecutor:
        executor = LocalPythonExecutor(list(self.imports), timeout_seconds=DEFAULT_TIMEOUT)
        executor.send_tools({"final_answer": _final_answer})
        if state is not None:
            executor.state = state
        return executor

    def reset(self) -> None:
        self.imports = []
        self.executor = self._new_executor()
        self.last_output = self.last_error = None

    def authorize(self, modules: list[str]) -> None:
        """Add modules to the authorized imports, keeping the sandbox's variables."""
        new = [m for m in modules if m not in self.imports]
        if not new:
            return
        previous = self.imports
        self.imports = previous + new
        try:
            self.executor = self._new_executor(self.executor.state)
        except Exception:
            self.imports = previous
            raise

    def run(self, code: str, timeout: float | None = None) -> Any:
        """Run `code`; return the CodeOutput (raises the executor's error)."""
        executor = self.executor
        saved = executor.timeout_seconds
        if timeout is not None:
            executor.timeout_seconds = timeout
        try:
            self.last_output, self.last_error = None, None
            out = executor(code)
        except Exception as exc:
            self.last_error = exc
            raise
        finally:
            executor.timeout_seconds = saved
        self.last_output = out
        return out


def _make_magics_class() -> type:
    from IPython.core.magic import Magics, line_cell_magic, magics_class
    from IPython.core.magic_arguments import argument, magic_arguments, parse_argstring

    @magics_class
    class SandboxMagics(Magics):
        """``%%sandbox``: run a cell in smolagents_native's sandboxed interpreter."""

        def __init__(self, shell: Any) -> None:
            super().__init__(shell)
            self.session = SandboxSession()

        @magic_arguments()
        @argument(
            "--authorized-imports",
            nargs="+",
            default=[],
            metavar="MODULE",
            help="Also authorize these modules (for this and the following cells).",
        )
        @argument(
            "--timeout",
            type=float,
            default=None,
            metavar="SECONDS",
            help=f"Wall-clock limit for this cell (default {DEFAULT_TIMEOUT} s).",
        )
        @argument(
            "--reset",
            action="store_true",
            help="Start from a new sandbox (no variables, default imports) first.",
        )
        @argument(
            "--raise",
            dest="raise_error",
            action="store_true",
            help="Raise errors instead of printing them.",
        )
        @line_cell_magic
        def sandbox(self, line: str, cell: str | None = None) -> Any:
            """Run the cell in a sandboxed interpreter whose variables persist across cells."""
            args = parse_argstring(self.sandbox, line)
            session = self.session
            if args.reset:
                session.reset()
            if args.authorized_imports:
                try:
                    session.authorize(args.authorized_imports)
                except Exception as exc:
                    if args.raise_error:
                        raise
                    print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
                    return None
            if cell is None:
                if not (args.reset or args.authorized_imports):
                    print(
                        "Usage: %%sandbox [options] as a cell magic; %sandbox --reset "
                        "to reset. See %sandbox? for the options.",
                        file=sys.stderr,
                    )
                return None
            try:
                out = session.run(cell, timeout=args.timeout)
            except Exception as exc:
                logs = session.executor.state.get("_print_outputs")
                if logs is not None and str(logs):
                    sys.stdout.write(str(logs))
                    sys.stdout.flush()
                if args.raise_error:
                    raise
                print(f"{type(exc).__name__}: {exc}", file=sys.stderr)
                return None
            if out.logs:
                sys.stdout.write(out.logs)
                sys.stdout.flush()
            if out.is_final_answer:  # shown once, as text, not also as the cell's result
                print(f"Final answer: {_short(out.output)}")
                return None
            return out.output

    return SandboxMagics


def load_ipython_extension(ip: Any) -> None:
    """Register ``%%sandbox`` in the IPython shell `ip` (called by ``%load_ext``)."""
    ip.register_magics(_make_magics_class()(ip))


def unload_ipython_extension(ip: Any) -> None:
    """Nothing to undo beyond what IPython does; present so ``%unload_ext`` works."""
