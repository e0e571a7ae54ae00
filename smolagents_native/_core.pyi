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
    # run(): 0 for max_depth / max_int_bits / max_result_bytes selects the core's default.
    def run(
        self,
        code: str,
        state: dict[str, Any],
        *,
        max_operations: int = 10_000_000,
        max_while_iterations: int = 1_000_000,
        timeout: float | None = None,
        max_print_len: int | None = None,
        max_depth: int = 0,
        max_int_bits: int = 0,
        max_result_bytes: int = 0,
    ) -> tuple[Any, bool]: ...
