"""``tensor-inspect scan PATH...``: every tensor of models, files and folders, with the figures
that say which went wrong; exit 0 when none is flagged, 1 when one is (``--fail-on``), 2 when a
path or a tensor could not be read (the others are still scanned and printed).

The tensors are :func:`core.models.inventory.inventory`'s and their figures
:func:`core.models.scan.scan_tensors`' (rules: docs/models.md). The text output is a table whose
rows are printed as the tensors finish, then what was skipped, the errors and a summary line;
``--json`` prints one object at the end. Raw files are scanned when the decode options say how
(``--dtype`` and the others of the plain command).

``scan FILE --fields LIST`` (or ``--struct`` / ``--numpy-fields``, with ``--abi`` and
``--offset``) scans the fields of one file of records instead: one row per field, named by the
field, with the same columns, JSON and exit status (:func:`core.scan.field_statistics.
field_statistics`: each field's figures are those of the field as the tensor; a bit field's of
its computed values, its storage ``computed``; ``--field NAME`` one field only). A field that
cannot be read is a row with its error; the others are still scanned.
"""

from __future__ import annotations

import argparse
import json
import math
import sys
from collections.abc import Iterable, Iterator, Sequence

from core.cli.options import (
    EXIT_ERROR,
    OneLineErrorParser,
    add_cluster_options,
    add_pipeline_options,
    cluster_of,
    error_exit,
    params_from_args,
    parse_status,
    silence_stdout,
)
from core.cli.records import add_record_options, layout_from_args, wants_records
from core.errors import CoreError, describe_error
from core.files.sources import open_source
from core.models.inventory import Inventory, ModelTensor, inventory
from core.models.rows import SCAN_COLUMNS, scan_cells, shape_text
from core.models.scan import FLAGS, TensorScan, scan_tensors
from core.pipeline.pipeline import DecodeParams
from core.records.layout import RecordLayout
from core.records.placement import count_records
from core.scan.field_statistics import field_statistics
from core.text.names import printable_name
from core.text.number_format import json_value

__all__ = ["DEFAULT_FAIL_ON", "build_scan_parser", "run"]

DEFAULT_FAIL_ON = ("nan", "inf")
#: How a skipped raw file's reason ends (:mod:`core.models.inventory`).
_RAW_SKIP = "to scan raw files"
EXIT_CLEAN, EXIT_FLAGGED = 0, 1

_EPILOG = f"""\
Flags: {", ".join(FLAGS)} (docs/models.md). The exit status is 0 when no tensor has a flag
named by --fail-on (default: {",".join(DEFAULT_FAIL_ON)}), 1 when one has, 2 when a path or a
tensor could not be read (an error line names each; the rest is still scanned).

With --fields LIST (or --struct, --numpy-fields; --abi, --offset) the one FILE is records and each
field is scanned as a tensor: one row per field ("name" the field's, "storage" "view", or
"computed" for a bit field), the same columns, JSON and exit status (docs/records.md).

--json prints {{"paths", "tensors": [{{"file", "name", "dtype", "shape", "storage", "count",
"min", "max", "mean", "std", "nan", "posinf", "neginf", "zeros", "subnormal", "saturated",
"flags", "error"}}], "skipped": [{{"file", "name", "reason"}}], "errors": [{{"file", "error"}}],
"summary": {{"tensors", "flagged", "errors", "skipped", "fail_on"}}}}. NaN and infinities are the
strings "nan", "inf", "-inf".
"""


def build_scan_parser() -> OneLineErrorParser:
    parser = OneLineErrorParser(
        prog="tensor-inspect scan", epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Scan every tensor of models, files and folders for NaN, Inf, zeros and their figures.")
    parser.add_argument("paths", nargs="+", metavar="PATH",
                        help="container files (safetensors, PyTorch, ONNX, TF checkpoints...), raw files "
                             "(with --dtype) or folders (walked in natural order)")
    parser.add_argument("--json", action="store_true", help="print one JSON object at the end")
    parser.add_argument("--fail-on", metavar="FLAGS", default=",".join(DEFAULT_FAIL_ON),
                        help=f"comma-separated flags that make the exit status 1 (of: {', '.join(FLAGS)}; "
                             "'none' for never)")
    add_pipeline_options(parser)
    add_cluster_options(parser)
    add_record_options(parser, export=False)
    return parser


def run(words: Sequence[str]) -> int:
    """Run ``scan`` with ``words`` (after ``scan``); the exit status."""
    parser = build_scan_parser()
    try:
        args = parser.parse_args(list(words))
    except SystemExit as stop:
        return parse_status(stop)
    try:
        fail_on = _fail_on(args.fail_on)
        params, slice_text, _ = params_from_args(args)
        if slice_text is not None:
            print("error: --slice is not taken by scan (every tensor is scanned whole)", file=sys.stderr)
            return EXIT_ERROR
        if wants_records(args):
            return _scan_fields(args, fail_on)
        found = inventory(args.paths, params if params != DecodeParams() else None)
        with cluster_of(args) as cluster:
            if not args.json:
                return _print_table(found, scan_tensors(found, cluster=cluster), fail_on)
            return _print_json(args.paths, found, scan_tensors(found, cluster=cluster), fail_on)
    except BrokenPipeError:
        silence_stdout()
        return EXIT_ERROR
    except Exception as error:
        return error_exit(error)


def _fail_on(text: str) -> tuple[str, ...]:
    words = tuple(w.strip() for w in text.split(",") if w.strip())
    if words == ("none",):
        return ()
    unknown = [w for w in words if w not in FLAGS]
    if unknown:
        raise CoreError(f"--fail-on {text!r}: {', '.join(unknown)} is not a flag (the flags: "
                        f"{', '.join(FLAGS)}, or none)", field="fail_on")
    return words


def _status(rows: list[TensorScan], found: Inventory, fail_on: tuple[str, ...]) -> int:
    if found.errors or any(r.error for r in rows):
        return EXIT_ERROR
    if any(set(r.flags) & set(fail_on) for r in rows):
        return EXIT_FLAGGED
    return EXIT_CLEAN


def _scan_fields(args: argparse.Namespace, fail_on: tuple[str, ...]) -> int:
    """``scan FILE --fields LIST``: a row per field of the records (module rules)."""
    if len(args.paths) != 1:
        raise CoreError(f"records are read from one file, not {len(args.paths)}", field="files")
    if getattr(args, "scheduler", None) or getattr(args, "workers", None):
        raise CoreError("the fields of records are scanned on this machine (leave out --scheduler and --workers)",
                        field="cluster")
    layout = layout_from_args(args)
    leaves = [layout.field_named(args.field)] if args.field else list(layout.fields)
    path = args.paths[0]
    header = args.offset or 0
    with open_source(path) as source:
        count, _trailing = count_records(layout, header, source.files[0].size)
        found = Inventory(tuple(ModelTensor(path, leaf.name, leaf.name, None, None) for leaf in leaves))
        shapes = [(count,) + (() if leaf.is_bits else leaf.shape) for leaf in leaves]
        rows = _field_rows(source, layout, header, found.tensors)
        if args.json:
            return _print_json(args.paths, found, rows, fail_on)
        return _print_table(found, rows, fail_on, shapes, noun="fields")


def _field_rows(source, layout: RecordLayout, header: int, tensors: Sequence[ModelTensor]) -> Iterator[TensorScan]:
    """The row of each field, scanned one after the other; a field that fails is its error's row."""
    for tensor in tensors:
        leaf = layout.field_named(tensor.name)
        storage = "computed" if leaf.is_bits else "view"
        try:
            figures = next(field_statistics(source, layout, header=header, fields=[leaf.name], histogram=False))
        except CoreError as error:
            yield TensorScan(tensor, leaf.value_dtype().name, None, storage, error=describe_error(error).message)
            continue
        yield TensorScan(tensor, figures.statistics.dtype, figures.shape, storage, figures.statistics)


def _print_table(found: Inventory, scans: Iterable[TensorScan], fail_on: tuple[str, ...],
                 shapes: Sequence[tuple[int, ...]] = (), noun: str = "tensors") -> int:
    out = sys.stdout
    widths = [4, 8, 5, 12, 12, 12, 12, 7, 7, 9, 5]  # the figures' usual widths (rows stream out)
    widths[0] = min(60, max([len(printable_name(t.label)) for t in found.tensors] + [4]))
    known = [t.entry.shape for t in found.tensors if t.entry] + list(shapes)
    widths[2] = min(24, max([len(shape_text(shape)) for shape in known] + [5]))

    def line(cells: list[str]) -> str:
        shown = [c.ljust(w) if i in (0, 1, 2, 10) else c.rjust(w) for i, (c, w) in enumerate(zip(cells, widths))]
        return "  ".join(shown).rstrip() + "\n"

    out.write(line(list(SCAN_COLUMNS)))
    rows = []
    for row in scans:
        rows.append(row)
        out.write(line(scan_cells(row)))
        out.flush()
    raw = [p for p in found.skipped if p.name is None and p.message.endswith(_RAW_SKIP)]
    for problem in found.skipped:
        if problem not in raw:
            where = printable_name(problem.path) + (f" '{printable_name(problem.name)}'" if problem.name else "")
            out.write(f"skipped: {where}: {problem.message}\n")
    if raw:  # one line for the files no format claims (a folder's notes, scripts...)
        names = ", ".join(printable_name(p.path) for p in raw[:5]) + (", ..." if len(raw) > 5 else "")
        out.write(f"skipped: {len(raw):,} files that are not containers ({names}): give --dtype "
                  "(and the other decode options) to scan raw files\n")
    for problem in found.errors:
        print(f"error: {problem.message}", file=sys.stderr)
    flagged = [r for r in rows if set(r.flags) & set(fail_on)]
    failed = [r for r in rows if r.error]
    out.write(f"{len(rows):,} {noun} scanned: {len(flagged):,} flagged ({','.join(fail_on) or 'none'}), "
              f"{len(failed) + len(found.errors):,} errors, {len(found.skipped):,} skipped\n")
    out.flush()
    return _status(rows, found, fail_on)


def _number(value, dtype: str | None):
    if value is None:
        return None
    if isinstance(value, float) and not math.isfinite(value):
        return "nan" if math.isnan(value) else ("inf" if value > 0 else "-inf")
    if dtype is not None and not isinstance(value, float):
        return json_value(value, dtype)
    return value


def _print_json(paths: Sequence[str], found: Inventory, scans: Iterable[TensorScan], fail_on: tuple[str, ...]) -> int:
    rows = list(scans)
    tensors = []
    for row in rows:
        s = row.statistics
        item = {"file": row.tensor.path, "name": row.tensor.name, "dtype": row.dtype,
                "shape": None if row.shape is None else list(row.shape), "storage": row.storage}
        if s is not None:
            item.update(count=s.count, min=_number(s.min, row.dtype), max=_number(s.max, row.dtype),
                        mean=_number(s.mean, None), std=_number(s.std, None), nan=s.nan_count,
                        posinf=s.posinf_count, neginf=s.neginf_count, zeros=s.zero_count,
                        subnormal=s.subnormal_count)
        item.update(saturated=row.saturated, flags=list(row.flags), error=row.error)
        tensors.append(item)
    errors = [{"file": p.path, "error": p.message} for p in found.errors]
    skipped = [{"file": p.path, "name": p.name, "reason": p.message} for p in found.skipped]
    flagged = sum(1 for r in rows if set(r.flags) & set(fail_on))
    summary = {"tensors": len(rows), "flagged": flagged, "errors": len(errors) + sum(1 for r in rows if r.error),
               "skipped": len(skipped), "fail_on": list(fail_on)}
    json.dump({"paths": list(paths), "tensors": tensors, "skipped": skipped, "errors": errors, "summary": summary},
              sys.stdout)
    sys.stdout.write("\n")
    sys.stdout.flush()
    return _status(rows, found, fail_on)
