"""Export: the current view to ``.npy``, raw ``.bin`` or ``.csv``, the records of a file to ``.csv`` or a
structured ``.npy`` (:mod:`core.export.records`; the pieces both share: :mod:`core.export.streaming`), as
numpy / TensorFlow code, and the decode as kerchunk references (:mod:`core.export.kerchunk`).

May import: ``core.errors``, ``core.dtypes``, ``core.text``, ``core.budget``, ``core.slicing``,
``core.decode``, ``core.tflite``, ``core.files``, ``core.records``, ``core.frames``, ``core.scan`` and ``core.pipeline``.
"""
