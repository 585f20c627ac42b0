"""``tensor-inspect diff A B``: compare two tensors, exit 0 when equal within tolerance, 1 when
not, 2 on bad input (like ``cmp`` and ``diff``).

Both files go through the same :class:`core.pipeline.pipeline.Pipeline` as the GUI. The decode and
slice options of the plain command apply to both sides; ``--a-OPTION`` / ``--b-OPTION`` override
one side (``--b-offset 16``, ``--b-dtype float16``, ``--b-big-endian``...). The comparison is
:func:`core.compare.scanner.compare_sides` (rules: docs/compare.md). Errors print one
``error: ...`` line on stderr (exit status 2), never a traceback.

The decode options are :mod:`core.cli.options`', the plain command's.

Bounds (docs/compare.md, "How much a comparison may do"): the work is counted before anything
is read (:func:`core.compare.scanner.compare_work`) and refused above
:data:`~core.compare.scanner.WORK_LIMIT` pairs unless ``--no-limit`` is given; ``--limit`` is
checked against the copy budget. From :data:`ANNOUNCE_PAIRS` pairs a ``note:`` on stderr says
the work before it starts, and a progress line is drawn on stderr when it is a terminal (never
into a log or a pipe), at each whole percent, cleared at the end. An engine error that belongs
to one option (``--ulp``, ``--max-shift``, ``--limit``) names the option.
"""

from __future__ import annotations

import argparse
import copy
import dataclasses
import json
import sys
from collections.abc import Callable, Sequence

from core.cli.model_diff import add_model_options, is_model_diff, run_model_diff
from core.cli.options import (
    EXIT_ERROR,
    OneLineErrorParser,
    add_pipeline_options,
    error_exit,
    params_from_args,
    parse_status,
    silence_stdout,
)
from core.compare.result import CompareResult
from core.compare.rules import NAN_POLICIES, resolve_rules
from core.compare.scanner import WORK_LIMIT, CompareWork, Side, check_compare_work, compare_sides, compare_work
from core.compare.shift import suggest_shift
from core.compare.snippet import numpy_compare_snippet
from core.decode.reshape import parse_shape
from core.dtypes.table import engine_name
from core.errors import BudgetError, CoreError
from core.pipeline.pipeline import DecodeParams, Pipeline, PipelineResult
from core.slicing.expr import parse_slice
from core.text.names import printable_name

__all__ = ["build_diff_parser", "run", "side_params"]

DEFAULT_LIST = 10
EXIT_EQUAL, EXIT_DIFFERENT = 0, 1
#: From this many pairs the command says what it will do (and draws progress on a terminal).
ANNOUNCE_PAIRS = 1 << 26
#: How the user of this command lowers a comparison's work.
_LIMIT_FIX = "compare a slice of each side with --slice, --a-slice and --b-slice, or give --no-limit"
#: The option of each engine error field that one option causes.
_OPTION_OF_FIELD = {"ulp": "--ulp", "max_shift": "--max-shift", "list_limit": "--limit"}

#: Options a side may override: (option, DecodeParams field or "slice", type).
_SIDE_OPTIONS = (
    ("dtype", "dtype", str), ("offset", "offset", int), ("record-size", "record_size", int),
    ("length", "length", int), ("fixed-length", "fixed_length", int), ("shape", "shape", str),
    ("slice", "slice", str),
)
_DASH_VALUES = {"--shape", "--slice", "--a-shape", "--b-shape", "--a-slice", "--b-slice"}

_EPILOG = """\
rule: |a - b| <= atol + rtol * |b| (numpy's isclose; B is the reference). Default tolerances
are torch.testing.assert_close's, the loosest of both types: float16 rtol 1e-3 atol 1e-5,
bfloat16 1.6e-2 / 1e-5, float32 1.3e-6 / 1e-5, float64 1e-7 / 1e-7, integers exact. --ulp N
matches values at most N representable values apart instead. NaN matches NaN unless
--nan-policy mismatch; infinities match only the same infinity; -0 == 0 unless --bitwise.
Shapes must match or broadcast (numpy's rule); different types are compared in a common type.

bounds: more than 2,147,483,648 element pairs is refused before anything is read unless
--no-limit; --limit is checked against the copy budget; --ulp takes 0 to 2**64 - 1, --max-shift
0 to 65536. From 67,108,864 pairs a "note:" on stderr says the work first, and a progress line
is drawn on stderr when it is a terminal.

exit status: 0 equal within tolerance, 1 not equal, 2 bad input (one "error:" line).
--json prints every figure as one object; --code prints numpy code that reproduces the
comparison instead of running it.
"""


def build_diff_parser(prog: str = "tensor-inspect diff") -> argparse.ArgumentParser:
    """The parser of ``tensor-inspect diff``."""
    parser = OneLineErrorParser(prog=prog, description="Compare tensor A with tensor B numerically; or two whole "
                                "models (folders, or container files), tensor by tensor.",
                                epilog=_EPILOG, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("file_a", metavar="A", help="the tensor to check")
    parser.add_argument("file_b", metavar="B", help="the reference tensor (golden)")
    add_pipeline_options(parser)
    for side in "ab":
        group = parser.add_argument_group(f"side {side.upper()} only (overrides the option above)")
        for option, _field, kind in _SIDE_OPTIONS:
            group.add_argument(f"--{side}-{option}", dest=f"{side}_{option.replace('-', '_')}",
                               metavar="VALUE", type=kind, default=None)
        order = group.add_mutually_exclusive_group()
        order.add_argument(f"--{side}-little-endian", dest=f"{side}_little_endian", action="store_const",
                           const=True, default=None)
        order.add_argument(f"--{side}-big-endian", dest=f"{side}_little_endian", action="store_const", const=False)
    rule = parser.add_argument_group("comparison")
    rule.add_argument("--rtol", type=float, metavar="X", help="relative tolerance (default: by type)")
    rule.add_argument("--atol", type=float, metavar="X", help="absolute tolerance (default: by type)")
    rule.add_argument("--ulp", type=int, metavar="N", help="match values at most N ULP apart (instead of rtol/atol)")
    rule.add_argument("--bitwise", action="store_true", help="match equal bits only (-0 != 0, NaN payloads count)")
    rule.add_argument("--nan-policy", choices=NAN_POLICIES, default="equal",
                      help="whether NaN matches NaN (default: equal)")
    rule.add_argument("--shift", metavar="N|auto", default="0",
                      help="compare A[k] with B[k + N] in flat C order; 'auto' uses the suggested shift")
    rule.add_argument("--max-shift", type=int, default=1024, metavar="N",
                      help="largest shift --shift auto tries (default 1024)")
    add_model_options(parser)
    output = parser.add_argument_group("output")
    output.add_argument("--json", action="store_true", help="print every figure as one JSON object")
    output.add_argument("--limit", type=int, default=DEFAULT_LIST, metavar="N",
                        help=f"list at most N first and N worst mismatches (default {DEFAULT_LIST})")
    output.add_argument("--code", action="store_true", help="print numpy code reproducing the comparison")
    output.add_argument("--no-limit", action="store_true",
                        help=f"compare more than {WORK_LIMIT:,} element pairs (refused without it)")
    return parser


def side_params(args: argparse.Namespace, side: str) -> tuple[DecodeParams, str | None]:
    """The decode parameters and slice text of side ``"a"`` or ``"b"``: the shared options with
    that side's overrides.

    Raises
    ------
    ShapeError
        A shape does not parse.
    """
    params, slice_text, _view_as = params_from_args(args)
    changes = {}
    for option, field, _kind in _SIDE_OPTIONS:
        value = getattr(args, f"{side}_{option.replace('-', '_')}")
        if value is None:
            continue
        if field == "slice":
            slice_text = value
        else:
            changes[field] = parse_shape(value) if field == "shape" else value
    order = getattr(args, f"{side}_little_endian")
    if order is not None:
        changes["little_endian"] = order
    return dataclasses.replace(params, **changes), slice_text


def _join_dash_values(words: Sequence[str]) -> list[str]:
    out, i = [], 0
    while i < len(words):
        if words[i] in _DASH_VALUES and i + 1 < len(words) and words[i + 1].startswith("-") \
                and not words[i + 1].startswith("--"):
            out.append(f"{words[i]}={words[i + 1]}")
            i += 2
        else:
            out.append(words[i])
            i += 1
    return out


def _describe_side(name: str, path: str, result: PipelineResult) -> str:
    dtype = result.view.dtype
    order = "" if dtype.itemsize == 1 else f" ({'little' if result.params.little_endian else 'big'}-endian)"
    return f"{name}: {printable_name(path)}: {engine_name(dtype)}{order}, shape {tuple(result.view.shape)}"


def _text(result: CompareResult, heads: list[str], limit: int) -> str:
    lines = heads + result.lines()
    if result.first and limit:
        lines.append("First mismatches (C order):")
        lines += result.mismatch_lines(result.first)
        lines.append("Worst mismatches (largest |a - b|):")
        lines += result.mismatch_lines(result.worst)
    lines.append("equal within tolerance" if result.equal else "not equal")
    return "\n".join(lines) + "\n"


def _parse_shift(text: str) -> int | None:
    if text == "auto":
        return None
    try:
        return int(text)
    except ValueError:
        raise CoreError(f"--shift takes a whole number of elements or 'auto', not {text!r} (e.g. --shift 4)",
                        field="shift") from None


class _Progress:
    """``progress(done, total)`` drawing ``comparing: 42% (N of M pairs)`` on stderr at each
    whole percent (a terminal only), cleared by :meth:`close`."""

    def __init__(self, stream) -> None:
        self.stream, self.percent, self.drawn = stream, -1, False

    def __call__(self, done: int, total: int) -> None:
        percent = 100 * done // total if total else 100
        if percent != self.percent:
            self.percent, self.drawn = percent, True
            self.stream.write(f"\rcomparing: {percent}% ({done:,} of {total:,} pairs)")
            self.stream.flush()

    def close(self) -> None:
        if self.drawn:
            self.stream.write("\r\x1b[K")
            self.stream.flush()


def _announce(work: CompareWork) -> Callable[[int, int], None] | None:
    """The note before a large comparison, and its progress line on a terminal (module rules)."""
    if work.pairs < ANNOUNCE_PAIRS:
        return None
    print(f"note: comparing {work.describe()}", file=sys.stderr, flush=True)
    return _Progress(sys.stderr) if sys.stderr.isatty() else None


def _run(args: argparse.Namespace) -> int:
    try:
        if is_model_diff(args):
            return run_model_diff(args)
        return _compare(args)
    except CoreError as error:  # an engine error caused by one option: name the option
        option = _OPTION_OF_FIELD.get(error.field or "")
        about_value = error.message.startswith(f"{error.field} ") or isinstance(error, BudgetError)
        if option is not None and about_value:
            named = copy.copy(error)  # same type and field, the option in front
            named.args = (f"{option}: {error.message}",)
            raise named from error
        raise


def _compare(args: argparse.Namespace) -> int:
    if args.limit < 0:
        raise CoreError(f"--limit {args.limit} is negative (use 0 or more)")
    shift = _parse_shift(args.shift)
    specs = []
    for side in "ab":
        params, slice_text = side_params(args, side)
        specs.append(([getattr(args, f"file_{side}")], params, slice_text))
    with Pipeline(specs[0][0]) as pipe_a, Pipeline(specs[1][0]) as pipe_b:
        results = []
        for name, pipe, (_paths, params, slice_text) in zip("AB", (pipe_a, pipe_b), specs):
            try:
                spec = parse_slice(slice_text) if slice_text is not None else None
                results.append(pipe.run(params, spec))
            except CoreError as error:  # say which side's options are wrong
                raise CoreError(f"side {name}: {error.message}", field=error.field) from error
        result_a, result_b = results
        rules = resolve_rules(result_a.view.dtype, result_b.view.dtype, rtol=args.rtol, atol=args.atol,
                              ulp=args.ulp, bitwise=args.bitwise, nan_policy=args.nan_policy)
        side_a = Side(result_a.view, result_a.block_reader, pipe_a.source.check_unchanged)
        side_b = Side(result_b.view, result_b.block_reader, pipe_b.source.check_unchanged)
        heads = [_describe_side("A", args.file_a, result_a), _describe_side("B", args.file_b, result_b)]
        suggestion = None
        if shift is None:
            suggestion = suggest_shift(side_a, side_b, max_shift=args.max_shift)
            shift = suggestion.shift
            heads.append(suggestion.describe())
        if args.code:
            sys.stdout.write(numpy_compare_snippet((pipe_a.source, result_a), (pipe_b.source, result_b), rules, shift))
            return EXIT_EQUAL
        work_limit = None if args.no_limit else WORK_LIMIT
        work = compare_work(side_a, side_b, shift)
        check_compare_work(work, args.limit, work_limit=work_limit, limit_fix=_LIMIT_FIX)
        progress = _announce(work)
        try:
            result = compare_sides(side_a, side_b, rules, shift=shift, list_limit=args.limit,
                                   progress=progress, work_limit=work_limit, limit_fix=_LIMIT_FIX)
        finally:
            if isinstance(progress, _Progress):
                progress.close()
    if args.json:
        document = {"a": {"file": args.file_a, "dtype": engine_name(result.rules.dtype_a), "shape": list(result.shape_a)},
                    "b": {"file": args.file_b, "dtype": engine_name(result.rules.dtype_b), "shape": list(result.shape_b)},
                    **result.to_json()}
        if suggestion is not None:
            document["shift_suggestion"] = dataclasses.asdict(suggestion)
        sys.stdout.write(json.dumps(document) + "\n")
    else:
        sys.stdout.write(_text(result, heads, args.limit))
    return EXIT_EQUAL if result.equal else EXIT_DIFFERENT


def run(argv: Sequence[str]) -> int:
    """Run ``tensor-inspect diff`` with ``argv`` (the words after ``diff``); return the exit status."""
    parser = build_diff_parser()
    try:
        args = parser.parse_args(_join_dash_values(list(argv)))
    except SystemExit as stop:
        return parse_status(stop)
    try:
        status = _run(args)
        sys.stdout.flush()
        return status
    except BrokenPipeError:
        silence_stdout()
        return EXIT_ERROR
    except Exception as error:  # one line from describe_error, never a traceback for the user
        return error_exit(error)
