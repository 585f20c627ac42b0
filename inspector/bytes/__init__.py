"""Where a number comes from: the hex view and the data inspector.

May import: ``core``, ``inspector.state``, ``inspector.widgets``.
"""
