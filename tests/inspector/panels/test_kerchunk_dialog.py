"""File > Export kerchunk references…: a non-modal dialog that writes the document's decode as
references fsspec and zarr read back as the window's tensor, and says why when it cannot."""

from __future__ import annotations

import numpy as np
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtGui import QAction

from core.pipeline.pipeline import DecodeParams
from inspector.main_window import MainWindow
from inspector.panels.kerchunk_dialog import KerchunkDialog
from inspector.state.settings_store import SettingsStore

fsspec = pytest.importorskip("fsspec")
zarr = pytest.importorskip("zarr")


@pytest.fixture
def window(qtbot, tmp_path):
    window = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(window)
    path = tmp_path / "data.bin"
    path.write_bytes(b"HEAD" + np.arange(24, dtype=">f4").tobytes())
    assert window.open_paths([str(path)], DecodeParams(dtype="float32", little_endian=False, offset=4, shape=(2, 3, 4)))
    return window


def _dialog(window) -> KerchunkDialog:
    action = window.findChild(QAction, "kerchunk.action")
    assert action is not None and action.text() == "Export &kerchunk references…"
    action.trigger()
    dialog = window.findChild(KerchunkDialog, "kerchunk.dialog")
    assert dialog is not None and dialog.isVisible() and not dialog.isModal()
    return dialog


def test_the_references_read_back_as_the_windows_tensor(window, qtbot, tmp_path):
    dialog = _dialog(window)
    assert dialog.path_edit.text() == str(tmp_path / "data.refs.json")
    assert dialog.summary_label.text().startswith("The decoded tensor (2, 3, 4) of float32")
    window.document.set_slice_text("[0]")
    task = dialog.write()
    assert task is not None
    qtbot.waitUntil(lambda: dialog.message().startswith("Wrote"), timeout=10000)
    assert dialog.message().startswith(f"Wrote 1 chunk reference to {tmp_path / 'data.refs.json'}\nthe slice [0]")
    fs = fsspec.filesystem("reference", fo=str(tmp_path / "data.refs.json"), asynchronous=True)
    values = zarr.open_group(zarr.storage.FsspecStore(fs, read_only=True), mode="r", zarr_format=2)["data"][...]
    assert values.tobytes() == np.asarray(window.document.result.tensor).tobytes()
    np.testing.assert_array_equal(values, np.arange(24, dtype=">f4").reshape(2, 3, 4))


def test_refusals_are_the_engines_messages(window, qtbot, tmp_path):
    dialog = _dialog(window)
    dialog.path_edit.setText(window.document.paths[0])  # the inspected file itself
    dialog.write()
    qtbot.waitUntil(lambda: "is the file being inspected" in dialog.message(), timeout=10000)
    before = (tmp_path / "data.bin").read_bytes()
    window.document.update_params(dtype="bfloat16", shape=None)
    dialog.path_edit.setText(str(tmp_path / "r.json"))
    dialog.write()
    qtbot.waitUntil(lambda: "zarr v2 has no bfloat16 type" in dialog.message(), timeout=10000)
    assert not (tmp_path / "r.json").exists() and (tmp_path / "data.bin").read_bytes() == before
    window.document.update_params(shape=(7, 7))  # invalid: Write is disabled, the message says why
    assert not dialog.write_button.isEnabled() and dialog.message()
