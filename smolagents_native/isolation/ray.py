"""`WorkerPool(backend="ray")`: run batches of programs on Ray actors (optional extra: `ray`).

Each actor owns a local `WorkerPool` on its node and runs every program in a fresh
process-mode executor there, so the sandbox is the same as on the local backend (a forked,
seccomp-filtered worker in its own namespaces); Ray only spreads the batch over actors and
machines. Results come back as plain tuples built by the actor from values that already passed
the restricted unpickler, and are turned into CodeOutput / exceptions in the caller.

An actor that dies mid-batch (killed, its node lost) is replaced by a new one, which runs that
actor's programs once more; the other actors' results are kept, and later batches use the
replacement. A program may thus run twice (its tool calls too): at least once, not exactly
once. One that dies twice comes back as InterpreterError.

Tools: `run_many(codes, tools={...})` ships the tools to the actors (Ray serializes them with
cloudpickle, once per actor per batch); each program's executor gets them with `send_tools`,
and they run in the actor's process, the host side of that node's sandbox, exactly as tools run
in the host process on the local backend. A tool must therefore be serializable, and whatever
it reads (host-only data) travels with it or is reachable from the actor's node.
"""

from __future__ import annotations

from typing import Any

from ..errors import ExecutionTimeoutError, InterpreterError


def _import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:  # pragma: no cover - depends on the environment
        raise ImportError(
            "WorkerPool(backend='ray') needs Ray: pip install 'smolagents_native[ray]'"
        ) from exc
    return ray


class _Runner:
    """The actor body: a local pool of one lane (its `run_many`)."""

    def __init__(self) -> None:
        from .host import WorkerPool

        self.pool = WorkerPool(size=1)
        self.pool.server()  # start the fork server now, not in the first program

    def run(
        self, codes: list[tuple[int, str]], kwargs: dict[str, Any],
        tools: dict[str, Any] | None = None, share_sandbox: bool = False,
    ) -> list[tuple]:
        out = []
        results = self.pool.run_many([code for _index, code in codes], tools,
                                     share_sandbox=share_sandbox, **kwargs)
        for (index, _code), result in zip(codes, results):
            if isinstance(result, ExecutionTimeoutError):
                out.append((index, "timeout", str(result), "", False))
            elif isinstance(result, InterpreterError):
                out.append((index, "error", str(result), "", False))
            else:
                out.append((index, "ok", result.output, result.logs, result.is_final_answer))
        return out

    def ready(self) -> bool:
        return True

    def close(self) -> None:
        self.pool.close()


class RayBackend:
    def __init__(self, size: int, address: str | None = None, **init_options: Any):
        ray = _import_ray()
        self.ray = ray
        self._started = False
        if not ray.is_initialized():
            options = {
                "num_cpus": size,
                "include_dashboard": False,
                "log_to_driver": False,
                "ignore_reinit_error": True,
                "configure_logging": False,
            }
            options.update(init_options)
            ray.init(address=address, **options)
            self._started = True
        actor = ray.remote(num_cpus=0)(_Runner)
        self.actors = [actor.remote() for _ in range(size)]
        ray.get([a.ready.remote() for a in self.actors])  # constructed, fork servers up

    def run_many(
        self, codes: list[str], kwargs: dict[str, Any], tools: dict[str, Any] | None = None,
        share_sandbox: bool = False,
    ) -> list[Any]:
        from ..executor import CodeOutput

        if tools:
            try:  # one serialization, shared by every actor's task
                tools_ref = self.ray.put(dict(tools))
            except Exception as exc:
                raise TypeError(
                    f"the tools cannot be sent to the Ray actors (Ray serializes them with "
                    f"cloudpickle): {exc}"
                ) from exc
        else:
            tools_ref = None
        # One chunk per actor, contiguous: fewer round trips than one task per program.
        n = len(self.actors)
        chunks: list[list[tuple[int, str]]] = [[] for _ in range(n)]
        for index, code in enumerate(codes):
            chunks[index * n // max(len(codes), 1)].append((index, code))
        results: list[Any] = [None] * len(codes)
        # ref -> (actor slot, chunk, attempt)
        pending = {
            self.actors[slot].run.remote(
                chunk, kwargs, tools_ref, share_sandbox): (slot, chunk, 1)
            for slot, chunk in enumerate(chunks)
            if chunk
        }
        while pending:
            done, _ = self.ray.wait(list(pending), num_returns=1)
            ref = done[0]
            slot, chunk, attempt = pending.pop(ref)
            try:
                part = self.ray.get(ref)
            except self.ray.exceptions.RayActorError as exc:
                # The actor died (killed, its node lost): a new one takes its place, and its
                # programs run once more there; the other actors' results are kept. A
                # program may thus run twice (its tools too): at least once, not exactly.
                self._replace(slot)
                if attempt == 1:
                    again = self.actors[slot].run.remote(
                        chunk, kwargs, tools_ref, share_sandbox)
                    pending[again] = (slot, chunk, 2)
                    continue
                part = [(index, "error", f"the Ray actor running this program died twice "
                         f"({type(exc).__name__})", "", False) for index, _code in chunk]
            for index, kind, value, logs, is_final in part:
                if kind == "ok":
                    results[index] = CodeOutput(output=value, logs=logs, is_final_answer=is_final)
                elif kind == "timeout":
                    results[index] = ExecutionTimeoutError(value)
                else:
                    results[index] = InterpreterError(value)
        return results

    def _replace(self, slot: int) -> None:
        """A new actor in place of the dead one at `slot` (later batches use it)."""
        try:
            self.ray.kill(self.actors[slot])
        except Exception:  # noqa: BLE001 - already gone
            pass
        actor = self.ray.remote(num_cpus=0)(_Runner).remote()
        self.ray.get(actor.ready.remote())
        self.actors[slot] = actor

    def close(self) -> None:
        ray = self.ray
        try:
            ray.get([actor.close.remote() for actor in self.actors], timeout=30)
        except Exception:
            pass
        for actor in self.actors:
            try:
                ray.kill(actor)
            except Exception:
                pass
        self.actors = []
        if self._started:
            ray.shutdown()
            self._started = False
