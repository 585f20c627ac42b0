"""Small reusable widgets and the palette shared by every panel.

May import: ``core`` and PySide6. Never imports other ``inspector`` packages.
"""
