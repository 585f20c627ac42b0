"""The pipeline: files -> decode_raw -> target shape -> slice -> view as, with byte provenance.

May import every engine package below it: ``files``, ``decode``, ``slicing``, ``tflite``, ``scan``,
``dtypes``, ``budget``, ``errors``.
"""
