"""The pipeline: files -> decode_raw -> target shape -> slice -> view as, with byte provenance.

May import: ``core.errors``, ``core.dtypes``, ``core.text``, ``core.budget``, ``core.slicing``,
``core.decode``, ``core.tflite``, ``core.files``, ``core.records``, ``core.frames`` and ``core.scan`` (every engine package below it
but ``core.display``).
"""
