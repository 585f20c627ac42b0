"""Export of the current view: round trips through np.load / raw bytes / CSV text, cancel leaves
nothing behind, the source file is protected, and the dialog drives the same controller."""

import os

import numpy as np
import pytest
from PySide6.QtCore import Qt
from PySide6.QtWidgets import QMessageBox

from core.pipeline.pipeline import DecodeParams
from inspector.panels.export_dialog import ExportController, ExportDialog, export_current_view
from inspector.state.background_task import shutdown_tasks
from inspector.state.document import Document


@pytest.fixture(autouse=True)
def _no_leftover_tasks(qtbot):
    yield
    assert shutdown_tasks(10_000)
    qtbot.wait(1)


@pytest.fixture
def document(tmp_path):
    values = (np.arange(24, dtype=np.float32) * 0.5 - 3.0).reshape(4, 6)
    values[1, 2] = np.nan
    path = tmp_path / "data.bin"
    values.tofile(path)
    doc = Document()
    assert doc.open_files([str(path)], DecodeParams(dtype="float32", shape=(4, 6)), "[1:, ::2]")
    return doc


def run_export(qtbot, controller, *args, **kwargs):
    with qtbot.waitSignal(controller.finished, timeout=10_000) as blocker:
        assert controller.start(*args, **kwargs) is not None
    return blocker.args


def test_npy_round_trip_big_endian(qtbot, tmp_path, document):
    controller = ExportController(document)
    out = tmp_path / "out.npy"
    path, nbytes = run_export(qtbot, controller, out, "npy", little_endian=False)
    assert path == str(out) and nbytes == os.path.getsize(out)
    loaded = np.load(out)
    assert loaded.dtype == np.dtype(">f4") and loaded.shape == (3, 3)
    np.testing.assert_array_equal(loaded, document.result.view)  # NaN positions included


def test_npy_with_another_type_and_little_endian(qtbot, tmp_path, document):
    controller = ExportController(document)
    out = tmp_path / "out64.npy"
    run_export(qtbot, controller, out, "npy", dtype="float64", little_endian=True)
    loaded = np.load(out)
    assert loaded.dtype == np.dtype("<f8")
    np.testing.assert_array_equal(loaded, document.result.view.astype(np.float64))


def test_raw_bytes(qtbot, tmp_path, document):
    controller = ExportController(document)
    out = tmp_path / "out.bin"
    _path, nbytes = run_export(qtbot, controller, out, "bin", little_endian=False)
    assert nbytes == 9 * 4
    assert out.read_bytes() == document.result.view.astype(">f4").tobytes()


def test_csv_text_of_a_small_view(qtbot, tmp_path, document):
    controller = ExportController(document)
    out = tmp_path / "out.csv"
    run_export(qtbot, controller, out, "csv")
    # rows 1..3, columns 0, 2, 4 of arange(24) * 0.5 - 3 with [1, 2] = NaN
    assert out.read_text() == "0.0,nan,2.0\n3.0,4.0,5.0\n6.0,7.0,8.0\n"


def test_exporting_onto_the_source_file_is_refused(qtbot, document):
    source = document.paths[0]
    before = open(source, "rb").read()
    controller = ExportController(document)
    with qtbot.waitSignal(controller.failed, timeout=10_000) as blocker:
        controller.start(source, "bin")
    assert blocker.args == [f"{source} is the file being inspected; writing onto it would "
                            "destroy the data it shows (choose another file name)"]
    assert open(source, "rb").read() == before


def test_cancelled_export_leaves_no_file(qtbot, tmp_path):
    source = tmp_path / "big.bin"
    with open(source, "wb") as f:
        f.truncate(256 << 20)
    doc = Document()
    assert doc.open_files([str(source)], DecodeParams(dtype="float32"))
    out_dir = tmp_path / "out"
    out_dir.mkdir()
    controller = ExportController(doc, chunk_elements=1 << 14)
    progress = []
    controller.progressChanged.connect(lambda done, total: progress.append(done))
    task = controller.start(out_dir / "big.npy", "npy")
    qtbot.waitUntil(lambda: bool(progress), timeout=10_000)
    assert controller.is_running()
    with qtbot.waitSignal(controller.cancelled, timeout=10_000):
        controller.cancel()
    assert task.state == "cancelled" and not controller.is_running()
    assert os.listdir(out_dir) == []  # neither big.npy nor a .part temporary file


def test_changed_source_refuses_at_once(qtbot, tmp_path, document):
    os.truncate(document.paths[0], 8)
    controller = ExportController(document)
    with qtbot.waitSignal(controller.failed, timeout=1000) as blocker:
        assert controller.start(tmp_path / "x.npy", "npy") is None
    assert blocker.args[0].endswith("changed on disk since it was opened (size 96 -> 8 bytes) "
                                    "(reload it)")
    assert not (tmp_path / "x.npy").exists()


def test_bfloat16_npy_error_reaches_the_caller(qtbot, tmp_path, document):
    controller = ExportController(document)
    with qtbot.waitSignal(controller.failed, timeout=10_000) as blocker:
        controller.start(tmp_path / "b.npy", "npy", dtype="bfloat16")
    assert blocker.args[0].startswith("NumPy's .npy format has no bfloat16 type")
    assert not (tmp_path / "b.npy").exists()


# ---------------------------------------------------------------------------- the dialog
def make_dialog(qtbot, document, **kwargs):
    dialog = ExportDialog(document, **kwargs)
    qtbot.addWidget(dialog)
    return dialog


def test_dialog_defaults_and_choices(qtbot, tmp_path, document):
    dialog = make_dialog(qtbot, document)
    assert dialog.path_edit.text() == str(tmp_path / "data_view.npy")
    assert dialog.dtype_combo.itemText(0) == "same as the view (float32)"
    assert dialog.byte_order_combo.itemText(0) == "same as the view (little-endian)"
    assert dialog.summary_label.text() == "View: shape (3, 3), 9 values of float32 (36 bytes)"
    dialog.set_format("csv")
    assert dialog.path_edit.text() == str(tmp_path / "data_view.csv")
    assert not dialog.byte_order_combo.isEnabled()


def test_dialog_exports_with_the_chosen_type_and_order(qtbot, tmp_path, document):
    dialog = make_dialog(qtbot, document)
    dialog.show()
    out = tmp_path / "chosen.npy"
    dialog.set_path(out)
    dialog.set_dtype("int16")
    dialog.set_byte_order(False)
    with qtbot.waitSignal(dialog.accepted, timeout=10_000):
        qtbot.mouseClick(dialog.export_button, Qt.MouseButton.LeftButton)
        assert not dialog.export_button.isEnabled() and dialog.close_button.text() == "Cancel"
    loaded = np.load(out)
    assert loaded.dtype == np.dtype(">i2")
    # the engine's conversion rule: truncation toward zero, NaN -> 0
    np.testing.assert_array_equal(loaded, [[0, 0, 2], [3, 4, 5], [6, 7, 8]])
    assert dialog.message() == f"Wrote {os.path.getsize(out):,} bytes to {out}"


def test_dialog_shows_a_failure(qtbot, document):
    dialog = make_dialog(qtbot, document)
    dialog.set_path(document.paths[0])
    dialog.set_format("bin")
    with qtbot.waitSignal(dialog.controller.failed, timeout=10_000):
        dialog.export()
    assert "is the file being inspected" in dialog.message()
    assert dialog.export_button.isEnabled()


def test_large_csv_asks_first(qtbot, tmp_path, document, monkeypatch):
    asked = []

    def answer_no(*args, **kwargs):
        asked.append(args[2])
        return QMessageBox.No

    monkeypatch.setattr(QMessageBox, "question", answer_no)
    dialog = make_dialog(qtbot, document, csv_warning_limit=5)
    out = tmp_path / "big.csv"
    dialog.set_path(out)
    dialog.set_format("csv")
    assert dialog.export() is None
    assert asked and asked[0].startswith("The view has 9 values: as CSV that is about")
    assert dialog.message() == "CSV export not started" and not out.exists()

    yes_dialog = make_dialog(qtbot, document, csv_warning_limit=5, assume_yes=True)
    yes_dialog.set_path(out)
    yes_dialog.set_format("csv")
    with qtbot.waitSignal(yes_dialog.controller.finished, timeout=10_000):
        assert yes_dialog.export() is not None
    assert len(asked) == 1
    assert out.read_text().count("\n") == 3


def test_export_current_view_opens_a_non_modal_dialog(qtbot, document):
    dialog = export_current_view(document)
    qtbot.addWidget(dialog)
    assert dialog.isVisible() and not dialog.isModal()
