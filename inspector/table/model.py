"""Qt table model over the plane of an N-d array that a :class:`DisplayAxes` puts on screen.

Like silx's ``ArrayTableModel`` it maps a table cell to a full element index and reads one
element per :meth:`ArrayTableModel.data` call, but it holds the array *by reference* (a
read-only ``np.memmap`` of a huge file stays on disk), emits ``dataChanged`` instead of a
reset when only values change, and pages sections so that more than ``2**31 - 1`` rows
(Qt's ``int`` limit) remain reachable.
"""

from __future__ import annotations

import numpy as np
from PySide6.QtCore import QAbstractTableModel, QModelIndex, QObject, QPersistentModelIndex, Qt, Signal
from PySide6.QtGui import QColor

from core.display.image_sampling import estimate_levels, subsample
from core.errors import CoreError, SourceError
from core.text.number_format import (
    FORMATS,
    classify_value,
    describe_special,
    format_value,
    value_formatter,
)
from inspector.state.display_axes import DisplayAxes
from inspector.state.view_options import ViewOptions, ViewOptionsModel
from inspector.table.tiles import LOADING, TILE, TileReader
from inspector.widgets import palette

SPECIAL_COLORS: dict[str, QColor] = {kind: QColor(color) for kind, color in palette.SPECIAL_VALUES.items()}
"""Text colour of special values (see :func:`core.text.number_format.classify_value`)."""


_ROOT = QModelIndex()
_CELL_FLAGS = Qt.ItemFlag.ItemIsEnabled | Qt.ItemFlag.ItemIsSelectable
_NO_FLAGS = Qt.ItemFlag.NoItemFlags
_HORIZONTAL = Qt.Orientation.Horizontal
_DISPLAY = int(Qt.ItemDataRole.DisplayRole)
_TOOLTIP = int(Qt.ItemDataRole.ToolTipRole)
_FOREGROUND = int(Qt.ItemDataRole.ForegroundRole)
_BACKGROUND = int(Qt.ItemDataRole.BackgroundRole)
_ALIGNMENT = int(Qt.ItemDataRole.TextAlignmentRole)
_RIGHT_ALIGNED = int(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)


def _dtype_label(dtype: np.dtype) -> str:
    """``"float32"``, or ``"float32, big-endian"`` when the bytes are not in native order."""
    order = {"<": "little", ">": "big"}.get(dtype.byteorder)
    if order is None or dtype.itemsize == 1:
        return dtype.name
    return f"{dtype.name}, {order}-endian"


def _viridis_lut() -> list[QColor]:
    import pyqtgraph as pg

    table = pg.colormap.get("viridis").getLookupTable(nPts=256, alpha=False)
    return [QColor(int(r), int(g), int(b)) for r, g, b in table]


class ArrayTableModel(QAbstractTableModel):
    """Read-only table of the plane of ``array`` chosen by a :class:`DisplayAxes`.

    Rules
    -----
    - 0-d: one cell (row header ``"()"``, column header ``"value"``); 1-d: one column
      (``"value"``) with the element index as row header; N-d: the plane of
      :meth:`DisplayAxes.plane` (rows = ``row_axis``, columns = ``col_axis``).
    - Headers are the *true* indices along the row / column axis, whatever the page.
    - Paging: at most ``max_rows`` rows and ``max_cols`` columns are exposed at once. The page
      starts at :attr:`row_offset` / :attr:`col_offset` (multiples of the page size);
      :meth:`show_cell` and :meth:`set_offsets` move it. Model row ``r`` is plane row
      ``row_offset + r``.
    - Same array shape and display axes (new values or dtype, another fixed index) ->
      ``dataChanged`` over the page, so scroll position and selection survive. Anything else
      (array shape, row/column axis, page) -> model reset, back to the first page.
    - Special values (NaN, +-inf, subnormal, -0) get a :data:`SPECIAL_COLORS` foreground, a
      tooltip sentence and :attr:`SpecialRole`; they get no heat-map background. With a value
      source (a comparison) the background is the source's for every cell, special or not.
    - The number format, decimals and heat map are view options
      (:class:`~inspector.state.view_options.ViewOptionsModel`, shared with the table panel and
      the document); the model reads them and repaints when they change.
    - Heat map: background from viridis over levels estimated by
      :func:`core.display.image_sampling.estimate_levels` (a strided subsample, never a full
      scan; the image plot's levels for the same plane); complex values by magnitude; text
      black or white for contrast.

    Parameters
    ----------
    display_axes : DisplayAxes, optional
        Shared display state; a private one is created if omitted.
    parent : QObject, optional
    view_options : ViewOptionsModel, optional
        The display choices (format, decimals, heat map); a private one is created if omitted.
    max_rows, max_cols : int
        Page sizes (both must be >= 1 and <= 2**31 - 1).
    """

    ValueRole = int(Qt.ItemDataRole.UserRole)
    """The element as indexing the array returns it (a numpy scalar)."""
    SpecialRole = ValueRole + 1
    """``classify_value`` of the element: ``"nan"``, ``"inf"``, ... or ``None``."""
    FullIndexRole = ValueRole + 2
    """The element's full N-d index tuple."""
    BookmarkRole = ValueRole + 3
    """The colour (``QColor``) of the bookmark that marks the element, or None (see
    :meth:`set_mark_source`)."""

    planeMoved = Signal()
    """The same rows and columns show another plane's values (a fixed axis moved): a view that
    sized itself to the old values (column widths) fits again."""

    LOADING_TEXT = "loading…"
    """What a cell shows while its values are fetched (a remote file's bytes not yet at hand)."""

    MAX_ROWS = 1_000_000
    MAX_COLS = 100_000
    HEAT_SAMPLE = 100_000
    TSV_MAX_CELLS = 1_000_000

    def __init__(
        self,
        display_axes: DisplayAxes | None = None,
        parent: QObject | None = None,
        *,
        view_options: ViewOptionsModel | None = None,
        max_rows: int = MAX_ROWS,
        max_cols: int = MAX_COLS,
    ) -> None:
        super().__init__(parent)
        if not (1 <= max_rows < 2**31 and 1 <= max_cols < 2**31):
            raise ValueError(f"page sizes must be in [1, 2**31 - 1], got {max_rows}, {max_cols}")
        self._axes = display_axes if display_axes is not None else DisplayAxes(self)
        self._options = view_options if view_options is not None else ViewOptionsModel(self._axes, parent=self)
        self._max_rows, self._max_cols = int(max_rows), int(max_cols)
        self._array: np.ndarray = np.empty((0, 0))
        self._plane: np.ndarray = self._array
        self._key: tuple = ()
        self._row_offset = self._col_offset = 0
        self._stored_bits: int | None = None  # int4 / int24: the hex of their stored bits
        # The options' current value, as its changed signal last gave it (read per painted cell:
        # a plain attribute costs a fifth of the model's property).
        self._painted = self._options.value
        self._levels: tuple[float, float] | None = None
        self._lut: list[QColor] | None = None
        self._setting_array = False
        self._cell_key: tuple[int, int] | None = None  # last cell read by data()
        self._cell_cache: tuple = ()
        self._value_source = None  # see set_value_source
        self._reader = None  # see set_array
        self._tiles = TileReader(self._on_tile_fetched, self)  # the cells of a file-backed plane
        self._mark_source = None  # see set_mark_source
        self._origin_source = None  # see set_origin_source
        self._axes.changed.connect(self._on_axes_changed)
        self._options.changed.connect(self._on_options_changed)
        if self._painted.heat_map:
            self._lut = _viridis_lut()

    # ------------------------------------------------------------------------ properties
    @property
    def display_axes(self) -> DisplayAxes:
        return self._axes

    @property
    def array(self) -> np.ndarray:
        """The array given to :meth:`set_array` (the same object, never a copy)."""
        return self._array

    @property
    def plane(self) -> np.ndarray:
        """The displayed plane: a view of :attr:`array` (0-, 1- or 2-d)."""
        return self._plane

    @property
    def plane_shape(self) -> tuple[int, int]:
        """(rows, columns) of the whole plane, all pages together (0-d: (1, 1))."""
        if self._plane.ndim == 0:
            return 1, 1
        if self._plane.ndim == 1:
            return self._plane.shape[0], 1
        return self._plane.shape[0], self._plane.shape[1]

    @property
    def row_offset(self) -> int:
        return self._row_offset

    @property
    def col_offset(self) -> int:
        return self._col_offset

    @property
    def page_size(self) -> tuple[int, int]:
        """(max_rows, max_cols) exposed to Qt at once."""
        return self._max_rows, self._max_cols

    @property
    def view_options(self) -> ViewOptionsModel:
        return self._options

    @property
    def number_format(self) -> tuple[str, int]:
        """(format name, decimals) used for display, tooltips and TSV (the view options')."""
        options = self._options.value
        return options.table_format, options.table_decimals

    @property
    def heat_map(self) -> bool:
        return self._options.value.heat_map

    @property
    def heat_levels(self) -> tuple[float, float] | None:
        """Levels of the heat map (estimated from a subsample), ``None`` when off or unknown."""
        return self._levels if self.heat_map else None

    # ------------------------------------------------------------------------ setters
    def set_array(self, array: np.ndarray, stored_bits: int | None = None, reader=None) -> None:
        """Show ``array`` (kept by reference) through the display axes.

        ``reader`` (a :class:`core.scan.blocks.BlockReader`) reads the values painted when the
        array views a file's map: tiles of :data:`TILE` x :data:`TILE` cells copied with
        ``pread``, so a file cut while the table paints shows "changed on disk" in its cells
        instead of faulting (SIGBUS). Without it the array is read directly (memory).

        Resets the display axes to the new shape when they describe another one (they keep
        their choices when ndim is unchanged). Same plane shape and axes as before -> ``dataChanged``; else a reset.
        ``stored_bits`` (4 for int4, 24 for int24: docs/semantics.md §2a) makes the hex and raw
        bits formats show the values' stored bits rather than those of their decoded type.
        """
        array = array if isinstance(array, np.ndarray) else np.asarray(array)
        self._cell_key = None
        self._array = array
        self._stored_bits = stored_bits
        self._reader = reader if reader is not None and array.size else None
        self._tiles.show(None, None)
        if self._axes.shape != array.shape:  # a document resets shared axes before we hear of it
            self._setting_array = True
            try:
                self._axes.reset(array.shape)
            finally:
                self._setting_array = False
        self._sync()

    def set_number_format(self, fmt: str, decimals: int | None = None) -> None:
        """Choose the text format (one of ``FORMATS``) and, optionally, the decimals (written
        through the view options).

        Raises
        ------
        ValueError
            If ``fmt`` is unknown or ``decimals`` outside 0 to
            :data:`~inspector.state.view_options.MAX_DECIMALS`.
        """
        if fmt not in FORMATS:
            raise ValueError(f"unknown number format {fmt!r}; expected one of {', '.join(FORMATS)}")
        decimals = self.number_format[1] if decimals is None else int(decimals)
        self._options.choose(table_format=fmt, table_decimals=decimals)

    def set_heat_map(self, enabled: bool) -> None:
        """Colour cell backgrounds by value (levels from a subsample of the plane); written
        through the view options."""
        self._options.choose(heat_map=bool(enabled))

    def _on_options_changed(self, options: ViewOptions) -> None:
        painted, self._painted = self._painted, options
        if (options.table_format, options.table_decimals) != (painted.table_format, painted.table_decimals):
            self._cell_key = None
            self._emit_page_changed([Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole])
        if options.heat_map != painted.heat_map:
            if options.heat_map and self._lut is None:
                self._lut = _viridis_lut()
            self._levels = self._estimate_levels(self._plane) if options.heat_map else None
            self._emit_page_changed([Qt.ItemDataRole.BackgroundRole, Qt.ItemDataRole.ForegroundRole])

    def set_value_source(self, source) -> None:
        """Show other values in the cells (e.g. a comparison's differences), or the array's
        own values again (``None``).

        ``source`` has ``dtype`` (of the values it gives), ``value(index)`` (the value at a
        full element index of the array, read when the cell is painted) and
        ``background(index)`` (a ``QColor`` or None). Call again when its values change.
        """
        self._value_source = source
        self._cell_key = None
        self._emit_page_changed([])

    @property
    def value_source(self):
        """The source given to :meth:`set_value_source`, or None."""
        return self._value_source

    def set_origin_source(self, origin) -> None:
        """``origin(full index) -> str | None`` names the file an element comes from in its
        tooltip (a batch of several files), or None: no file named."""
        self._origin_source = origin

    def set_mark_source(self, marks) -> None:
        """``marks(full index) -> QColor | None`` answers :attr:`BookmarkRole` (None: no marks);
        it is asked only for the cells a view paints. Repaints the page."""
        self._mark_source = marks
        self._emit_page_changed([self.BookmarkRole])

    def set_offsets(self, row_offset: int, col_offset: int) -> None:
        """Move the page so that it starts at the page containing (row_offset, col_offset)."""
        n_rows, n_cols = self.plane_shape
        row = min(max(int(row_offset), 0), max(n_rows - 1, 0))
        col = min(max(int(col_offset), 0), max(n_cols - 1, 0))
        rows_start = row - row % self._max_rows
        cols_start = col - col % self._max_cols
        if (rows_start, cols_start) != (self._row_offset, self._col_offset):
            self._cell_key = None
            self.beginResetModel()
            self._row_offset, self._col_offset = rows_start, cols_start
            self.endResetModel()

    # ------------------------------------------------------------------------ mapping
    def show_cell(self, row: int, col: int) -> QModelIndex:
        """Switch to the page holding plane cell (row, col) and return its model index.

        Raises
        ------
        IndexError
            If the cell is outside the plane.
        """
        n_rows, n_cols = self.plane_shape
        if not (0 <= row < n_rows and 0 <= col < n_cols):
            raise IndexError(f"cell ({row}, {col}) is outside the {n_rows} x {n_cols} plane")
        self.set_offsets(row, col)
        return self.index(row - self._row_offset, col - self._col_offset)

    def cell(self, index: QModelIndex) -> tuple[int, int]:
        """Plane (row, col) of a model index on the current page."""
        return self._row_offset + index.row(), self._col_offset + index.column()

    def element_index(self, index: QModelIndex) -> tuple[int, ...]:
        """Full N-d index of the element in model cell ``index`` (``()`` for 0-d)."""
        row, col = self.cell(index)
        return self._axes.full_index(row, col)

    #: Cells per side of a tile read at once through the block reader (:mod:`inspector.table.tiles`).
    TILE = TILE

    def value_at(self, row: int, col: int, wait: bool = True):
        """The element in plane cell (row, col) (one element read, as a numpy scalar).

        ``wait=False`` (painting): a cell whose bytes are still to be fetched (a remote file)
        gives a placeholder at once and its tile is fetched in the background (the cells are
        repainted when it is in); ``wait=True`` reads it now.

        Raises
        ------
        SourceError
            The file behind the array shrank (read through the block reader of
            :meth:`set_array`).
        """
        if self._reader is not None:
            return self._tiles.value(row, col, wait)
        if self._plane.ndim == 0:
            return self._plane[()]
        if self._plane.ndim == 1:
            return self._plane[row]
        return self._plane[row, col]

    def selection_text(self, top: int, left: int, bottom: int, right: int) -> str:
        """Tab-separated text of plane cells ``top..bottom`` x ``left..right`` (inclusive).

        Formatted like the display; rows end with ``"\\n"`` except the last one.

        Raises
        ------
        CoreError
            If the rectangle holds more than ``TSV_MAX_CELLS`` cells.
        """
        cells = (bottom - top + 1) * (right - left + 1)
        if cells > self.TSV_MAX_CELLS:
            raise CoreError(
                f"selection has {cells:,} cells; copying is limited to "
                f"{self.TSV_MAX_CELLS:,}: select fewer rows or columns"
            )
        fmt, decimals = self.number_format
        text_of = value_formatter(self._array.dtype, fmt, decimals, self._stored_bits)
        return "\n".join(
            "\t".join(text_of(self.value_at(r, c)) for c in range(left, right + 1))
            for r in range(top, bottom + 1)
        )

    # ------------------------------------------------------------------------ Qt overrides
    def rowCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        if parent.isValid():
            return 0
        return max(0, min(self._max_rows, self.plane_shape[0] - self._row_offset))

    def columnCount(self, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> int:
        if parent.isValid():
            return 0
        return max(0, min(self._max_cols, self.plane_shape[1] - self._col_offset))

    def index(self, row: int, column: int, parent: QModelIndex | QPersistentModelIndex = _ROOT) -> QModelIndex:
        # Skips QAbstractTableModel's hasIndex(), which calls rowCount/columnCount in Python for
        # every cell; a table has no children, so only the bounds matter.
        if parent.isValid() or row < 0 or column < 0:
            return QModelIndex()
        shape = self.plane_shape
        if row >= min(self._max_rows, shape[0] - self._row_offset) or column >= min(
            self._max_cols, shape[1] - self._col_offset
        ):
            return QModelIndex()
        return self.createIndex(row, column)

    def flags(self, index):
        return _CELL_FLAGS if index.isValid() else _NO_FLAGS

    def _text(self, value, dtype: np.dtype) -> str:
        """One cell's text in the current format (stored bits for int4/int24 in hex / bits)."""
        options, stored_bits = self._painted, self._stored_bits
        if stored_bits is None:
            return format_value(value, dtype, options.table_format, options.table_decimals)
        return value_formatter(dtype, options.table_format, options.table_decimals, stored_bits)(value)

    def data(self, index, role: int = Qt.ItemDataRole.DisplayRole):
        if not index.isValid():
            return None
        # PySide6 enum attribute lookups cost microseconds: compare plain ints (a hot path).
        role = int(role)
        if role == _ALIGNMENT:
            return _RIGHT_ALIGNED
        if role == self.FullIndexRole:
            return self.element_index(index)
        if role == self.BookmarkRole:
            marks = self._mark_source
            return None if marks is None else marks(self.element_index(index))
        if role not in self._VALUE_ROLES:
            return None
        # A view asks for several roles of one cell in a row: read and classify it once.
        row, col = self._row_offset + index.row(), self._col_offset + index.column()
        source = self._value_source
        dtype = self._array.dtype if source is None else source.dtype
        if self._cell_key == (row, col):
            value, special, text = self._cell_cache
        else:
            try:
                value = self.value_at(row, col, wait=False) if source is None \
                    else source.value(self._axes.full_index(row, col))
            except SourceError as error:  # the file shrank under the table: say so in the cell
                return self._gone(role, error)
            if value is LOADING:
                return self._loading_cell(role)
            special, text = classify_value(value, dtype), None
            self._cell_key, self._cell_cache = (row, col), (value, special, None)
        if role == _DISPLAY:
            if text is None:
                text = self._text(value, dtype)
                self._cell_cache = (value, special, text)
            return text
        if role == self.ValueRole:
            return value
        if role == self.SpecialRole:
            return special
        if role == _TOOLTIP:
            text = self._text(value, dtype)
            tip = f"{self._index_text(row, col)} = {text}  ({_dtype_label(dtype)})"
            origin = None if self._origin_source is None else self._origin_source(self._axes.full_index(row, col))
            if origin:
                tip += f"\nfrom {origin}"
            sentence = describe_special(value, dtype) if special else None
            return f"{tip}\n{sentence}" if sentence else tip
        if source is not None:
            # A comparison colours the pair, whatever the cell shows (NaN in A, in |A - B|...).
            background = source.background(self._axes.full_index(row, col))
            if special is not None:
                if role == _FOREGROUND:
                    return SPECIAL_COLORS[special]
                return background if role == _BACKGROUND else None
        elif special is not None:
            return SPECIAL_COLORS[special] if role == _FOREGROUND else None
        else:
            background = self._heat_color(value)
        if background is None:
            return None
        if role == _BACKGROUND:
            return background
        # Rec. 709 luma: dark text on light colours, light text on dark ones.
        luma = 0.2126 * background.redF() + 0.7152 * background.greenF() + 0.0722 * background.blueF()
        return QColor(Qt.GlobalColor.black if luma > 0.5 else Qt.GlobalColor.white)

    @staticmethod
    def _gone(role: int, error: SourceError):
        if role == _DISPLAY:
            return "changed on disk" if "changed" in error.message else "not readable"
        if role == _TOOLTIP:
            return error.message
        return None

    def _loading_cell(self, role: int):
        if role == _DISPLAY:
            return self.LOADING_TEXT
        if role == _TOOLTIP:
            return "these values are being fetched from the remote file"
        return None

    def _on_tile_fetched(self) -> None:
        """A tile's bytes arrived (or failed): repaint the page."""
        self._cell_key = None
        rows, cols = self.rowCount(), self.columnCount()
        if rows and cols:
            self.dataChanged.emit(self.index(0, 0), self.index(rows - 1, cols - 1))

    _VALUE_ROLES = frozenset(
        int(r) for r in (
            Qt.ItemDataRole.DisplayRole, Qt.ItemDataRole.ToolTipRole,
            Qt.ItemDataRole.ForegroundRole, Qt.ItemDataRole.BackgroundRole,
        )
    ) | {ValueRole, SpecialRole}

    def headerData(self, section: int, orientation, role: int = Qt.ItemDataRole.DisplayRole):
        role = int(role)
        if role != _DISPLAY and role != _TOOLTIP:
            return None
        ndim = self._axes.ndim
        if orientation == _HORIZONTAL:
            if ndim < 2:
                return "value"
            axis, true_index = self._axes.col_axis, self._col_offset + section
        else:
            if ndim == 0:
                return "()"
            axis, true_index = self._axes.row_axis, self._row_offset + section
        if role == _TOOLTIP:
            return f"axis {axis}, index {true_index}"
        return str(true_index)

    # ------------------------------------------------------------------------ internals
    def _index_text(self, row: int, col: int) -> str:
        index = self._axes.full_index(row, col)
        return "[" + ", ".join(str(i) for i in index) + "]"

    def _estimate_levels(self, plane: np.ndarray) -> tuple[float, float] | None:
        """Heat-map levels of ``plane``; None for a dtype without numbers (strings, records)."""
        try:
            if self._reader is not None and plane.size:  # pread, not the map (see set_array)
                plane = self._reader.read(subsample(plane, self.HEAT_SAMPLE))
            return estimate_levels(plane, max_samples=self.HEAT_SAMPLE)
        except (TypeError, SourceError):
            return None

    def _heat_color(self, value) -> QColor | None:
        if self._levels is None or self._lut is None or not self._painted.heat_map:
            return None
        try:
            x = abs(complex(value)) if self._array.dtype.kind == "c" else float(value)
        except (TypeError, ValueError):
            return None
        lo, hi = self._levels
        t = 0.5 if hi <= lo else (x - lo) / (hi - lo)
        return self._lut[int(round(min(max(t, 0.0), 1.0) * (len(self._lut) - 1)))]

    def _emit_page_changed(self, roles: list) -> None:
        rows, cols = self.rowCount(), self.columnCount()
        if rows and cols:
            self.dataChanged.emit(self.index(0, 0), self.index(rows - 1, cols - 1), roles)

    def _on_axes_changed(self) -> None:
        # While set_array resets the axes, or when a shared DisplayAxes was reset for an
        # array this model has not been given yet, the state does not describe our array.
        if self._setting_array or self._axes.shape != self._array.shape:
            return
        self._sync()

    def _sync(self) -> None:
        """Recompute the plane; ``dataChanged`` if only values can have changed, else reset."""
        if self._axes.shape != self._array.shape:
            return
        plane = self._axes.plane(self._array)
        if type(plane) is not np.ndarray:
            plane = plane.view(np.ndarray)  # np.memmap's Python-level __getitem__ costs per cell
        self._cell_key = None  # a moved fixed index shows other values in the same cells
        self._tiles.show(plane, self._reader)
        key = (self._array.shape, self._axes.row_axis, self._axes.col_axis)
        if key == self._key:
            self._plane = plane
            self._levels = self._estimate_levels(plane) if self.heat_map else None
            self._emit_page_changed([])
            self.planeMoved.emit()
            return
        self.beginResetModel()
        self._plane, self._key = plane, key
        self._row_offset = self._col_offset = 0
        self._levels = self._estimate_levels(plane) if self.heat_map else None
        self.endResetModel()
