"""The Compare dock: B's files and decode override, the rule's settings, numpy's summary line, the
mismatch list with next / previous, B's bytes of the selected element, and copy as code.

Rules
-----
- Every control writes to the :class:`~inspector.state.comparison.Comparison` (the one owner of
  B and the settings) and the dock redraws from its signals; it keeps no state of its own
  except the list's sort order and the position of the last entry visited.
- Tolerance fields left empty use the type's default (shown as the placeholder); a text that
  is not a number, or a rule the engine refuses, is reported in ``compare.error``.
- The mismatch list holds the engine's bounded lists (:attr:`CompareResult.worst` by error,
  :attr:`CompareResult.first` by index); choosing an entry, or :meth:`ComparePanel.next_mismatch`
  / :meth:`ComparePanel.previous_mismatch` (F8 / Shift+F8 in the window), selects its element
  of A in the document, so the table, the plot, the hex view and the data inspector follow.
- ``compare.bBytes`` tells where B's element that meets the selected element of A lies in B's
  files (B's byte map), and both values; ``compare.hexB`` shows B's file there with those bytes
  highlighted, as the Bytes dock highlights A's (both byte ranges on screen at once).
"""

from __future__ import annotations

from PySide6.QtCore import QEvent, Qt, Signal
from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import (
    QAbstractItemView,
    QCheckBox,
    QComboBox,
    QFormLayout,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QProgressBar,
    QPushButton,
    QSpinBox,
    QTableWidget,
    QTableWidgetItem,
    QVBoxLayout,
    QWidget,
)

from core.compare.result import Mismatch
from core.compare.rules import default_tolerances
from core.dtypes.table import ENGINE_TYPES
from core.errors import ErrorReport, describe_error
from core.text.figures import format_difference
from core.text.number_format import format_value
from inspector.state.comparison import NAN_POLICIES, QUANTITIES, Comparison
from inspector.widgets import palette
from inspector.widgets.hex_view import HexView
from inspector.widgets.int_field import IntField
from inspector.widgets.plain_text import display_name, make_plain

__all__ = ["ComparePanel", "SORT_ORDERS"]

#: How the mismatch list is sorted: key -> label.
SORT_ORDERS = {"error": "largest error first", "index": "index order"}


class ComparePanel(QWidget):
    """The Compare dock's contents (rules: module docstring).

    Signals
    -------
    openRequested()
        The user asked to choose B's files (the window shows the file dialog).
    message(str)
        A one-line note for the status bar (e.g. what was copied).
    """

    openRequested = Signal()
    message = Signal(str)

    def __init__(self, comparison: Comparison, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._comparison = comparison
        self._document = comparison.document
        self._sort = "error"
        self._position = -1  # the list entry visited last
        self._updating = False

        self.open_button = QPushButton("Open B…")
        self.open_button.setObjectName("compare.openB")
        self.open_button.setToolTip("Choose the files of B, the reference A is compared with")
        self.close_button = QPushButton("Close B")
        self.close_button.setObjectName("compare.closeB")
        self.files_label = QLabel("No B: open the reference tensor to compare the view with it.")
        self.files_label.setObjectName("compare.bFiles")
        self.files_label.setWordWrap(True)
        self.back_button = QPushButton("◀ Back to pairs")
        self.back_button.setObjectName("compare.backToPairs")
        self.back_button.setToolTip("Return to the table of the two models' tensor pairs (Compare models)")
        self.back_button.hide()  # shown while two models are compared
        files_row = QHBoxLayout()
        files_row.addWidget(self.back_button)
        files_row.addWidget(self.open_button)
        files_row.addWidget(self.close_button)
        files_row.addWidget(self.files_label, 1)

        self.b_dtype = QComboBox()
        self.b_dtype.setObjectName("compare.bDtype")
        self.b_dtype.addItem("(A's type)", None)
        for name in ENGINE_TYPES:
            self.b_dtype.addItem(name, name)
        self.b_dtype.setToolTip("B's type; (A's type) follows the Decode dock")
        self.b_byte_order = QComboBox()
        self.b_byte_order.setObjectName("compare.bByteOrder")
        for text, value in (("(A's byte order)", None), ("little-endian", True), ("big-endian", False)):
            self.b_byte_order.addItem(text, value)
        self.b_byte_order.setToolTip("B's byte order; (A's byte order) follows the Decode dock")
        self.b_offset = IntField()
        self.b_offset.setObjectName("compare.bOffset")
        self.b_offset.setPlaceholderText("(A's offset)")
        self.b_offset.setToolTip("Bytes to skip in B's files (a header); empty: A's offset")
        override_row = QHBoxLayout()
        override_row.addWidget(self.b_dtype, 1)
        override_row.addWidget(self.b_byte_order, 1)
        for combo in (self.b_dtype, self.b_byte_order):  # narrow docks: the combos shrink, not the window
            combo.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
            combo.setMinimumContentsLength(8)

        self.rtol = QLineEdit()
        self.rtol.setObjectName("compare.rtol")
        self.atol = QLineEdit()
        self.atol.setObjectName("compare.atol")
        for field, name in ((self.rtol, "rtol"), (self.atol, "atol")):
            field.setToolTip(f"{name} of |a - b| <= atol + rtol * |b| (numpy's rule); empty: the type's default")
        self.ulp = QSpinBox()
        self.ulp.setObjectName("compare.ulp")
        self.ulp.setRange(-1, 2**31 - 1)
        self.ulp.setSpecialValueText("off")
        self.ulp.setValue(-1)
        self.ulp.setToolTip("Match when at most this many representable values apart (replaces rtol and atol)")
        self.bitwise = QCheckBox("bitwise")
        self.bitwise.setObjectName("compare.bitwise")
        self.bitwise.setToolTip("Match only equal bits (-0 differs from 0, NaN payloads count)")
        self.nan_policy = QComboBox()
        self.nan_policy.setObjectName("compare.nanPolicy")
        self.nan_policy.addItem("NaN matches NaN", "equal")
        self.nan_policy.addItem("NaN never matches", "mismatch")
        tolerance_row = QHBoxLayout()
        for label, widget in (("rtol", self.rtol), ("atol", self.atol), ("ULP", self.ulp)):
            tolerance_row.addWidget(QLabel(label))
            tolerance_row.addWidget(widget, 1)
        rule_row = QHBoxLayout()
        rule_row.addWidget(self.bitwise)
        rule_row.addWidget(self.nan_policy, 1)
        self.shift = QSpinBox()
        self.shift.setObjectName("compare.shift")
        self.shift.setRange(-(2**31 - 1), 2**31 - 1)
        self.shift.setToolTip("Compare A[k] with B[k + shift] in flat order: for bytes misaligned by a header or "
                              "a record (0: element by element)")
        self.suggest_shift_button = QPushButton("Suggest")
        self.suggest_shift_button.setObjectName("compare.suggestShift")
        self.suggest_shift_button.setToolTip("Find the shift that best aligns B with A (a sample of both views)")
        shift_row = QHBoxLayout()
        shift_row.addWidget(QLabel("shift"))
        shift_row.addWidget(self.shift, 1)
        shift_row.addWidget(self.suggest_shift_button)

        self.show_combo = QComboBox()
        self.show_combo.setObjectName("compare.show")
        for key, label in QUANTITIES.items():
            self.show_combo.addItem(label, key)
        self.show_combo.setToolTip("What the table shows while B is open")

        form = QFormLayout()
        form.addRow("B type", override_row)
        form.addRow("B offset", self.b_offset)
        form.addRow(tolerance_row)
        form.addRow(rule_row)
        form.addRow(shift_row)
        form.addRow("Table shows", self.show_combo)

        self.summary = QLabel()
        self.summary.setObjectName("compare.summary")
        self.summary.setStyleSheet("QLabel { font-weight: bold; }")
        self.rule_label = QLabel()
        self.rule_label.setObjectName("compare.rule")
        self.rule_label.setWordWrap(True)
        self.rule_label.setStyleSheet(f"QLabel {{ color: {palette.MUTED}; }}")
        self.figures = QLabel()
        self.figures.setObjectName("compare.figures")
        self.figures.setWordWrap(True)
        self.error_label = QLabel()
        self.error_label.setObjectName("compare.error")
        self.error_label.setWordWrap(True)
        self.error_label.setStyleSheet(palette.inline_style("error"))
        self.error_label.hide()
        make_plain(self.files_label, self.summary, self.rule_label, self.figures, self.error_label)
        for label in (self.summary, self.rule_label, self.figures, self.error_label):
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.progress = QProgressBar()
        self.progress.setObjectName("compare.progress")
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(False)
        self.progress.setMaximumHeight(8)
        self.progress.hide()

        self.sort_combo = QComboBox()
        self.sort_combo.setObjectName("compare.sortBy")
        for key, label in SORT_ORDERS.items():
            self.sort_combo.addItem(label, key)
        self.previous_button = QPushButton("◀ Previous")
        self.previous_button.setObjectName("compare.previous")
        self.previous_button.setToolTip("Previous mismatch (Shift+F8)")
        self.next_button = QPushButton("Next ▶")
        self.next_button.setObjectName("compare.next")
        self.next_button.setToolTip("Next mismatch (F8)")
        list_row = QHBoxLayout()
        list_row.addWidget(self.sort_combo, 1)
        list_row.addWidget(self.previous_button)
        list_row.addWidget(self.next_button)
        self.mismatches = QTableWidget(0, 4)
        self.mismatches.setObjectName("compare.mismatches")
        self.mismatches.setHorizontalHeaderLabels(["index", "A", "B", "|A - B|"])
        self.mismatches.verticalHeader().hide()
        self.mismatches.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.mismatches.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.mismatches.setSelectionMode(QAbstractItemView.SelectionMode.SingleSelection)
        self.mismatches.horizontalHeader().setSectionResizeMode(QHeaderView.ResizeMode.Stretch)
        self.mismatches.verticalHeader().setDefaultSectionSize(self.mismatches.fontMetrics().height() + 6)
        self.mismatches.setMinimumHeight(6 * (self.mismatches.fontMetrics().height() + 6))
        self.b_bytes = QLabel()
        self.b_bytes.setObjectName("compare.bBytes")
        self.b_bytes.setWordWrap(True)
        self.b_bytes.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        make_plain(self.b_bytes)
        self.hex_b = HexView()
        self.hex_b.setObjectName("compare.hexB")
        self.hex_b.setToolTip("B's bytes: the element of B that meets the selected element of A is highlighted")
        self.hex_b.setMinimumSize(0, 0)  # the dock decides; the view scrolls sideways
        self.hex_b.setMaximumHeight(7 * self.hex_b.fontMetrics().height() + 12)
        self.copy_button = QPushButton("Copy as numpy code")
        self.copy_button.setObjectName("compare.copyCode")
        self.copy_button.setToolTip("numpy code that reproduces this comparison, to the clipboard")

        layout = QVBoxLayout(self)
        layout.addLayout(files_row)
        layout.addLayout(form)
        layout.addWidget(self.summary)
        layout.addWidget(self.progress)
        layout.addWidget(self.error_label)
        layout.addWidget(self.rule_label)
        layout.addWidget(self.figures)
        layout.addLayout(list_row)
        layout.addWidget(self.mismatches, 1)
        layout.addWidget(self.b_bytes)
        layout.addWidget(self.hex_b)
        layout.addWidget(self.copy_button)

        self.open_button.clicked.connect(self.openRequested)
        self.close_button.clicked.connect(comparison.close_b)
        self.b_dtype.currentIndexChanged.connect(self._on_override_edited)
        self.b_byte_order.currentIndexChanged.connect(self._on_override_edited)
        self.b_offset.editingFinished.connect(self._on_override_edited)
        for field in (self.rtol, self.atol):
            field.editingFinished.connect(self._on_tolerance_edited)
        self.ulp.valueChanged.connect(self._on_tolerance_edited)
        self.bitwise.toggled.connect(self._on_tolerance_edited)
        self.nan_policy.currentIndexChanged.connect(self._on_tolerance_edited)
        self.shift.valueChanged.connect(self._on_tolerance_edited)
        self.suggest_shift_button.clicked.connect(self.suggest_shift)
        self.show_combo.currentIndexChanged.connect(self._on_quantity_chosen)
        self.sort_combo.currentIndexChanged.connect(self._on_sort_chosen)
        self.previous_button.clicked.connect(self.previous_mismatch)
        self.next_button.clicked.connect(self.next_mismatch)
        self.mismatches.cellClicked.connect(lambda row, _col: self.visit(row))
        self.copy_button.clicked.connect(self.copy_code)

        comparison.filesChanged.connect(self._show_files)
        comparison.resultChanged.connect(self._show_result)
        comparison.errorChanged.connect(self._show_error)
        comparison.progressChanged.connect(self._show_progress)
        comparison.runningChanged.connect(self._on_running)
        comparison.settingsChanged.connect(self._show_settings)
        comparison.sideBChanged.connect(lambda _r: self._show_selection(self._document.selection))
        self._document.selectionChanged.connect(self._show_selection)
        self._show_files()
        self._show_settings()
        self._show_result(comparison.result)
        self._show_error(comparison.error)

    # ------------------------------------------------------------------ public actions
    # ------------------------------------------------------------------ height
    def _keep_wrapped_text_whole(self) -> None:
        """In a short dock the panel scrolls (its scroll area) instead of cutting its wrapped
        labels (rule, figures, B's bytes) to one line: its minimum height is the height its
        layout needs at its current width."""
        layout = self.layout()
        if layout is None or not layout.hasHeightForWidth():
            return
        needed = layout.totalHeightForWidth(self.width())
        if needed > 0 and needed != self.minimumHeight():
            self.setMinimumHeight(needed)

    def resizeEvent(self, event) -> None:
        super().resizeEvent(event)
        self._keep_wrapped_text_whole()

    def event(self, event) -> bool:
        handled = super().event(event)
        if event.type() == QEvent.Type.LayoutRequest:  # a label's text changed its line count
            self._keep_wrapped_text_whole()
        return handled

    @property
    def entries(self) -> tuple[Mismatch, ...]:
        """The list's entries in the chosen order (the engine's bounded list)."""
        result = self._comparison.result
        if result is None:
            return ()
        return result.worst if self._sort == "error" else result.first

    @property
    def sort_order(self) -> str:
        return self._sort

    def set_sort_order(self, order: str) -> None:
        """Sort the list by ``"error"`` (worst first) or ``"index"`` (C order)."""
        self.sort_combo.setCurrentIndex(self.sort_combo.findData(order))

    def visit(self, position: int) -> None:
        """Select entry ``position`` of the list and its element of A in the document."""
        entries = self.entries
        if not entries:
            return
        self._position = position % len(entries)
        self.mismatches.selectRow(self._position)
        self._document.select(entries[self._position].index_a)

    def next_mismatch(self) -> None:
        """The next entry of the list (the first after the last one)."""
        if self.entries:
            self.visit(self._position + 1)
        else:
            self.message.emit("No mismatch to go to" if self._comparison.result is not None else "Nothing is compared")

    def previous_mismatch(self) -> None:
        """The previous entry of the list (the last before the first one)."""
        if self.entries:
            self.visit(self._position - 1 if self._position >= 0 else -1)
        else:
            self.message.emit("No mismatch to go to" if self._comparison.result is not None else "Nothing is compared")

    def copy_code(self) -> str | None:
        """Put numpy code that reproduces the comparison on the clipboard; the code, or None
        (the reason goes to :attr:`message`)."""
        try:
            text = self._comparison.snippet()
        except Exception as error:  # the boundary: say why, copy nothing
            self.message.emit(f"Cannot copy the comparison as code: {describe_error(error).message}")
            return None
        QGuiApplication.clipboard().setText(text)
        self.message.emit(f"Copied the comparison as numpy code ({text.count(chr(10)) + 1} lines) to the clipboard")
        return text

    # ------------------------------------------------------------------ edits
    def _on_override_edited(self) -> None:
        if self._updating:
            return
        overrides = {}
        if self.b_dtype.currentData() is not None:
            overrides["dtype"] = self.b_dtype.currentData()
        if self.b_byte_order.currentData() is not None:
            overrides["little_endian"] = self.b_byte_order.currentData()
        offset = self.b_offset.value()
        if isinstance(offset, str):
            self._show_error(ErrorReport(f"B offset: {offset!r} is not a whole number (for example 16 or 0x10)", "offset"))
            return
        if offset is not None:
            overrides["offset"] = offset
        self._comparison.set_b_overrides(overrides)

    def _on_tolerance_edited(self, *_args) -> None:
        if self._updating:
            return
        values = {}
        for name, field in (("rtol", self.rtol), ("atol", self.atol)):
            text = field.text().strip()
            try:
                values[name] = float(text) if text else None
            except ValueError:
                self._show_error(ErrorReport(f"{name}: {text!r} is not a number (for example 1e-5; empty: the default)", name))
                return
        ulp = self.ulp.value()
        self._comparison.update_settings(rtol=values["rtol"], atol=values["atol"], ulp=None if ulp < 0 else ulp,
                                         bitwise=self.bitwise.isChecked(), nan_policy=self.nan_policy.currentData(),
                                         shift=self.shift.value())

    def suggest_shift(self) -> None:
        """Suggest the shift that best aligns B with A, apply it and say why (or why not)."""
        try:
            suggestion = self._comparison.suggest_shift()
        except Exception as error:  # the boundary: a view that cannot be read flat, a changed file
            self._show_error(describe_error(error))
            return
        self.shift.setValue(suggestion.shift)  # compares again through _on_tolerance_edited
        text = suggestion.describe()
        self.message.emit(text[:1].upper() + text[1:])

    def _on_quantity_chosen(self, _index: int) -> None:
        if not self._updating:
            self._comparison.set_quantity(self.show_combo.currentData())

    def _on_sort_chosen(self, _index: int) -> None:
        self._sort = self.sort_combo.currentData()
        self._position = -1
        self._fill_list()

    # ------------------------------------------------------------------ display
    def _show_files(self) -> None:
        paths = self._comparison.paths
        if paths:
            names = display_name(paths[0]) + (f" + {len(paths) - 1} more" if len(paths) > 1 else "")
            self.files_label.setText(f"B: {names}")
            self.files_label.setToolTip("\n".join(paths))
        else:
            self.files_label.setText("No B: open the reference tensor to compare the view with it.")
            self.files_label.setToolTip("")
        self.close_button.setEnabled(bool(paths))
        self.copy_button.setEnabled(bool(paths))
        self.hex_b.set_reader(self._comparison.b_bytes if paths else None)
        self.hex_b.setVisible(bool(paths))

    def _show_settings(self) -> None:
        self._updating = True
        try:
            comparison = self._comparison
            overrides = comparison.b_overrides
            self.b_dtype.setCurrentIndex(max(0, self.b_dtype.findData(overrides.get("dtype"))))
            self.b_byte_order.setCurrentIndex(max(0, self.b_byte_order.findData(overrides.get("little_endian"))))
            self.b_offset.set_value(overrides.get("offset"))
            settings = comparison.settings
            self.ulp.setValue(-1 if settings.ulp is None else settings.ulp)
            self.bitwise.setChecked(settings.bitwise)
            self.nan_policy.setCurrentIndex(NAN_POLICIES.index(settings.nan_policy))
            self.shift.setValue(settings.shift)
            self.show_combo.setCurrentIndex(self.show_combo.findData(comparison.quantity))
            result_a, result_b = self._document.result, comparison.result_b
            if result_a is not None and result_b is not None:
                rtol, atol = default_tolerances(result_a.view.dtype, result_b.view.dtype)
                for field, value, name in ((self.rtol, rtol, "rtol"), (self.atol, atol, "atol")):
                    # the value alone, so that it fits; the tool tip says it is the default
                    field.setPlaceholderText(format_difference(value))
                    field.setToolTip(f"{name}: empty means the default for these types, "
                                     f"{format_difference(value)}")
        finally:
            self._updating = False

    def _show_result(self, result) -> None:
        comparison = self._comparison
        if result is None:
            self.summary.setText("Comparing…" if comparison.is_running else "")
            self.rule_label.setText("")
            self.figures.setText("")
        else:
            self.summary.setText(result.summary())
            self.summary.setStyleSheet(palette.inline_style(None if result.equal else "error") + " QLabel { font-weight: bold; }")
            self.rule_label.setText("Rule: " + result.rules.describe())
            self.figures.setText("\n".join(line for line in result.lines()
                                           if not line.startswith("rule:") and line != result.summary()))
        self._show_settings()
        self._position = -1
        self._fill_list()
        self._show_selection(self._document.selection)

    def _fill_list(self) -> None:
        result = self._comparison.result
        entries = self.entries
        self.mismatches.setRowCount(len(entries))
        for row, m in enumerate(entries):
            cells = ("[" + ", ".join(str(i) for i in m.index_a) + "]", result.value_text(m.a, "a"),
                     result.value_text(m.b, "b"), format_difference(m.absolute))
            for col, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if col:
                    item.setTextAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
                self.mismatches.setItem(row, col, item)
        more = result is not None and result.mismatched > len(entries)
        self.mismatches.setToolTip(f"The {len(entries)} {'worst' if self._sort == 'error' else 'first'} of "
                                   f"{result.mismatched} mismatches" if more else "")
        enabled = bool(entries)
        self.previous_button.setEnabled(enabled)
        self.next_button.setEnabled(enabled)

    def _show_error(self, report: ErrorReport | None) -> None:
        self.error_label.setVisible(report is not None)
        self.error_label.setText("" if report is None else report.message)

    def _show_progress(self, done: int, total: int) -> None:
        self.progress.setValue(1000 if total <= 0 else int(done * 1000 // total))

    def _on_running(self, running: bool) -> None:
        self.progress.setVisible(running)
        self.progress.setValue(0)
        if running:
            self.summary.setText("Comparing…")

    def _show_selection(self, index) -> None:
        """B's element that meets the selected element of A: its value and its bytes."""
        comparison = self._comparison
        index_b = comparison.index_b(tuple(index)) if index is not None else None
        if index_b is None or comparison.result_b is None:
            self.b_bytes.setText("")
            self.hex_b.clear_highlight()
            return
        where = "[" + ", ".join(str(i) for i in index_b) + "]"
        try:  # read with pread after a check of both files, never through B's map
            window = comparison.window(tuple(index))
            text = (f"A{_index_text(index)} = {format_value(window.a[()], window.a.dtype)}, "
                    f"B{where} = {format_value(window.b[()], window.b.dtype)}")
        except Exception:  # a file that changed: the error label says it
            text = f"B{where}"
        located = comparison.bytes_of_b(index_b)
        if located is not None:
            path, offset, nbytes = located
            last = offset + max(nbytes, 1) - 1
            text += f", bytes {offset:,}–{last:,} (0x{offset:x}–0x{last:x}) of {display_name(path)}"
        self.b_bytes.setText(text)
        in_file = comparison.file_bytes_of_b(index_b)
        if in_file is not None and in_file[0] < len(comparison.paths):
            self.hex_b.highlight(in_file[0], in_file[1], max(in_file[2], 1))
        else:
            self.hex_b.clear_highlight()
        for row, m in enumerate(self.entries):
            if m.index_a == tuple(index):
                self._position = row
                self.mismatches.selectRow(row)
                break
        else:
            self.mismatches.clearSelection()  # the element is not in the list (next still follows it)


def _index_text(index) -> str:
    return "[" + ", ".join(str(i) for i in index) + "]"
