"""``tf.io.decode_raw`` bit for bit, its input normalisation, target shapes, and the unpacking of
the packed types beyond TF (int4/uint4, int24/uint24: :mod:`core.decode.packed`).

May import: ``core.errors``, ``core.dtypes``, ``core.text`` and ``core.budget``.
"""
