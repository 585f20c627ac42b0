"""The Tensors dock opens every listed entry of every container the format tests write, through
its one path: a view of the open file is chosen in the window, anything else opens in a new
window; the values are the format's own reader's (tests/core/formats/containers.py)."""

from __future__ import annotations

import importlib.util
import os
import sys
from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QItemSelectionModel, QSettings
from PySide6.QtWidgets import QPushButton, QTreeView

from core.formats.entry import Storage
from inspector.main_window import MainWindow
from inspector.state.settings_store import SettingsStore

_where = Path(__file__).resolve().parents[2] / "core" / "formats" / "containers.py"
_spec = importlib.util.spec_from_file_location("formats_containers", _where)
containers = sys.modules.setdefault("formats_containers", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(containers)


@pytest.fixture
def window(qtbot, tmp_path):
    window = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(window)
    return window


def _shown(values: np.ndarray, like: np.ndarray) -> np.ndarray:
    return np.asarray(values).astype(like.dtype) if values.dtype.kind == like.dtype.kind else np.asarray(values)


def test_every_entry_opens_from_the_dock_with_the_readers_values(window, qtbot, tmp_path):
    tree = window.findChild(QTreeView, "tensors.tree")
    button = window.findChild(QPushButton, "tensors.openValues")
    kinds = set()
    for container in containers.build_all(tmp_path):
        assert window.open_paths([container.path])
        model = tree.model()
        root = model.index(0, 0)
        listing = window.document.container
        assert listing is not None and model.rowCount(root) == len(listing.entries)
        for row, entry in enumerate(listing.entries):
            where = f"{container.path}: {entry.name}"
            assert model.index(row, 3, root).data() == entry.storage.value, where
            tree.selectionModel().setCurrentIndex(model.index(row, 0, root), QItemSelectionModel.ClearAndSelect)
            expected = container.expected[entry.name]
            if entry.local_view:  # chosen: the window shows it, as a view of the map
                assert not button.isEnabled(), where
                assert window.document.current_entry is entry, where
                shown = window.document.result.view
                assert window.document.result.zero_copy or entry.elements is not None, where
            else:  # one button for whatever is not a view: a new window, the file's stays
                before = window.document.params
                assert button.isVisibleTo(window) and button.isEnabled(), where
                button.click()
                [other] = window._other_windows.values()
                qtbot.addWidget(other)
                assert other.document.paths == (f"{entry.name} ({_how(entry)})",), where
                shown = other.document.result.view
                other.close()
                window._other_windows.clear()
                assert window.document.params == before, where
            np.testing.assert_array_equal(_shown(shown, expected), expected, err_msg=where)
            kinds.add(entry.storage)
    assert kinds == set(Storage)


def _how(entry) -> str:
    if entry.storage is Storage.VIEW and entry.file is not None:  # ONNX external data, a zarr chunk file
        return f"in {os.path.basename(entry.file)}"
    if "stored in" in entry.extras:  # ONNX typed fields
        return f"{entry.extras['stored in']} decoded"
    if entry.storage is Storage.COMPUTED and entry.stored_type.endswith(", dequantized"):  # TFLite
        return f"from {entry.stored_type.split(',')[0]}"
    if entry.storage is Storage.COMPUTED:
        return f"{entry.extras['quantization']}, dequantized"
    if "compressed" in entry.extras:
        return "decompressed"
    if entry.stored_type == "int64_list":
        return "varints decoded"
    if "zarr format" in entry.extras:
        return "read by zarr"
    return "read by h5py"


def test_a_strided_view_is_chosen_and_an_entry_of_another_file_opens_in_a_new_window(window, qtbot, tmp_path,
                                                                                       monkeypatch):
    # A toy format (no format of today writes these): a Fortran-order view of the file's values,
    # and a tensor stored in a shard beside the container.
    from core.formats import registry
    from core.formats.entry import ContainerFormat, ContainerListing, TensorEntry

    def list_toy(reader):
        reader.read(0, 4)
        return ContainerListing("toyfmt", reader.path, (
            TensorEntry("plain", "int16", True, (12,), 4, 24, "I16"),
            TensorEntry("fortran", "int16", True, (4, 3), 4, 24, "I16", strides=(1, 4)),
            TensorEntry("sharded", "float32", True, (2,), 0, 8, "F32", file="shards/s0.bin")))

    monkeypatch.setattr(registry, "FORMATS", (ContainerFormat("toyfmt", lambda h, s: h.startswith(b"TOYF"), list_toy),
                                              *registry.FORMATS))
    values = np.arange(12, dtype="<i2")
    (tmp_path / "shards").mkdir()
    (tmp_path / "shards" / "s0.bin").write_bytes(np.array([2.5, -1.0], "<f4").tobytes())
    path = tmp_path / "m.toy"
    path.write_bytes(b"TOYF" + values.tobytes())
    assert window.open_paths([str(path)])
    tree = window.findChild(QTreeView, "tensors.tree")
    button = window.findChild(QPushButton, "tensors.openValues")
    model = tree.model()
    root = model.index(0, 0)
    tree.selectionModel().setCurrentIndex(model.index(1, 0, root), QItemSelectionModel.ClearAndSelect)
    assert window.document.current_entry.name == "fortran" and window.document.params.strides == (1, 4)
    np.testing.assert_array_equal(window.document.result.view, values.reshape(3, 4).T)
    assert window.document.result.zero_copy and not button.isEnabled()
    window.document.undo()  # back to the first tensor: the strides go with the choice
    assert window.document.current_entry.name == "plain" and window.document.params.strides is None
    tree.selectionModel().setCurrentIndex(model.index(2, 0, root), QItemSelectionModel.ClearAndSelect)
    assert window.document.current_entry.name == "plain"  # another file's entry is not chosen
    assert button.isEnabled()
    button.click()
    [other] = window._other_windows.values()
    qtbot.addWidget(other)
    assert other.document.paths == ("sharded (in s0.bin)",)
    assert other.document.result.view.tolist() == [2.5, -1.0]
