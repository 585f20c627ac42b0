"""Compare tensor A with tensor B: tolerances and rules, ULP distances, a bounded-memory block
scan with progress and cancellation, the offset-shift suggestion, and the numpy code that
reproduces a comparison (rules: docs/compare.md).

Modules: :mod:`~core.compare.rules` (tolerances, common type, NaN policy, bitwise mode),
:mod:`~core.compare.ulp` (ULP distance), :mod:`~core.compare.elementwise` (the rule applied to a
small block: what a table or plot shows), :mod:`~core.compare.difference_image` (what a picture
of ``|A - B|`` shows: not-finite differences, linear or log scale, "no differences"),
:mod:`~core.compare.result` (the figures and lists a
comparison produces, and numpy's summary words), :mod:`~core.compare.blockstats` (the figures of
one block, with a fast path for float32 / float64), :mod:`~core.compare.scanner` (the whole
comparison, in matching blocks of both sides, read with ``pread``), :mod:`~core.compare.shift`
(compare ``A[k]`` with ``B[k + shift]``, and the suggested shift), :mod:`~core.compare.snippet`
(copy as code). The command ``tensor-inspect diff`` is ``core/cli/diff.py``.

For the GUI: :func:`core.compare.scanner.compare_results` (or ``compare_sides`` with two
:class:`core.compare.scanner.Side` objects) runs on a worker thread with ``progress`` and
``cancelled``; :class:`core.compare.result.CompareResult` holds what to show;
:func:`core.compare.scanner.window_differences` gives the differences of the elements on screen.

May import: ``core.errors``, ``core.dtypes``, ``core.text``, ``core.budget``, ``core.slicing``,
``core.decode``, ``core.tflite``, ``core.files``, ``core.records``, ``core.frames``, ``core.scan``, ``core.pipeline``,
``core.formats``, ``core.export`` and ``core.session`` (every engine package below it but
``core.display``).
"""
