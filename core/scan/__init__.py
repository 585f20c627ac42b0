"""Whole-view scans in bounded memory: statistics (and the block reads they share).

May import: ``core.errors``, ``core.budget``, ``core.files``, ``core.dtypes``, ``core.text``.
"""
