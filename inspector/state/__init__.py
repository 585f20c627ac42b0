"""Application state: the document (the one owner of files, parameters, slice, selection, display
axes and edit history), settings and background tasks.

May import: ``core``. Of Qt, only PySide6's QtCore. Never imports widgets.
"""
