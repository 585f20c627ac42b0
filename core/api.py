"""The engine as a library: thin functions over the pipeline, containers, compare, guess,
statistics and export (the page is docs/api.md; its examples run in the tests).

Nothing here computes anything of its own: each function opens, runs or forwards to the one
implementation (:class:`core.pipeline.pipeline.Pipeline`, :mod:`core.formats.registry`,
:mod:`core.compare.scanner`, :mod:`core.guess.ranking`, :mod:`core.scan.statistics`,
:mod:`core.export.arrays`). A *target* is what :class:`~core.pipeline.pipeline.Pipeline` opens:
a path, several paths (a batch), or an object in memory (bytes, a list of bytes, a numpy array,
a tensor; :mod:`core.files.memory`).
"""

from __future__ import annotations

import dataclasses
import os
from typing import Any

import numpy as np

from core.compare.result import CompareResult
from core.compare.scanner import Side, compare_sides
from core.errors import ContainerError
from core.export.arrays import export_view
from core.formats.entry import find_entry
from core.formats.reader import HeaderReader
from core.formats.registry import list_container
from core.formats.values import open_entry
from core.pipeline.pipeline import DecodeParams, Pipeline, PipelineResult
from core.pipeline.view_target import ViewTarget
from core.scan.cluster import BlockRunner, Cluster, ClusterSpec, connect
from core.scan.statistics import Statistics, compute_statistics
from core.slicing.expr import parse_slice

__all__ = ["compare_values", "export_values", "read_values", "open_pipeline", "run", "slice_array", "statistics",
           "tensor"]


def open_pipeline(target: object) -> Pipeline:
    """Open a target (paths, or an object in memory) once, to :func:`run` it with any options.

    Use it as a context manager (``with open_pipeline(path) as pipe:``) to release the files.

    Raises
    ------
    SourceError
        The files or the object cannot be used (the message names the problem and the fix).
    """
    return Pipeline(target)


def run(pipeline: Pipeline, slice: str = "", params: DecodeParams | None = None,
        **options: Any) -> PipelineResult:
    """Decode, reshape and slice an open pipeline: :meth:`Pipeline.run
    <core.pipeline.pipeline.Pipeline.run>` with ``params`` (or defaults) changed by ``options``
    (:class:`~core.pipeline.pipeline.DecodeParams` fields) and a slice expression.

    The result keeps byte provenance (``result.byte_offset(index)``) and views the source.

    Raises
    ------
    TypeError
        An option that is not a ``DecodeParams`` field.
    CoreError
        As :meth:`Pipeline.run <core.pipeline.pipeline.Pipeline.run>`, and ``SliceError`` for a
        slice that does not parse.
    """
    params = dataclasses.replace(params if params is not None else DecodeParams(), **options)
    return pipeline.run(params, parse_slice(slice))


def read_values(target: object, slice: str = "", params: DecodeParams | None = None,
           **options: Any) -> np.ndarray:
    """The values a target shows with these options: :func:`run`'s view, as a new array.

    ``target`` may be an open :class:`~core.pipeline.pipeline.Pipeline` (left open); anything
    else is opened and closed again. Files are read with ``pread`` (never through the map), so
    the array stays valid after they are closed.

    Raises
    ------
    CoreError
        As :func:`open_pipeline` and :func:`run`.
    """
    pipeline = target if isinstance(target, Pipeline) else Pipeline(target)
    try:
        result = run(pipeline, slice, params, **options)
        return np.array(result.block_reader().read(result.view), copy=True)
    finally:
        if pipeline is not target:
            pipeline.close()


def tensor(path: str | os.PathLike, name: str, slice: str = "", **options: Any) -> np.ndarray:
    """The values of the tensor called ``name`` in a container file (safetensors, npz, TFLite,
    GGUF, HDF5, TFRecord...; :func:`core.formats.registry.list_file` lists them), opened as the
    command's ``--tensor`` opens it (:func:`core.formats.values.open_entry`): a view, or the copy
    or computed values of its format (a compressed npz member decompressed, a quantized GGUF
    tensor dequantized...). ``options`` (DecodeParams fields) override the entry's, as on the
    command line.

    Raises
    ------
    ContainerError
        No tensor of that name, or one that cannot be shown (the message lists the names).
    CoreError
        As :func:`read_values`.
    """
    with Pipeline(os.fspath(path)) as pipeline:
        listing = list_container(HeaderReader(pipeline.source, 0))
        if listing is None:
            raise ContainerError(f"'{os.fspath(path)}' is not a container file this tool lists "
                                 "(open it with read_values() and explicit options)", field="files")
        opened = open_entry(pipeline.source, listing, find_entry(listing, name), DecodeParams(**options))
        if not opened.owned:
            return read_values(pipeline, slice, opened.params)
        with Pipeline(opened.source) as shown:
            return read_values(shown, slice, opened.params)


def slice_array(array: Any, expression: str) -> np.ndarray:
    """``tf.strided_slice`` of any array by a slice expression such as ``"[1:, ::2, tf.newaxis]"``
    (a view when numpy can give one).

    Raises
    ------
    SliceError
        The expression does not parse, or the array refuses it (TensorFlow's message).
    """
    return np.asarray(parse_slice(expression).apply(np.asarray(array)))


def statistics(values: PipelineResult | Any, bins: int = 64, *, cluster: ClusterSpec | Cluster | None = None,
               slice: str = "", params: DecodeParams | None = None, **options: Any) -> Statistics:
    """:func:`core.scan.statistics.compute_statistics` of a result's view (read in blocks with
    its block reader), of any numeric array, or of files: a path, URL or list of them, decoded
    with ``params`` changed by ``options`` and sliced by ``slice``.

    With ``cluster`` (a :class:`~core.scan.cluster.ClusterSpec` to connect to, or a connected
    :class:`~core.scan.cluster.Cluster`), files are scanned on that Dask cluster, each worker
    opening them itself: the same figures as here (docs/cluster.md).

    Raises
    ------
    CoreError
        As :func:`~core.scan.statistics.compute_statistics` (e.g. a file that changed); a cluster
        that cannot be reached or goes away; ``cluster`` with values that are not files.
    """
    if isinstance(values, (str, os.PathLike, list, tuple)) and not isinstance(values, np.ndarray) \
            and all(isinstance(v, (str, os.PathLike)) for v in ([values] if isinstance(values, (str, os.PathLike))
                                                                else values)):
        paths = [os.fspath(values)] if isinstance(values, (str, os.PathLike)) else [os.fspath(v) for v in values]
        decode = dataclasses.replace(params if params is not None else DecodeParams(), **options)
        spec = parse_slice(slice)
        with Pipeline(paths) as pipeline:
            result = pipeline.run(decode, spec)
            if cluster is None:
                return compute_statistics(result.view, bins=bins, reader=result.block_reader())
            target = ViewTarget(tuple(paths), decode, spec)
            if isinstance(cluster, Cluster):
                return compute_statistics(result.view, bins=bins, runner=BlockRunner(cluster, target))
            with connect(cluster) as connected:
                return compute_statistics(result.view, bins=bins, runner=BlockRunner(connected, target))
    if cluster is not None:
        raise ContainerError("statistics on a cluster take files (a path, URL or list of them): each worker "
                             "opens them itself", field="cluster")
    if isinstance(values, PipelineResult):
        return compute_statistics(values.view, bins=bins, reader=values.block_reader())
    return compute_statistics(np.asarray(values), bins=bins)


def compare_values(a: PipelineResult | Any, b: PipelineResult | Any, **options: Any) -> CompareResult:
    """:func:`core.compare.scanner.compare_sides` of two results or arrays (B is the reference).

    ``options``: ``rtol``, ``atol``, ``ulp``, ``bitwise``, ``nan_policy``, ``shift``,
    ``list_limit`` (docs/compare.md).

    Raises
    ------
    CoreError
        Shapes that do not broadcast, types that cannot be compared, bad tolerances.
    """
    return compare_sides(_side(a), _side(b), **options)


def export_values(values: PipelineResult | Any, path: str | os.PathLike, fmt: str | None = None,
           **options: Any) -> int:
    """:func:`core.export.arrays.export_view` of a result's view or of an array, to ``path``.

    ``fmt`` is ``"npy"``, ``"bin"`` or ``"csv"`` (None: from the file name's suffix); other
    ``options`` (``dtype``, ``little_endian``, ``csv_decimals``, ``source_paths``) go to
    ``export_view``. Returns what it returns (the bytes written).

    Raises
    ------
    CoreError
        An unknown format, a destination that is an input file, a failed write.
    """
    if fmt is None:
        fmt = os.path.splitext(os.fspath(path))[1].lstrip(".").lower()
    if isinstance(values, PipelineResult):
        return export_view(values.view, path, fmt, reader=values.block_reader(), **options)
    return export_view(np.asarray(values), path, fmt, **options)


def _side(values: PipelineResult | Any) -> Side:
    if isinstance(values, PipelineResult):
        return Side.of(values)
    return Side(np.asarray(values))
