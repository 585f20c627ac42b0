"""TFLite Support's ``TensorBuffer`` and its element conversions, extended to every numeric type.

May import: ``core.errors``, ``core.budget``, ``core.dtypes``.
"""
