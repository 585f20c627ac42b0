"""Application state: the document (the one owner of files, parameters, slice, selection, display
axes and edit history), settings and background tasks.

May import: ``core`` and PySide6's QtCore. Never imports widgets.
"""
