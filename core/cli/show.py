"""The plain command: ``tensor-inspect FILE ...`` decodes the files and prints the view.

It runs the same :class:`core.pipeline.pipeline.Pipeline` as the GUI and prints the resulting
view (:mod:`core.cli.printing`); ``--list`` and ``--tensor`` open a container's entries,
``--guess`` hands over to :mod:`core.cli.guess` (with a record layout: its check),
``--session`` to :mod:`core.cli.session`. The decode options are :mod:`core.cli.options`'
(shared with ``diff`` and the GUI). Nothing here imports Qt: ``--help`` works anywhere.

Errors print one ``error:`` line on stderr and exit with status 2 (:mod:`core.cli.options`).
"""

from __future__ import annotations

import argparse
import contextlib
import dataclasses
import itertools
import json
import sys
from collections.abc import Sequence

from core.cli.guess import run_guess, run_layout_check
from core.cli.options import (
    OneLineErrorParser,
    add_pipeline_options,
    error_exit,
    join_dash_values,
    params_from_args,
    parse_status,
    silence_stdout,
)
from core.cli.printing import DEFAULT_LIMIT, json_pieces, text_pieces, write_pieces
from core.cli.records import add_record_options, print_records, run_records, wants_records
from core.cli.session import add_session_options, bookmark_pieces, plan_session
from core.dtypes.table import ENGINE_TYPES, EXTENDED_TYPES, engine_name, tf_name
from core.errors import ContainerError, CoreError
from core.files.sources import FileSource, open_source, structured_npy
from core.formats.entry import ContainerListing, Storage, TensorEntry, find_entry
from core.formats.entry_records import entry_records
from core.formats.quantization import dequantized_of
from core.formats.reader import HeaderReader
from core.formats.registry import FORMATS, container_path, detect_format, list_container
from core.formats.report import listing_json, listing_table
from core.formats.values import LAYOUT_FIELDS, open_entry
from core.pipeline.pipeline import DecodeParams, Pipeline, PipelineResult
from core.pipeline.view_as import no_tensor_buffer_error, view_as_target
from core.records.field_list import numpy_description_dtype
from core.records.structured import structured_layout
from core.slicing.expr import parse_slice
from core.text.names import printable_name

__all__ = ["build_parser", "run"]

_EPILOG = f"""\
types: {", ".join(f"{n} ({tf_name(n)})" if tf_name(n) != n else n for n in ENGINE_TYPES)};
{", ".join(EXTENDED_TYPES)} are beyond TF's decode_raw (refused with --tf-only).

output: "shape: (...)" and "dtype: NAME (byte order)" lines, then the values laid out by numpy,
each written as the GUI's table writes it.
A view with more than --limit values is summarised numpy-style (leading and trailing items of
each dimension, about --limit values in all), so a huge file prints at once. Values are read,
converted (--view-as converts only the values printed) and written in blocks, so any --limit
prints in bounded memory.

--json prints one object: {{"shape": [...], "dtype": "float32", "byte_order": "little",
"size": N, "truncated": false, "values": [...]}}. "values" nests lists like the view (a 0-d view
gives a single value). If the view has more than --limit values, "truncated" is true and "values"
is instead a flat list of the first --limit values in C (row-major) order. NaN and infinities are
the strings "nan", "inf", "-inf"; complex numbers are [real, imag] pairs; bool is true/false;
numbers have the table's digits: the shortest decimals that read back, in their own type, to the
same value (a bfloat16 1/3 is 0.334).

JSON also has "trailing_bytes" (per file, bytes after the data that no value covers; the text
output notes them on stderr; 0 for a --tensor of a container, whose other tensors follow it) and "transposed" (true for a Fortran-order .npy, shown as the
C-order reading of its bytes, the transpose of what np.load returns). With --tensor, a
container whose listing could not read everything (a partial listing, a corrupt record) adds
"problems": [...] (the same lines as the note: lines on stderr).

--list prints a container's tensors (name, dtype, shape, kind, offset, bytes, notes); --list
--json prints {{"format", "path", "metadata", "problems", "tensors": [{{"name", "dtype",
"stored_type", "byte_order", "shape", "storage", "strides", "file", "shares", "offset",
"nbytes", "mappable", "problem", "quantization", "record_layout", "extras"}}]}} ("shares": the other
tensors on the same bytes, such as tied weights of a PyTorch checkpoint, or null; "record_layout":
the numpy dtype description of an entry of records, or null). The kind says how its values are had: "view" (of the
file's bytes), "copy" (stored, but compressed, chunked or as varints: decoded into memory) or
"computed" (a quantized GGUF tensor's float32 values, as llama.cpp's reference dequantizer
gives them; the "NAME (dequantized)" entry listed after a quantized TFLite, ONNX or PyTorch
tensor: scale * (q - zero_point), per channel along its axis). A quantized entry's notes say
"q: scale S zp Z" or "q: per-channel axis A (N)"; --list --json gives each tensor
"quantization": {{"scale": [...], "zero_point": [...], "axis": N or null}}, or null.
--tensor NAME then shows any of them like a file (--slice, --view-as, --json...): a copy or
computed value is made in memory (budget-checked; a note: says so); --dtype, --offset and the
other layout options show its bytes in the file instead. --tensor NAME --dequantize shows the
dequantized entry of a quantized NAME (the same as --tensor "NAME (dequantized)"); a GGUF
tensor is shown dequantized anyway, and a tensor that is not quantized as it is (a note says so).
--tensor NAME of records (an HDF5 compound dataset, a structured npz member: listed as uint8
rows of one record each, "record size N; fields K" in the notes) prints its records as a
structured .npy does (--field, --json, --limit; docs/records.md); --dtype uint8 shows the bytes.

Values starting with "-" may follow --shape and --slice directly (--shape -1,4).
Errors print one "error: ..." line on stderr and exit with status 2.
"""


def build_parser(prog: str = "tensor-inspect") -> OneLineErrorParser:
    """The command line parser (files, pipeline options, output options)."""
    parser = OneLineErrorParser(
        prog=prog, description="Decode raw tensor files like tf.io.decode_raw and print them.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("files", nargs="*", metavar="FILE",
                        help="one file, or several files forming a batch (optional with --session)")
    add_pipeline_options(parser)
    output = parser.add_argument_group("output")
    output.add_argument("--json", action="store_true", help="print one JSON object (see below)")
    output.add_argument("--limit", metavar="N", type=int, default=DEFAULT_LIMIT,
                        help=f"print at most about N values (default {DEFAULT_LIMIT})")
    output.add_argument("--steps", action="store_true",
                        help="first print one line per pipeline step")
    output.add_argument("--guess", action="store_true",
                        help="guess the layout instead: ranked candidates with reasons; with --fields, --struct or "
                             "--numpy-fields, check that layout and where its records start (docs/guess.md)")
    containers = parser.add_argument_group(
        "containers (safetensors, npz, TFLite, GGUF, TFRecord, WAV/AIFF, HDF5, IDX: docs/containers.md)")
    containers.add_argument("--list", action="store_true",
                            help="list the tensors of a container file (a table; JSON with --json)")
    containers.add_argument("--tensor", metavar="NAME",
                            help="show the tensor of this exact name (see --list); --dtype, "
                                 "--offset, --shape... given too override the container's values")
    containers.add_argument("--dequantize", action="store_true",
                            help="with --tensor NAME of a quantized TFLite, ONNX or PyTorch tensor: "
                                 "show its float32 values scale * (q - zero_point) (its 'NAME "
                                 "(dequantized)' entry); a quantized GGUF tensor is shown dequantized "
                                 "with or without it")
    add_record_options(parser)
    add_session_options(parser)
    return parser




def run(words: Sequence[str]) -> int:
    """Run the plain command with ``words`` (the command line after ``tensor-inspect``); return
    the exit status (0, or 2 after one ``error:`` line)."""
    parser = build_parser()
    known = [opt for action in parser._actions for opt in action.option_strings]
    try:
        args = parser.parse_args(join_dash_values(words, known))
        if not args.files and args.session is None:
            parser.error("the following arguments are required: FILE")
        if args.bookmark is not None and args.session is None:
            parser.error("--bookmark NAME needs --session S.json (the session that holds the bookmark)")
    except SystemExit as stop:
        return parse_status(stop)
    if args.guess and args.session is None:  # with --session: refused below, one error line
        if wants_records(args):
            return run_layout_check(args)
        return run_guess(args.files, as_json=args.json)
    if args.limit < 0:
        print(f"error: --limit {args.limit} is negative (use 0 or more)", file=sys.stderr)
        return 2
    try:
        plan = None
        if args.session is not None:  # the session's files, layout and slice; options override
            plan = plan_session(args, *params_from_args(args))
            args.files, args.tensor = list(plan.files), plan.tensor
        if wants_records(args):
            return run_records(args)
        if len(args.files) == 1 and args.dtype is None and args.tensor is None and not args.list \
                and args.session is None:
            structured = structured_npy(args.files[0])  # a .npy of records: printed as records
            if structured is not None:
                # its layout as a container's records (a string member shown as its bytes)
                args.numpy_fields = structured_layout(numpy_description_dtype(structured.descr_text)).text
                args.offset = structured.data_offset if args.offset is None else args.offset
                return run_records(args)
        if args.export is not None:
            raise CoreError("--export writes the records of a file: give their layout (--fields, --struct or "
                            "--numpy-fields; a structured .npy has its own). A container entry's records and a "
                            "tensor are not exported by the command (a tensor: the window's File > Export view… "
                            "or core.api.export_values)", field="export")
        args.files = [container_path(path) for path in args.files]  # a checkpoint by prefix or folder
        if (args.list or args.tensor is not None) and len(args.files) != 1:
            raise ContainerError(f"--list and --tensor take one container file, not "
                                 f"{len(args.files)} (name one file)", field="files")
        if args.list:
            with open_source(args.files[0]) as source:
                listing = _listing_of(source)
            text = json.dumps(listing_json(listing)) + "\n" if args.json else listing_table(listing)
            sys.stdout.write(text)
            sys.stdout.flush()
            return 0
        params, slice_text, view_as_name_given = params_from_args(args)
        if plan is not None:
            params, slice_text, view_as_name_given = plan.params, plan.slice_text, plan.view_as
        spec = parse_slice(slice_text) if slice_text is not None else None
        mark = plan.bookmark if plan is not None and plan.bookmark is not None \
            and plan.bookmark.kind != "region" else None
        with contextlib.ExitStack() as stack:
            pipeline = stack.enter_context(Pipeline(args.files))
            shown, entry, opened = pipeline, None, None
            listing_notes: list[str] = []
            dequantize_note: str | None = None
            if args.tensor is not None:  # listed from the pipeline's own map: one open
                listing = _listing_of(pipeline.source)
                entry = find_entry(listing, args.tensor)
                listing_notes = _listing_notes(listing)
                if args.dequantize:
                    entry, dequantize_note = _dequantized_choice(listing, entry)
                if _shows_records(entry, params, mark):  # named fields: printed as records
                    return print_records(args, entry_records(pipeline.source, listing, entry),
                                         _ignored_for_records(args) + listing_notes
                                         + ([dequantize_note] if dequantize_note else []))
                # one path for every entry: a view of its file, or its format's copy
                opened = open_entry(pipeline.source, listing, entry, params)
                params = opened.params
                if opened.owned:
                    shown = stack.enter_context(Pipeline(opened.source))
            # "view as" converts only the printed values: run without it, convert while printing.
            try:
                result = shown.run(dataclasses.replace(params, view_as=None), spec)
                problem = None
            except CoreError as error:
                if mark is None or mark.kind != "bytes":
                    raise
                result, problem = None, error  # a byte range still shows as hex
            if result is None:
                write_pieces(bookmark_pieces(None, problem, pipeline.source, mark, args.json, args.limit,
                                       view_as_name_given), sys.stdout)
                for note in plan.notes:  # type: ignore[union-attr]
                    print(f"note: {note}", file=sys.stderr)
                return 0
            steps = list(result.steps)
            if view_as_name_given is not None and result.buffer is None:
                raise no_tensor_buffer_error(engine_name(result.view.dtype), view_as_name_given)
            if view_as_name_given is not None:
                target = view_as_target(view_as_name_given)
                steps.append(f"view as {target}: TensorBuffer.create_from {result.buffer.data_type}"
                             f" -> {target} (of the printed values only)")
            transposed = bool(entry is not None and entry.extras.get("fortran_order")
                              and args.shape is None)
            if mark is not None:  # an element or a byte range of the session's bookmark
                pieces = bookmark_pieces(result, None, pipeline.source, mark, args.json, args.limit,
                                         view_as_name_given)
            elif args.json:
                pieces = json_pieces(result, args.limit, view_as_name_given, transposed, listing_notes,
                                     inside_container=entry is not None)
            else:
                pieces = text_pieces(result, args.limit, view_as_name_given)
            first = next(pieces)  # the errors found before any output (budget, view-as type)
            if args.steps:
                sys.stdout.write("".join(f"# {step}\n" for step in steps))
            write_pieces(itertools.chain([first], pieces), sys.stdout)
            sys.stdout.flush()
            if opened is not None and opened.note is not None:
                print(f"note: {opened.note}", file=sys.stderr)
            if dequantize_note is not None:
                print(f"note: {dequantize_note}", file=sys.stderr)
            for note in _notes(result, shown, args.tensor is not None, transposed) + listing_notes + \
                    (list(plan.notes) if plan is not None else []):
                print(f"note: {note}", file=sys.stderr)
            if entry is None and len(args.files) == 1:
                note = _container_hint(pipeline.source)
                if note:
                    print(f"note: {note}", file=sys.stderr)
    except BrokenPipeError:  # e.g. piped into head: not an error of ours
        silence_stdout()
    except Exception as error:  # one line from describe_error, never a traceback for the user
        return error_exit(error)
    return 0


def _shows_records(entry: TensorEntry, params: DecodeParams, mark: object) -> bool:
    """Whether ``--tensor`` prints the entry as records: it has a record layout and no layout
    option asks for its bytes (``--dtype``, ``--offset``...), as a structured ``.npy``."""
    return entry.record_layout is not None and mark is None \
        and not any(getattr(params, name) is not None for name in LAYOUT_FIELDS)


def _ignored_for_records(args: argparse.Namespace) -> list[str]:
    """Notes for the tensor options records do not take (they print every field; ``--slice``
    chooses records)."""
    given = [option for option, value in (("--shape", args.shape), ("--view-as", args.view_as)) if value is not None]
    if not given:
        return []
    return [f"{', '.join(given)} apply to a tensor, not to records: not used (--dtype uint8 shows the "
            "records' bytes as a tensor)"]


def _dequantized_choice(listing: ContainerListing, entry: TensorEntry) -> tuple[TensorEntry, str | None]:
    """What ``--tensor NAME --dequantize`` shows: the dequantized entry of a quantized entry,
    else the entry itself with a note saying why (a GGUF tensor is dequantized by its format)."""
    found = dequantized_of(listing, entry)
    if found is not None:
        return found, None
    if entry.quantization is not None:
        return entry, (f"--dequantize: '{printable_name(entry.name)}' has no dequantized entry (its "
                       "integers cannot be shown: see its problem); shown as stored")
    if entry.storage is Storage.COMPUTED:
        return entry, None  # a GGUF block type: its values are the dequantized ones
    return entry, f"--dequantize: '{printable_name(entry.name)}' is not quantized; shown as stored"


def _listing_of(source: FileSource) -> ContainerListing:
    """The container listing of the source's one file (headers read through its map).

    Raises
    ------
    ContainerError
        The file is not a container of a known format, or cannot be listed.
    """
    path = source.paths[0]
    listing = list_container(HeaderReader(source, 0))
    if listing is None:
        names = ", ".join(sorted({f.name for f in FORMATS}))
        raise ContainerError(
            f"'{printable_name(path)}' is not a container this tool lists (known: {names}; "
            "recognised from the content; only ONNX, which has no magic, also by its .onnx name) "
            "(open it as a raw file without --list "
            "and --tensor)", field="files")
    return listing


#: At most this many of a listing's problems are repeated as notes after a --tensor view.
_LISTING_NOTES = 5


def _listing_notes(listing: ContainerListing) -> list[str]:
    """What the listing could not read (a partial listing, a corrupt record), for the notes of
    a --tensor view: the tensor may lack those parts, so they are said where it is shown."""
    problems = list(listing.problems)
    notes = problems[:_LISTING_NOTES]
    if len(problems) > _LISTING_NOTES:
        notes.append(f"... and {len(problems) - _LISTING_NOTES} more problems of the listing "
                     "(--list shows them all)")
    return notes


def _container_hint(source: FileSource) -> str | None:
    """For a container file decoded as raw bytes (no --tensor): what it is and how to open a
    tensor; None for a raw file.

    Best effort and bounded: only the formats' ``sniff`` looks at the file's first bytes
    (:data:`core.formats.registry.SNIFF_BYTES`); no container parser runs, so the raw view of a
    damaged HDF5, TFLite or npz file never depends on one succeeding (nor waits for one). A
    failure of the sniff itself is a short note, never an error of the run.
    """
    name = printable_name(source.paths[0])
    try:
        found = detect_format(HeaderReader(source, 0))
    except Exception as error:  # the raw view is printed already: never fail the run here
        return f"'{name}' was not checked for a container format ({type(error).__name__})"
    if found is None:
        return None
    return (f"'{name}' starts like a {found.name} file, shown here as raw bytes: --list lists "
            "its tensors, --tensor NAME shows one")


def _notes(result: PipelineResult, pipeline: Pipeline, inside_container: bool,
           transposed: bool) -> list[str]:
    """The stderr notes after a view: trailing bytes (outside a container tensor, whose file
    naturally goes on with other tensors) and a Fortran-order transpose."""
    notes = []
    if not inside_container:
        for path, count in zip(pipeline.source.paths, result.trailing_bytes):
            if count:
                notes.append(f"{count} trailing byte{'s' if count != 1 else ''} in "
                             f"'{printable_name(path)}' after the data are not shown (see "
                             "--steps; --record-size or --length choose the data)")
    if result.transposed or transposed:
        notes.append("Fortran-order .npy: shown transposed (the C-order reading of its bytes; "
                     "np.load returns the transpose)")
    return notes

