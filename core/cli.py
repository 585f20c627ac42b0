"""The headless command: ``python -m core FILE ...`` (installed as ``tensor-inspect``).

It runs the same :class:`core.pipeline.pipeline.Pipeline` as the GUI and prints the resulting view. The
option set lives in :func:`add_pipeline_options` / :func:`params_from_args` so that the GUI's
entry point accepts the same options. Nothing here imports Qt: ``--help`` works anywhere.

Errors (a bad option value, an unusable file, a decode error) print exactly one line,
``error: <what is wrong> (<how to fix it>)``, on stderr and exit with status 2; never a traceback.
"""

from __future__ import annotations

import argparse
import json
import math
import os
import sys
from collections.abc import Sequence

import numpy as np

from core.budget import check_copy_budget
from core.decode.reshape import parse_shape
from core.dtypes.table import ENGINE_TYPES, EXTENDED_TYPES, engine_name, tf_name
from core.errors import DEBUG_VARIABLE, CoreError, describe_error
from core.pipeline.pipeline import DecodeParams, Pipeline, PipelineResult
from core.slicing.expr import parse_slice
from core.text.number_format import json_value, value_formatter

__all__ = [
    "OneLineErrorParser", "CliArgumentParser", "add_pipeline_options", "params_from_args", "build_parser",
    "join_dash_values", "render_text", "render_json", "main",
]

DEFAULT_LIMIT = 1000
#: Memory one printed value costs (a Python number, its text and its list slot).
_PRINT_BYTES_PER_VALUE = 64
_DASH_VALUE_OPTIONS = ("--shape", "--slice")

_EPILOG = f"""\
types: {", ".join(f"{n} ({tf_name(n)})" if tf_name(n) != n else n for n in ENGINE_TYPES)};
{" and ".join(EXTENDED_TYPES)} are beyond TF's decode_raw (refused with --tf-only).

output: "shape: (...)" and "dtype: NAME (byte order)" lines, then the values laid out by numpy,
each written as the GUI's table writes it.
A view with more than --limit values is summarised numpy-style (leading and trailing items of
each dimension, about --limit values in all), so a huge file prints at once.

--json prints one object: {{"shape": [...], "dtype": "float32", "byte_order": "little",
"size": N, "truncated": false, "values": [...]}}. "values" nests lists like the view (a 0-d view
gives a single value). If the view has more than --limit values, "truncated" is true and "values"
is instead a flat list of the first --limit values in C (row-major) order. NaN and infinities are
the strings "nan", "inf", "-inf"; complex numbers are [real, imag] pairs; bool is true/false;
numbers have the table's digits: the shortest decimals that read back, in their own type, to the
same value (a bfloat16 1/3 is 0.334).

Values starting with "-" may follow --shape and --slice directly (--shape -1,4).
Errors print one "error: ..." line on stderr and exit with status 2.
"""


class OneLineErrorParser(argparse.ArgumentParser):
    """An ``ArgumentParser`` whose errors are one ``error: ...`` line and exit status 2."""

    def error(self, message: str) -> None:  # type: ignore[override]
        self.exit(2, f"error: {message} (see --help)\n")


def add_pipeline_options(parser: argparse.ArgumentParser) -> None:
    """Add the decode/slice options shared by the command line and the GUI entry point."""
    group = parser.add_argument_group("decoding (tf.io.decode_raw)")
    group.add_argument("--dtype", metavar="NAME",
                       help="out_type, TF or numpy name (default: the .npy header's, else uint8)")
    order = group.add_mutually_exclusive_group()
    order.add_argument("--little-endian", dest="little_endian", action="store_const",
                       const=True, default=None,
                       help="the data is little-endian (default: the .npy header's, else this)")
    order.add_argument("--big-endian", dest="little_endian", action="store_const", const=False,
                       help="the data is big-endian")
    group.add_argument("--fixed-length", metavar="N", type=int,
                       help="pad or truncate every element to N bytes (decode_raw's fixed_length)")
    group.add_argument("--tf-only", dest="extended_types", action="store_false", default=True,
                       help="refuse the types beyond TF (uint32, uint64)")
    source = parser.add_argument_group("file layout")
    source.add_argument("--offset", metavar="N", type=int,
                        help="skip N header bytes in every file (default: .npy data offset, else 0)")
    source.add_argument("--record-size", metavar="N", type=int,
                        help="split the data into elements of N bytes (default: one element "
                             "per file); bytes after the last whole record are reported")
    view = parser.add_argument_group("view")
    view.add_argument("--shape", metavar="D0,D1,...",
                      help="target shape of the decoded values in C order, one -1 inferred "
                           "(default: the .npy header's, else the decode shape)")
    view.add_argument("--slice", metavar="EXPR",
                      help="slice expression applied to the shaped tensor, e.g. '1:, ::2'")
    view.add_argument("--view-as", metavar="TYPE",
                      help="show the values as TensorBuffer.create_from into TYPE would (e.g. uint8: what a TFLite UINT8 input receives)")


def params_from_args(args: argparse.Namespace) -> tuple[DecodeParams, str | None, str | None]:
    """Build ``(DecodeParams, slice_text, view_as)`` from parsed options.

    Raises
    ------
    ShapeError
        ``--shape`` does not parse.
    """
    shape = parse_shape(args.shape) if args.shape is not None else None
    params = DecodeParams(
        dtype=args.dtype, little_endian=args.little_endian, fixed_length=args.fixed_length,
        offset=args.offset, record_size=args.record_size, shape=shape, view_as=args.view_as,
        extended_types=args.extended_types,
    )
    return params, args.slice, args.view_as


def build_parser(prog: str = "tensor-inspect") -> OneLineErrorParser:
    """The command line parser (files, pipeline options, output options)."""
    parser = OneLineErrorParser(
        prog=prog, description="Decode raw tensor files like tf.io.decode_raw and print them.",
        epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("files", nargs="+", metavar="FILE",
                        help="one file, or several files forming a batch")
    add_pipeline_options(parser)
    output = parser.add_argument_group("output")
    output.add_argument("--json", action="store_true", help="print one JSON object (see below)")
    output.add_argument("--limit", metavar="N", type=int, default=DEFAULT_LIMIT,
                        help=f"print at most about N values (default {DEFAULT_LIMIT})")
    output.add_argument("--steps", action="store_true",
                        help="first print one line per pipeline step")
    return parser


def join_dash_values(argv: Sequence[str], known: Sequence[str] = ()) -> list[str]:
    """Turn ``--shape -1,4`` into ``--shape=-1,4`` (argparse takes ``-1,4`` for an option).

    Only for ``--shape`` and ``--slice``, and only when the next word is not a known option.
    """
    out: list[str] = []
    words = list(argv)
    i = 0
    while i < len(words):
        word = words[i]
        if (word in _DASH_VALUE_OPTIONS and i + 1 < len(words) and words[i + 1].startswith("-")
                and words[i + 1] not in known and not words[i + 1].startswith("--")):
            out.append(f"{word}={words[i + 1]}")
            i += 2
            continue
        out.append(word)
        i += 1
    return out


# -- rendering ---------------------------------------------------------------------------------
def _first_values(array: np.ndarray, count: int) -> np.ndarray:
    """The first ``count`` values of ``array`` in C order, reading no more than about that."""
    if array.ndim == 0:
        return array.reshape(1)[:count]
    if array.ndim == 1:
        return array[:count]
    inner = math.prod(array.shape[1:])
    if inner == 0 or count == 0:
        return array.reshape(-1)[:0] if array.size == 0 else array[:0].reshape(-1)
    if inner > count:
        return _first_values(array[0], count)
    rows = min(array.shape[0], -(-count // inner))
    return np.ascontiguousarray(array[:rows]).reshape(-1)[:count]


def _native(values: np.ndarray) -> np.ndarray:
    if values.dtype.itemsize > 1 and not values.dtype.isnative:
        return values.astype(values.dtype.newbyteorder("="))
    return values


def _json_values(values: np.ndarray) -> list:
    """Flat list of JSON-ready values (:func:`core.text.number_format.json_value`'s rules)."""
    values = _native(values)
    if values.dtype.kind in "biu":
        return values.tolist()  # exact Python ints and bools, json_value's rule, at C speed
    return [json_value(value, values.dtype) for value in values]


def _nest(flat: list, shape: tuple[int, ...]) -> object:
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return flat
    step = math.prod(shape[1:])
    return [_nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def _dtype_text(result: PipelineResult) -> str:
    name = engine_name(result.view.dtype)
    if result.view.dtype.itemsize == 1:
        return name
    return f"{name} ({'little' if result.params.little_endian else 'big'}-endian)"


def _check_print_budget(view: np.ndarray, limit: int) -> None:
    """Printing ``--limit`` values builds them all in memory first: refuse an absurd limit."""
    count = min(int(view.size), max(limit, 0))
    check_copy_budget(count * _PRINT_BYTES_PER_VALUE, f"printing {count:,} values",
                      "lower --limit")


def render_text(result: PipelineResult, limit: int = DEFAULT_LIMIT) -> str:
    """``shape:`` and ``dtype:`` lines, then the view laid out by numpy (summarised past limit).

    Each value reads as in the table's "auto" format (:func:`core.text.number_format.format_value`).
    """
    view = result.view
    _check_print_budget(view, limit)
    edge = max(1, int(max(limit, 1) ** (1.0 / max(view.ndim, 1))) // 2)
    options = {"threshold": max(limit, 0), "edgeitems": edge, "max_line_width": 100}
    text_of = value_formatter(view.dtype)
    width = 0

    def measure(value) -> str:
        nonlocal width
        text = text_of(value)
        width = max(width, len(text))
        return text

    # Numpy lays out and summarises; the values are the table's text, right-aligned in columns
    # as wide as the widest value printed (found by a first pass over the printed values only).
    np.array2string(view, formatter={"all": measure}, **options)
    body = np.array2string(view, formatter={"all": lambda value: text_of(value).rjust(width)},
                           **options)
    return f"shape: {tuple(view.shape)}\ndtype: {_dtype_text(result)}\n{body}\n"


def render_json(result: PipelineResult, limit: int = DEFAULT_LIMIT) -> str:
    """One JSON object (see the --help epilog); values past ``limit`` are cut, flattened."""
    view = result.view
    _check_print_budget(view, limit)
    truncated = view.size > limit
    flat = _json_values(_first_values(view, min(view.size, limit)))
    values = flat if truncated else _nest(flat, tuple(view.shape))
    document = {
        "shape": list(view.shape),
        "dtype": engine_name(view.dtype),
        "byte_order": "little" if result.params.little_endian else "big",
        "size": int(view.size),
        "truncated": truncated,
        "values": values,
    }
    return json.dumps(document) + "\n"




def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; return the exit status (0, or 2 after one ``error:`` line)."""
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    known = [opt for action in parser._actions for opt in action.option_strings]
    try:
        args = parser.parse_args(join_dash_values(words, known))
    except SystemExit as stop:  # --help (0) or a usage error (2, already printed)
        return stop.code if isinstance(stop.code, int) else (0 if stop.code is None else 2)
    if args.limit < 0:
        print(f"error: --limit {args.limit} is negative (use 0 or more)", file=sys.stderr)
        return 2
    try:
        params, slice_text, _view_as = params_from_args(args)
        spec = parse_slice(slice_text) if slice_text is not None else None
        with Pipeline(args.files) as pipeline:
            result = pipeline.run(params, spec)
            text = render_json(result, args.limit) if args.json else render_text(result, args.limit)
            if args.steps:
                text = "".join(f"# {step}\n" for step in result.steps) + text
    except Exception as error:  # one line from describe_error, never a traceback for the user
        if os.environ.get(DEBUG_VARIABLE) and not isinstance(error, (CoreError, OSError, IndexError)):
            raise  # a bug (an unexpected type): the developer asked for the traceback
        print(f"error: {describe_error(error).message}", file=sys.stderr)
        return 2
    try:
        sys.stdout.write(text)
        sys.stdout.flush()
    except BrokenPipeError:  # e.g. piped into head: not an error of ours
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    return 0


#: Name used by the GUI entry point for the same parser class.
CliArgumentParser = OneLineErrorParser
