"""``python -m smolagents_native``: the command line, `smolagents_native.cli`."""

import sys

from .cli import main

if __name__ == "__main__":
    sys.exit(main())
