"""``--fields`` / ``--struct`` / ``--numpy-fields``: a file as records with named fields
(docs/records.md).

Rules: the layout comes from one of the three options (``--struct FILE.h:NAME`` reads the C
header, at most :data:`core.records.c_decl.MAX_HEADER_BYTES`; ``--struct`` with C text, or a
``.h`` file alone, takes its last struct); ``--abi`` lays C out; ``--big-endian`` makes every
field big-endian (a field list's ``>``/``<`` still wins). ``--offset`` is a header before the
records; records are counted from the file's size, the bytes after the last whole one are
trailing bytes. Only the records printed are read (``--limit`` records, the first ones).
Output: a table of one row per record and one column per field element, or with ``--json``
``{"layout": {"kind", "name", "abi", "record_size"}, "fields": [...], "records": N,
"trailing_bytes": T, "truncated": bool, "values": [{field: value}...]}``; ``--field NAME``
prints that field's values only (``"values": [...]``, an array field's per record as a list).
Bit fields are their computed values; enums their integers, with ``"enum"`` naming them in the
fields. Values are JSON as elsewhere (the table's digits, ``"nan"``...).

The records of a container entry (``--tensor NAME`` of an HDF5 compound dataset or a
structured ``.npz`` member) print the same way (:func:`print_records`): both are read through
:mod:`core.formats.entry_records`, only the records printed (a copy entry's records are its
format's copy); an entry has no trailing bytes.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Sequence

from core.errors import CoreError
from core.files.sources import open_source
from core.formats.entry_records import EntryRecords, file_records
from core.records.c_decl import MAX_HEADER_BYTES, parse_c_layout
from core.records.choice import RecordsChoice
from core.records.field_list import parse_field_list, parse_numpy_layout
from core.records.layout import RecordLayout
from core.text.number_format import format_value, json_value

__all__ = ["add_record_options", "choice_from_args", "layout_from_args", "print_records", "run_records",
           "wants_records"]


def add_record_options(parser: argparse.ArgumentParser) -> None:
    group = parser.add_argument_group("records with named fields (docs/records.md)")
    where = group.add_mutually_exclusive_group()
    where.add_argument("--fields", metavar="LIST", help="the record as a field list: 'ts:u32, ch:i16[4], gain:f32, pad:4'")
    where.add_argument("--struct", metavar="FILE.h:NAME|C",
                       help="the record as a C struct: NAME in the header FILE.h (parsed, never compiled), or C text")
    where.add_argument("--numpy-fields", metavar="DTYPE",
                       help="the record as a numpy dtype description: \"[('ts', '<u4'), ('ch', '<i2', (4,))]\"")
    group.add_argument("--abi", default="x86-64", metavar="NAME",
                       help="how a C struct is laid out: x86-64 (default), aarch64, arm-eabi, packed")
    group.add_argument("--field", metavar="NAME", help="print this field's values only (e.g. ch or imu.acc.x)")


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


def run_records(args: argparse.Namespace) -> int:
    """Print the records of ``args.files[0]`` (module rules); the exit status."""
    layout = layout_from_args(args)
    if len(args.files) != 1:
        raise CoreError(f"records are read from one file, not {len(args.files)}", field="files")
    if args.field:
        layout.field_named(args.field)  # a bad --field is refused before the file is opened
    with open_source(args.files[0]) as source:
        return print_records(args, file_records(source, layout, args.offset or 0))


def print_records(args: argparse.Namespace, records: EntryRecords, notes: Sequence[str] = ()) -> int:
    """Print ``records`` as the options say (``--field``, ``--json``, ``--limit``; module rules),
    then the ``note:`` lines (``notes`` after the records' own); the exit status. Reads only the
    records printed."""
    layout = records.layout
    column_filter = layout.field_named(args.field) if args.field else None
    count = records.count
    shown = min(count, max(args.limit, 0))
    data = records.read(0, shown)
    import numpy as np

    rows = layout.records(np.frombuffer(data, np.uint8))
    columns = [c for c in layout.columns() if column_filter is None or c.field is column_filter]
    values = {c.name: layout.values(rows, c) for c in columns}
    trailing = records.trailing_bytes
    if args.json:
        document = {"layout": {"kind": layout.kind, "name": layout.name, "abi": layout.abi or None,
                               "record_size": layout.itemsize, "notes": list(layout.notes)},
                    "fields": layout.describe() if column_filter is None else
                    [f for f in layout.describe() if f["name"] == column_filter.name],
                    "records": count, "trailing_bytes": trailing, "truncated": shown < count}
        if column_filter is not None:
            leaf = column_filter
            if not leaf.shape:
                document["values"] = [json_value(v, _dtype(values[leaf.name])) for v in values[leaf.name]]
            else:
                document["values"] = [[json_value(values[c.name][i], _dtype(values[c.name])) for c in columns]
                                      for i in range(shown)]
        else:
            document["values"] = [{c.name: json_value(values[c.name][i], _dtype(values[c.name])) for c in columns}
                                  for i in range(shown)]
        sys.stdout.write(json.dumps(document) + "\n")
    else:
        names = ["#"] + [c.name for c in columns]
        table = [[str(i)] + [_cell(c, values[c.name][i]) for c in columns] for i in range(shown)]
        widths = [max(len(r[k]) for r in table + [names]) for k in range(len(names))]
        out = ["  ".join(n.rjust(w) for n, w in zip(names, widths)).rstrip() + "\n"]
        out += ["  ".join(v.rjust(w) for v, w in zip(row, widths)).rstrip() + "\n" for row in table]
        sys.stdout.write("".join(out))
        if shown < count:
            print(f"note: {shown:,} of {count:,} records shown (--limit N for more)", file=sys.stderr)
    if trailing:
        print(f"note: {trailing} trailing bytes after the last whole record", file=sys.stderr)
    for note in [*layout.notes, *([records.note] if records.note else []), *notes]:
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
    import numpy as np

    return np.asarray(value).dtype


def choice_from_args(args: argparse.Namespace) -> RecordsChoice:
    """The :class:`~core.records.choice.RecordsChoice` the options give (the header: ``--offset``),
    its layout checked now (the window's command line refuses it before any window opens).

    Raises
    ------
    CoreError
        The layout's refusals; a header that cannot be read.
    """
    little = args.little_endian is not False
    header = args.offset or 0
    if args.fields:
        choice = RecordsChoice("fields", args.fields, header=header, little_endian=little)
    elif args.numpy_fields:
        choice = RecordsChoice("numpy", args.numpy_fields, header=header, little_endian=little)
    else:
        text, name = _c_source(args.struct)
        choice = RecordsChoice("c", text, name or "", args.abi, header, little)
    layout = choice.layout()
    if args.field:
        layout.field_named(args.field)
    return choice
