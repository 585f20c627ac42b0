"""Whole models: every tensor of containers, files and folders.

:func:`core.models.inventory.inventory` turns paths (container files, raw files, folders) into
the tensors to work on, in natural order, with what was skipped and why;
:func:`core.models.scan.scan_tensors` gives each tensor's figures (counts of NaN, Inf, zeros,
extremes, moments) and the flags that say which tensors went wrong.

May import: ``core.errors``, ``core.dtypes``, ``core.text``, ``core.budget``, ``core.slicing``,
``core.decode``, ``core.tflite``, ``core.files``, ``core.records``, ``core.frames``, ``core.scan``, ``core.pipeline``,
``core.formats``, ``core.export``, ``core.session``, ``core.guess`` and ``core.compare`` (every
engine package below it but ``core.display``).
"""
