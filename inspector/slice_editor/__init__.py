"""The slice editor: a ``SliceSpec`` as an expression, a grid and five mask integers.

May import: ``core``, ``inspector.state`` and ``inspector.widgets``; no other concern of the
window.
"""
