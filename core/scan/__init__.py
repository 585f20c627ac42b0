"""Whole-view scans in bounded memory: views cut into blocks and read with ``pread`` (so a file
that shrinks mid-scan is reported, not a crash), statistics over them, and the search for the next
matching element (``search``).

May import: ``core.errors``, ``core.budget``, ``core.files``, ``core.dtypes``, ``core.text``.
"""
