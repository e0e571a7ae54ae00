"""The package's version (pyproject.toml has the same): a module of its own, so that modules
below the package's `__init__` (observability) can name it without importing the package."""

__version__ = "0.1.0"
