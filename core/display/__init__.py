"""Pure numpy algorithms behind the displays: peak decimation of lines (``line_decimation``),
image plane sampling and the one colour-level estimate (``image_sampling``, used by the image plot
and the table's heat map), colour images of channel axes (``colour_image``: RGB/BGR/RGBA/BGRA to
uint8 RGBA) and the bounded sample of a complex signal's constellation (``constellation``, read
through a duck-typed ``BlockReader``). No Qt here: the GUI draws what these functions return.

May import: ``core.errors``, ``core.dtypes``, ``core.text`` and ``core.budget``. Only the app
(``inspector``) imports this package: the pipeline, the CLI and the API never draw.
"""
