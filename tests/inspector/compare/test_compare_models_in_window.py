"""Compare models in the window: the pair table of two checkpoints fills in from a worker, worst
first; a pair opens in the element-level compare; Back returns to the table; the command line's
``A --compare B`` of two models or folders starts there."""

from __future__ import annotations

import os

import numpy as np
import pytest
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication, QCheckBox, QComboBox, QLineEdit, QPushButton, QTableView
from safetensors.numpy import save_file

from core.models.rows import PAIR_COLUMNS
from inspector.compare.models_panel import ModelComparePanel
from inspector.main_window import MainWindow
from inspector.panels.compare_models_dialog import CompareModelsDialog
from inspector.state.settings_store import SettingsStore


@pytest.fixture
def window(qtbot, tmp_path):
    window = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(window)
    return window


@pytest.fixture
def checkpoints(tmp_path):
    """A with ``model.`` before every name; B the same values, but layers.2 off by 0.5 in 3
    elements, layers.4 all NaN, an extra tensor in B."""
    rng = np.random.default_rng(3)
    values = {f"layers.{i}.weight": rng.standard_normal((8, 16)).astype(np.float32) for i in range(6)}
    a = {f"model.{name}": value for name, value in values.items()}
    b = {name: value.copy() for name, value in values.items()}
    b["layers.2.weight"][1, 2:5] += 0.5
    b["layers.4.weight"][:] = np.nan
    b["lm_head.weight"] = np.ones(4, np.float32)
    save_file(a, str(tmp_path / "a.safetensors"))
    save_file(b, str(tmp_path / "b.safetensors"))
    return str(tmp_path / "a.safetensors"), str(tmp_path / "b.safetensors")


def _column(panel, name):
    model, column = panel.model, PAIR_COLUMNS.index(name)
    return [model.index(r, column).data() for r in range(model.rowCount())]


def _compared(qtbot, window, a, b):
    window.compare_models(a, b)
    models = window.model_comparison
    qtbot.waitUntil(lambda: models.status != "running", timeout=20_000)
    assert models.status == "done"
    return window.findChild(ModelComparePanel)


def test_the_pair_table_is_worst_first_and_names_the_first_divergent_pair(window, qtbot, checkpoints):
    panel = _compared(qtbot, window, *checkpoints)
    assert not window.docks["modelCompare"].isHidden()
    # Worst first: status, then the larger share over tolerance.
    assert _column(panel, "name") == ["layers.4.weight", "layers.2.weight", "lm_head.weight", "layers.0.weight",
                                      "layers.1.weight", "layers.3.weight", "layers.5.weight"]
    assert _column(panel, "status")[:3] == ["differs", "differs", "only in B"]
    assert _column(panel, "over tol")[:2] == ["128 (100%)", "3 (2.34%)"]
    assert _column(panel, "max abs")[:2] == ["undefined", "0.5"]
    assert _column(panel, "cosine")[0] == "undefined"  # all NaN in B: no pair of finite values
    assert _column(panel, "cosine")[3] == "1"
    assert panel.summary.text() == ("7 pairs: 2 differs, 1 only in B, 4 equal; first divergent: layers.2.weight "
                                    "(pair 3 in order), 1 more over tolerance after it")
    assert "removing the prefix 'model.'" in panel.sides.text()
    assert panel.sides.text().startswith(f"A: {checkpoints[0]} (6 tensors)    B: {checkpoints[1]} (7 tensors)")
    window.findChild(QCheckBox, "modelCompare.overOnly").setChecked(True)
    assert _column(panel, "name") == ["layers.4.weight", "layers.2.weight", "lm_head.weight"]
    window.findChild(QLineEdit, "modelCompare.filter").setText("head")
    assert _column(panel, "name") == ["lm_head.weight"]


def test_a_pair_opens_in_the_element_level_compare_and_back_returns(window, qtbot, checkpoints):
    window.show()
    qtbot.waitExposed(window)
    window.activateWindow()
    qtbot.waitActive(window)
    panel = _compared(qtbot, window, *checkpoints)
    table = window.findChild(QTableView, "modelCompare.table")
    table.activated.emit(panel.model.index(1, 0))  # layers.2.weight
    comparison = window.comparison
    qtbot.waitUntil(lambda: comparison.result is not None, timeout=20_000)
    assert window.document.current_entry.name == "model.layers.2.weight"
    assert comparison.paths == (checkpoints[1],)
    result = comparison.result
    assert (result.mismatched, result.compared) == (3, 128)
    assert result.max_absolute.index_a in ((1, 2), (1, 3), (1, 4)) and abs(result.max_absolute.value - 0.5) < 1e-6
    assert table.selectionModel().currentIndex().row() == 1
    back = window.findChild(QPushButton, "compare.backToPairs")
    assert not back.isHidden()
    window.focus_panel("model")  # the pair table's tab behind another, the focus in the Compare dock
    window.focus_panel("compare")
    assert window.docks["modelCompare"].visibleRegion().isEmpty()
    back.click()
    assert QApplication.focusWidget() is table and not window.docks["modelCompare"].visibleRegion().isEmpty()
    # A second pair of the same files changes the parameters only: one undoable edit, B stays open.
    opened_b = comparison.paths
    window.findChild(QPushButton, "modelCompare.firstDivergent").click()
    qtbot.waitUntil(lambda: comparison.result is not None and comparison.result.mismatched == 3, timeout=20_000)
    panel.models.open_pair(panel.model.row_at(3))  # layers.0.weight: equal
    qtbot.waitUntil(lambda: comparison.result is not None and comparison.result.mismatched == 0, timeout=20_000)
    assert comparison.paths == opened_b and window.document.current_entry.name == "model.layers.0.weight"
    window.document.undo()
    assert window.document.current_entry.name == "model.layers.2.weight"


def test_a_pair_stored_as_a_copy_is_compared_from_memory(window, qtbot, tmp_path, checkpoints):
    """B as a compressed npz: its members are copies, opened as arrays in memory."""
    rng = np.random.default_rng(3)
    values = {f"layers.{i}.weight": rng.standard_normal((8, 16)).astype(np.float32) for i in range(6)}
    values["layers.5.weight"][0, 0] = 9.0
    np.savez_compressed(tmp_path / "b.npz", **values)
    panel = _compared(qtbot, window, checkpoints[0], str(tmp_path / "b.npz"))
    assert _column(panel, "name")[0] == "layers.5.weight" and _column(panel, "over tol")[0] == "1 (0.781%)"
    panel.models.open_pair(panel.model.row_at(0))
    comparison = window.comparison
    qtbot.waitUntil(lambda: comparison.result is not None, timeout=20_000)
    assert comparison.paths == ("layers.5.weight (decompressed)",)
    assert comparison.result.mismatched == 1 and comparison.result.max_absolute.index_a == (0, 0)


def test_folders_of_dumps_pair_by_file_name_in_natural_order(window, qtbot, tmp_path):
    a, b = tmp_path / "golden", tmp_path / "port"
    a.mkdir()
    b.mkdir()
    rng = np.random.default_rng(4)
    for i in (1, 2, 10):
        x = rng.standard_normal(20).astype(np.float32)
        np.save(a / f"layer_{i}.npy", x)
        np.save(b / f"layer_{i}.npy", x + (0.01 if i >= 2 else 0))
    panel = _compared(qtbot, window, str(a), str(b))
    assert panel.summary.text() == ("3 pairs: 2 differs, 1 equal; first divergent: layer_2 (pair 2 in order), "
                                    "1 more over tolerance after it")
    panel.open_first_divergent()
    comparison = window.comparison
    qtbot.waitUntil(lambda: comparison.result is not None, timeout=20_000)
    assert window.document.paths == (os.path.join(str(a), "layer_2.npy"),)
    assert comparison.paths == (os.path.join(str(b), "layer_2.npy"),)
    assert comparison.result.mismatched == 20


def test_close_hides_the_dock_and_the_back_button(window, qtbot, checkpoints):
    _compared(qtbot, window, *checkpoints)
    window.findChild(QPushButton, "modelCompare.close").click()
    assert window.docks["modelCompare"].isHidden()
    assert window.findChild(QPushButton, "compare.backToPairs").isHidden()


def test_the_dialog_refuses_a_missing_path_and_gives_the_rules(qtbot, tmp_path, checkpoints):
    dialog = CompareModelsDialog(path_a=checkpoints[0])
    qtbot.addWidget(dialog)
    dialog.findChild(QLineEdit, "compareModels.b").setText(str(tmp_path / "missing"))
    dialog._on_accept()
    error = dialog.findChild(type(dialog.error), "compareModels.error")
    assert not error.isHidden() and "does not exist" in error.text() and dialog.result() == 0
    dialog.findChild(QLineEdit, "compareModels.b").setText(checkpoints[1])
    dialog.findChild(QLineEdit, "compareModels.strip").setText("model., module.")
    match = dialog.findChild(QComboBox, "compareModels.match")
    match.setCurrentIndex(match.findData("order"))
    dialog._on_accept()
    assert dialog.result() == 1
    path_a, path_b, rules = dialog.choice()
    assert (path_a, path_b, rules.mode, rules.strip) == (checkpoints[0], checkpoints[1], "order", ("model.", "module."))


def test_the_command_line_start_compares_two_models_and_opens_the_first_divergent_pair(window, qtbot, checkpoints):
    from core.pipeline.params import DecodeParams
    from inspector.app import _compare_models_at_start, _models_compared, build_parser

    args = build_parser().parse_args([checkpoints[0], "--compare", checkpoints[1]])
    assert _models_compared(args, DecodeParams()) == checkpoints
    raw = build_parser().parse_args([checkpoints[0], "--compare", checkpoints[1], "--dtype", "uint8"])
    assert _models_compared(raw, DecodeParams(dtype="uint8")) is None  # a layout option: one tensor each
    _compare_models_at_start(window, *checkpoints)
    qtbot.waitUntil(lambda: window.comparison.result is not None, timeout=20_000)
    assert window.document.current_entry.name == "model.layers.2.weight"
    assert window.comparison.result.mismatched == 3


def test_the_command_line_screenshot_of_two_folders_shows_the_pair_table(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    a, b = tmp_path / "a", tmp_path / "b"
    a.mkdir()
    b.mkdir()
    for i in range(3):
        np.save(a / f"t{i}.npy", np.arange(10, dtype=np.float32) + i)
        np.save(b / f"t{i}.npy", np.arange(10, dtype=np.float32) + (i if i < 2 else 0))
    png = tmp_path / "shot.png"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "config"))
    out = subprocess.run([sys.executable, "-m", "inspector", str(a), "--compare", str(b), "--screenshot", str(png)],
                         cwd=Path(__file__).resolve().parents[3], env=env, capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert "Traceback" not in out.stderr and png.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"


def test_two_models_with_no_common_name_say_so_and_how_to_pair_them(window, qtbot, tmp_path):
    save_file({"encoder.w": np.ones(3, np.float32)}, str(tmp_path / "a.safetensors"))
    save_file({"decoder.v": np.ones(3, np.float32)}, str(tmp_path / "b.safetensors"))
    window.compare_models(str(tmp_path / "a.safetensors"), str(tmp_path / "b.safetensors"))
    models = window.model_comparison
    qtbot.waitUntil(lambda: models.status != "running", timeout=20_000)
    panel = window.findChild(ModelComparePanel)
    assert models.status == "failed" and panel.model.rowCount() == 0
    text = panel.summary.text()
    assert text.startswith("0 pairs: none (failed: ") and "--match" in text
