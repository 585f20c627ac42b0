"""Files: safe read-only opening, memory-mapped sources, the ``.npy`` header, the rule of what
counts as a change on disk (``file_change``), the one guard against SIGBUS (``shrink_guard``),
and small checked whole-file reads (``checked_read``: a file's SHA-256, a session's JSON).

The only place in the engine that opens or maps a file. May import: ``core.errors``,
``core.byte_sizes``, ``core.budget``, ``core.dtypes``.
"""
