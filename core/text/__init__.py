"""Text for values: one formatter for every place a number is shown or written as text.

May import: ``core.errors`` and ``core.dtypes``. Pure numpy; the table, plot readout, status bar,
statistics, data inspector, CSV export and the CLI all format through here. ``array_layout`` streams
numpy's ``array2string`` layout of those texts (the CLI's output, in bounded memory). ``figures``
decides the digits of figures computed from values (differences, moments, shares, scores,
correlations), one rule for each kind; a value itself goes through ``number_format``.
``byte_sizes`` writes byte sizes (``1.5 KiB``) for every message and panel, the copy budget's
refusals included (the budget sits on the floor above).
"""
