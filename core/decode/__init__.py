"""``tf.io.decode_raw`` bit for bit, its input normalisation, and target shapes.

May import: ``core.errors``, ``core.budget``, ``core.dtypes``.
"""
