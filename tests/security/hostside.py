"""Host-side objects handed to sandboxed code by the security tests.

Everything here belongs to the *host*: the tools are plain Python functions whose globals (this
module's namespace) hold SECRET, and some of them deliberately return objects that must never
enter the sandbox (a module that is not authorized, a frame, a traceback, a code object, a
module namespace, a dangerous builtin). The tests assert that SECRET never shows up in an error
message, in the logs or in the output, and that the leaked objects are refused wherever they
enter.
"""

from __future__ import annotations

import os
import sys

SECRET = "S3CR3T-host-token-5f0c1e"


def lookup(key=None):
    """An innocent tool: returns its argument."""
    return key


def leak_module():
    return os


def leak_modules():
    return [os, sys]


def leak_dict():
    return {"os": os, "ok": 1}


def leak_frame():
    return sys._getframe()


def leak_traceback():
    try:
        raise ValueError("x")
    except ValueError as e:
        return e.__traceback__


def leak_code():
    return leak_code.__code__


def leak_globals():
    return globals()


def leak_builtins_dict():
    import builtins

    return builtins.__dict__


def leak_eval():
    return eval


def leak_open():
    return open


def raise_with_module():
    raise ValueError(os, "payload")


class LeakCM:
    """A context manager whose __enter__ hands out the os module."""

    def __enter__(self):
        return os

    def __exit__(self, *exc):
        return False


def leak_cm():
    return LeakCM()


def decorator_to_module(fn):
    """A host decorator that replaces the decorated function with a module."""
    return os


def decorator_to_eval(fn):
    """A host decorator that replaces the decorated function with eval."""
    return eval


class HostThing:
    """A host object with generator / coroutine methods (simpleeval issue #138 shape)."""

    def gen(self):
        yield 1

    async def coro(self):
        return 1

    def method(self):
        return 1


HOST_THING = HostThing()

# a host container holding a module the code was not authorized to import
LIST_WITH_OS = [1, os]

SECURITY_TOOLS = {
    "lookup": lookup,
    "leak_module": leak_module,
    "leak_modules": leak_modules,
    "leak_dict": leak_dict,
    "leak_frame": leak_frame,
    "leak_traceback": leak_traceback,
    "leak_code": leak_code,
    "leak_globals": leak_globals,
    "leak_builtins_dict": leak_builtins_dict,
    "leak_eval": leak_eval,
    "leak_open": leak_open,
    "raise_with_module": raise_with_module,
    "leak_cm": leak_cm,
    "decorator_to_module": decorator_to_module,
    "decorator_to_eval": decorator_to_eval,
}
