"""The Tensors dock: a container's tensors listed, chosen by name (undoable), filtered; raw files
hide it. A toy container format is registered for these tests, so they check the GUI's rules
independently of any real format (those have their own tests in tests/core/formats)."""

import numpy as np
import pytest
from PySide6.QtCore import QItemSelectionModel, QSettings, Qt
from PySide6.QtWidgets import QLineEdit, QTreeView

from core.formats import registry
from core.formats.entry import ContainerFormat, ContainerListing, TensorEntry
from inspector.main_window import MainWindow
from inspector.state.settings_store import SettingsStore

WEIGHT = np.array([[1, -2], [300, 4]], dtype=">i2")
BIAS = np.array([0.5, -1.25, 3.0], dtype="<f4")


def _list_toy(reader):
    reader.read(0, 4)
    return ContainerListing("toy", reader.path, (
        TensorEntry("layer.weight", "int16", False, (2, 2), 8, 8, "I16BE"),
        TensorEntry("layer.bias", "float32", True, (3,), 16, 12, "F32"),
        TensorEntry("packed", None, True, (64,), 28, 4, "Q4", problem="Q4 blocks are not decodable"),
    ), metadata={"producer": "tests"}, problems=("record 9 at byte 99: bad checksum",))


TOY = ContainerFormat("toy", lambda head, size: head.startswith(b"TOY1"), _list_toy)


@pytest.fixture
def toy_file(tmp_path, monkeypatch):
    monkeypatch.setattr(registry, "FORMATS", (TOY, *registry.FORMATS))
    path = tmp_path / "model.toy"
    path.write_bytes(b"TOY1\0\0\0\0" + WEIGHT.tobytes() + BIAS.tobytes() + b"\x12\x34\x56\x78")
    return str(path)


@pytest.fixture
def window(qtbot, tmp_path):
    window = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(window)
    return window


def _rows(window):
    tree = window.findChild(QTreeView, "tensors.tree")
    model = tree.model()
    root = model.index(0, 0)
    return tree, model, root, [model.index(r, 0, root).data() for r in range(model.rowCount(root))]


def test_a_container_opens_on_its_first_tensor_with_the_dock_listing_all(window, toy_file):
    assert window.open_paths([toy_file])
    assert window.docks["tensors"].isVisibleTo(window)
    view = window.document.result.view
    np.testing.assert_array_equal(view, WEIGHT)
    assert window.document.result.zero_copy
    tree, model, root, names = _rows(window)
    assert names == ["layer.weight", "layer.bias", "packed"]
    assert root.data().startswith("toy: ") and root.data().endswith("(3 tensors)")
    assert model.index(1, 1, root).data() == "float32 (F32)"
    assert model.index(0, 2, root).data() == "(2, 2)"
    assert model.index(0, 3, root).data() == "view"
    assert model.index(1, 4, root).data() == "16"
    assert model.index(2, 8, root).data() == "Q4 blocks are not decodable"
    assert not model.flags(model.index(2, 0, root)) & Qt.ItemIsSelectable
    assert tree.selectionModel().currentIndex().row() == 0  # the tensor shown is selected
    info = window.decode_panel.info_label.text()
    assert "<b>Tensor</b> 'layer.weight' of the toy file: type, byte order, offset" in info
    problems = window.tensors_panel.problems
    assert problems.isVisibleTo(window) and "record 9 at byte 99" in problems.text()


def test_choosing_a_tensor_shows_it_and_undo_goes_back(window, toy_file):
    window.open_paths([toy_file])
    tree, model, root, _ = _rows(window)
    tree.selectionModel().setCurrentIndex(model.index(1, 0, root), QItemSelectionModel.ClearAndSelect)
    np.testing.assert_array_equal(window.document.result.view, BIAS)
    assert window.document.current_entry.name == "layer.bias"
    assert (window.document.params.offset, window.document.params.length) == (16, 12)
    window.document.undo()
    np.testing.assert_array_equal(window.document.result.view, WEIGHT)
    assert tree.selectionModel().currentIndex().row() == 0


def test_the_filter_keeps_matching_names(window, toy_file):
    window.open_paths([toy_file])
    window.findChild(QLineEdit, "tensors.filter").setText("BIAS")
    _, _, root, names = _rows(window)
    assert names == ["layer.bias"]
    assert root.data().endswith("(1 of 3 tensors)")


def test_editing_the_bytes_by_hand_leaves_no_tensor_chosen(window, toy_file):
    window.open_paths([toy_file])
    window.document.update_params(dtype="uint8", offset=0, length=None, shape=None)
    assert window.document.current_entry is None
    tree, *_ = _rows(window)
    assert not tree.selectionModel().hasSelection()
    assert window.document.result.view[:4].tolist() == list(b"TOY1")


def test_a_raw_file_hides_the_dock(window, toy_file, tmp_path):
    window.open_paths([toy_file])
    raw = tmp_path / "raw.bin"
    raw.write_bytes(bytes(16))
    window.open_paths([str(raw)])
    assert not window.docks["tensors"].isVisibleTo(window)
    assert window.document.container is None


def test_a_tfrecord_batch_entry_is_recognised_as_the_tensor_shown(window, tmp_path):
    """A bytes feature across records is a batch of element ranges, not one offset/length."""
    pytest.importorskip("google.protobuf")
    import importlib.util
    from pathlib import Path

    # the TFRecord writer of the format's own tests (Example messages built by protobuf)
    location = Path(__file__).parents[2] / "core" / "formats" / "test_tfrecord.py"
    spec = importlib.util.spec_from_file_location("tfrecord_writer", location)
    writer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(writer)
    example, write = writer.example, writer.write

    images = [bytes([i, 2 * i, 3 * i]) for i in range(4)]
    path = write(tmp_path / "train.tfrecord", *[example(image_raw=img, label=[i]) for i, img in enumerate(images)])
    assert window.open_paths([path])
    tree, model, root, names = _rows(window)
    row = names.index("image_raw")
    tree.selectionModel().setCurrentIndex(model.index(row, 0, root), QItemSelectionModel.ClearAndSelect)
    assert window.document.current_entry.name == "image_raw"
    assert window.document.result.view.tolist() == [list(img) for img in images]
    assert tree.selectionModel().currentIndex().row() == row


def test_open_in_a_new_window_shows_a_quantized_tensors_values(window, qtbot, quantized_gguf):
    from PySide6.QtWidgets import QPushButton

    path, expected = quantized_gguf
    assert window.open_paths([path])
    button = window.findChild(QPushButton, "tensors.openValues")
    assert button.isVisibleTo(window) and not button.isEnabled()  # "plain" is shown: nothing to do
    tree, model, root, names = _rows(window)
    assert names == ["plain", "q8"]
    assert [model.index(r, 3, root).data() for r in range(2)] == ["view", "computed"]
    tree.selectionModel().setCurrentIndex(model.index(1, 0, root), QItemSelectionModel.ClearAndSelect)
    assert window.document.result.view.tolist() == [1.5, 2.5]  # a computed entry is not chosen
    assert button.isEnabled()
    button.click()
    [other] = window._other_windows.values()
    qtbot.addWidget(other)
    assert other.isVisible() and other.document.paths == ("q8 (Q8_0, dequantized)",)
    assert "q8 (Q8_0, dequantized)" in other.windowTitle()
    values = other.document.result.view
    np.testing.assert_array_equal(values, expected)
    assert values.shape == (2, 64) and values.dtype == np.float32
    assert window.document.result.view.tolist() == [1.5, 2.5]  # the file's window is unchanged


def test_dequantize_without_the_package_says_how_to_install(window, quantized_gguf, monkeypatch):
    import sys

    from PySide6.QtWidgets import QLabel, QPushButton

    path, _ = quantized_gguf
    assert window.open_paths([path])
    tree, model, root, _ = _rows(window)
    tree.selectionModel().setCurrentIndex(model.index(1, 0, root), QItemSelectionModel.ClearAndSelect)
    monkeypatch.setitem(sys.modules, "gguf.quants", None)
    window.findChild(QPushButton, "tensors.openValues").click()
    error = window.findChild(QLabel, "tensors.valuesError")
    assert error.isVisibleTo(window)
    assert error.text() == ("dequantizing 'q8' (Q8_0) needs the gguf package (pip install "
                            "'tensor-inspector[gguf]'); meanwhile --dtype uint8 shows its raw blocks")
    assert not window._other_windows


def test_a_named_array_window_shows_its_name(qtbot, tmp_path):
    from inspector.show import show

    settings = SettingsStore(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat))
    handle = show(np.arange(6, dtype=np.float32).reshape(2, 3), block=False, settings=settings,
                  name="q8 (Q8_0, dequantized)")
    try:
        assert handle.window.document.paths == ("q8 (Q8_0, dequantized)",)
        assert "q8 (Q8_0, dequantized)" in handle.window.windowTitle()
        assert handle.view.tolist() == [[0, 1, 2], [3, 4, 5]]
    finally:
        handle.close()


def test_decompress_opens_a_compressed_npz_members_values_in_a_new_window(window, qtbot, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QLabel, QPushButton

    path = tmp_path / "c.npz"
    np.savez_compressed(path, a=np.arange(6, dtype=">i2").reshape(3, 2), b=np.ones(4, np.float32))
    window.open_paths([str(path)])
    button = window.findChild(QPushButton, "tensors.openValues")
    assert button.isVisibleTo(window) and button.isEnabled()  # "a" offered: no member is a view
    tree, model, root, names = _rows(window)
    assert names == ["a", "b"]
    tree.selectionModel().setCurrentIndex(model.index(0, 0, root), QItemSelectionModel.ClearAndSelect)
    assert button.isEnabled()
    button.click()
    [other] = window._other_windows.values()
    qtbot.addWidget(other)
    assert other.document.paths == ("a (decompressed)",) and "a (decompressed)" in other.windowTitle()
    values = other.document.result.view
    assert values.tolist() == [[0, 1], [2, 3], [4, 5]] and values.dtype == np.dtype(">i2")
    # a member whose values exceed the copy budget: refused under the tree, no window
    window.document.open_files([str(path)])
    tree, model, root, names = _rows(window)
    tree.selectionModel().setCurrentIndex(model.index(1, 0, root), QItemSelectionModel.ClearAndSelect)
    monkeypatch.setattr("core.budget.COPY_BUDGET_BYTES", 8)
    button.click()
    error = window.findChild(QLabel, "tensors.valuesError")
    assert error.isVisibleTo(window) and error.text().startswith(
        "decompressing npz member 'b.npy' would copy 16 bytes, above the 8 bytes copy budget")
    assert len(window._other_windows) == 1


def test_read_opens_a_chunked_hdf5_datasets_values_in_a_new_window(window, qtbot, tmp_path):
    h5py = pytest.importorskip("h5py")
    from PySide6.QtWidgets import QPushButton

    path = tmp_path / "d.h5"
    with h5py.File(path, "w") as out:
        out.create_dataset("gz", data=np.arange(12, dtype="<f4").reshape(3, 4), chunks=(1, 4),
                           compression="gzip")
        out.create_dataset("plain", data=np.ones(2, np.int8))
    window.open_paths([str(path)])
    button = window.findChild(QPushButton, "tensors.openValues")
    tree, model, root, names = _rows(window)
    assert names == ["gz", "plain"] and button.isVisibleTo(window)
    tree.selectionModel().setCurrentIndex(model.index(0, 0, root), QItemSelectionModel.ClearAndSelect)
    assert button.isEnabled() and button.text() == "Open in a new window"
    button.click()
    [other] = window._other_windows.values()
    qtbot.addWidget(other)
    assert other.document.paths == ("gz (read by h5py)",)
    assert other.document.result.view.tolist() == np.arange(12).reshape(3, 4).tolist()
    tree.selectionModel().setCurrentIndex(model.index(1, 0, root), QItemSelectionModel.ClearAndSelect)
    assert not button.isEnabled()  # a contiguous dataset is shown as a view, no copy needed


def test_an_archive_of_compressed_members_offers_the_first_one_to_decompress(window, tmp_path):
    from PySide6.QtWidgets import QPushButton

    path = tmp_path / "c.npz"
    np.savez_compressed(path, a=np.arange(3), b=np.ones(2))
    window.open_paths([str(path)])
    assert window.document.current_entry is None  # no view of the file shows a tensor: bytes
    tree, model, root, names = _rows(window)
    assert model.entry(tree.selectionModel().currentIndex()).name == "a"
    button = window.findChild(QPushButton, "tensors.openValues")
    assert button.isEnabled() and button.text() == "Open in a new window"


def _tfrecord_writer():
    import importlib.util
    from pathlib import Path

    location = Path(__file__).parents[2] / "core" / "formats" / "test_tfrecord.py"
    spec = importlib.util.spec_from_file_location("tfrecord_writer", location)
    writer = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(writer)
    return writer


def test_open_in_a_new_window_shows_a_tfrecord_int64_feature_as_parse_example_gives_it(window, qtbot, tmp_path):
    from PySide6.QtWidgets import QPushButton

    pytest.importorskip("google.protobuf")
    writer = _tfrecord_writer()
    path = writer.write(tmp_path / "train.tfrecord",
                        *[writer.example(image_raw=bytes([r, r]), label=[7 * r]) for r in range(4)])
    assert window.open_paths([path])
    tree, model, root, names = _rows(window)
    assert names == ["image_raw", "label"]
    tree.selectionModel().setCurrentIndex(model.index(1, 0, root), QItemSelectionModel.ClearAndSelect)
    button = window.findChild(QPushButton, "tensors.openValues")
    assert button.isEnabled()
    button.click()
    [other] = window._other_windows.values()
    qtbot.addWidget(other)
    assert other.document.paths == ("label (varints decoded)",)
    values = other.document.result.view
    assert values.dtype == np.int64 and values.tolist() == [0, 7, 14, 21]  # (records,), not (records, 1)


def test_a_partial_tfrecord_listing_is_said_in_the_tensors_dock(window, tmp_path, monkeypatch):
    from PySide6.QtWidgets import QLabel

    pytest.importorskip("google.protobuf")
    writer = _tfrecord_writer()
    path = writer.write(tmp_path / "many.tfrecord", *[writer.example(a=bytes([i])) for i in range(5)])
    monkeypatch.setattr("core.budget.COPY_BUDGET_BYTES", 7 * 256)
    assert window.open_paths([path])
    problems = window.findChild(QLabel, "tensors.problems")
    assert problems.isVisibleTo(window)
    assert "partial listing: the first 3 of 5 records" in problems.text()
    assert "TENSOR_INSPECTOR_COPY_BUDGET" in problems.text()


def test_a_large_listing_gives_the_tree_its_rows_a_thousand_at_a_time(qtbot, tmp_path):
    # Issue 30 item 11 (the Tensors dock): expandAll and sizing columns from every row of a
    # 400,000-tensor listing took the GUI thread ~31 s. The tree now gets FETCH_ROWS rows at a
    # time; the container row still counts them all, and a chosen row far down is loaded.
    from safetensors.numpy import save_file

    from inspector.panels import tensors_panel
    from inspector.panels.tensors_panel import TensorsPanel
    from inspector.state.document import Document

    path = tmp_path / "many.safetensors"
    save_file({f"t{i:04}": np.full(1, i, np.float32) for i in range(2500)}, str(path))
    document = Document()
    panel = TensorsPanel(document)
    qtbot.addWidget(panel)
    assert document.open_files([str(path)])
    model, root = panel.model, panel.model.index(0, 0)
    assert model.data(root).endswith("(2500 tensors)")
    given = model.rowCount(root)  # the tree itself may ask for more to fill its height
    assert given < 2500 and given % tensors_panel.FETCH_ROWS == 0 and model.canFetchMore(root)
    while model.canFetchMore(root):
        model.fetchMore(root)
        assert model.rowCount(root) == min(2500, given + 1000)
        given = model.rowCount(root)
    assert given == 2500
    panel.model.set_filter("t2")  # t2000..t2499: a new filter starts again from the top
    assert model.data(model.index(0, 0)).endswith("(500 of 2500 tensors)")
    panel.model.set_filter("")
    assert model.rowCount(model.index(0, 0)) < 2223
    document.choose_tensor("t2222")  # beyond the rows given: loaded through it, and selected
    current = panel.tree.selectionModel().currentIndex()
    assert model.entry(current).name == "t2222" and model.rowCount(model.index(0, 0)) >= 2223


def test_activating_a_member_that_cannot_open_says_why(window, qtbot, tmp_path):
    """Issue 30 item 15: Enter / double click on a compressed npz member whose header claims
    10**12 bytes did nothing and said nothing; the dock now shows the member's problem."""
    import zipfile

    from PySide6.QtWidgets import QLabel

    header = b"{'descr': '<f8', 'fortran_order': False, 'shape': (125000000000,), }"
    header += b" " * (117 - len(header)) + b"\n"
    npy = b"\x93NUMPY\x01\x00" + len(header).to_bytes(2, "little") + header + b"\0" * 64
    path = tmp_path / "claim.npz"
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as archive:
        archive.writestr("big.npy", npy)
    window.open_paths([str(path)])
    tree, model, root, names = _rows(window)
    assert names == ["big"]
    error = window.findChild(QLabel, "tensors.valuesError")
    assert not error.isVisibleTo(window)
    tree.activated.emit(model.index(0, 0, root))
    assert error.isVisibleTo(window)
    assert error.text().startswith("npz member 'big.npy': it is compressed (deflate, "
                                   "numpy.savez_compressed)")
    assert "its header promises (125000000000,) float64 values (1000000000000 bytes" in error.text()
    assert window._other_windows == {}
