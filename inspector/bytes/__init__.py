"""Where a number comes from: the hex view of the document's files (its copy / go-to /
header-offset actions, its link to the selected element, the bookmarks' colours) and the data
inspector. The hex view widget itself is :mod:`inspector.widgets.hex_view`, which the Compare
dock shows too.

May import: ``core``, ``inspector.state`` and ``inspector.widgets``; no other concern of the
window.
"""
