"""The table's reads of a file-backed plane: tiles of cells copied through the block reader.

Rules
-----
- A cell is read with its tile (:data:`TILE` x :data:`TILE` cells) through the result's
  :class:`core.scan.blocks.BlockReader` (``pread``, or a remote object's fetch), never from the
  map: a file cut while the table paints gives "changed on disk" in its cells, not SIGBUS.
  :data:`MAX_TILES` tiles are kept; scrolling back reads them again.
- Painting never waits for the network: when a tile's bytes must still come from a remote
  object, :meth:`TileReader.value` gives :data:`LOADING` at once and the tile is fetched in the
  background; ``fetched()`` is then called on the GUI thread (the model repaints). A fetch that
  failed is remembered: painting raises its error (the cell says why) instead of fetching again
  in a loop. A read that must answer (a copy of the selection) waits instead.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from PySide6.QtCore import QObject, Qt, Signal

from core.errors import SourceError, describe_error

__all__ = ["LOADING", "MAX_TILES", "TILE", "TileReader"]

#: Cells per side of a tile read at once through the block reader.
TILE = 64
#: Tiles kept (a screen shows a few; the rest are read again when scrolled back to).
MAX_TILES = 32
#: What :meth:`TileReader.value` gives for a cell whose bytes are being fetched.
LOADING = object()


class TileReader(QObject):
    """The tiles of one plane read through one block reader (module rules); ``fetched()`` runs
    on the GUI thread when a background fetch ended."""

    _arrived = Signal(object, object, object)  # (plane, tile key, error or None), from a fetch thread

    def __init__(self, fetched: Callable[[], None], parent: QObject | None = None) -> None:
        super().__init__(parent)
        self._fetched = fetched
        self._plane: np.ndarray | None = None
        self._reader = None
        self._tiles: dict[tuple[int, int], np.ndarray] = {}
        self._loading: set[tuple[int, int]] = set()
        self._failed: dict[tuple[int, int], SourceError] = {}
        self._arrived.connect(self._on_arrived, Qt.ConnectionType.QueuedConnection)

    def show(self, plane: np.ndarray | None, reader) -> None:
        """Read ``plane`` through ``reader`` from now on (None: nothing kept); drops every tile."""
        self._plane, self._reader = plane, reader
        self._tiles.clear()
        self._loading.clear()
        self._failed.clear()

    def value(self, row: int, col: int, wait: bool = True):
        """The cell's value (``wait=False``: :data:`LOADING` while its tile is fetched).

        Raises
        ------
        SourceError
            The tile could not be read (a file changed, a remote read failed).
        """
        plane = self._plane
        key = (row // TILE, col // TILE)
        values = self._tiles.get(key)
        if values is None:
            if key in self._loading and not wait:
                return LOADING
            failed = self._failed.get(key)
            if failed is not None and not wait:
                raise failed
            r0, c0 = key[0] * TILE, key[1] * TILE
            part = plane if plane.ndim == 0 else plane[r0:r0 + TILE] if plane.ndim == 1 \
                else plane[r0:r0 + TILE, c0:c0 + TILE]
            if not wait and self._reader.fetch_later(part, lambda error: self._arrived.emit(plane, key, error)):
                self._loading.add(key)
                return LOADING
            values = self._reader.read(part)
            if len(self._tiles) >= MAX_TILES:
                self._tiles.clear()
            self._tiles[key] = values
        if plane.ndim == 0:
            return values[()]
        if plane.ndim == 1:
            return values[row % TILE]
        return values[row % TILE, col % TILE]

    def _on_arrived(self, plane: np.ndarray, key: tuple[int, int], error: BaseException | None) -> None:
        if plane is not self._plane or key not in self._loading:
            return  # another plane since: nothing of it is shown
        self._loading.discard(key)
        if error is not None:
            self._failed[key] = error if isinstance(error, SourceError) \
                else SourceError(describe_error(error).message, field="files")
        self._fetched()
