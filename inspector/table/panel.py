"""The table of numbers: axis choosers, format controls, go-to box and a paged QTableView.

Thin: every number comes from :class:`ArrayTableModel`, every plane choice from the shared
:class:`DisplayAxes` (edited by :class:`AxesBar`), the format, decimals and heat map from the
view options (:class:`~inspector.state.view_options.ViewOptionsModel`: the controls show them
and write the user's choices there), every search from :class:`FindBar`. Child
widgets carry the stable object names listed in docs/ui-names.md (``"table.view"``,
``"table.format"``, ``"table.decimals"``, ``"table.heatMap"``, ``"table.message"``...) so
tests, automation and the main window can find them.
"""

from __future__ import annotations

import re

import numpy as np
from PySide6.QtCore import QEvent, QItemSelectionModel, QModelIndex, QObject, Qt, Signal
from PySide6.QtGui import QAction, QFontDatabase, QFontMetrics, QKeySequence
from PySide6.QtWidgets import (
    QAbstractItemView,
    QApplication,
    QCheckBox,
    QComboBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QSizePolicy,
    QSpinBox,
    QTableView,
    QToolButton,
    QVBoxLayout,
    QWidget,
)

from core.dtypes.table import packed_row
from core.errors import CoreError, describe_error
from core.scan.cluster import BlockRunner
from core.text.number_format import FORMATS
from inspector.state.display_axes import DisplayAxes, normalize_index
from inspector.state.document import Document
from inspector.state.view_options import MAX_DECIMALS, ViewOptions, ViewOptionsModel
from inspector.table.axes_bar import AxesBar
from inspector.table.find_bar import FindBar
from inspector.table.model import ArrayTableModel
from inspector.widgets import palette
from inspector.widgets.plain_text import display_name, make_plain, tooltip_text


def parse_index(text: str, shape: tuple[int, ...]) -> tuple[int, ...]:
    """Parse a full element index typed by the user, e.g. ``"1, 2, 3"`` for 3-d data.

    Rules: one integer per axis, separated by commas and/or spaces; optional surrounding
    ``()`` or ``[]``; ``_`` digit separators allowed (``3_000_000_000``); negative indices
    count from the end as in numpy. 1-d data takes a single number; 0-d data takes ``""`` or
    ``"()"``. Flat (raveled) indices are *not* accepted for N-d data: the table shows N-d
    positions, so the box speaks the same language.

    Raises
    ------
    CoreError
        If a token is not an integer or the number of indices differs from ``len(shape)``.
    IndexError
        If an index is out of bounds (numpy's message).
    """
    body = text.strip()
    if body[:1] in "([" and body[-1:] in ")]":
        body = body[1:-1]
    tokens = [t for t in re.split(r"[,\s]+", body) if t]
    values = []
    for token in tokens:
        try:
            values.append(int(token))
        except ValueError:
            raise CoreError(
                f"{token!r} is not an integer index; type one integer per axis, e.g. "
                f"{', '.join(str(min(1, max(d - 1, 0))) for d in shape) or '()'}"
            ) from None
    return normalize_index(tuple(values), shape)


class TablePanel(QWidget):
    """Axis choosers, number-format controls and a paged table of one plane of an array.

    Rules
    -----
    - :meth:`set_array` keeps the display-axis choices when ndim is unchanged; a new array of
      the same shape refreshes values in place (scroll position and selection survive).
    - Row heights are uniform and fixed; column widths are measured from a few visible cells
      when the plane, page or format changes (the user can still drag them).
    - The go-to box takes a full N-d index (see :func:`parse_index`); errors appear in red next
      to it, never in a dialog. Jumping switches plane and page as needed and selects the
      element as a click on its cell would: in the document (status bar, plot marker, hex view
      and data inspector follow) and through :attr:`elementSelected`.
    - :attr:`elementSelected` is emitted with the full index (``()`` for 0-d) when the *user*
      makes a cell current (click, keyboard). :meth:`select_element` does not emit it, so a
      plot and a table that follow each other cannot ping-pong.
    - Ctrl+C (or the context menu) copies the bounding box of the selection as TSV, formatted
      as displayed; above ``ArrayTableModel.TSV_MAX_CELLS`` cells it refuses with a message.
    - Page buttons appear only when the plane has more rows or columns than one page.
    - Tab leaves the table (no tab-key navigation between cells: arrows move between cells), so
      the keyboard can reach every other panel.
    - The find bar (:meth:`find_bar`, hidden until opened) selects the next element that matches.

    - Built with a ``document``, the panel shows ``document.result.view`` through
      ``document.display_axes``, follows ``document.selection`` and writes the user's choice
      with ``document.select``: the selection lives in the document only.

    Parameters
    ----------
    display_axes : DisplayAxes, optional
        Shared display state (e.g. with a plot); a private one is created if omitted.
    parent : QWidget, optional
    document : Document, optional
        The document to show (its display axes and view options are used; ``display_axes`` and
        ``view_options`` must be omitted).
    view_options : ViewOptionsModel, optional
        The display choices; a private one is created if omitted.
    """

    elementSelected = Signal(object)

    def __init__(self, display_axes: DisplayAxes | None = None, parent: QWidget | None = None,
                 *, document: Document | None = None, view_options: ViewOptionsModel | None = None):
        super().__init__(parent)
        if document is not None:
            display_axes, view_options = document.display_axes, document.view_options
        self._axes = display_axes if display_axes is not None else DisplayAxes(self)
        self._options = view_options if view_options is not None else ViewOptionsModel(self._axes, parent=self)
        self._document = document
        self._model = ArrayTableModel(self._axes, self, view_options=self._options)
        self._selecting = False
        self._shown_format: tuple[str, int] | None = None  # what the column widths were fitted to
        self._build()
        self._show_options(self._options.value)
        self._options.changed.connect(self._show_options)
        self._model.modelReset.connect(self._on_model_reset)
        self._model.planeMoved.connect(self._fit_columns)  # another plane: other texts, other widths
        self._view.selectionModel().currentChanged.connect(self._on_current_changed)
        self._on_model_reset()
        if document is not None:
            document.attach_view(self)

    # ------------------------------------------------------------------------ public API
    @property
    def display_axes(self) -> DisplayAxes:
        return self._axes

    @property
    def view_options(self) -> ViewOptionsModel:
        """The display choices the controls show and write (the document's, with a document)."""
        return self._options

    @property
    def model(self) -> ArrayTableModel:
        return self._model

    @property
    def view(self) -> QTableView:
        return self._view

    @property
    def axes_bar(self) -> AxesBar:
        return self._axes_bar

    @property
    def find_bar(self) -> FindBar:
        return self._find_bar

    def set_array(self, array: np.ndarray, stored_bits: int | None = None, reader=None) -> None:
        """Show ``array`` (by reference; see :meth:`ArrayTableModel.set_array`; ``reader``
        reads the painted cells with ``pread`` when the array views a file's map)."""
        self._model.set_array(array, stored_bits, reader)
        self._fit_columns()

    def select_element(self, index: tuple) -> None:
        """Scroll to and select element ``index``, switching plane and page as needed.

        Negative indices count from the end. Does not emit :attr:`elementSelected`. If the
        element is already the current cell, the selection is left as it is.

        Raises
        ------
        ValueError
            If ``index`` does not have one entry per axis.
        IndexError
            If ``index`` is out of bounds.
        """
        index = normalize_index(tuple(index), self._model.array.shape)
        row, col = self._axes.locate(index)
        target = self._model.show_cell(row, col)
        if target == self._view.currentIndex():
            # Already current, e.g. echoed back by whoever listens to elementSelected: keep the
            # user's (possibly multi-cell) selection and scroll position.
            return
        self._selecting = True
        try:
            self._view.selectionModel().setCurrentIndex(
                target, QItemSelectionModel.SelectionFlag.ClearAndSelect)
        finally:
            self._selecting = False
        self._view.scrollTo(target, QAbstractItemView.ScrollHint.PositionAtCenter)

    def copy_selection(self) -> str | None:
        """Copy the selection's bounding box as TSV to the clipboard and return the text.

        Returns ``None`` (and shows why) when nothing is selected or the box is too large.
        """
        ranges = self._view.selectionModel().selection()
        if ranges.isEmpty():
            self._show_message("select cells to copy", error=True)
            return None
        top = min(r.top() for r in ranges)
        bottom = max(r.bottom() for r in ranges)
        left = min(r.left() for r in ranges)
        right = max(r.right() for r in ranges)
        r0, c0 = self._model.row_offset, self._model.col_offset
        try:
            text = self._model.selection_text(top + r0, left + c0, bottom + r0, right + c0)
        except ValueError as error:
            self._show_message(describe_error(error).message, error=True)
            return None
        QApplication.clipboard().setText(text)
        cells = (bottom - top + 1) * (right - left + 1)
        self._show_message(f"copied {cells:,} cell{'s' if cells != 1 else ''}", error=False)
        return text

    # ------------------------------------------------------------------------ Qt overrides
    def eventFilter(self, watched: QObject, event: QEvent) -> bool:
        # QTableView's own Ctrl+C copies only the current cell; take the key first.
        if (watched is self._view and event.type() == QEvent.Type.KeyPress
                and event.matches(QKeySequence.StandardKey.Copy)):
            self.copy_selection()
            return True
        return super().eventFilter(watched, event)

    # ------------------------------------------------------------------------ handlers
    def _on_result_changed(self, result) -> None:
        packed = packed_row(result.params.dtype) if result.params.view_as is None else None
        # Cells are painted from pread copies of the map (a file cut meanwhile: no SIGBUS).
        self.set_array(result.view, packed.stored_bits if packed is not None else None,
                       result.block_reader(1 << 20))
        paths = self._document.paths if self._document is not None else ()
        self._model.set_origin_source(_file_of(result, paths) if len(paths) > 1 else None)

    def _on_files_changed_on_disk(self, report) -> None:
        """The mapped bytes changed under the view: show nothing until a reload (never a mix)."""
        if report.invalidates_view:
            self.set_array(np.zeros((0,), np.uint8))

    def _on_document_closing(self) -> None:
        """The files close: stop searching them and let go of their arrays."""
        self._find_bar.cancel()
        self.set_array(np.zeros((0,), np.uint8))

    def _on_document_selection(self, index: tuple[int, ...] | None) -> None:
        if index is None:
            self._selecting = True
            try:
                self._view.selectionModel().clear()
            finally:
                self._selecting = False
            return
        try:
            self.select_element(index)
        except (ValueError, IndexError):
            pass  # not in the array shown (e.g. the view was dropped after its file shrank)

    def _on_current_changed(self, current: QModelIndex, _previous: QModelIndex) -> None:
        if not self._selecting and current.isValid():
            index = self._model.element_index(current)
            if self._document is not None:
                self._document.select(index)
            self.elementSelected.emit(index)

    def _on_format_chosen(self) -> None:
        self._options.choose(table_format=self._format_combo.currentText())

    def _on_decimals_chosen(self, decimals: int) -> None:
        self._options.choose(table_decimals=int(decimals))

    def _show_options(self, options: ViewOptions) -> None:
        """The controls show ``options`` (without emitting a choice); columns refit to a new format."""
        fmt = options.table_format
        refit, self._shown_format = self._shown_format != (fmt, options.table_decimals), (fmt, options.table_decimals)
        for widget in (self._format_combo, self._decimals_spin, self._heat_check):
            widget.blockSignals(True)
        self._format_combo.setCurrentText(fmt)
        self._decimals_spin.setValue(options.table_decimals)
        self._decimals_spin.setEnabled(fmt in ("fixed", "scientific"))
        self._heat_check.setChecked(options.heat_map)
        for widget in (self._format_combo, self._decimals_spin, self._heat_check):
            widget.blockSignals(False)
        if refit:
            self._fit_columns()

    def _find_source(self):
        """What the find bar searches: the array shown, its block reader, the selected element."""
        array = self._model.array
        if array is None or array.size == 0:
            return None, None, None
        result = self._document.result if self._document is not None else None
        reader = result.block_reader() if result is not None and result.view is array else None
        if self._document is not None:
            return array, reader, self._document.selection
        current = self._view.currentIndex()
        return array, reader, self._model.element_index(current) if current.isValid() else None

    def _find_runner(self, array) -> BlockRunner | None:
        """The search of the document's view on its Dask cluster, when one is connected."""
        document = self._document
        if document is None or document.result is None or document.result.view is not array:
            return None
        cluster, target = document.cluster.cluster(), document.view_target()
        return BlockRunner(cluster, target) if cluster is not None and target is not None else None

    def _on_found(self, index: tuple[int, ...]) -> None:
        if self._document is not None:
            self._document.select(index)  # the table follows the document's selection
        else:
            self.select_element(index)
            self.elementSelected.emit(index)

    def _on_heat_map_toggled(self, checked: bool) -> None:
        self._options.choose(heat_map=bool(checked))

    def _on_go_to_entered(self) -> None:
        try:
            index = parse_index(self._go_to.text(), self._model.array.shape)
            self.select_element(index)
        except (ValueError, IndexError) as error:
            self._show_message(describe_error(error).message, error=True)
            return
        self._show_message("", error=False)
        self._view.setFocus()
        # A jump is the user's choice of element, as a click is (select_element alone only
        # moves the cell, for selections that come from the document).
        if self._document is not None:
            self._document.select(index)
        self.elementSelected.emit(index)

    def _on_page_step(self, rows: int, cols: int) -> None:
        max_rows, max_cols = self._model.page_size
        self._model.set_offsets(self._model.row_offset + rows * max_rows,
                                self._model.col_offset + cols * max_cols)

    def _on_model_reset(self) -> None:
        self._fit_columns()
        self._update_page_controls()

    # ------------------------------------------------------------------------ internals
    def _build(self) -> None:
        self._axes_bar = AxesBar(self._axes, self)

        self._format_combo = QComboBox(self, objectName="table.format")
        self._format_combo.addItems(list(FORMATS))
        self._format_combo.setToolTip("Number format (hex and raw bits show the stored bits)")
        self._decimals_spin = QSpinBox(self, objectName="table.decimals")
        self._decimals_spin.setRange(0, MAX_DECIMALS)
        self._decimals_spin.setPrefix("decimals ")
        self._decimals_spin.setEnabled(False)
        self._heat_check = QCheckBox("heat map", self, objectName="table.heatMap")
        self._go_to = QLineEdit(self, objectName="table.goTo")
        self._go_to.setPlaceholderText("go to index, e.g. 1, 2, 3")
        self._go_to.setClearButtonEnabled(True)
        self._go_to.setMinimumWidth(QFontMetrics(self._go_to.font()).horizontalAdvance("0" * 16))
        self._message = QLabel(self, objectName="table.message")
        # Long messages must not widen the panel: the label may be cut, the tooltip is whole.
        self._message.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self._page_label = QLabel(self, objectName="table.pageLabel")
        make_plain(self._message, self._page_label)
        self._page_buttons = {}
        for key, text, tip, step in (
            ("up", "\u25b2", "Previous page of rows", (-1, 0)),
            ("down", "\u25bc", "Next page of rows", (1, 0)),
            ("left", "\u25c0", "Previous page of columns", (0, -1)),
            ("right", "\u25b6", "Next page of columns", (0, 1)),
        ):
            button = QToolButton(self, text=text, toolTip=tip,
                                 objectName=f"table.page{key.title()}")
            button.clicked.connect(lambda _=False, s=step: self._on_page_step(*s))
            self._page_buttons[key] = button

        controls = QHBoxLayout()
        controls.addWidget(self._format_combo)
        controls.addWidget(self._decimals_spin)
        controls.addWidget(self._heat_check)
        controls.addWidget(self._go_to, 1)
        controls.addWidget(self._message, 2)
        pages = QHBoxLayout()  # hidden unless the plane is larger than one page
        pages.addStretch(1)
        pages.addWidget(self._page_label)
        for button in self._page_buttons.values():
            pages.addWidget(button)

        self._view = QTableView(self, objectName="table.view")
        self._view.setModel(self._model)
        self._view.setFont(QFontDatabase.systemFont(QFontDatabase.SystemFont.FixedFont))
        self._view.setWordWrap(False)
        self._view.setTabKeyNavigation(False)  # Tab leaves the table: arrows move between cells
        self._view.setSelectionMode(QAbstractItemView.SelectionMode.ExtendedSelection)
        rows = self._view.verticalHeader()
        rows.setSectionResizeMode(QHeaderView.ResizeMode.Fixed)
        rows.setDefaultSectionSize(QFontMetrics(self._view.font()).height() + 6)
        self._view.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Interactive)
        copy = QAction("Copy as TSV", self._view)
        copy.setShortcut(QKeySequence.StandardKey.Copy)
        copy.setShortcutContext(Qt.ShortcutContext.WidgetShortcut)
        copy.triggered.connect(self.copy_selection)
        self._view.addAction(copy)
        self._view.setContextMenuPolicy(Qt.ContextMenuPolicy.ActionsContextMenu)
        self._view.installEventFilter(self)

        layout = QVBoxLayout(self)
        layout.addWidget(self._axes_bar)
        layout.addLayout(controls)
        layout.addLayout(pages)
        self._find_bar = FindBar(self._find_source, self._on_found, self, runner_of=self._find_runner)
        self._find_bar.closed.connect(self._view.setFocus)
        layout.addWidget(self._find_bar)
        layout.addWidget(self._view, 1)

        self._format_combo.currentIndexChanged.connect(self._on_format_chosen)
        self._decimals_spin.valueChanged.connect(self._on_decimals_chosen)
        self._heat_check.toggled.connect(self._on_heat_map_toggled)
        self._go_to.returnPressed.connect(self._on_go_to_entered)

    def _show_message(self, text: str, *, error: bool) -> None:
        self._message.setStyleSheet(palette.inline_style("error" if error else None))
        self._message.setText(text)
        self._message.setToolTip(tooltip_text(text))

    def _fit_columns(self) -> None:
        """Uniform column width from the texts of a few cells and the last header label."""
        model, metrics = self._model, QFontMetrics(self._view.font())
        # A small sample keeps a slice edit fast (every reset refits); wider values found later
        # can be widened by dragging the header.
        rows, cols = min(model.rowCount(), 12), min(model.columnCount(), 8)
        texts = [model.headerData(max(model.columnCount() - 1, 0), Qt.Orientation.Horizontal)]
        texts += [model.data(model.index(r, c)) for r in range(rows) for c in range(cols)]
        width = max(metrics.horizontalAdvance(t) for t in texts if t is not None) + 16
        header = self._view.horizontalHeader()
        # Also resizes existing sections (user-dragged ones too): a new format needs new widths.
        header.setDefaultSectionSize(min(max(width, 48), 640))

    def _update_page_controls(self) -> None:
        model = self._model
        (n_rows, n_cols), (max_rows, max_cols) = model.plane_shape, model.page_size
        paged_rows, paged_cols = n_rows > max_rows, n_cols > max_cols
        parts = []
        if paged_rows:
            last = model.row_offset + model.rowCount() - 1
            parts.append(f"rows {model.row_offset:,}\u2013{last:,} of {n_rows:,}")
        if paged_cols:
            last = model.col_offset + model.columnCount() - 1
            parts.append(f"columns {model.col_offset:,}\u2013{last:,} of {n_cols:,}")
        self._page_label.setText("; ".join(parts))
        self._page_label.setVisible(bool(parts))
        buttons = self._page_buttons
        for key, shown, enabled in (
            ("up", paged_rows, model.row_offset > 0),
            ("down", paged_rows, model.row_offset + max_rows < n_rows),
            ("left", paged_cols, model.col_offset > 0),
            ("right", paged_cols, model.col_offset + max_cols < n_cols),
        ):
            buttons[key].setVisible(shown)
            buttons[key].setEnabled(enabled)


def _file_of(result, paths):
    """``origin(index)`` for the table's tooltips: the file (and byte) an element of a batch
    comes from, by the result's byte map; None where it has none."""
    def origin(index):
        try:
            file_index, offset, _nbytes = result.byte_offset(tuple(index))
        except (IndexError, ValueError):
            return None
        return f"{display_name(paths[file_index])}, byte {offset:,}" if file_index < len(paths) else None
    return origin
