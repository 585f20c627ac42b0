"""Tensors by name in the window: ``tensor-inspector FILE --tensor NAME`` and
:meth:`TensorsPanel.show_tensor` (a view of the file in this window, a tensor of another file in
a new one, a wrong name said under the tree); the dock's share of the column when a model opens.
Files from the real writers (torch.save, TensorFlow: tests/core/formats/fixtures)."""

from pathlib import Path

import numpy as np
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QTreeView

from core.cli import params_from_args
from inspector.app import build_parser, open_startup_files, show_startup_tensor
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore

FIXTURES = Path(__file__).resolve().parents[2] / "core" / "formats" / "fixtures"
VIEWS = FIXTURES / "pytorch" / "views.pt"
TF_V1 = FIXTURES / "tf_checkpoint" / "v1"


@pytest.fixture
def window(qtbot, tmp_path):
    configure_pyqtgraph()
    window = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(window)
    return window


def _expected(name):
    with np.load(FIXTURES / "pytorch" / "views.expected.npz") as saved:
        names = [str(n) for n in saved["names"]]
        return saved[f"v{names.index(name)}"]


def _startup(window, *words):
    args = build_parser().parse_args(list(words))
    cli_params, slice_text, _ = params_from_args(args)
    paths = open_startup_files(window, list(args.files), cli_params, slice_text)
    show_startup_tensor(window, args.tensor)
    return paths


def test_the_tensor_option_shows_that_tensor_of_a_pytorch_checkpoint(window):
    _startup(window, str(VIEWS), "--tensor", "transposed")
    assert window.document.current_entry.name == "transposed"
    view = window.document.result.view
    np.testing.assert_array_equal(view, _expected("transposed"))  # a strided view, as torch.load gives it
    assert view.shape == (6, 4) and window.document.result.zero_copy
    tree = window.findChild(QTreeView, "tensors.tree")
    assert tree.selectionModel().currentIndex().data() == "transposed"
    window.document.undo()  # one undoable edit, back to the first tensor
    assert window.document.current_entry.name == "base"


def test_a_name_the_checkpoint_lacks_is_said_under_the_tree_and_changes_nothing(window):
    _startup(window, str(VIEWS), "--tensor", "transposd")
    assert window.document.current_entry.name == "base"
    error = window.tensors_panel.values_error
    assert error.isVisibleTo(window)
    assert "has no tensor named 'transposd'" in error.text() and "transposed" in error.text()


def test_a_raw_file_has_no_tensor_to_show(window, tmp_path):
    raw = tmp_path / "raw.bin"
    raw.write_bytes(bytes(16))
    _startup(window, str(raw), "--tensor", "w")
    assert "the open file is not a container" in window.tensors_panel.values_error.text()


def test_a_variable_of_a_tf_checkpoint_opens_in_a_new_window(window, qtbot):
    _startup(window, str(TF_V1), "--tensor", "dense/kernel")
    [other] = window._other_windows.values()
    qtbot.addWidget(other)
    with np.load(TF_V1 / "model.ckpt.expected.npz") as saved:
        names = [str(n) for n in saved["names"]]
        kernel = saved[f"v{names.index('dense/kernel')}"]
    assert other.isVisible() and "dense/kernel" in other.document.paths[0]
    values = other.document.result.view
    np.testing.assert_array_equal(values, kernel)  # as tf.train.load_checkpoint gives it
    assert values.dtype == np.float32 and values.shape == (2, 3)


def test_a_model_opens_with_the_tensors_dock_given_its_share_of_the_column(window, qtbot):
    window.resize(1400, 860)
    window.show()
    qtbot.waitExposed(window)
    window.open_paths([str(VIEWS)])
    qtbot.wait(50)
    left = [window.docks[name] for name in ("decode", "slice", "tensors")]
    assert all(dock.isVisible() for dock in left)
    column = sum(dock.height() for dock in left)
    assert window.docks["tensors"].height() >= 0.3 * column  # not squeezed below the fields
    window.dock_layout.apply_default_layout()  # View > Reset layout keeps the share
    qtbot.wait(50)
    assert window.docks["tensors"].height() >= 0.3 * sum(dock.height() for dock in left)


def test_the_type_column_says_a_torch_type_once(window):
    window.open_paths([str(VIEWS)])
    tree = window.findChild(QTreeView, "tensors.tree")
    model = tree.model()
    assert model.index(0, 1, model.index(0, 0)).data() == "int16"  # stored as torch.int16
