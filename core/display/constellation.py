"""The points of a constellation plot (I against Q) of a 1-d complex signal: a bounded, deterministic sample.

Pure numpy. A capture of 10**8 samples cannot be scattered point by point, and reading it whole
would take seconds; the constellation shows a sample instead, the same one every time.

Rules
-----
* A signal of at most ``max_points`` samples is shown whole.
* A longer one is read as ``runs`` contiguous runs of ``run_length`` samples
  (``runs = max_points // run_length``), whose starts are spread evenly from the first sample
  to the last run that fits: ``start_k = (k * (n - run_length)) // (runs - 1)``. Runs keep
  neighbouring samples together (transitions between symbols stay visible) and each run is one
  ``pread`` through a :class:`core.scan.blocks.BlockReader`, so the file is read in a few
  hundred small reads whatever its size, and a file that shrank raises ``SourceError``.
* Points are float64 ``(index, I, Q)``: ``I = z.real``, ``Q = z.imag`` exactly.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import numpy as np

if TYPE_CHECKING:  # duck-typed: core.display imports no scanning code (see __init__)
    from core.scan.blocks import BlockReader

__all__ = ["ConstellationSample", "DEFAULT_MAX_POINTS", "DEFAULT_RUN_LENGTH", "constellation_sample"]

#: Points a constellation shows at most.
DEFAULT_MAX_POINTS = 65_536
#: Contiguous samples per run of a sampled constellation.
DEFAULT_RUN_LENGTH = 256


@dataclass(frozen=True)
class ConstellationSample:
    """The points shown: ``indices[k]`` is the sample whose value is ``i[k] + 1j * q[k]``.

    ``total`` is the signal's length; ``is_sample`` says whether only part of it is shown.
    """

    indices: np.ndarray
    i: np.ndarray
    q: np.ndarray
    total: int

    @property
    def is_sample(self) -> bool:
        return len(self.indices) < self.total


def constellation_sample(signal: np.ndarray, reader: BlockReader | None = None, *,
                         max_points: int = DEFAULT_MAX_POINTS,
                         run_length: int = DEFAULT_RUN_LENGTH) -> ConstellationSample:
    """The points of ``signal``'s constellation (rules: module docstring).

    Parameters
    ----------
    signal
        A 1-d complex array, typically a view of a memory map.
    reader
        Reads the runs with ``pread`` (``PipelineResult.block_reader()``); None indexes the
        array directly (memory not backed by a file).
    max_points, run_length
        Bounds of the sample (both at least 1; ``run_length`` is capped at ``max_points``).

    Raises
    ------
    ValueError
        ``signal`` is not 1-d or ``max_points`` / ``run_length`` is below 1.
    TypeError
        ``signal`` is not complex.
    core.errors.SourceError
        The file behind ``signal`` shrank while it was read.
    """
    signal = np.asarray(signal)
    if signal.ndim != 1:
        raise ValueError(f"a constellation needs a 1-d signal, got shape {signal.shape}")
    if signal.dtype.kind != "c":
        raise TypeError(f"a constellation needs complex values (I + jQ), got dtype {signal.dtype}")
    if max_points < 1 or run_length < 1:
        raise ValueError(f"max_points and run_length must be at least 1, got {max_points} and {run_length}")
    n = len(signal)
    run_length = min(run_length, max_points)
    if n <= max_points:
        starts = np.array([0], dtype=np.int64) if n else np.zeros(0, dtype=np.int64)
        run_length = n
    else:
        runs = max(max_points // run_length, 1)
        if runs == 1:
            starts = np.array([0], dtype=np.int64)
        else:
            starts = np.array([(k * (n - run_length)) // (runs - 1) for k in range(runs)], dtype=np.int64)
    read = (lambda view: np.array(view)) if reader is None else reader.read
    pieces = [read(signal[start:start + run_length]) for start in starts.tolist()]
    values = np.concatenate(pieces) if pieces else np.zeros(0, dtype=signal.dtype)
    indices = (starts[:, None] + np.arange(run_length)[None, :]).reshape(-1) if len(starts) else np.zeros(0, np.int64)
    return ConstellationSample(indices=indices, i=values.real.astype(np.float64),
                               q=values.imag.astype(np.float64), total=n)
