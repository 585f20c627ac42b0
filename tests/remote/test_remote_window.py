"""The window with a remote file: File > Open URL…, recent URLs, dropped URLs, the status bar's
transfer counter, table cells that say "loading…" instead of blocking, and every menu action
(the placeholder map is PROT_NONE here: a view touched directly would crash the test)."""

from __future__ import annotations

import shutil
import tempfile
import time
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QItemSelectionModel, QMimeData, QPointF, QSettings, Qt, QUrl
from PySide6.QtGui import QDropEvent
from PySide6.QtWidgets import (
    QApplication,
    QComboBox,
    QDialogButtonBox,
    QFileDialog,
    QLabel,
    QPushButton,
    QSpinBox,
    QTreeView,
)

import core.files.remote as remote
from core.pipeline.pipeline import DecodeParams
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore

MiB = 1 << 20
VALUES = (np.arange(512 * 256, dtype=np.float32).reshape(512, 256) / 7).astype(">f4")


@pytest.fixture
def window(qtbot, tmp_path, monkeypatch):
    for name, answer in (("getOpenFileName", ("", "")), ("getOpenFileNames", ([], "")),
                         ("getSaveFileName", ("", "")), ("getExistingDirectory", "")):
        monkeypatch.setattr(QFileDialog, name, staticmethod(lambda *a, answer=answer, **k: answer))
    configure_pyqtgraph()
    remote.set_cache_capacity(64 * MiB)
    remote.cache().clear()
    window = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(window)
    window.resize(1200, 800)
    window.show()
    return window


PARAMS = DecodeParams(dtype="float32", little_endian=False, shape=(512, 256))


def _cell(window, row, col):
    model = window.table_panel.model
    return model.data(model.index(row, col))


def test_open_url_opens_the_file_remembers_it_and_counts_the_transfer(window, nginx, qtbot):
    url = nginx.write("window/waves.bin", VALUES.tobytes())
    dialog = window.show_open_url_dialog()
    field = dialog.findChild(QComboBox, "openUrl.url")
    field.setEditText("not a url")
    dialog.findChild(QDialogButtonBox, "openUrl.buttons").button(QDialogButtonBox.Ok).click()
    error = dialog.findChild(QLabel, "openUrl.error")
    assert dialog.isVisible() and "not a URL" in error.text()
    field.setEditText(url)
    cache = dialog.findChild(QSpinBox, "openUrl.cacheMib")
    assert cache.value() == 256  # the setting's default
    cache.setValue(96)
    dialog.findChild(QDialogButtonBox, "openUrl.buttons").button(QDialogButtonBox.Ok).click()
    assert window.document.paths == (url,)
    assert window.settings.remote_cache_mib() == 96
    assert 96 * MiB <= remote.cache().capacity < 128 * MiB  # was 64 MiB; a running scan may hold a little more
    assert window.document.remote and window.document.by_name
    window.document.update_params(dtype="float32", little_endian=False, shape=(512, 256))
    qtbot.waitUntil(lambda: _cell(window, 3, 2) not in (None, "loading…"), timeout=5000)
    assert float(_cell(window, 3, 2)) == pytest.approx(float(VALUES[3, 2]), rel=1e-6)
    label = window.statusBar().findChild(QLabel, "status.remote")
    qtbot.waitUntil(lambda: label.isVisible() and "fetched in" in label.text(), timeout=3000)
    assert window.settings.recent_urls() == [url]
    assert window.settings.last_files() == []  # URLs are never reopened on start
    recent = window.show_open_url_dialog().findChild(QComboBox, "openUrl.url")
    assert [recent.itemText(i) for i in range(recent.count())] == [url]


def test_a_url_with_credentials_is_opened_but_never_remembered(window, nginx):
    nginx.write("window/secret.bin", VALUES.tobytes())
    url = nginx.url("window/secret.bin").replace("http://", "http://someone:hunter2@")
    assert window.open_paths([url], PARAMS)
    assert window.settings.recent_urls() == []
    assert window.settings.decode_settings((url,)) is None
    assert "hunter2" not in window.windowTitle()


def test_cells_say_loading_until_their_bytes_arrive(qtbot, fault_server):
    from core import Pipeline
    from inspector.table.model import ArrayTableModel

    fault_server.write("slow.bin", VALUES.tobytes())
    model = ArrayTableModel()
    with Pipeline(fault_server.fault_url("delay=1", "slow.bin")) as pipe:  # opening read the first block only
        result = pipe.run(PARAMS)
        model.set_array(result.view, reader=result.block_reader())
        started = time.monotonic()
        texts = {model.data(model.index(500, c)) for c in range(3)}
        assert time.monotonic() - started < 0.5  # answered at once: the fetch runs in the background
        assert texts == {"loading…"}
        assert model.data(model.index(500, 0), Qt.ItemDataRole.ToolTipRole).startswith("these values are being")
        qtbot.waitUntil(lambda: model.data(model.index(500, 0)) != "loading…", timeout=8000)
        assert float(model.data(model.index(500, 1))) == pytest.approx(float(VALUES[500, 1]), rel=1e-6)
        assert model.value_at(2, 3) == VALUES[2, 3]  # a read that must answer (a copy) waits instead


def test_a_url_dropped_on_the_window_opens(window, nginx):
    url = nginx.write("window/dropped.bin", VALUES.tobytes())
    data = QMimeData()
    data.setUrls([QUrl(url)])
    event = QDropEvent(QPointF(10, 10), Qt.DropAction.CopyAction, data, Qt.MouseButton.LeftButton,
                       Qt.KeyboardModifier.NoModifier)
    window.dropEvent(event)
    assert window.document.paths == (url,)


def _menu_actions(menu):
    for action in menu.actions():
        if action.menu() is not None:
            yield from _menu_actions(action.menu())
        elif not action.isSeparator():
            yield action


def test_every_menu_action_is_safe_on_a_remote_file(window, nginx, qtbot):
    url = nginx.write("window/every.bin", VALUES.tobytes())
    assert window.open_paths([url], PARAMS)
    fired = []
    for top in window.menuBar().actions():
        for action in _menu_actions(top.menu()):
            if action.text() in ("&Quit", "Open the embedded &sample") or not action.isEnabled():
                continue
            action.trigger()
            qtbot.wait(1)
            for widget in QApplication.topLevelWidgets():
                if widget is not window and widget.isVisible() and widget.isWindow():
                    widget.close()
            fired.append(action.text())
            error = window.document.error
            assert error is None or "unexpected" not in error.message.lower(), (action.text(), error.message)
    assert len(fired) >= 25
    assert window.open_paths([url], PARAMS)  # File > Close was among them
    mode = window.findChild(QComboBox, "plot.mode")
    for index in range(mode.count()):  # the image and each line, as a user picks them
        mode.setCurrentIndex(index)
        qtbot.wait(20)
    window.document.select((3, 4))
    qtbot.wait(20)
    assert window.document.paths == (url,) and window.document.error is None


def test_show_opens_a_url_as_the_window_opens_files(qtbot, nginx, tmp_path):
    from inspector.show import show

    url = nginx.write("window/shown.bin", VALUES.tobytes())
    settings = SettingsStore(QSettings(str(tmp_path / "show.ini"), QSettings.IniFormat))
    handle = show(url, block=False, settings=settings, slice="[10:12, ::128]", dtype="float32",
                  little_endian=False, shape=(512, 256))
    qtbot.addWidget(handle.window)
    assert handle.error is None and handle.params.shape == (512, 256)
    np.testing.assert_array_equal(handle.view, VALUES[10:12, ::128])
    assert settings.recent_urls() == []  # show() remembers nothing
    handle.close()


def test_a_server_gone_shows_in_the_cells(qtbot, tmp_path):
    from servers import FaultHTTPServer

    from core import Pipeline
    from inspector.table.model import ArrayTableModel

    (tmp_path / "gone").mkdir()
    (tmp_path / "gone" / "g.bin").write_bytes(VALUES.tobytes())
    model = ArrayTableModel()
    with FaultHTTPServer(tmp_path / "gone") as server:
        pipe = Pipeline(server.url("g.bin"))
        result = pipe.run(PARAMS)
        model.set_array(result.view, reader=result.block_reader())
        assert model.value_at(0, 1) == VALUES[0, 1]
        server.kill()
    assert model.data(model.index(300, 0)) == "loading…"
    qtbot.waitUntil(lambda: model.data(model.index(300, 0)) != "loading…", timeout=10_000)
    assert model.data(model.index(300, 0)) == "not readable"
    tip = model.data(model.index(300, 0), Qt.ItemDataRole.ToolTipRole)
    assert "127.0.0.1" in tip and ("cannot connect" in tip or "connection" in tip)
    pipe.close()


def test_a_remote_image_is_drawn_when_its_bytes_arrive_without_blocking(window, fault_server, qtbot):
    values = (np.arange(2048 * 512, dtype=np.float32).reshape(2048, 512) % 97).astype(">f4")
    fault_server.write("img.bin", values.tobytes())
    url = fault_server.fault_url("delay=0.6", "img.bin")
    started = time.monotonic()
    assert window.open_paths([url], DecodeParams(dtype="float32", little_endian=False, shape=(2048, 512)))
    opened = time.monotonic() - started
    image = window.plot_panel.image_plot
    assert opened < 0.6 + 1.5  # the open's own requests (info, first block); the image is not waited for
    qtbot.waitUntil(lambda: image.image_item.image is not None, timeout=10_000)
    r0, r1, c0, c1, sr, sc = image._window
    np.testing.assert_array_equal(image.image_item.image, values[r0:r1:sr, c0:c1:sc].astype(np.float32))
    low, high = image.levels()
    assert (low, high) == (0.0, 96.0)


def test_a_remote_zarr_store_lists_in_the_dock_and_its_arrays_open_in_new_windows(window, nginx, qtbot):
    zarr = pytest.importorskip("zarr")
    with tempfile.TemporaryDirectory() as scratch:
        group = zarr.open_group(str(Path(scratch) / "w.zarr"), mode="w", zarr_format=3)
        group.create_array("plain", shape=(4, 3), chunks=(4, 3), dtype="float32", compressors=None)[...] = \
            np.arange(12, dtype="f4").reshape(4, 3)
        group.create_array("packed", shape=(10,), chunks=(4,), dtype="int16")[...] = np.arange(10) * -3
        shutil.copytree(Path(scratch) / "w.zarr", nginx.root / "window-zarr" / "w.zarr")
    assert window.open_paths([nginx.url("window-zarr/w.zarr/")])
    qtbot.waitUntil(lambda: window.document.container is not None, timeout=10_000)
    assert window.document.paths == (nginx.url("window-zarr/w.zarr/zarr.json"),)
    assert [e.name for e in window.document.container.entries] == ["packed", "plain"]
    tree = window.findChild(QTreeView, "tensors.tree")
    button = window.findChild(QPushButton, "tensors.openValues")
    model = tree.model()
    # a copy read by zarr opens as an array; a view of a remote chunk opens that chunk's URL
    for row, want_paths, want in ((0, ("packed (read by zarr)",), np.arange(10) * -3),
                                  (1, (nginx.url("window-zarr/w.zarr/plain/c/0/0"),), np.arange(12).reshape(4, 3))):
        tree.selectionModel().setCurrentIndex(model.index(row, 0, model.index(0, 0)),
                                              QItemSelectionModel.ClearAndSelect)
        assert button.isEnabled(), row
        before = set(window._other_windows)
        button.click()
        qtbot.waitUntil(lambda before=before: bool(set(window._other_windows) - before), timeout=10_000)
        [key] = set(window._other_windows) - before
        other = window._other_windows[key]
        assert other.document.paths == want_paths
        qtbot.waitUntil(lambda other=other: other.document.result is not None, timeout=10_000)
        result = other.document.result
        np.testing.assert_array_equal(result.block_reader().read(result.view), want)
