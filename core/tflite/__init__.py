"""TFLite Support's ``TensorBuffer`` and its element conversions, extended to every numeric type.

May import: ``core.errors``, ``core.dtypes``, ``core.text`` and ``core.budget``.
"""
