"""Export: the current view to ``.npy``, raw ``.bin`` or ``.csv``, and as numpy / TensorFlow code.

May import: ``core.errors``, ``core.byte_sizes``, ``core.budget``, ``core.dtypes``, ``core.files``, ``core.tflite``,
``core.slicing``, ``core.pipeline``, ``core.scan``, ``core.text``.
"""
