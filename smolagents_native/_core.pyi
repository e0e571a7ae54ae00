"""Type stubs for the C extension `smolagents_native._core` (see docs/core-api.md)."""

from collections.abc import Callable
from typing import Any, NoReturn, overload

NODE_KINDS: tuple[str, ...]
REFUSED_NODES: tuple[str, ...]
MEMORY_BUDGET: int  # 1 when the allocator hooks enforce max_memory_bytes (csrc/budget/memlimit.c)
BUILD: str  # how setup.py optimized this build: compiler, flags, profile-guided or not
MANAGED_DICT_LAYOUT: int  # 1 when instance dicts are read where CPython keeps them (csrc/base/compat.h)

class Budgets:
    """run()'s budget keywords, parsed once (csrc/budget/budgets.c): pass it as `run`'s third
    argument. Unknown keywords and bad values raise as `run` does."""
    def __init__(self, **budgets: int | float | None) -> None: ...
    # <budget-attrs:begin>
    # one attribute per budget (generated from csrc/budget/budgets.def; None: no limit)
    max_operations: int | None
    max_while_iterations: int | None
    timeout: float | None
    max_print_len: int | None
    max_depth: int | None
    max_int_bits: int | None
    max_result_bytes: int | None
    max_generators: int | None
    max_nesting: int | None
    max_memory_bytes: int | None
    max_source_bytes: int | None
    # <budget-attrs:end>

class Interpreter:
    tools: dict[str, Any]
    extra_builtins: dict[str, Any]
    # What host code acting for the code may do (csrc/guard/tripwire.c): keys readable_dirs,
    # writable_dirs (a tuple of directories, or None: unrestricted), allow_network,
    # allow_processes. Never set: only the Python installation is readable, nothing else.
    grants: dict[str, Any]
    @property
    def authorized_imports(self) -> list[str]: ...
    @property
    def print_outputs(self) -> str: ...
    @property
    def operations_count(self) -> int: ...
    @property
    def memory_used(self) -> int: ...
    def __init__(
        self,
        *,
        authorized_imports: list[str],
        interpreter_error: type[BaseException],
        final_answer_exception: type[BaseException],
        timeout_error: type[BaseException],
    ) -> None: ...
    @overload
    def run(self, code: str, state: dict[str, Any], budgets: Budgets, /) -> tuple[Any, bool]: ...
    @overload
    def run(
        self,
        code: str,
        state: dict[str, Any],
        *,
        # <budgets:begin>
        # budgets (generated from csrc/budget/budgets.def; None: no limit)
        max_operations: int | None = 10_000_000,
        max_while_iterations: int | None = 1_000_000,
        timeout: float | None = 30,
        max_print_len: int | None = 10_000_000,
        max_depth: int | None = None,
        max_int_bits: int | None = 4_000_000,
        max_result_bytes: int | None = 100_000_000,
        max_generators: int | None = 10_000,
        max_nesting: int | None = 10_000,
        max_memory_bytes: int | None = 536_870_912,
        max_source_bytes: int | None = 1_048_576,
        # <budgets:end>
    ) -> tuple[Any, bool]: ...
    # run(), a timeout worded with `timeout`, then state["_print_outputs"] (a `container`
    # made without __init__, .value = the prints, cut by `truncate` past the limit) and
    # state["_operations_count"], success or failure (docs/core-api.md)
    def step(
        self,
        code: str,
        state: dict[str, Any],
        budgets: Budgets,
        max_print_outputs_length: int | None,
        container: type,
        truncate: Callable[..., str],
        timeout: object,
        /,
    ) -> tuple[Any, bool]: ...
    # The names the last step read, wrote or deleted in its globals (None: not known)
    def touched_names(self) -> set[str] | None: ...
    # The cache of lowered programs: programs, bytes, limit, hits, misses, evictions
    def cache_info(self) -> dict[str, int]: ...

# (name, default, unit, constant, what it bounds, message), from csrc/budget/budgets.def
BUDGETS: tuple[tuple[str, int | float | None, str, str, str, str], ...]

# Helpers of the shim's per-step path (csrc/module/shim.c)
def same_entries(a: dict[Any, Any], b: dict[Any, Any], /) -> bool: ...
def entries_token(d: object, /) -> int | None: ...
def same_tools(tools: Any, snapshot: list[Any], /) -> bool: ...

def release_thread_stack() -> bool: ...
def release_on_step_stack(d: dict[str, Any], /) -> None: ...
def thread_stack_size() -> int: ...
def stack_bound_queries() -> int: ...

# Process-mode worker confinement (csrc/module/sandbox.c, csrc/module/jail.c; docs/isolation.md). Linux
# only.
def sandbox_apply(network: bool = False) -> None: ...
def sandbox_apply_forkserver() -> None: ...
def fork_image_prepare() -> None: ...
def jail_unshare(flags: int, /) -> None: ...
def jail_setns(fd: int, nstype: int, /) -> None: ...
def jail_mount(
    source: str | None, target: str, fstype: str | None, flags: int, data: str | None, /
) -> None: ...
def jail_bind(source: str, target: str, readonly: bool, /) -> None: ...
def jail_remount_readonly(target: str, /) -> None: ...
def jail_pivot_root(new_root: str, put_old: str | None = None, /) -> None: ...
def jail_drop_privileges(uid: int = -1, gid: int = -1) -> int: ...
def jail_reap(pid: int, /) -> NoReturn: ...
def jail_set_pdeathsig(signal: int, /) -> None: ...
def jail_set_dumpable(flag: bool, /) -> None: ...
def jail_end_on_signals() -> int: ...

JAIL_CLONE_NEWUSER: int
JAIL_CLONE_NEWNS: int
JAIL_CLONE_NEWPID: int
JAIL_CLONE_NEWNET: int
JAIL_CLONE_NEWIPC: int
JAIL_CLONE_NEWUTS: int
JAIL_CLONE_NEWCGROUP: int
JAIL_MS_NOSUID: int
JAIL_MS_NODEV: int
JAIL_MS_NOEXEC: int
JAIL_MS_RDONLY: int
JAIL_MS_REC: int
JAIL_MS_PRIVATE: int
JAIL_MS_BIND: int

# The data-only value codec of the process boundary (csrc/module/wire.c describes the format;
# smolagents_native/_wire.py has the ext and build hooks of the types beyond the builtins).
def wire_dumps(
    obj: object,
    ext: Callable[[Any], tuple[str, Any] | None] | None = None,
    max_depth: int = 200,
) -> bytes: ...
def wire_loads(
    data: bytes | bytearray | memoryview,
    build: Callable[[str, Any], Any] | None = None,
    max_depth: int = 200,
    deadline: float | None = None,
) -> Any: ...
