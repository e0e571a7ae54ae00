"""Alias of `smolagents_native.agent.models` (its old path): the same module object."""

import sys

from .agent import models as _models

sys.modules[__name__] = _models
