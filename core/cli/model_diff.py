"""``tensor-inspect diff A B`` of two whole models: A and B folders, or both container files (no
layout option given); every tensor pair compared (rules: docs/compare.md, "Two whole models").

The pairs are :func:`core.models.matching.match_tensors`' over both sides'
:func:`core.models.inventory.inventory`, compared by :func:`core.models.diff.diff_pairs`. Text
output: a table of the pairs, worst first (``--sort order``: in order), the first divergent pair
and how many follow it, then the details of the worst pairs (every figure, the worst elements
with their indices), the skipped tensors, the errors and a summary line. ``--json`` prints one
object. Exit status: 0 when every pair is within tolerance, 1 when one is not (or a tensor is
only on one side), 2 when a path, a tensor or an option is bad (the rest is still compared).
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys

from core.cli.options import EXIT_ERROR, add_cluster_options, cluster_of, params_from_args
from core.errors import CoreError
from core.formats.registry import container_path, list_file
from core.models.diff import MODEL_WORK_LIMIT, STATUSES, PairDiff, diff_pairs, diff_work, first_divergent, ranked
from core.models.inventory import Inventory, ModelTensor, inventory
from core.models.matching import MODES, Matching, MatchRules, match_tensors
from core.models.opening import TensorOpener
from core.models.rows import PAIR_COLUMNS, figure_text, pair_cells
from core.pipeline.params import DecodeParams
from core.text.figures import format_difference
from core.text.names import printable_name

__all__ = ["add_model_options", "are_models", "is_model_diff", "run_model_diff"]

EXIT_WITHIN, EXIT_OVER = 0, 1
#: Most bytes of a --map JSON file or an --order file.
RULES_FILE_LIMIT = 16 << 20
#: Pairs whose details (every figure, worst elements) the text output shows.
DETAILED = 5
_LAYOUT_OPTIONS = ("dtype", "offset", "record_size", "length", "fixed_length", "shape", "little_endian")


def add_model_options(parser: argparse.ArgumentParser) -> None:
    """The options of a model diff (ignored by the diff of two tensors)."""
    group = parser.add_argument_group("two whole models (A and B folders or containers)")
    group.add_argument("--match", choices=MODES, default="name",
                       help="pair tensors by name (default), by position, or by shape")
    group.add_argument("--strip", action="append", default=[], metavar="PREFIX",
                       help="remove PREFIX from the names of both sides (e.g. module.; repeatable)")
    group.add_argument("--map", action="append", default=[], metavar="RULE",
                       help="rename A's tensors: 'REGEX=REPLACEMENT' (Python re.sub) or a JSON file "
                            "mapping A's names to B's (repeatable, applied in order)")
    add_cluster_options(parser)
    group.add_argument("--order", metavar="FILE",
                       help="the order of the pairs for the first divergent one: a text file of "
                            "names, one per line (default: A's order)")
    group.add_argument("--sort", choices=("worst", "order"), default="worst",
                       help="the table's order: worst first (default) or the pairs' order")


def is_model_diff(args: argparse.Namespace) -> bool:
    """A folder on either side, or two container files with no layout option given."""
    layout_given = any(getattr(args, name, None) is not None for name in _LAYOUT_OPTIONS) or any(
        getattr(args, f"{side}_{name}", None) is not None for side in "ab" for name in _LAYOUT_OPTIONS)
    return are_models(args.file_a, args.file_b, layout_given=layout_given)


def are_models(a: str, b: str, *, layout_given: bool) -> bool:
    """Whether ``a`` and ``b`` are compared as whole models (``diff A B``, and the window's
    ``--compare B``): a folder on either side, or two container files when no layout option
    (dtype, offset, shape...) says to read them as one tensor each."""
    if os.path.isdir(a) or os.path.isdir(b):
        return True
    return not layout_given and _is_container(a) and _is_container(b)


def _is_container(path: str) -> bool:
    try:
        return list_file(container_path(path)) is not None
    except (CoreError, OSError):
        return os.path.exists(path) and path.lower().endswith((".safetensors", ".gguf", ".onnx", ".pt", ".pth"))


def _match_rules(args: argparse.Namespace) -> MatchRules:
    rename, names = [], {}
    for rule in args.map:
        if rule.lower().endswith(".json") and "=" not in rule:
            names.update(_names_file(rule))
            continue
        pattern, equals, replacement = rule.partition("=")
        if not equals or not pattern:
            raise CoreError(f"--map {rule!r}: write 'REGEX=REPLACEMENT' (e.g. --map '^model\\.=') or name a "
                            "JSON file of A's names to B's", field="map")
        try:
            rename.append((re.compile(pattern), replacement))
        except re.error as error:
            raise CoreError(f"--map {rule!r}: the regular expression does not parse ({error})", field="map") from None
    return MatchRules(args.match, tuple(args.strip), tuple(rename), names)


def _read_text(path: str, option: str) -> str:
    try:
        size = os.path.getsize(path)
        if size > RULES_FILE_LIMIT:
            raise CoreError(f"{option} {printable_name(path)}: {size:,} bytes is more than a names file "
                            f"holds (at most {RULES_FILE_LIMIT:,})", field=option.strip("-"))
        with open(path, "rb") as file:
            return file.read().decode("utf-8")
    except OSError as error:
        raise CoreError(f"{option} {printable_name(path)} cannot be read ({error.strerror or error})",
                        field=option.strip("-")) from None
    except UnicodeDecodeError:
        raise CoreError(f"{option} {printable_name(path)} is not UTF-8 text", field=option.strip("-")) from None


def _names_file(path: str) -> dict[str, str]:
    try:
        data = json.loads(_read_text(path, "--map"))
    except json.JSONDecodeError as error:
        raise CoreError(f"--map {printable_name(path)} is not JSON ({error.msg} at line {error.lineno})",
                        field="map") from None
    if not isinstance(data, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in data.items()):
        raise CoreError(f"--map {printable_name(path)} must be one JSON object of A's names to B's names "
                        '(strings: {"module.fc.weight": "fc.weight"})', field="map")
    return data


def _order(path: str | None) -> list[str]:
    if path is None:
        return []
    return [line.strip() for line in _read_text(path, "--order").splitlines() if line.strip()]


def run_model_diff(args: argparse.Namespace) -> int:
    """Run the model diff of ``args`` (module rules); the exit status."""
    if args.slice is not None or args.a_slice is not None or args.b_slice is not None:
        raise CoreError("--slice is not taken by a model diff (every tensor is compared whole)", field="slice")
    if args.shift not in ("0", 0):
        raise CoreError("--shift is not taken by a model diff (it compares one tensor pair)", field="shift")
    if args.limit < 0:
        raise CoreError(f"--limit {args.limit} is negative (use 0 or more)")
    params, _slice, _view_as = params_from_args(args)
    raw = params if params != DecodeParams() else None
    rules = _match_rules(args)
    order = _order(args.order)
    side_a, side_b = inventory([args.file_a], raw), inventory([args.file_b], raw)
    opener = TensorOpener()
    try:
        matching = match_tensors(side_a.tensors, side_b.tensors, rules, order=order,
                                 shape_of=lambda t: _shape(opener, t))
    finally:
        opener.close_all()
    work_limit = None if args.no_limit else MODEL_WORK_LIMIT
    total = diff_work(matching)
    if total >= 1 << 26:
        print(f"note: comparing {len(matching.pairs):,} tensor pairs, {total:,} element pairs", file=sys.stderr,
              flush=True)
    with cluster_of(args) as cluster:
        diffs = list(diff_pairs(matching, rtol=args.rtol, atol=args.atol, ulp=args.ulp, bitwise=args.bitwise,
                                nan_policy=args.nan_policy, top=args.limit, work_limit=work_limit, cluster=cluster))
    if args.json:
        sys.stdout.write(json.dumps(_document(args, side_a, side_b, matching, diffs)) + "\n")
    else:
        sys.stdout.write(_text(args, side_a, side_b, matching, diffs))
    if side_a.errors or side_b.errors or any(d.status == "error" for d in diffs):
        return EXIT_ERROR
    return EXIT_WITHIN if all(d.within for d in diffs) else EXIT_OVER


def _shape(opener: TensorOpener, tensor: ModelTensor) -> tuple | None:
    if tensor.entry is not None:
        return tuple(tensor.entry.shape)
    try:
        opened = opener.open(tensor)
    except CoreError:
        return None
    try:
        return opened.shape
    finally:
        opener.close(opened)


# ----------------------------------------------------------------------------- text
_HEADER = ["status", "name", "dtype", "shape", "over tol", "max abs", "cosine", "SNR dB", "note"]
_SHOWN = [PAIR_COLUMNS.index(name) for name in _HEADER]


def _row(d: PairDiff) -> list[str]:
    cells = pair_cells(d)
    return [cells[i] for i in _SHOWN]


def _table(rows: list[list[str]]) -> list[str]:
    widths = [max(len(row[i]) for row in rows) for i in range(len(_HEADER))]
    widths[1] = min(widths[1], 60)
    out = []
    for row in rows:
        cells = [c.ljust(w) if i in (0, 1, 2, 3, 8) else c.rjust(w) for i, (c, w) in enumerate(zip(row, widths))]
        out.append("  ".join(cells).rstrip())
    return out


def _side_line(name: str, path: str, side: Inventory) -> str:
    return f"{name}: {printable_name(path)} ({len(side.tensors):,} tensors)"


def _details(d: PairDiff) -> list[str]:
    r = d.result
    out = [f"{printable_name(d.pair.key)}: {d.status}" + (f" ({d.reason})" if d.reason else "")]
    out.append(f"  rule: {r.rules.describe()}")
    out.append(f"  {r.summary()}")
    if r.max_absolute is None:
        out.append("  no pair of finite values: the error figures are undefined")
    else:
        out.append(f"  max abs {format_difference(r.max_absolute.value)}, max rel {format_difference(r.max_relative.value)}, "
                   f"max ULP {r.max_ulp.value}, mean abs {format_difference(r.mean_absolute)}, RMS {format_difference(r.rms)}")
    g = r.agreement
    if g is not None:
        out.append(f"  cosine {figure_text(g.cosine, 'similarity')}, Pearson {figure_text(g.pearson, 'similarity')}, "
                   f"SNR {figure_text(g.snr_db, 'db')} dB, PSNR {figure_text(g.psnr_db, 'db')} dB, "
                   f"median |a - b| {figure_text(g.quantile('median'), 'quantile')}, "
                   f"p99 {figure_text(g.quantile('p99'), 'quantile')}")
    if r.worst:
        out.append("  worst elements:")
        out += ["  " + line for line in r.mismatch_lines(r.worst)]
    return out


def _text(args, side_a: Inventory, side_b: Inventory, matching: Matching, diffs: list[PairDiff]) -> str:
    lines = [_side_line("A", args.file_a, side_a), _side_line("B", args.file_b, side_b)]
    lines += [f"note: {note}" for note in matching.notes]
    shown = ranked(diffs) if args.sort == "worst" else diffs
    lines += _table([_HEADER] + [_row(d) for d in shown])
    first = first_divergent(diffs)
    if first is None:
        lines.append("first divergent: none (every pair in order is within tolerance or only on one side)")
    else:
        after = [d for d in diffs if d.index > first.index and d.divergent]
        lines.append(f"first divergent: {printable_name(first.pair.key)} (pair {first.index + 1:,} of {len(diffs):,} in "
                     f"{'the --order file' if args.order else 'order'}); {len(after):,} more over tolerance after it"
                     + (": " + ", ".join(printable_name(d.pair.key) for d in after[:8]) + (" ..." if len(after) > 8 else "")
                        if after else ""))
    detailed = [d for d in ranked(diffs) if d.result is not None and d.status in ("differs", "shape differs")][:DETAILED]
    for d in detailed:
        lines += _details(d)
    for side, found in (("A", side_a), ("B", side_b)):
        for problem in found.skipped:
            where = printable_name(problem.path) + (f" '{printable_name(problem.name)}'" if problem.name else "")
            lines.append(f"skipped ({side}): {where}: {problem.message}")
        for problem in found.errors:
            lines.append(f"error ({side}): {problem.message}")
    counts = {status: sum(1 for d in diffs if d.status == status) for status in STATUSES}
    summary = ", ".join(f"{counts[s]:,} {s}" for s in STATUSES if counts[s])
    verdict = "every pair within tolerance" if all(d.within for d in diffs) else "not within tolerance"
    lines.append(f"{len(diffs):,} pairs: {summary or 'none'}; {verdict}")
    return "\n".join(lines) + "\n"


# ----------------------------------------------------------------------------- JSON
def _side_json(tensor: ModelTensor | None, dtype, shape) -> dict | None:
    if tensor is None:
        return None
    return {"file": tensor.path, "name": tensor.name, "dtype": dtype, "shape": None if shape is None else list(shape)}


def _pair_json(d: PairDiff) -> dict:
    item = {"name": d.pair.key, "index": d.index, "status": d.status, "within": d.within,
            "a": _side_json(d.pair.a, d.dtype_a, d.shape_a), "b": _side_json(d.pair.b, d.dtype_b, d.shape_b),
            "reason": d.reason, "compare": None}
    if d.result is not None:
        item["compare"] = d.result.to_json()
    return item


def _document(args, side_a: Inventory, side_b: Inventory, matching: Matching, diffs: list[PairDiff]) -> dict:
    first = first_divergent(diffs)
    shown = ranked(diffs) if args.sort == "worst" else diffs
    counts = {status: sum(1 for d in diffs if d.status == status) for status in STATUSES}
    problems = []
    for side, found in (("a", side_a), ("b", side_b)):
        problems += [{"side": side, "file": p.path, "error": p.message} for p in found.errors]
    skipped = [{"side": side, "file": p.path, "name": p.name, "reason": p.message}
               for side, found in (("a", side_a), ("b", side_b)) for p in found.skipped]
    return {
        "a": {"path": args.file_a, "tensors": len(side_a.tensors)},
        "b": {"path": args.file_b, "tensors": len(side_b.tensors)},
        "match": {"mode": args.match, "notes": list(matching.notes)},
        "sort": args.sort,
        "pairs": [_pair_json(d) for d in shown],
        "first_divergent": None if first is None else {"name": first.pair.key, "index": first.index},
        "after_first_divergent": [] if first is None else
        [d.pair.key for d in diffs if d.index > first.index and d.divergent],
        "errors": problems, "skipped": skipped,
        "summary": {"pairs": len(diffs), **{s.replace(" ", "_"): counts[s] for s in STATUSES},
                    "within": all(d.within for d in diffs)},
    }
