"""Small reusable widgets (integer field, focus frame...) and the palette shared by every panel.

May import: ``core`` and PySide6. Never imports other ``inspector`` packages.
"""
