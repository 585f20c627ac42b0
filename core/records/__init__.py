"""Records with named fields: layouts from C declarations, field lists and numpy dtype
descriptions (docs/records.md).

May import: ``core.errors``, ``core.dtypes``, ``core.text`` and ``core.budget``.
"""
