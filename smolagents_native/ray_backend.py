"""Alias of `smolagents_native.isolation.ray` (its old path): the same module object."""

import sys

from .isolation import ray as _ray

sys.modules[__name__] = _ray
