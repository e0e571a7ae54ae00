"""``python -m smolagents_native.bench``: see ``--help``."""

import sys

from ._cli import main

sys.exit(main())
