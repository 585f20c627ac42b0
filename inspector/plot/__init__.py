"""The plot: a line for 1-d views, an image of the displayed plane otherwise (pyqtgraph).

May import: ``core``, ``inspector.state`` and ``inspector.widgets``; no other concern of the
window.
"""
