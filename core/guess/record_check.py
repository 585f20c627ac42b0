"""Check a record layout against a file: do its fields' values look plausible, and where do the
records start? (docs/guess.md, "Checking a record layout").

Rules
-----
- **What is read**: a bounded sample of records spread over the file
  (:func:`core.guess.sample.read_record_sample`: at most
  :data:`~core.guess.sample.RECORD_READ_BYTES` whatever the file's size).
- **The check at a header** of ``h`` bytes: the sampled records that start at ``h``, every
  field judged by :mod:`core.guess.field_checks` (its rules: scores, weights, reasons); the
  layout's score is their combined score. When the first records do not read like the rest
  (the binary-header rule of :func:`core.guess.headers.binary_header_end` applied to each
  field's values, the first piece's records against a later piece's) while the check is
  plausible, the header is longer than ``h``: the check says so, its score is multiplied by
  :data:`LONGER_HEADER_FACTOR`, and the longer header is tried too (up to
  :data:`~core.guess.headers.MAX_BINARY_HEADER` bytes).
- **Verdict**: plausible when the score is at least :data:`PLAUSIBLE_SCORE` and at least
  :data:`MIN_RECORDS` records were judged (fewer: "too few records to judge").
- **Where records start**: every offset from 0 to the record size - 1 (in steps of 2, 4, 8...
  bytes when offsets times fields would pass :data:`MAX_JUDGEMENTS`, or offsets times the values
  judged :data:`MAX_JUDGED_VALUES`: a second or two of work), the header given, the end of a
  text header and of a binary header padded with zeros (:mod:`core.guess.headers`), and the
  longer headers their first records point at are each checked, and ranked by score to two
  decimals, as shown (ties: the header given, then an offset some header rule found, then the
  smaller offset). Each says its trailing bytes, ``(size - offset) mod record size``. The best
  one is proposed in one sentence (:attr:`LayoutCheck.proposal`).
- **Periodicity**: a marker that repeats (:func:`core.guess.periodicity.record_length`), else
  the period of the bytes from the header (:func:`core.guess.periodicity.record_period`): the
  record size, a multiple of it, a divisor of it (arrays of items) or another size, said as a
  reason.
- An empty file or one smaller than a record is a check with no fields and a verdict saying
  so; a header past the end of the file, and a layout of nothing but padding, are refused.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from core.errors import CoreError
from core.files.source import Source
from core.guess.field_checks import FieldCheck, combined_score, is_padding_name, judge_fields, judged_columns
from core.guess.headers import MAX_BINARY_HEADER, RUN_ITEMS, binary_header_end, padded_header_end, text_header_end
from core.guess.periodicity import record_length, record_period
from core.guess.sample import RecordSample, read_record_sample
from core.records.layout import Column, RecordLayout
from core.text.figures import format_fit

__all__ = ["LONGER_HEADER_FACTOR", "MAX_JUDGED_VALUES", "MAX_JUDGEMENTS", "MIN_RECORDS", "PLAUSIBLE_SCORE",
           "SHOWN_HEADERS", "FieldCheck", "HeaderChoice", "LayoutCheck", "check_layout", "check_lines"]

#: Score from which a layout is plausible.
PLAUSIBLE_SCORE = 0.7
#: Fewest records judged for a verdict.
MIN_RECORDS = 16
#: Most field judgements spent on trying header offsets (offsets times fields).
MAX_JUDGEMENTS = 1024
#: Most values judged in trying header offsets (offsets times sampled records times columns).
MAX_JUDGED_VALUES = 8_000_000
#: What a header's score is multiplied by when its first records read like a longer header.
LONGER_HEADER_FACTOR = 0.9
#: Header offsets kept in a check, best first (the header given is kept too).
SHOWN_HEADERS = 5
#: Fields whose first values are compared with the rest to find a longer header.
_LEADING_FIELDS = 64


@dataclass(frozen=True)
class HeaderChoice:
    """Records starting at one header offset, as checked.

    Attributes
    ----------
    offset
        The header's length in bytes.
    score
        The check's score there.
    records
        Whole records from there to the end of the file.
    trailing_bytes
        Bytes after the last whole record.
    note
        Why the score was lowered, or ``""``.
    """

    offset: int
    score: float
    records: int
    trailing_bytes: int
    note: str = ""

    @property
    def text(self) -> str:
        """``"at 12: 0.94"``, with the trailing bytes and the note when there are any."""
        extra = [f"{self.trailing_bytes:,} trailing byte{'s' if self.trailing_bytes != 1 else ''}"] \
            if self.trailing_bytes else []
        extra += [self.note] if self.note else []
        return f"at {self.offset:,}: {format_fit(self.score)}" + (f" ({'; '.join(extra)})" if extra else "")


@dataclass(frozen=True)
class LayoutCheck:
    """A record layout checked against a file (module rules); every text is ready to show.

    Attributes
    ----------
    header
        The header offset checked (the one given).
    plausible, score
        The verdict: whether the fields' values look like real data there, and how much (0..1).
    verdict
        One sentence.
    fields
        Per field (and padding run) its score and reasons, in layout order.
    headers
        Header offsets tried, best first (at most :data:`SHOWN_HEADERS`, and the one given).
    proposal
        Where the records start, in one sentence (``""`` when no offset could be tried).
    reasons
        Facts about the file and the sample (records, trailing bytes, periodicity...).
    records, trailing_bytes
        Whole records after the header, and the bytes after the last one.
    sampled_records, bytes_read
        Records judged and bytes read.
    """

    header: int
    plausible: bool
    score: float
    verdict: str
    fields: tuple[FieldCheck, ...]
    headers: tuple[HeaderChoice, ...]
    proposal: str
    reasons: tuple[str, ...]
    records: int
    trailing_bytes: int
    sampled_records: int
    bytes_read: int

    @property
    def best_header(self) -> HeaderChoice | None:
        """The best header offset tried, or None when none could be."""
        return self.headers[0] if self.headers else None


@dataclass(frozen=True)
class _Judged:
    offset: int
    score: float
    fields: tuple[FieldCheck, ...]
    sampled: int
    longer: int  # records at the start that read like a header


def check_layout(source: Source, layout: RecordLayout, header: int = 0, *, index: int = 0) -> LayoutCheck:
    """Check ``layout`` against file ``index`` of ``source`` with records after ``header``
    bytes, and try other header offsets (module rules).

    Raises
    ------
    CoreError
        ``field="offset"``: a negative header, or one past the end of the file;
        ``field="fields"``: a layout of padding only, or records too large to sample.
    SourceError
        The source was closed.
    """
    size = source.file_size(index)
    itemsize = layout.itemsize
    if header < 0:
        raise CoreError(f"the header offset {header} is negative (use 0 or more)", field="offset")
    if header > size:
        raise CoreError(f"--offset {header} is past the end of the file ({size:,} bytes)", field="offset")
    padding = [leaf.name for leaf in layout.fields if is_padding_name(leaf.name) and not leaf.is_bits]
    if len(padding) == len(layout.fields):
        raise CoreError(f"the layout has only padding ({', '.join(padding[:6])}): there are no values to check "
                        "(name the fields that hold data)", field="fields")
    facts = [f"{size:,} bytes"]
    if size == 0:
        return _empty(header, "the file is empty: there are no records to check", facts)
    if size < itemsize:
        return _empty(header, f"the file's {size:,} bytes are fewer than one record of {itemsize:,} bytes: there are "
                              "no records to check (check the layout)", facts, size)
    sample = read_record_sample(source, itemsize, header, index)
    judged, evidence = _try_headers(layout, sample, header, facts)
    ranked = sorted(judged.values(), key=lambda j: (-round(j.score, 2), j.offset != header,
                                                    j.offset not in evidence, j.offset))
    ranked = [j for j in ranked if j.sampled or j.offset == header]
    shown = ranked[:SHOWN_HEADERS] + [j for j in ranked[SHOWN_HEADERS:] if j.offset == header]
    choices = tuple(_choice(j, size, itemsize) for j in shown)
    here = judged[header]
    records, trailing = divmod(size - header, itemsize)
    facts[0] = (f"{size:,} bytes: {records:,} record{'s' if records != 1 else ''} of {itemsize:,} bytes after a "
                f"{header:,}-byte header" + (f", {trailing:,} trailing byte{'s' if trailing != 1 else ''}"
                                             if trailing else ""))
    places = len(sample.records_at(header))
    facts.insert(1, f"sampled {here.sampled:,} record{'s' if here.sampled != 1 else ''} from {places} "
                    f"place{'s' if places != 1 else ''} ({sample.bytes_read:,} bytes read)")
    period = _period(sample, itemsize, header)
    if period:
        facts.append(period)
    if here.longer:
        facts.append(_longer_note(here, itemsize))
    plausible = here.score >= PLAUSIBLE_SCORE and here.sampled >= MIN_RECORDS
    return LayoutCheck(header, plausible, here.score, _verdict(here, plausible), here.fields, choices,
                       _proposal(ranked, header), tuple(facts), records, trailing, here.sampled, sample.bytes_read)


def _empty(header: int, verdict: str, facts: list[str], trailing: int = 0) -> LayoutCheck:
    return LayoutCheck(header, False, 0.0, verdict, (), (), "", (*facts, verdict), 0, trailing, 0, 0)


def _try_headers(layout: RecordLayout, sample: RecordSample, header: int,
                 facts: list[str]) -> tuple[dict[int, _Judged], set[int]]:
    """Every header offset the rules try, checked; and the offsets that some header rule found."""
    size, itemsize = sample.size, layout.itemsize
    fields = len(layout.fields) + 1  # and the padding
    values = sum(p.shape[0] for p in sample.records_at(0)) * (judged_columns(layout) + 1)
    step = 1
    while step < itemsize and -(-itemsize // step) * max(fields / MAX_JUDGEMENTS, values / MAX_JUDGED_VALUES) > 1:
        step *= 2
    if step > 1:
        facts.append(f"header offsets tried in steps of {step} bytes (records of {itemsize:,} bytes, "
                     f"{len(layout.fields):,} field{'s' if len(layout.fields) != 1 else ''})")
    offsets = set(range(0, itemsize, step)) | {header}
    head = sample.pieces[0][1] if sample.pieces and sample.pieces[0][0] == 0 else b""
    text = text_header_end(head)
    padded = padded_header_end(head)
    evidence = {end for end in (text[0] if text else None, padded) if end is not None and end < size}
    judged = {offset: _judge_at(layout, sample, offset) for offset in sorted(offsets | evidence)}
    for j in list(judged.values()):
        longer = j.offset + j.longer * itemsize
        if j.longer:
            evidence.add(longer)
            if longer not in judged:
                judged[longer] = _judge_at(layout, sample, longer)
    return judged, evidence


def _judge_at(layout: RecordLayout, sample: RecordSample, offset: int) -> _Judged:
    pieces = sample.records_at(offset)
    if not pieces:
        return _Judged(offset, 0.0, (), 0, 0)
    data = np.concatenate(pieces) if len(pieces) > 1 else pieces[0]
    fields = judge_fields(layout, data, np.cumsum([p.shape[0] for p in pieces[:-1]]).tolist())
    score = combined_score(fields)
    leading = _longer_header(layout, pieces) if score >= PLAUSIBLE_SCORE else 0
    if leading:
        score *= LONGER_HEADER_FACTOR
    return _Judged(offset, score, fields, data.shape[0], leading)


def _longer_header(layout: RecordLayout, pieces: list[np.ndarray]) -> int:
    """How many of the first records read like a header rather than like the rest (module
    rules), 0 when they read like the rest."""
    first = pieces[0]
    if len(pieces) > 1:
        body = pieces[len(pieces) // 2]
    else:
        body = first[2 * RUN_ITEMS:]  # a small file: the records after the first ones are the reference
    if first.shape[0] < 2 * RUN_ITEMS or body.shape[0] < 4 * RUN_ITEMS:  # what binary_header_end needs
        return 0
    head_records, body_records = layout.records(first.reshape(-1)), layout.records(body.reshape(-1))
    found = 0
    leaves = [leaf for leaf in layout.fields if not is_padding_name(leaf.name)][:_LEADING_FIELDS]
    with np.errstate(all="ignore"):
        for leaf in leaves:
            column = Column(leaf.name, leaf, (0,) * len(leaf.shape))
            values, reference = layout.values(head_records, column), layout.values(body_records, column)
            if values.dtype.kind == "b":
                values, reference = values.view(np.uint8), reference.view(np.uint8)
            end = binary_header_end(values, values, reference)
            found = max(found, end or 0)
    return found if found * layout.itemsize <= MAX_BINARY_HEADER else 0


def _longer_note(judged: _Judged, itemsize: int) -> str:
    count = judged.longer
    first = "the first record" if count == 1 else f"the first {count} records"
    return (f"{first} from byte {judged.offset:,} {'does' if count == 1 else 'do'} not read like the rest: a header "
            f"of {judged.offset + count * itemsize:,} bytes?")


def _choice(judged: _Judged, size: int, itemsize: int) -> HeaderChoice:
    records, trailing = divmod(size - judged.offset, itemsize)
    return HeaderChoice(judged.offset, judged.score, records, trailing,
                        _longer_note(judged, itemsize) if judged.longer else "")


def _verdict(judged: _Judged, plausible: bool) -> str:
    where = f"from byte {judged.offset:,}"
    score = format_fit(judged.score)
    if not judged.fields:
        return f"no whole record after the {judged.offset:,}-byte header: there are no records to check"
    if judged.sampled < MIN_RECORDS:
        return (f"too few records to judge the layout {where}: {judged.sampled:,} (at least {MIN_RECORDS} are "
                f"needed; score {score})")
    if not any(f.weight >= 0.5 and f.kind != "padding" for f in judged.fields):
        return (f"the values cannot tell whether the layout fits {where}: every field is constant, a few bits or "
                f"padding (score {score})")
    if plausible:
        return f"the layout is plausible {where} (score {score})"
    worst = min((f for f in judged.fields if f.weight >= 0.5 and f.reasons), key=lambda f: f.score, default=None)
    why = f": {worst.reasons[0]}" if worst is not None else ""
    return f"the layout does not fit the records {where} (score {score}){why}"


def _proposal(ranked: list[_Judged], header: int) -> str:
    """Where the records start, in one sentence (module rules)."""
    tried = [j for j in ranked if j.sampled]
    if not tried:
        return ""
    best = tried[0]
    score = format_fit(best.score)
    if best.score < PLAUSIBLE_SCORE or best.sampled < MIN_RECORDS:
        return f"no header offset makes the layout plausible (best: at byte {best.offset:,}, score {score})"
    if best.offset != header:
        here = next((j for j in ranked if j.offset == header), None)
        given = f"; at {header:,}: {format_fit(here.score)}" if here is not None and here.sampled else \
            f"; no whole record from byte {header:,}"
        return f"records start at byte {best.offset:,} (score {score}{given})"
    runner = tried[1] if len(tried) > 1 else None
    other = f"; next best at {runner.offset:,}: {format_fit(runner.score)}" if runner is not None else ""
    return f"records start at byte {header:,} as given (score {score}{other})"


def _period(sample: RecordSample, itemsize: int, header: int) -> str | None:
    """What the periodicity of the bytes from the header says of the record size, or None."""
    piece = next(((start, data) for start, data in sample.pieces if start <= header < start + len(data)), None)
    if piece is None:
        return None
    start, data = piece
    data = data[header - start:]
    found = record_length(data, 0, sample.size - header) or record_period(np.frombuffer(data, np.uint8))
    if found is None:
        return None
    period = found[0]
    if period == itemsize:
        return f"the bytes repeat every {period:,} bytes, as the layout's records"
    if period % itemsize == 0:
        return f"the bytes repeat every {period:,} bytes ({period // itemsize} of the layout's records)"
    if itemsize % period == 0:
        return f"the bytes repeat every {period:,} bytes, a divisor of the layout's {itemsize:,}"
    return f"the bytes repeat every {period:,} bytes, the layout is {itemsize:,}"


def check_lines(name: str, check: LayoutCheck) -> str:
    """A layout check as lines of text, as the command prints it and the records window shows it:
    ``NAME: verdict``, the proposal, the reasons, each field's score, kind and reasons, the
    header offsets best first."""
    lines = [f"{name}: {check.verdict}"]
    if check.proposal:
        lines.append(f"  {check.proposal}")
    lines += [f"  {reason}" for reason in check.reasons]
    if check.fields:
        lines.append("fields:")
        for field in check.fields:
            lines.append(f"  {field.name}  (score {format_fit(field.score)}, {field.kind})")
            lines += [f"   - {reason}" for reason in field.reasons]
    if check.headers:
        lines.append("headers (best first):")
        lines += [f"  {header.text}" for header in check.headers]
    return "\n".join(lines) + "\n"
