"""tensor-inspector desktop app (PySide6). Thin: widgets edit pipeline parameters and render results."""
