"""The table of numbers: a Qt model over the displayed plane, its panel and its find bar.

May import: ``core``, ``inspector.state`` and ``inspector.widgets``; no other concern of the
window.
"""
