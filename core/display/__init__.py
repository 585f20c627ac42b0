"""Pure numpy algorithms behind the displays: peak decimation of lines, image plane sampling
and level estimation. No Qt here: the GUI draws what these functions return.

May import: ``core.errors``, ``core.text``.
"""
