"""Guess the layout of a raw file: ranked, explained candidates for dtype, byte order, header,
record size and shape (docs/guess.md).

:func:`guess_report` reads a bounded sample of the file (start, middle, end; a few hundred KiB
whatever the size) and combines independent evidence, one module per concern: the file name
(:mod:`.names`), the size (:mod:`.sizes`), how plausible the values are for each type and byte
order and interleaved channels (:mod:`.plausibility`), periodicity (:mod:`.periodicity`),
headers and containers (:mod:`.headers`), image headers (netpbm, TIFF: :mod:`.images`); :mod:`.ranking` turns them into :class:`Candidate` objects, each a complete
:class:`~core.pipeline.pipeline.DecodeParams` with the reasons that raised or lowered it.
:func:`check_layout` (:mod:`.record_check`) checks a record layout instead: whether its fields'
values look plausible on a bounded sample of records (:mod:`.field_checks`, :mod:`.value_checks`)
and where the records start. :mod:`core.cli.guess` prints a report for ``tensor-inspect --guess``.

May import: ``core.errors``, ``core.dtypes``, ``core.text``, ``core.budget``, ``core.slicing``,
``core.decode``, ``core.tflite``, ``core.files``, ``core.records``, ``core.frames``, ``core.scan``, ``core.pipeline``,
``core.formats``, ``core.export`` and ``core.session`` (every engine package below it but
``core.display``).
"""

from core.guess.field_checks import FieldCheck
from core.guess.ranking import Candidate, GuessReport, guess_layout, guess_report
from core.guess.record_check import HeaderChoice, LayoutCheck, check_layout

__all__ = ["Candidate", "FieldCheck", "GuessReport", "HeaderChoice", "LayoutCheck", "check_layout", "guess_layout",
           "guess_report"]
