"""``python -m inspector [FILE ...]``: the GUI."""

import sys

from inspector.app import main

sys.exit(main())
