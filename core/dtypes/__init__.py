"""The one type table (``table.TYPE_ROWS``) and what derives from it: ``decode_raw`` out_types,
TensorBuffer's ``DataType``, the ``.npy`` type codes and the names written into code snippets.

May import: ``core.errors``. Everything else in the engine that needs a type, a name for a type or
a byte size asks here.
"""
