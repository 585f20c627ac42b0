"""tensor-inspector desktop app (PySide6). Thin: widgets edit pipeline parameters and render results.

From Python: :func:`show` opens the window on an object in memory (:mod:`inspector.show`);
importing this package does not import Qt (``show`` does, when called).
"""

from inspector.show import ShowHandle, show

__all__ = ["ShowHandle", "show"]
