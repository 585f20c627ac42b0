"""Reusable widgets that know no document (integer field, focus frame, elided labels, the hex view
over any byte reader...) and the palette shared by every panel.

May import: ``core``. Qt: PySide6. Never imports other ``inspector`` packages.
"""
