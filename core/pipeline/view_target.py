"""A view named by what opens it: files (paths or URLs), decode parameters and a slice, so that
another process (a Dask worker: :mod:`core.scan.cluster`) opens the same view of the same bytes.

Rules: a :class:`ViewTarget` is small and picklable (paths, :class:`DecodeParams`, a
:class:`~core.slicing.spec.SliceSpec` or None); :meth:`ViewTarget.open` opens it read-only in the
calling process and keeps it open there (at most :data:`OPEN_TARGETS` targets per process,
least recently used closed first), so the tasks of one run open their files once per worker.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from dataclasses import dataclass

import numpy as np

from core.pipeline.params import DecodeParams
from core.pipeline.pipeline import Pipeline
from core.scan.blocks import BlockReader

__all__ = ["OPEN_TARGETS", "ViewTarget"]

#: Targets one process keeps open.
OPEN_TARGETS = 8

_lock = threading.Lock()
_open: OrderedDict[ViewTarget, tuple[Pipeline, np.ndarray, BlockReader]] = OrderedDict()


@dataclass(frozen=True)
class ViewTarget:
    """Files, decode parameters and a slice that give one view (module rules)."""

    paths: tuple[str, ...]
    params: DecodeParams
    slice_spec: object = None  # a SliceSpec (None: the whole tensor)

    def open(self) -> tuple[np.ndarray, BlockReader]:
        """The view and a block reader of it, opened in this process (kept open, module rules).

        Raises
        ------
        CoreError
            The files cannot be opened here, or the parameters or slice do not apply.
        """
        with _lock:
            found = _open.get(self)
            if found is not None:
                _open.move_to_end(self)
                return found[1], found[2].twin()
        pipeline = Pipeline(list(self.paths))
        try:
            result = pipeline.run(self.params, self.slice_spec)
            opened = (pipeline, result.view, result.block_reader())
        except BaseException:
            pipeline.close()
            raise
        with _lock:
            if self in _open:  # opened meanwhile by another thread: keep that one
                pipeline.close()
                opened = _open[self]
            _open[self] = opened
            while len(_open) > OPEN_TARGETS:
                _open.popitem(last=False)[1][0].close()
        return opened[1], opened[2].twin()
