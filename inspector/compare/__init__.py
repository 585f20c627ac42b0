"""Comparing the document's view (A) with a second tensor (B) in the window: the Compare dock
(B's files and decode override, tolerances, numpy's summary line, the mismatch list and its
navigation, B's bytes, copy as code), the values the table shows for a comparison (A, B,
``|A - B|``, relative or ULP differences with a diverging colour map) and the comparison plot
(A and B overlaid with the difference below in 1-d, ``|A - B|`` as an image in 2-d and N-d).

Everything it shows comes from :class:`inspector.state.comparison.Comparison` (the one owner of
B and the compare settings) and :mod:`core.compare`; it computes nothing itself.

May import: ``core``, ``inspector.state`` and ``inspector.widgets``; no other concern of the
window.
"""
