"""Export: the current view to ``.npy``, raw ``.bin`` or ``.csv``, and as numpy / TensorFlow code.

May import: ``core.errors``, ``core.dtypes``, ``core.text``, ``core.budget``, ``core.slicing``,
``core.decode``, ``core.tflite``, ``core.files``, ``core.scan`` and ``core.pipeline``.
"""
