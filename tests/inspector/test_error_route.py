"""One route for errors: the banner, the decode field labels and the CLI say the same thing, in
the palette's colours, and the document never lets an exception through."""

from __future__ import annotations

import html

import numpy as np
import pytest
from PySide6.QtCore import QSettings, Qt
from PySide6.QtWidgets import QLabel, QLineEdit

from core.cli import main as cli_main
from core.errors import describe_error
from core.pipeline.pipeline import Pipeline
from inspector.main_window import MainWindow
from inspector.panels.export_dialog import ExportDialog
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.background_task import shutdown_tasks
from inspector.state.settings_store import SettingsStore
from inspector.widgets import palette


@pytest.fixture
def window(qtbot, tmp_path):
    configure_pyqtgraph()
    w = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(w)
    yield w
    shutdown_tasks()


@pytest.fixture
def eight_bytes(tmp_path):
    path = tmp_path / "eight.bin"
    path.write_bytes(bytes(range(8)))
    return str(path)


def cli_error(capsys, argv) -> str:
    """The message of the CLI's one ``error:`` line (exit status 2)."""
    assert cli_main(argv) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    return err[len("error: "):-1]


def banner_text(window) -> str:
    return window.message_label.text() if not window.message_label.isHidden() else ""


def shown_field_errors(window) -> dict[str, str]:
    return {field: label.text() for field, label in window.decode_panel.error_labels.items()
            if not label.isHidden()}


def type_into(qtbot, field: QLineEdit, text: str) -> None:
    field.clear()
    qtbot.keyClicks(field, text)


# ----------------------------------------------------------------------------- same message
def test_offset_past_the_end_reads_the_same_in_banner_field_and_cli(qtbot, window, capsys, eight_bytes):
    assert window.open_paths([eight_bytes])
    type_into(qtbot, window.decode_panel.offset_field, "100")
    message = f"offset 100 is past the end of '{eight_bytes}' (8 bytes) (use an offset of at most 8)"
    assert window.document.error.message == message
    assert shown_field_errors(window) == {window.document.error.field: message}
    assert banner_text(window) == (f"<b>Decode:</b> {html.escape(message, quote=False)} "
                                   "The last good view is still shown.")
    assert cli_error(capsys, [eight_bytes, "--offset", "100"]) == message


def test_odd_offset_for_int16_reads_the_same_in_banner_field_and_cli(qtbot, window, capsys, eight_bytes):
    assert window.open_paths([eight_bytes])
    window.decode_panel.dtype_combo.setCurrentIndex(window.decode_panel.dtype_combo.findData("int16"))
    type_into(qtbot, window.decode_panel.offset_field, "1")
    message = ("Input to DecodeRaw has length 7 that is not a multiple of 2, the size of int16 "
               "(the header offset 1 leaves 7 of the file's 8 bytes: choose a header offset that "
               "leaves a multiple of 2 bytes, e.g. 0 or 2)")
    assert window.document.error.message == message
    assert shown_field_errors(window) == {"offset": message}  # the field the user changed
    assert html.escape(message, quote=False) in banner_text(window)
    assert cli_error(capsys, [eight_bytes, "--dtype", "int16", "--offset", "1"]) == message


def test_missing_file_reads_the_same_in_banner_field_and_cli(window, capsys, tmp_path):
    missing = str(tmp_path / "missing.bin")
    assert not window.open_paths([missing])
    message = f"'{missing}' does not exist (check the path)"
    assert window.document.error.field == "files"
    assert shown_field_errors(window) == {"files": message}
    assert banner_text(window) == f"<b>File:</b> {html.escape(message, quote=False)}"
    assert cli_error(capsys, [missing]) == message


# ----------------------------------------------------------------------------- the boundary
@pytest.mark.parametrize("raised", [
    MemoryError("Unable to allocate 8.00 GiB for an array with shape (1073741824,) and data type float64"),
    ZeroDivisionError("division by zero"),
    OverflowError("Python int too large to convert to C long"),
])
def test_any_exception_of_a_rerun_is_reported_and_the_view_kept(window, eight_bytes, monkeypatch, raised):
    assert window.open_paths([eight_bytes])
    shown = window.document.result
    monkeypatch.setattr(Pipeline, "run", lambda self, params, spec=None: (_ for _ in ()).throw(raised))
    window.document.update_params(dtype="int16")  # must not raise
    report = describe_error(raised)
    assert window.document.error == report and window.document.exception is raised
    assert window.document.result is shown
    assert html.escape(report.message, quote=False) in banner_text(window)
    assert shown_field_errors(window) == {"files": report.message}
    np.testing.assert_array_equal(shown.view, np.arange(8, dtype=np.uint8))


def test_an_unexpected_open_failure_is_reported_not_raised(window, eight_bytes, monkeypatch):
    def refuse(self, paths):
        raise PermissionError(13, "Permission denied", paths[0])

    monkeypatch.setattr(Pipeline, "__init__", refuse)
    assert not window.open_paths([eight_bytes])
    assert window.document.error.message == (
        f"permission denied reading '{eight_bytes}' (make the file readable, e.g. chmod a+r)")
    assert window.document.error.field == "files"


# ----------------------------------------------------------------------------- one palette
def test_every_error_label_uses_the_palette(qtbot, window, eight_bytes, capsys):
    assert window.open_paths([eight_bytes])
    error_style = palette.inline_style("error")

    type_into(qtbot, window.decode_panel.offset_field, "100")  # decode labels and the banner
    assert {label.styleSheet() for label in window.decode_panel.error_labels.values()} == {error_style}
    assert window.message_label.styleSheet() == palette.banner_style("error")
    assert palette.ERROR in window.message_label.styleSheet()
    type_into(qtbot, window.decode_panel.offset_field, "0")
    assert window.document.error is None

    editor = window.slice_editor  # the slice editor's rich-text error
    type_into(qtbot, editor.expression_edit, "[1 x")
    label = editor.findChild(QLabel, "slice.error")
    assert not label.isHidden()
    assert f'<span style="color:{palette.ERROR}">' in label.text()
    assert f"color:{palette.ERROR};background-color:{palette.ERROR_SHADE};" in label.text()

    table_message = window.table_panel.findChild(QLabel, "table.message")  # table's go-to box
    go_to = window.table_panel.findChild(QLineEdit, "table.goTo")
    type_into(qtbot, go_to, "99")
    qtbot.keyClick(go_to, Qt.Key.Key_Return)
    assert table_message.text() == describe_error(IndexError("index 99 is out of bounds for axis 0 with size 8")).message
    assert table_message.styleSheet() == error_style

    dialog = ExportDialog(window.document, window)  # the export dialog
    qtbot.addWidget(dialog)
    dialog.set_path(eight_bytes)
    dialog.set_format("bin")
    with qtbot.waitSignal(dialog.controller.failed, timeout=10_000):
        dialog.export()
    assert "is the file being inspected" in dialog.message()
    assert dialog.message_label.styleSheet() == error_style

    with open(eight_bytes, "ab") as grow:  # the statistics panel: the file changed on disk
        grow.write(b"\x00" * 8)
    window.statistics_panel.compute()
    status = window.statistics_panel.status_label
    # found by the background computation's check before its first block (or at once)
    qtbot.waitUntil(lambda: status.text().startswith("Error:"), timeout=10_000)
    assert status.text() == f"Error: {describe_error(_changed_error(window)).message}"
    assert status.styleSheet() == error_style


def _changed_error(window):
    try:
        window.document.pipeline.source.check_unchanged()
    except Exception as error:  # the same refusal the panel met
        return error
    raise AssertionError("the file change was not noticed")


def test_the_file_watch_banner_is_a_palette_warning(window):
    style = window.file_watch_banner.styleSheet()
    assert style == palette.frame_style("fileWatch.banner", "warning")
    assert palette.MESSAGE_COLORS["warning"].text in style
