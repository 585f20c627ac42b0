"""Application state: the document (the one owner of files, parameters, slice, selection, display
axes, view options and edit history), snapshots of it (what a session records), settings and
background tasks.

May import: ``core``. Of Qt, only PySide6's QtCore. Never imports widgets.
"""
