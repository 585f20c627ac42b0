"""``--fields`` / ``--struct`` / ``--numpy-fields``: a file as records with named fields
(docs/records.md).

Rules: the layout comes from one of the three options (``--struct FILE.h:NAME`` reads the C
header, at most :data:`core.records.c_decl.MAX_HEADER_BYTES`; ``--struct`` with C text, or a
``.h`` file alone, takes its last struct); ``--abi`` lays C out; ``--big-endian`` makes every
field big-endian (a field list's ``>``/``<`` still wins). ``--offset`` is a header before the
records; records are counted from the file's size, the bytes after the last whole one are
trailing bytes. ``--slice 'a:b:c'`` (or one index) chooses records by the tool's slice rules on
the records axis (:func:`records_of_slice`). Only the records printed are read (``--limit``
records, the first ones chosen).
Output: a table of one row per record (``#`` its index) and one column per field element, or
with ``--json`` ``{"layout": {"kind", "name", "abi", "record_size"}, "fields": [...], "records": N,
"trailing_bytes": T, "truncated": bool, "values": [{field: value}...]}`` (with ``--slice`` also
``"selected"``, the records it chooses, and ``"indices"``, those printed); ``--field NAME``
prints that field's values only (``"values": [...]``, an array field's per record as a list).
Bit fields are their computed values; enums their integers, with ``"enum"`` naming them in the
fields. Values are JSON as elsewhere (the table's digits, ``"nan"``...).
``--export OUT.csv|OUT.npy`` writes the chosen records instead (:func:`core.export.records.
export_records`; ``--field NAME`` that field alone, ``--enum-names`` an enum's names in a CSV)
and prints ``wrote OUT: ...`` (``--json``: ``{"export", "format", "records", "bytes"}``).

The records of a container entry (``--tensor NAME`` of an HDF5 compound dataset or a
structured ``.npz`` member) print the same way (:func:`print_records`, ``--slice`` too): both are read through
:mod:`core.formats.entry_records`, only the records printed (a copy entry's records are its
format's copy); an entry has no trailing bytes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

import numpy as np

from core.errors import CoreError, ExportError
from core.export.records import export_records
from core.files.sources import open_source
from core.formats.entry_records import EntryRecords, file_records
from core.records.c_decl import MAX_HEADER_BYTES, parse_c_layout
from core.records.choice import RecordsChoice
from core.records.field_list import parse_field_list, parse_numpy_layout
from core.records.layout import RecordLayout
from core.records.placement import describe_record
from core.slicing.expr import one_axis_selection
from core.text.names import printable_name
from core.text.number_format import format_value, json_value

__all__ = ["add_record_options", "choice_from_args", "layout_from_args", "print_records", "records_of_slice",
           "run_records", "wants_records"]


def add_record_options(parser: argparse.ArgumentParser, *, export: bool = True) -> None:
    """The layout options (and, with ``export``, ``--export`` and ``--enum-names``)."""
    group = parser.add_argument_group("records with named fields (docs/records.md)")
    where = group.add_mutually_exclusive_group()
    where.add_argument("--fields", metavar="LIST", help="the record as a field list: 'ts:u32, ch:i16[4], gain:f32, pad:4'")
    where.add_argument("--struct", metavar="FILE.h:NAME|C",
                       help="the record as a C struct: NAME in the header FILE.h (parsed, never compiled), or C text")
    where.add_argument("--numpy-fields", metavar="DTYPE",
                       help="the record as a numpy dtype description: \"[('ts', '<u4'), ('ch', '<i2', (4,))]\"")
    group.add_argument("--abi", default="x86-64", metavar="NAME",
                       help="how a C struct is laid out: x86-64 (default), aarch64, arm-eabi, packed")
    group.add_argument("--header-struct", metavar="NAME",
                       help="with --struct: the file holds this struct of the same C text at --offset, and the "
                            "records follow it (its values are printed)")
    group.add_argument("--field", metavar="NAME",
                       help="this field only (e.g. ch or imu.acc.x)" if not export else
                       "print (or export) this field's values only (e.g. ch or imu.acc.x)")
    if export:
        group.add_argument("--export", metavar="OUT.csv|OUT.npy",
                           help="write the records (--slice 'a:b:c' chooses them) to a CSV with a header row or a "
                                "structured .npy, instead of printing them")
        group.add_argument("--enum-names", action="store_true",
                           help="--export to CSV: write an enum's names (FAULT) instead of its integers")


def wants_records(args: argparse.Namespace) -> bool:
    return bool(getattr(args, "fields", None) or getattr(args, "struct", None) or getattr(args, "numpy_fields", None))


def layout_from_args(args: argparse.Namespace) -> RecordLayout:
    """The layout the options give (module rules).

    Raises
    ------
    CoreError
        The layout's own refusals; a header that cannot be read.
    """
    little = args.little_endian is not False
    if args.fields:
        return parse_field_list(args.fields, little_endian=little)
    if args.numpy_fields:
        return parse_numpy_layout(args.numpy_fields)
    text, name = _c_source(args.struct)
    return parse_c_layout(text, name, abi=args.abi, little_endian=little)


def _c_source(value: str) -> tuple[str, str | None]:
    """``(C text, struct name or None)`` of ``--struct``: ``FILE.h:NAME``, ``FILE.h``, or C text."""
    path, _, name = value.rpartition(":") if ":" in value and "{" not in value else (value, "", "")
    if not path:
        path, name = value, ""
    if "{" in value or ";" in value:
        return value, None
    if not os.path.isfile(path):
        raise CoreError(f"--struct {value!r}: {path!r} is not a file (give FILE.h:STRUCT, or the C text itself)",
                        field="struct")
    from core.files.checked_read import read_capped

    data = read_capped(path, MAX_HEADER_BYTES, "C header")
    return data.decode("utf-8", "replace"), name or None


def records_of_slice(text: str | None, count: int) -> range:
    """The records ``--slice`` chooses among ``count`` records: a slice of the records axis by the
    tool's slice rules (:func:`core.slicing.expr.one_axis_selection`: ``2:8:3``, ``::-1``, ``5``,
    ``-3:``); None or blank: every record.

    Raises
    ------
    SliceError
        A text that does not parse, an index out of range, a new axis or a second axis.
    """
    if text is None:
        return range(count)
    start, step, length = one_axis_selection(text, count)
    return range(start, start + length * step, step)


def run_records(args: argparse.Namespace) -> int:
    """Print (or ``--export``) the records of ``args.files[0]`` (module rules), those ``--slice``
    chooses; the exit status."""
    layout = layout_from_args(args)
    if len(args.files) != 1:
        raise CoreError(f"records are read from one file, not {len(args.files)}", field="files")
    if args.field:
        layout.field_named(args.field)  # a bad --field is refused before the file is opened
    header_layout = header_layout_from_args(args)
    with open_source(args.files[0]) as source:
        offset = args.offset or 0
        start = offset + (0 if header_layout is None else header_layout.itemsize)
        header = None
        if header_layout is not None:
            size = source.file_size(0)
            if offset + header_layout.itemsize > size:
                raise CoreError(f"the header struct {args.header_struct!r} ({header_layout.itemsize} bytes) does not "
                                f"fit in the file after byte {offset:,} ({size:,} bytes; check --offset)",
                                field="fields")
            header = file_records(source, header_layout, offset)
        records = file_records(source, layout, start)
        if getattr(args, "export", None):
            return _export(args, source, layout, start, records_of_slice(args.slice, records.count))
        return print_records(args, records, header=header)


def header_layout_from_args(args: argparse.Namespace) -> RecordLayout | None:
    """The layout of ``--header-struct`` (a struct of ``--struct``'s C text), or None.

    Raises
    ------
    CoreError
        ``--header-struct`` without ``--struct``; the parser's refusals.
    """
    name = getattr(args, "header_struct", None)
    if not name:
        return None
    if not args.struct:
        raise CoreError("--header-struct names a struct of the C text of --struct (give --struct, or the header's "
                        "size with --offset)", field="fields")
    text, _name = _c_source(args.struct)
    return parse_c_layout(text, name, abi=args.abi, little_endian=args.little_endian is not False)


def print_records(args: argparse.Namespace, records: EntryRecords, notes: Sequence[str] = (),
                  header: EntryRecords | None = None) -> int:
    """Print ``records`` as the options say (``--field``, ``--slice``, ``--json``, ``--limit``;
    module rules), then the ``note:`` lines (``notes`` after the records' own); the exit status.
    Reads only the records printed. ``header``: the one record of a header struct, printed
    first (``"header": {column: value}`` in JSON, a ``header:`` line on stderr in text)."""
    layout = records.layout
    column_filter = layout.field_named(args.field) if args.field else None
    count = records.count
    chosen = records_of_slice(getattr(args, "slice", None), count)
    shown = chosen[:max(args.limit, 0)]
    if shown.step == 1:
        data = records.read(shown.start, len(shown))
    else:  # at most --limit records, one read each
        data = b"".join(records.read(index, 1) for index in shown)
    rows = layout.records(np.frombuffer(data, np.uint8))
    columns = [c for c in layout.columns() if column_filter is None or c.field is column_filter]
    values = {c.name: layout.values(rows, c) for c in columns}
    trailing = records.trailing_bytes
    if args.json:
        document = {"layout": {"kind": layout.kind, "name": layout.name, "abi": layout.abi or None,
                               "record_size": layout.itemsize, "notes": list(layout.notes)},
                    "fields": layout.describe() if column_filter is None else
                    [f for f in layout.describe() if f["name"] == column_filter.name],
                    "records": count, "trailing_bytes": trailing, "truncated": len(shown) < len(chosen)}
        if getattr(args, "slice", None) is not None:
            document.update(selected=len(chosen), indices=list(shown))
        if header is not None:
            document["header"] = _header_json(header)
        if column_filter is not None:
            leaf = column_filter
            if not leaf.shape:
                document["values"] = [json_value(v, _dtype(values[leaf.name])) for v in values[leaf.name]]
            else:
                document["values"] = [[json_value(values[c.name][i], _dtype(values[c.name])) for c in columns]
                                      for i in range(len(shown))]
        else:
            document["values"] = [{c.name: json_value(values[c.name][i], _dtype(values[c.name])) for c in columns}
                                  for i in range(len(shown))]
        sys.stdout.write(json.dumps(document) + "\n")
    else:
        names = ["#"] + [c.name for c in columns]
        table = [[str(index)] + [_cell(c, values[c.name][i]) for c in columns] for i, index in enumerate(shown)]
        widths = [max(len(r[k]) for r in table + [names]) for k in range(len(names))]
        out = ["  ".join(n.rjust(w) for n, w in zip(names, widths)).rstrip() + "\n"]
        out += ["  ".join(v.rjust(w) for v, w in zip(row, widths)).rstrip() + "\n" for row in table]
        sys.stdout.write("".join(out))
        if header is not None:
            print("header: " + ", ".join(f"{name} = {text}" for name, text in
                                         describe_record(header.layout, header.read(0, 1))), file=sys.stderr)
        if len(shown) < len(chosen):
            print(f"note: {len(shown):,} of {len(chosen):,} records shown (--limit N for more)", file=sys.stderr)
    if trailing:
        print(f"note: {trailing} trailing bytes after the last whole record", file=sys.stderr)
    for note in [*layout.notes, *([records.note] if records.note else []), *notes]:
        print(f"note: {note}", file=sys.stderr)
    return 0


def _header_json(header: EntryRecords) -> dict:
    layout = header.layout
    rows = layout.records(np.frombuffer(header.read(0, 1), np.uint8))
    values = {}
    for column in layout.columns():
        value = layout.values(rows, column)
        values[column.name] = json_value(value[0], value.dtype)
    return {"struct": layout.name, "size": layout.itemsize, "values": values}


#: The export format of each file name suffix.
_EXPORT_SUFFIXES = {".csv": "csv", ".npy": "npy"}


def _export(args: argparse.Namespace, source, layout: RecordLayout, header: int, chosen: range) -> int:
    """``--export OUT``: the chosen records written to OUT; its line on stdout."""
    suffix = os.path.splitext(args.export)[1].lower()
    fmt = _EXPORT_SUFFIXES.get(suffix)
    if fmt is None:
        raise ExportError(f"--export {args.export!r}: records are exported to a .csv or a .npy file, not "
                          f"{suffix or 'a file without a suffix'} (name the file OUT.csv or OUT.npy)", field="path")
    written = export_records(source, layout, args.export, fmt, header=header, records=chosen,
                             columns=[args.field] if args.field else None, enum_names=args.enum_names)
    if args.json:
        sys.stdout.write(json.dumps({"export": args.export, "format": fmt, "records": len(chosen),
                                     "bytes": written}) + "\n")
    else:
        print(f"wrote {printable_name(args.export)}: {len(chosen):,} records as {fmt} ({written:,} bytes)")
    for note in layout.notes:
        print(f"note: {note}", file=sys.stderr)
    return 0


def _dtype(values):
    return values.dtype


def _cell(column, value) -> str:
    text = format_value(value, _dtype_of(value))
    enum = column.field.enum
    if enum:
        name = enum.get(int(value))
        return f"{name} ({text})" if name else text
    return text


def _dtype_of(value):
    return np.asarray(value).dtype


def choice_from_args(args: argparse.Namespace) -> RecordsChoice:
    """The :class:`~core.records.choice.RecordsChoice` the options give (the header: ``--offset``),
    its layout checked now (the window's command line refuses it before any window opens).

    Raises
    ------
    CoreError
        The layout's refusals; a header that cannot be read.
    """
    header_layout_from_args(args)  # --header-struct without --struct refused
    little = args.little_endian is not False
    header = args.offset or 0
    if args.fields:
        choice = RecordsChoice("fields", args.fields, header=header, little_endian=little)
    elif args.numpy_fields:
        choice = RecordsChoice("numpy", args.numpy_fields, header=header, little_endian=little)
    else:
        text, name = _c_source(args.struct)
        choice = RecordsChoice("c", text, name or "", args.abi, header, little,
                               header_struct=getattr(args, "header_struct", None) or "")
        choice.header_layout()
    layout = choice.layout()
    if args.field:
        layout.field_named(args.field)
    return choice
