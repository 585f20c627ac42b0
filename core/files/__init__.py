"""Files: safe read-only opening, memory-mapped sources, and the ``.npy`` header.

The only place in the engine that opens or maps a file. May import: ``core.errors``,
``core.budget``, ``core.dtypes``.
"""
