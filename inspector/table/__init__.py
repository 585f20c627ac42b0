"""The table of numbers: a Qt model over the displayed plane and its panel.

May import: ``core``, ``inspector.state``, ``inspector.widgets``.
"""
