"""Files: safe read-only opening, memory-mapped sources, the ``.npy`` header, the rule of what
counts as a change on disk (``file_change``) and the one guard against SIGBUS (``shrink_guard``).

The only place in the engine that opens or maps a file. May import: ``core.errors``,
``core.budget``, ``core.dtypes``.
"""
