"""Alias of `smolagents_native.agent.notebook` (its old path): the same module object."""

import sys

from .agent import notebook as _notebook

sys.modules[__name__] = _notebook
