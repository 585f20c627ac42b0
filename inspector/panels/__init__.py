"""The panels docked around the table: decode parameters, statistics, status bar, file-change
banner, export dialog and copy-as-code.

May import: ``core``, ``inspector.state``, ``inspector.widgets``.
"""
