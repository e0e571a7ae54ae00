"""Shared fixtures for the smolagents_native test suite.

The executor is imported lazily (inside the fixtures) so that tests which only
exercise CPython (e.g. the determinism check of the program corpus, or the
self-test of the leak detector) can run before the extension is built.
"""

from __future__ import annotations

import signal
from pathlib import Path

import pytest

TESTS_DIR = Path(__file__).resolve().parent

# A shell without job control starts background jobs with SIGINT ignored, and CPython then
# installs no KeyboardInterrupt handler: the Ctrl-C tests (and the subprocesses they start, which
# inherit the ignored disposition) would see no signal. Give the suite the disposition of a
# normal interactive start.
if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
PROGRAMS_DIR = TESTS_DIR / "programs"


def new_executor(additional_authorized_imports=None):
    """Return a fresh LocalPythonExecutor, ready to run code (tools sent)."""
    from smolagents_native import LocalPythonExecutor

    ex = LocalPythonExecutor(additional_authorized_imports=list(additional_authorized_imports or []))
    ex.send_tools({})
    return ex


@pytest.fixture
def make_executor():
    """Factory fixture: ``make_executor()`` returns a fresh, ready executor."""
    return new_executor


@pytest.fixture
def executor():
    """A fresh executor with only the base modules authorized."""
    return new_executor()


@pytest.fixture(scope="session")
def interpreter_error():
    """The InterpreterError class of the package under test."""
    from smolagents_native import InterpreterError

    return InterpreterError


@pytest.fixture(scope="session")
def core_module():
    """The compiled extension module ``smolagents_native._core``."""
    from smolagents_native import _core

    return _core


@pytest.fixture
def capture_log():
    """`capture_log(level)`: the package's log records from now on, as JSON lines (the
    package's JsonFormatter) at `level`; returns a function giving them parsed. The logger's
    handler and level are put back after the test."""
    import io
    import json
    import logging

    from smolagents_native import observability as obs

    logger = obs.get_logger()
    previous = logger.level
    handlers = []

    def start(level=logging.INFO):
        stream = io.StringIO()
        handler = logging.StreamHandler(stream)
        handler.setFormatter(obs.JsonFormatter())
        logger.addHandler(handler)
        logger.setLevel(level)
        handlers.append(handler)
        return lambda: [json.loads(line) for line in stream.getvalue().splitlines()]

    yield start
    for handler in handlers:
        logger.removeHandler(handler)
    logger.setLevel(previous)
