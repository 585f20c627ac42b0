"""The panels docked around the table: decode parameters, statistics, status bar, file-change
banner, export dialog, copy-as-code, and the Help menu's dialogs.

May import: ``core``, ``inspector.state`` and ``inspector.widgets``; no other concern of the
window.
"""
