"""Process-mode tests share one WorkerPool (fork servers start once per profile)."""

from __future__ import annotations

import os
import sys

import pytest

if not sys.platform.startswith("linux"):
    pytest.skip("process isolation needs Linux", allow_module_level=True)


@pytest.fixture(scope="session")
def pool():
    from smolagents_native import WorkerPool

    with WorkerPool(size=8) as shared:
        yield shared


@pytest.fixture
def make_process_executor(pool):
    """`make_process_executor(imports, **options)`: a process-mode executor, tools sent,
    closed at the end of the test."""
    from smolagents_native import LocalPythonExecutor

    made = []

    def make(imports=(), **options):
        options.setdefault("pool", pool)
        ex = LocalPythonExecutor(list(imports), isolation="process", **options)
        ex.send_tools({})
        made.append(ex)
        return ex

    yield make
    for ex in made:
        ex.close()


@pytest.fixture(params=["init", "supervisor"])
def spawn_way(request, monkeypatch):
    """Both ways a sandbox's processes are made (docs/isolation.md, *The layers*): a root
    host's fork server forks the jail's init itself ("init"), any other host's forks a
    supervisor that forks it ("supervisor"). Pools the test creates use the way given;
    "init" is skipped on a host that is not root."""
    from smolagents_native.isolation import jail

    if request.param == "init" and os.geteuid() != 0:
        pytest.skip("only a root host's fork server forks the jail's init itself")
    monkeypatch.setattr(jail, "SUPERVISED", request.param == "supervisor")
    return request.param
