"""Where a number comes from: the hex view (and its copy / go-to / header-offset actions) and the
data inspector.

May import: ``core``, ``inspector.state``, ``inspector.widgets``.
"""
