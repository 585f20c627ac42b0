"""Test-wide setup: Qt runs headless (offscreen) unless a display platform is requested."""

import os

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
