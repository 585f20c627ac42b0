"""Pure numpy algorithms behind the displays: peak decimation of lines (``line_decimation``),
image plane sampling and the one colour-level estimate (``image_sampling``, used by the image plot
and the table's heat map). No Qt here: the GUI draws what these functions return.

May import: ``core.errors``, ``core.text``.
"""
