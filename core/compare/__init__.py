"""Compare tensor A with tensor B: tolerances and rules, ULP distances, a bounded-memory block
scan with progress and cancellation, the offset-shift suggestion, and the numpy code that
reproduces a comparison (rules: docs/compare.md).

Modules: :mod:`~core.compare.rules` (tolerances, common type, NaN policy, bitwise mode),
:mod:`~core.compare.ulp` (ULP distance), :mod:`~core.compare.elementwise` (the rule applied to a
small block: what a table or plot shows), :mod:`~core.compare.result` (the figures and lists a
comparison produces, and numpy's summary words), :mod:`~core.compare.scanner` (the whole
comparison, in matching blocks of both sides, read with ``pread``), :mod:`~core.compare.shift`
(compare ``A[k]`` with ``B[k + shift]``, and the suggested shift), :mod:`~core.compare.snippet`
(copy as code).

May import: ``core.errors``, ``core.budget``, ``core.dtypes``, ``core.text``, ``core.files``,
``core.scan``, ``core.pipeline``, ``core.export``.
"""
