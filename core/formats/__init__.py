"""Container formats: the tensors stored inside a file (safetensors, npz, TFLite, GGUF, ...) or a
Zarr store's folder.

A format module recognises its container from content (magic bytes and structure, never the file
name alone) and lists the tensors as :class:`~core.formats.entry.TensorEntry` objects: a name,
a type, a shape in C order, the byte range of the stored data, a storage kind
(:class:`~core.formats.entry.Storage`: a *view* of the file, a *copy* of values stored
otherwise, or *computed* values), element strides for a view not in C order, and the file the
data lives in when it is not the listed one. A view becomes ordinary decode parameters
(:meth:`TensorEntry.params`), so everything downstream (slice, table, plot, byte provenance,
statistics, export, code snippets) works on it as on a raw file, as a view of the read-only map;
a copy or computed value comes from its format's one ``values`` hook
(:class:`~core.formats.entry.ContainerFormat`), budget-checked before anything is allocated.
:func:`core.formats.values.open_entry` is the one way the command and the window open any entry.
Headers are read through :class:`~core.files.sources.FileSource` and are bounded by
:data:`~core.formats.reader.HEADER_LIMIT`; data pages are never touched by a listing (except a
TFRecord's, whose records are its structure: read with ``pread`` in bounded blocks, every
record, the index bounded by the copy budget). Adding a
format is one module with ``FORMAT = ContainerFormat(...)`` plus one line in
:mod:`core.formats.registry` (docs/containers.md, "Adding a format").

May import: ``core.errors``, ``core.dtypes``, ``core.text``, ``core.budget``, ``core.slicing``,
``core.decode``, ``core.tflite``, ``core.files``, ``core.records``, ``core.frames``, ``core.scan`` and ``core.pipeline``.
"""
