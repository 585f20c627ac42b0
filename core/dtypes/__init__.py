"""The type tables: ``decode_raw`` out_types and TensorBuffer data types, with their names.

May import: ``core.errors``. Everything else in the engine that needs a type, a name for a type or
a byte size asks here.
"""
