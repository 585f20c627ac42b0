"""Whole-view scans in bounded memory: views cut into blocks and read with ``pread`` (so a file
that shrinks mid-scan is reported, not a crash), the one block scheduler that runs work over those
blocks on a small thread pool (``parallel``, used by statistics and by ``core.compare``),
statistics over them (``statistics``, ``block_summaries``, ``histogram``; of each field of a file of
records: ``field_statistics``), and the search for the next matching element (``search``).

May import: ``core.errors``, ``core.dtypes``, ``core.text``, ``core.budget``, ``core.files``, ``core.records`` and ``core.frames``. A
scan reads the view it is handed: it never slices or decodes.
"""
