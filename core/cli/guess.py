"""``tensor-inspect --guess FILE``: the ranked candidates of :func:`core.guess.guess_report`
with their reasons, as text or (``--json``) one JSON object.

Text: a first line ``FILE: <verdict>``, the facts about the file, then up to :data:`SHOWN`
candidates, each with its score, its reasons and the command-line options that decode it.
JSON: ``{"file", "convincing", "verdict", "reasons", "bytes_read", "candidates": [{"rank",
"score", "summary", "params": {...}, "options", "reasons"}]}``. A file that cannot be opened is
one ``error:`` line on stderr and exit status 2, as for every other command.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from typing import TextIO

from core.errors import DEBUG_VARIABLE, CoreError, describe_error
from core.guess.ranking import Candidate, GuessReport, guess_report, has_byte_order
from core.pipeline.pipeline import DecodeParams
from core.text.figures import format_score

__all__ = ["SHOWN", "command_options", "report_json", "report_text", "run_guess"]

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
