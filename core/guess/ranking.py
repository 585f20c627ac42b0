"""Combine the evidence into ranked, explained candidates (docs/guess.md).

Rule: every type and byte order is scored on the middle of the file
(:mod:`core.guess.plausibility`); the best :data:`TYPES_KEPT` are combined with every header
length the evidence suggests (none, a text header, a binary header that does not read like the
rest, one padded with zeros, a header length or dimensions in the name) and with records (a
repeating marker) and a shape (dimensions in the name or a text header, with its channels or
pixel format; interleaved channels; a row width found by autocorrelation). Each piece of evidence adds or subtracts a fixed amount, stated with its reason:

====================================================  =======
evidence                                              points
====================================================  =======
the type's own score (smoothness, range, plausible)   0 to 10
the name or text header names this type / another     +3 / -1
the name names this byte order / the other            +1.5 / -1.5
items start where the values line up / elsewhere      0 / -2.5
a text header ends here                               +1
the first bytes do not read like the rest, skipped /  +1.5 /
  not skipped                                         -1
the name's dimensions fill the data exactly           +3
the name says a header of N bytes (``hdr64``)         +3
a header padded with zeros to an aligned boundary     +2
a marker repeats every N bytes (records)              +2
rows of pixels of interleaved channels                +1.3
interleaved channels (the last dimension)             +1
rows found by autocorrelation                         +0.8
bytes left over after the last item                   -1.5
====================================================  =======

A file that states its layout (a container, a ``.npy`` header, a netpbm or TIFF header) gives that layout alone. A guess
is **convincing** when the best type's own evidence (without priors) reaches
:func:`required_strength` (:data:`MIN_STRENGTH` points, more for a small sample); otherwise (an empty, tiny or constant file, random bytes)
:func:`guess_layout` returns no candidate and :func:`guess_report` says why.
"""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np

from core.dtypes.table import type_row
from core.files.sources import open_source
from core.guess.headers import MAX_BINARY_HEADER, binary_header_end, known_layout, padded_header_end, text_header_end
from core.guess.names import NameHints, parse_hints
from core.guess.periodicity import autocorrelation, record_length, row_width
from core.guess.plausibility import GUESS_TYPES, TypeEvidence, score_types, typed_values
from core.guess.sample import read_sample
from core.guess.sizes import implied_header
from core.pipeline.pipeline import DecodeParams
from core.text.figures import format_correlation, format_score

__all__ = ["MIN_BYTES", "MIN_STRENGTH", "TYPES_KEPT", "Candidate", "GuessReport", "describe_params", "guess_layout", "has_byte_order",
           "guess_report", "required_strength"]

#: Types (with byte order) combined with headers and shapes.
TYPES_KEPT = 8
#: Smallest file whose values are judged.
MIN_BYTES = 64
#: Evidence a type needs, beyond its prior, for the guess to be convincing.
MIN_STRENGTH = 0.8
_ROW_SAMPLE_ITEMS = 16384
#: Types (best first) whose rows are looked for.
_ROWS_FOR = TYPES_KEPT
#: Headers a name's dimensions may imply whatever the file's size (larger ones: a quarter of it).
_SMALL_HEADER = 4096
#: Fewest pixels in a row of interleaved channels.
MIN_PIXELS = 8


@dataclass(frozen=True)
class Candidate:
    """One complete layout and why it was ranked where it is.

    Attributes
    ----------
    params
        The decode parameters (dtype, byte order, offset, record size, shape).
    score
        Points (higher is more likely; comparable within one report only).
    reasons
        What raised or lowered the score, in words.
    """

    params: DecodeParams
    score: float
    reasons: tuple[str, ...]

    @property
    def summary(self) -> str:
        """The layout in a few words (``"float32, big-endian, header 128 bytes, shape 64x64"``)."""
        return describe_params(self.params)


@dataclass(frozen=True)
class GuessReport:
    """The outcome of a guess.

    Attributes
    ----------
    candidates
        Ranked, best first (kept even when not convincing, for a curious user).
    convincing
        Whether the best candidate is backed by real evidence.
    verdict
        One sentence: the best guess, or why there is no convincing layout.
    reasons
        Facts about the file as a whole (size, what was sampled, why nothing convinced).
    bytes_read
        Bytes read from the file to make the guess.
    """

    candidates: tuple[Candidate, ...]
    convincing: bool
    verdict: str
    reasons: tuple[str, ...]
    bytes_read: int


def has_byte_order(dtype: str | None) -> bool:
    """Whether values of the engine type ``dtype`` (None: not known yet) have a byte order:
    :attr:`core.dtypes.table.TypeRow.byte_order_matters`."""
    return dtype is not None and type_row(dtype).byte_order_matters


def describe_params(params: DecodeParams) -> str:
    """A few words for a set of parameters (type, order, header, records, shape)."""
    parts = [params.dtype or "dtype from the header"]
    if has_byte_order(params.dtype) and params.little_endian is not None:
        parts.append("little-endian" if params.little_endian else "big-endian")
    if params.offset:
        parts.append(f"header {params.offset} bytes")
    if params.record_size:
        parts.append(f"records of {params.record_size} bytes")
    if params.shape:
        parts.append("shape " + "x".join(str(d) for d in params.shape))
    return ", ".join(parts)


def guess_layout(paths: str | os.PathLike | Sequence[str | os.PathLike], *, limit: int = 10) -> list[Candidate]:
    """The ranked candidates of :func:`guess_report`, or ``[]`` when none is convincing."""
    report = guess_report(paths, limit=limit)
    return list(report.candidates) if report.convincing else []


def guess_report(paths: str | os.PathLike | Sequence[str | os.PathLike], *, limit: int = 10) -> GuessReport:
    """Guess the layout of the first of ``paths`` from a bounded sample (docs/guess.md).

    Parameters
    ----------
    paths
        One path or several (files of one layout; the first is sampled, the sizes compared).
    limit
        Most candidates returned.

    Raises
    ------
    SourceError
        A file cannot be opened (missing, a directory, a FIFO...).
    """
    with open_source(paths) as source:
        size = source.file_size(0)
        name = os.path.basename(source.paths[0])
        notes = [f"{size:,} bytes"]
        if len({source.file_size(i) for i in range(len(source.paths))}) > 1:
            notes.append("the files differ in size: the first one was sampled")
        if size == 0:
            return _unconvincing("the file is empty: there is nothing to guess from", notes, 0)
        sample = read_sample(source, 0)
        notes.append(f"sampled {sample.bytes_read:,} bytes (start, middle, end)")
        known = known_layout(source, 0, sample.head)
    if known is not None and known.params is not None:
        candidate = Candidate(known.params, 100.0, (known.reason,))
        return GuessReport((candidate,), True, f"{describe_params(known.params)}: {known.reason}",
                           tuple(notes), sample.bytes_read)
    if known is not None:
        notes.append(known.reason)
    if size < MIN_BYTES:
        return _unconvincing(f"only {size} byte{'s' if size != 1 else ''}: too few values to tell one type "
                             f"from another (at least {MIN_BYTES} are needed)", notes, sample.bytes_read)
    everything = sample.head + sample.body + sample.tail
    distinct = np.unique(np.frombuffer(everything, dtype=np.uint8))
    if distinct.size == 1:
        return _unconvincing(f"every sampled byte is 0x{int(distinct[0]):02X}: any type reads it as one "
                             "constant value", notes, sample.bytes_read)
    if np.unique(np.frombuffer(sample.body, dtype=np.uint8)).size == 1:
        return _unconvincing("the middle of the file is one repeated byte: its values cannot tell types "
                             "apart", notes, sample.bytes_read)
    candidates, strength = _rank(sample, name, size, notes)
    candidates = candidates[:max(limit, 0)]
    needed = required_strength(len(sample.body))
    if strength < needed:
        notes.append(f"the best type's evidence is {format_score(strength)} points (at least {format_score(needed)} needed): "
                     "the bytes look random under every type and byte order")
        return GuessReport(tuple(candidates), False, "no convincing layout: the values look like random bytes",
                           tuple(notes), sample.bytes_read)
    verdict = f"best guess: {candidates[0].summary}" if candidates else "no convincing layout"
    return GuessReport(tuple(candidates), bool(candidates), verdict, tuple(notes), sample.bytes_read)


def required_strength(sampled: int) -> float:
    """Evidence needed from ``sampled`` bytes: :data:`MIN_STRENGTH`, more for small samples, whose
    measures vary more by chance (random bytes of 1 KiB reach about 1 point, of 64 KiB 0.2)."""
    return max(MIN_STRENGTH, 0.4 + 40 / math.sqrt(max(sampled, 1)))


def _unconvincing(verdict: str, notes: list[str], bytes_read: int) -> GuessReport:
    return GuessReport((), False, f"no convincing layout: {verdict}", (*notes, verdict), bytes_read)


def _rank(sample, name: str, size: int, notes: list[str]) -> tuple[list[Candidate], float]:
    head = np.frombuffer(sample.head, dtype=np.uint8)
    body = np.frombuffer(sample.body, dtype=np.uint8)
    name_hints = parse_hints(os.path.splitext(name)[0] if name.lower().endswith((".bin", ".raw", ".dat"))
                             else name)
    text = text_header_end(sample.head)
    text_hints = parse_hints(text[1], keywords=True) if text else NameHints()
    if text:
        notes.append(f"a text header of {text[0]} bytes: {text[1][:60]!r}")
        if sample.body_offset == 0 and text[0] < body.size // 2:
            body = body[text[0]:]  # a small file: score the values after the header only
    body_offset = sample.body_offset + (text[0] if text and sample.body_offset == 0 and
                                        text[0] < len(sample.body) // 2 else 0)
    evidence = score_types(body.tobytes(), body_offset)
    strength = max((e.score - GUESS_TYPES[e.dtype] for e in evidence), default=0.0)
    hinted = sorted(evidence, key=lambda e: -(e.score + _hint_points(e, name_hints, text_hints)[0]))
    out: dict[DecodeParams, Candidate] = {}
    for rank, e in enumerate(hinted[:TYPES_KEPT]):
        for candidate in _layouts(e, rank, sample, head, body, body_offset, size, name_hints, text_hints, text):
            if candidate.params not in out or out[candidate.params].score < candidate.score:
                out[candidate.params] = candidate
    return sorted(out.values(), key=lambda c: -c.score), strength


def _hint_points(e: TypeEvidence, *hints: NameHints) -> tuple[float, list[str]]:
    points, reasons = 0.0, []
    itemsize = type_row(e.dtype).itemsize
    for where, hint in zip(("the name", "the text header"), hints):
        if hint.dtypes:
            if e.dtype in hint.dtypes:
                points += 3
                reasons.append(f"{where} says {e.dtype}")
            else:
                points -= 1
                reasons.append(f"{where} says {', '.join(hint.dtypes)}")
        if hint.little_endian is not None and itemsize > 1:
            order = "little-endian" if hint.little_endian else "big-endian"
            if hint.little_endian == e.little_endian:
                points += 1.5
                reasons.append(f"{where} says {order}")
            else:
                points -= 1.5
                reasons.append(f"{where} says {order}")
    return points, reasons


def _layouts(e: TypeEvidence, rank: int, sample, head: np.ndarray, body: np.ndarray, body_offset: int,
             size: int, name_hints: NameHints, text_hints: NameHints, text) -> list[Candidate]:
    itemsize = type_row(e.dtype).itemsize
    base, hint_reasons = _hint_points(e, name_hints, text_hints)
    base += e.score
    reasons = [f"as {e.dtype}" + ("" if itemsize == 1 else f" {'little' if e.little_endian else 'big'}-endian")
               + ": " + "; ".join(e.reasons), *hint_reasons]
    body_start = (e.phase - body_offset) % itemsize
    body_values = typed_values(body, e.dtype, e.little_endian, body_start, limit=_ROW_SAMPLE_ITEMS)
    # Header options: (offset, points, reason, dims or None).
    options: list[tuple[int, float, str, tuple[int, ...] | None]] = [(0, 0.0, "", None)]
    if text:
        options.append((text[0], 1.0, f"data after a text header of {text[0]} bytes", None))
    head_values = typed_values(head, e.dtype, e.little_endian, e.phase, limit=head.size)
    # A small file's body is the whole file, header included: judge the header against the rest.
    reference = body_values[body_values.size // 4:] if sample.body_offset == 0 else body_values
    skipped = binary_header_end(head, head_values, reference)
    binary_end = None if skipped is None else e.phase + skipped * itemsize
    if binary_end and text and binary_end <= text[0]:
        binary_end = None  # the text header explains it
    if binary_end:
        options.append((binary_end, 1.5, f"the first {binary_end} bytes do not read like the rest: a header",
                        None))
    zero_end = padded_header_end(sample.head, itemsize)
    if zero_end is not None and binary_end is not None and binary_end < zero_end:
        options.append((zero_end, 2.0, f"a header padded with zeros to byte {zero_end}", None))
    for where, hints in (("the name", name_hints), ("the text header", text_hints)):
        if hints.header is not None and 0 < hints.header < size:
            options.append((hints.header, 3.0, f"{where} says a header of {hints.header} bytes", None))
        for dims, why in _dim_groups(hints):
            header = implied_header(size, dims, itemsize)
            if header is not None and header <= max(_SMALL_HEADER, size // 4):
                words = "x".join(map(str, dims))
                after = f" after a header of {header} bytes" if header else ""
                options.append((header, 3.0, f"{words} {e.dtype} items{why} fill the file exactly{after}",
                                OrientedDims(dims) if why else dims))
    out = []
    corr: np.ndarray | None | bool = False  # computed when a shape is first needed
    for offset, points, why, dims in options:
        data_bytes = size - offset
        if data_bytes < itemsize:
            continue
        score = base + points - 0.01 * rank
        why_list = list(reasons) + ([why] if why else [])
        if itemsize > 1 and offset % itemsize != e.phase:
            score -= 2.5
            why_list.append(f"items would start at byte {offset % itemsize} of {itemsize}, but the values "
                            f"line up at byte {e.phase}")
        if binary_end and offset < binary_end:
            score -= 1.0
            why_list.append(f"the first {binary_end} bytes do not read like the rest and are not skipped")
        left = data_bytes % itemsize
        if left:
            score -= 1.5
            why_list.append(f"{left} bytes left over after the last item")
        items = data_bytes // itemsize
        record = record_length(sample.head, offset, data_bytes)
        record_size = None
        if record and record[0] % itemsize == 0 and dims is None:
            record_size = record[0]
            score += 2.0
            why_list.append(f"the {len(sample.head[offset:offset + 4])} bytes at the data's start repeat every "
                            f"{record[0]} bytes ({record[1]} times seen): records")
        if corr is False:
            # A small file's body starts at its first byte: rows are looked for past any header,
            # whose fields would outweigh the rows' steps.
            rows_from = min(MAX_BINARY_HEADER, body.size // 8) // itemsize if sample.body_offset == 0 else 0
            row_values = body_values[rows_from:]
            corr = None if rank >= _ROWS_FOR else autocorrelation(
                np.abs(row_values) if row_values.dtype.kind == "c" else row_values)
        channels = e.channels if e.channels > 1 else (name_hints.channels or 1)
        shapes = _shapes(dims, corr, items, record_size, channels)
        for shape, shape_points, shape_why in shapes:
            params = DecodeParams(dtype=e.dtype, little_endian=e.little_endian if itemsize > 1 else True,
                                  offset=offset, record_size=record_size, shape=shape)
            out.append(Candidate(params, round(score + shape_points, 2),
                                 tuple(why_list + ([shape_why] if shape_why else []))))
    return out


class OrientedDims(tuple):
    """Dimensions already in C order (a pixel format's rows by samples), tried as they are."""


def _dim_groups(hints: NameHints) -> list[tuple[tuple[int, ...], str]]:
    """Dimension groups of a name or text header, with a few words on how they were read: as
    written, and for two numbers (an image's width by height) with the channels or pixel format
    named beside them."""
    groups = [(dims, "") for dims in _plain_dim_groups(hints)]
    pixel, channels = hints.pixel_format, hints.channels
    for dims in list(hints.dims):
        if len(dims) != 2:
            continue
        width, height = dims
        if pixel is not None:
            rows = height * pixel.rows_per_row
            if rows == int(rows) and pixel.samples_per_pixel == 1:
                groups.insert(0, ((int(rows), width), f" ({pixel.name}: {width}x{height} pixels)"))
            elif rows == int(rows):
                groups.insert(0, ((int(rows), width, pixel.samples_per_pixel), f" ({pixel.name}: {width}x{height} pixels)"))
        if channels and channels > 1:
            groups.insert(0, ((height, width, channels), f" ({width}x{height} pixels of {channels} channels)"))
    return groups


def _plain_dim_groups(hints: NameHints) -> list[tuple[int, ...]]:
    groups = list(hints.dims)
    named = hints.keyword_dims
    width = named.get("width") or named.get("cols") or named.get("columns") or named.get("w")
    height = named.get("height") or named.get("rows") or named.get("h")
    if width and height:
        depth = named.get("depth") or named.get("frames") or named.get("n")
        channels = named.get("channels") or named.get("c")
        dims = (height, width) if not depth else (depth, height, width)
        if channels:
            dims = (*dims, channels)
        groups.append(dims)
    return groups


def _shapes(dims, corr: np.ndarray | None, items: int, record_size: int | None, channels: int = 1):
    """(shape, points, reason) choices for one layout."""
    if record_size is not None:
        return [(None, 0.0, "")]
    if isinstance(dims, OrientedDims):
        return [(tuple(dims), 0.8, "rows as the pixel format lays them out")]
    if dims is not None:
        if len(dims) == 2:
            found = row_width(corr, items)
            width_first = (dims[1], dims[0])  # "1024x768": an image's width first
            if found and found[0] == dims[1]:
                return [(dims, 0.8, f"rows of {dims[1]} items (correlation {format_correlation(found[1])})"),
                        (width_first, 0.0, "")]
            return [(width_first, 0.1, "the name's first number read as the width"), (dims, 0.0, "")]
        return [(tuple(dims), 0.0, "")]
    found = row_width(corr, items)
    out = []
    if channels > 1 and items % channels == 0:
        words = f"{channels} interleaved channels"
        pixels = row_width(corr, items, multiple=channels, min_width=channels * MIN_PIXELS)
        if pixels is not None:
            width = pixels[0] // channels
            out.append(((items // pixels[0], width, channels), 1.3,
                        f"rows of {width} pixels of {channels} channels: each value correlates with the one "
                        f"{pixels[0]} items on ({format_correlation(pixels[1])})"))
        out.append(((items // channels, channels), 1.0, words))
    if found is not None:
        width, correlation = found
        out.append(((items // width, width), 0.8, f"rows of {width} items: each value correlates with the one "
                                                  f"{width} items on ({format_correlation(correlation)})"))
    out.append((None, -1.0 if out else 0.0, ""))
    return out


