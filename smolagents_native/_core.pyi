"""Type stubs for the C extension `smolagents_native._core` (see docs/core-api.md)."""

from typing import Any

NODE_KINDS: tuple[str, ...]
REFUSED_NODES: tuple[str, ...]

class Interpreter:
    tools: dict[str, Any]
    extra_builtins: dict[str, Any]
    # What host code acting for the code may do (csrc/tripwire.c): keys readable_dirs,
    # writable_dirs (a tuple of directories, or None: unrestricted), allow_network,
    # allow_processes. Never set: only the Python installation is readable, nothing else.
    grants: dict[str, Any]
    @property
    def authorized_imports(self) -> list[str]: ...
    @property
    def print_outputs(self) -> str: ...
    @property
    def operations_count(self) -> int: ...
    def __init__(
        self,
        *,
        authorized_imports: list[str],
        interpreter_error: type[BaseException],
        final_answer_exception: type[BaseException],
        timeout_error: type[BaseException],
    ) -> None: ...
    def run(
        self,
        code: str,
        state: dict[str, Any],
        *,
        # <budgets:begin>
        # budgets (generated from csrc/budgets.def; None: no limit)
        max_operations: int | None = 10_000_000,
        max_while_iterations: int | None = 1_000_000,
        timeout: float | None = 30,
        max_print_len: int | None = 10_000_000,
        max_depth: int | None = None,
        max_int_bits: int | None = 4_000_000,
        max_result_bytes: int | None = 100_000_000,
        max_generators: int | None = 10_000,
        max_nesting: int | None = 10_000,
        # <budgets:end>
    ) -> tuple[Any, bool]: ...

# (name, default, unit, constant, what it bounds, message), from csrc/budgets.def
BUDGETS: tuple[tuple[str, int | float | None, str, str, str, str], ...]

def release_thread_stack() -> bool: ...
def release_on_step_stack(d: dict[str, Any], /) -> None: ...
def thread_stack_size() -> int: ...

# Process-mode worker confinement (csrc/sandbox.c; docs/isolation.md). Linux only.
def sandbox_apply(network: bool = False) -> None: ...
def sandbox_unshare_network() -> None: ...
