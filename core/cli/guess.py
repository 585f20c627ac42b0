"""``tensor-inspect --guess FILE``: the ranked candidates of :func:`core.guess.guess_report`
with their reasons, as text or (``--json``) one JSON object; with a record layout (``--fields``,
``--struct``, ``--numpy-fields``, and ``--offset``, ``--abi``, ``--big-endian`` as for records),
the check of that layout (:func:`core.guess.record_check.check_layout`).

Text: a first line ``FILE: <verdict>``, the facts about the file, then up to :data:`SHOWN`
candidates, each with its score, its reasons and the command-line options that decode it.
JSON: ``{"file", "convincing", "verdict", "reasons", "bytes_read", "candidates": [{"rank",
"score", "summary", "params": {...}, "options", "reasons"}]}``.

A layout check's text: ``FILE: <verdict>``, where the records start, the facts, then ``fields:``
(each field's score, kind and reasons) and ``headers (best first):``. Its JSON: ``{"file",
"layout": {"kind", "name", "abi", "record_size", "notes", "fields": [...]}, "header",
"plausible", "score", "verdict", "proposal", "reasons", "records", "trailing_bytes",
"sampled_records", "bytes_read", "fields": [{"name", "kind", "score", "reasons"}], "headers":
[{"offset", "score", "records", "trailing_bytes", "note"}]}``, scores with two decimals as in the
text. A file that cannot be opened, or a layout that is refused, is one ``error:`` line on
stderr and exit status 2, as for every other command.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from core.cli.options import error_exit
from core.cli.records import layout_from_args
from core.errors import DEBUG_VARIABLE, CoreError, describe_error
from core.files.sources import open_source
from core.guess.ranking import Candidate, GuessReport, guess_report, has_byte_order
from core.guess.record_check import LayoutCheck, check_layout, check_lines
from core.pipeline.pipeline import DecodeParams
from core.records.layout import RecordLayout
from core.text.figures import format_fit, format_score

__all__ = ["SHOWN", "check_json", "check_text", "command_options", "report_json", "report_text", "run_guess",
           "run_layout_check"]

#: Candidates printed.
SHOWN = 5


def command_options(params: DecodeParams) -> str:
    """The ``tensor-inspect`` options that decode with ``params``."""
    words = []
    if params.dtype:
        words.append(f"--dtype {params.dtype}")
    if params.little_endian is not None and has_byte_order(params.dtype):
        words.append("--little-endian" if params.little_endian else "--big-endian")
    if params.offset:
        words.append(f"--offset {params.offset}")
    if params.length is not None:
        words.append(f"--length {params.length}")
    if params.record_size:
        words.append(f"--record-size {params.record_size}")
    if params.shape:
        words.append("--shape " + ",".join(str(d) for d in params.shape))
    return " ".join(words)


def _params_json(params: DecodeParams) -> dict:
    return {"dtype": params.dtype, "little_endian": params.little_endian, "offset": params.offset,
            "length": params.length, "record_size": params.record_size,
            "shape": list(params.shape) if params.shape is not None else None}


def _candidate_json(rank: int, candidate: Candidate) -> dict:
    return {"rank": rank, "score": candidate.score, "summary": candidate.summary,
            "params": _params_json(candidate.params), "options": command_options(candidate.params),
            "reasons": list(candidate.reasons)}


def report_json(path: str, report: GuessReport) -> str:
    """The report as one JSON object (see the module docstring)."""
    return json.dumps({
        "file": path, "convincing": report.convincing, "verdict": report.verdict,
        "reasons": list(report.reasons), "bytes_read": report.bytes_read,
        "candidates": [_candidate_json(i + 1, c) for i, c in enumerate(report.candidates[:SHOWN])],
    })


def report_text(path: str, report: GuessReport) -> str:
    """The report as lines of text (see the module docstring)."""
    lines = [f"{path}: {report.verdict}"]
    lines += [f"  {reason}" for reason in report.reasons]
    if report.candidates and not report.convincing:
        lines.append("  (candidates shown for what they are worth: none is backed by the values)")
    for rank, candidate in enumerate(report.candidates[:SHOWN], 1):
        lines.append(f"{rank}. {candidate.summary}  (score {format_score(candidate.score)})")
        lines += [f"   - {reason}" for reason in candidate.reasons]
        lines.append(f"   options: {command_options(candidate.params)}")
    return "\n".join(lines) + "\n"


def run_guess(paths: Sequence[str], *, as_json: bool = False, out: TextIO | None = None,
              err: TextIO | None = None) -> int:
    """Print the guess for ``paths``; return the exit status (0, or 2 after one ``error:`` line)."""
    out = out or sys.stdout
    err = err or sys.stderr
    try:
        report = guess_report(list(paths))
    except Exception as error:  # one line from describe_error, as the command does
        if os.environ.get(DEBUG_VARIABLE) and not isinstance(error, (CoreError, OSError)):
            raise
        print(f"error: {describe_error(error).message}", file=err)
        return 2
    path = paths[0]
    out.write(report_json(path, report) + "\n" if as_json else report_text(path, report))
    return 0


def _score(value: float) -> float:
    """A check's score in JSON: the text's two decimals."""
    return float(format_fit(value))


def check_json(path: str, layout: RecordLayout, check: LayoutCheck) -> str:
    """A layout check as one JSON object (see the module docstring)."""
    return json.dumps({
        "file": path,
        "layout": {"kind": layout.kind, "name": layout.name, "abi": layout.abi or None, "record_size": layout.itemsize,
                   "notes": list(layout.notes), "fields": layout.describe()},
        "header": check.header, "plausible": check.plausible, "score": _score(check.score), "verdict": check.verdict,
        "proposal": check.proposal, "reasons": list(check.reasons), "records": check.records,
        "trailing_bytes": check.trailing_bytes, "sampled_records": check.sampled_records,
        "bytes_read": check.bytes_read,
        "fields": [{"name": f.name, "kind": f.kind, "score": _score(f.score), "reasons": list(f.reasons)}
                   for f in check.fields],
        "headers": [{"offset": h.offset, "score": _score(h.score), "records": h.records,
                     "trailing_bytes": h.trailing_bytes, "note": h.note} for h in check.headers],
    })


def check_text(path: str, check: LayoutCheck) -> str:
    """A layout check as lines of text (:func:`core.guess.record_check.check_lines`)."""
    return check_lines(path, check)


def run_layout_check(args) -> int:
    """Print the check of the layout the options give against ``args.files[0]`` (module
    docstring); return the exit status (0, or 2 after one ``error:`` line)."""
    try:
        layout = layout_from_args(args)
        if len(args.files) != 1:
            raise CoreError(f"a layout is checked against one file, not {len(args.files)} (name one file)",
                            field="files")
        with open_source(args.files[0]) as source:
            check = check_layout(source, layout, args.offset or 0)
    except Exception as error:  # one line from describe_error, as the command does
        return error_exit(error)
    path = args.files[0]
    sys.stdout.write(check_json(path, layout, check) + "\n" if args.json else check_text(path, check))
    for note in layout.notes:
        print(f"note: {note}", file=sys.stderr)
    return 0
