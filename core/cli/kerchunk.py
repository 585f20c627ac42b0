"""``tensor-inspect kerchunk FILE... -o REFS.json``: the decode as kerchunk references.

The files are decoded as the plain command decodes them (the same decode options, ``--tensor
NAME`` of a container), and :mod:`core.export.kerchunk` writes references to the tensor's bytes:
a JSON file that ``fsspec``'s ``ReferenceFileSystem`` and zarr open as a Zarr v2 array reading
the same bytes lazily (xarray: ``xr.open_dataset("reference://", engine="zarr",
backend_kwargs={"consolidated": False, "storage_options": {"fo": "REFS.json"}})``). One line on
stdout says what was written; what the references leave out (a slice) is a ``note:`` on stderr;
a decode references cannot describe is one ``error:`` line and exit status 2.
"""

from __future__ import annotations

import argparse
import contextlib
import math
import sys
from collections.abc import Sequence

from core.cli.options import (
    OneLineErrorParser,
    add_pipeline_options,
    error_exit,
    join_dash_values,
    params_from_args,
    parse_status,
)
from core.errors import ContainerError
from core.export.kerchunk import CHUNK_BYTES, export_kerchunk
from core.formats.entry import find_entry
from core.formats.reader import HeaderReader
from core.formats.registry import container_path, list_container
from core.formats.values import open_entry
from core.pipeline.pipeline import Pipeline
from core.slicing.expr import parse_slice
from core.text.byte_sizes import format_bytes
from core.text.names import printable_name

__all__ = ["build_kerchunk_parser", "run"]

_EPILOG = """\
The references describe the decoded tensor: files (absolute paths), offset, length, records,
dtype, byte order and shape; a --slice is not part of them (a note says so; it is recorded in
the array's .zattrs). Chunks are byte ranges of the files: along the outermost axis that lines up
with the data (one per file of a batch, one per record when records are padded), about 32 MiB
each. Refused: copies and computed values (a compressed or dequantized container entry), a
--fixed-length that pads, bfloat16/float8 (decode as uint16/uint8: the same bytes), int4/int24.
"""


def build_kerchunk_parser() -> OneLineErrorParser:
    parser = OneLineErrorParser(
        prog="tensor-inspect kerchunk", epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
        description="Write kerchunk references (a Zarr v2 array over the same bytes) for a decode.")
    parser.add_argument("files", nargs="+", metavar="FILE", help="one file, or several files forming a batch")
    parser.add_argument("-o", "--output", required=True, metavar="REFS.json", help="the references file to write")
    parser.add_argument("--name", default="data", help="the array's name in the references (default: data)")
    parser.add_argument("--chunk-bytes", type=int, default=CHUNK_BYTES, metavar="N",
                        help=f"bytes a chunk aims at (default {CHUNK_BYTES})")
    parser.add_argument("--tensor", metavar="NAME", help="the tensor of this name of a container (see --list)")
    add_pipeline_options(parser)
    return parser


def run(words: Sequence[str]) -> int:
    """Run ``tensor-inspect kerchunk`` with ``words``; return the exit status (0, or 2)."""
    parser = build_kerchunk_parser()
    known = [opt for action in parser._actions for opt in action.option_strings]
    try:
        args = parser.parse_args(join_dash_values(words, known))
    except SystemExit as stop:
        return parse_status(stop)
    try:
        files = [container_path(path) for path in args.files]
        params, slice_text, _view_as = params_from_args(args)
        spec = parse_slice(slice_text) if slice_text is not None else None
        with contextlib.ExitStack() as stack:
            pipeline = stack.enter_context(Pipeline(files))
            shown = pipeline
            if args.tensor is not None:
                if len(files) != 1:
                    raise ContainerError(f"--tensor takes one container file, not {len(files)} (name one file)",
                                         field="files")
                listing = list_container(HeaderReader(pipeline.source, 0))
                if listing is None:
                    raise ContainerError(f"'{printable_name(files[0])}' is not a container this tool lists "
                                         "(drop --tensor)", field="files")
                opened = open_entry(pipeline.source, listing, find_entry(listing, args.tensor), params)
                params = opened.params
                if opened.owned:
                    shown = stack.enter_context(Pipeline(opened.source))
            result = shown.run(params, spec)
            plan = export_kerchunk(shown, result, args.output, args.name, chunk_bytes=args.chunk_bytes,
                                   source_paths=pipeline.source.paths)
        plural = "" if plan.chunk_count == 1 else "s"
        print(f"wrote {printable_name(args.output)}: {plan.chunk_count} chunk reference{plural} of "
              f"{format_bytes(plan.itemsize * math.prod(plan.chunks))} to {plan.name} {plan.shape} "
              f"{plan.dtype}")
        for note in plan.notes:
            print(f"note: {note}", file=sys.stderr)
    except Exception as error:  # one line from describe_error, never a traceback for the user
        return error_exit(error)
    return 0

