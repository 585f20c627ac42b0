"""What every command of ``tensor-inspect`` shares: the parser whose errors are one line, the
decode and slice options (also the GUI entry point's), and the ``error:`` line that ends a
failed run.

Rules: a usage error, a bad option value, an unusable file or a decode error prints exactly one
line, ``error: <what is wrong> (<how to fix it>)``, on stderr and the command exits with status
2; never a traceback (unless ``TENSOR_INSPECTOR_DEBUG`` is set and the error is a bug, an
unexpected type). Values starting with "-" may follow ``--shape`` and ``--slice`` directly.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence

from core.decode.reshape import parse_shape
from core.errors import DEBUG_VARIABLE, CoreError, describe_error
from core.pipeline.pipeline import DecodeParams
from core.scan.cluster import Cluster, ClusterSpec, connect

__all__ = [
    "EXIT_ERROR", "CliArgumentParser", "OneLineErrorParser", "add_pipeline_options", "error_exit",
    "join_dash_values", "params_from_args", "parse_status", "silence_stdout",
]

#: The exit status after an ``error:`` line.
EXIT_ERROR = 2

_DASH_VALUE_OPTIONS = ("--shape", "--slice")


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
                       help="refuse the types beyond TF (uint32, uint64, float8, int4, int24...)")
    source = parser.add_argument_group("file layout")
    source.add_argument("--offset", metavar="N", type=int,
                        help="skip N header bytes in every file (default: .npy data offset, else 0)")
    source.add_argument("--record-size", metavar="N", type=int,
                        help="split the data into elements of N bytes (default: one element "
                             "per file); bytes after the last whole record are reported")
    source.add_argument("--length", metavar="N", type=int,
                        help="use N bytes of data after the offset in every file (default: to "
                             "the end of the file); the bytes after them are reported")
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
        extended_types=args.extended_types, length=args.length,
    )
    return params, args.slice, args.view_as



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



def parse_status(stop: SystemExit) -> int:
    """The exit status of an argparse exit: ``--help`` (0) or a usage error (2, already printed)."""
    return stop.code if isinstance(stop.code, int) else (0 if stop.code is None else EXIT_ERROR)


def error_exit(error: BaseException, expected: tuple[type[BaseException], ...] = (CoreError, OSError, IndexError)) -> int:
    """Print ``error``'s one line (:func:`core.errors.describe_error`) on stderr after what was
    written to stdout, and return :data:`EXIT_ERROR`.

    Raises
    ------
    BaseException
        ``error`` itself when ``TENSOR_INSPECTOR_DEBUG`` is set and it is not of an ``expected``
        type (a bug: the developer asked for the traceback).
    """
    if os.environ.get(DEBUG_VARIABLE) and not isinstance(error, expected):
        raise error
    sys.stdout.flush()
    print(f"error: {describe_error(error).message}", file=sys.stderr)
    return EXIT_ERROR


def silence_stdout() -> None:
    """After a broken pipe (piped into ``head``): send the rest of stdout to the null device, so
    the interpreter's final flush does not fail too."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())


#: Name used by the GUI entry point for the same parser class.
CliArgumentParser = OneLineErrorParser


def add_cluster_options(parser: argparse.ArgumentParser) -> None:
    """``--scheduler`` / ``--workers``: where whole-data work runs (:mod:`core.scan.cluster`)."""
    group = parser.add_argument_group("on a Dask cluster (pip install 'tensor-inspector[dask]')")
    where = group.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="ADDRESS",
                       help="run the work on the Dask cluster whose scheduler is at ADDRESS (tcp://host:8786; "
                            "default: the DASK_SCHEDULER_ADDRESS variable, else this machine's two threads)")
    where.add_argument("--workers", type=int, metavar="N",
                       help="run the work on a local Dask cluster of N worker processes, started and stopped here")


class cluster_of:  # noqa: N801 (a context manager used as a function)
    """``with cluster_of(args) as cluster:`` the cluster the options name (connected, its
    dashboard said on stderr), or None to run here; a local cluster stops at the end."""

    def __init__(self, args: argparse.Namespace) -> None:
        self._spec = ClusterSpec.from_options(getattr(args, "scheduler", None), getattr(args, "workers", None))
        self._cluster: Cluster | None = None

    def __enter__(self) -> Cluster | None:
        if self._spec is None:
            return None
        self._cluster = connect(self._spec)
        link = self._cluster.dashboard_link
        print(f"note: running on {self._cluster.name} ({self._cluster.workers()} workers"
              f"{'; dashboard ' + link if link else ''})", file=sys.stderr, flush=True)
        return self._cluster

    def __exit__(self, *exc_info) -> None:
        if self._cluster is not None:
            self._cluster.close()
