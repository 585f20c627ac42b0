"""``python -m core FILE ...``: the headless command (see :mod:`core.cli`)."""

from __future__ import annotations

import sys

from core.cli import main

if __name__ == "__main__":
    sys.exit(main())
