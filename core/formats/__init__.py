"""Container formats: the tensors stored inside a file (safetensors, npz, TFLite, GGUF, ...).

A format module recognises its container from content (magic bytes and structure, never the file
name alone) and lists the tensors as :class:`~core.formats.entry.TensorEntry` objects: a name,
a type, a shape in C order, and the byte range of the data in the file. An entry becomes
ordinary decode parameters (:meth:`TensorEntry.params`), so everything downstream (slice, table,
plot, byte provenance, statistics, export, code snippets) works on it as on a raw file, as a view
of the read-only map. Headers are read through :class:`~core.files.sources.FileSource` and are
bounded by :data:`~core.formats.reader.HEADER_LIMIT`; data pages are never touched by a listing.

May import: ``core.errors``, ``core.dtypes``, ``core.text``, ``core.budget``, ``core.slicing``,
``core.decode``, ``core.tflite``, ``core.files``, ``core.scan`` and ``core.pipeline``.
"""
