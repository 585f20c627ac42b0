"""StatisticsPanel on documents opened on temporary files: numbers against numpy, cancel with a
responsive event loop, the cache, and files that change on disk while the panel is open."""

import os

import numpy as np
import pytest
from PySide6.QtCore import QPoint, Qt, QTimer
from PySide6.QtWidgets import QCheckBox, QComboBox

from core.pipeline.pipeline import DecodeParams
from core.scan.statistics import compute_statistics
from inspector.panels.statistics_panel import StatisticsPanel
from inspector.state.background_task import shutdown_tasks
from inspector.state.document import Document


@pytest.fixture(autouse=True)
def _no_leftover_tasks(qtbot):
    yield
    assert shutdown_tasks(10_000)
    qtbot.wait(1)  # deliver the queued outcomes while the widgets still exist


def sample_values():
    rng = np.random.default_rng(8)
    x = rng.normal(3.0, 2.0, 5000).astype(np.float32)
    x[[5, 17, 900]] = np.nan
    x[[1, 2]] = np.inf
    x[3] = -np.inf
    x[[10, 11, 12]] = 0.0
    x[20] = -0.0
    x[[30, 31]] = np.float32(1e-40)  # subnormal in float32
    x[40] = np.float32(-123.5)  # the finite minimum
    return x


def open_document(qtbot, path, **params):
    document = Document()
    assert document.open_files([str(path)], DecodeParams(**params))
    return document


def make_panel(qtbot, document, **kwargs):
    panel = StatisticsPanel(document, **kwargs)
    qtbot.addWidget(panel)
    return panel


def test_statistics_equal_numpy(qtbot, tmp_path):
    x = sample_values()
    path = tmp_path / "data.bin"
    x.tofile(path)
    document = open_document(qtbot, path, dtype="float32")
    panel = make_panel(qtbot, document)  # 5,000 values: computed without pressing Compute
    qtbot.waitUntil(lambda: panel.statistics is not None, timeout=5000)
    stats = panel.statistics
    finite = x[np.isfinite(x)].astype(np.float64)
    assert stats.count == 5000
    assert stats.nan_count == 3 and stats.posinf_count == 2 and stats.neginf_count == 1
    assert stats.finite_count == finite.size == 4994
    assert stats.zero_count == 4 and stats.subnormal_count == 2
    assert stats.min == -np.inf and stats.max == np.inf  # nanmin / nanmax rules
    assert stats.mean == pytest.approx(finite.mean(), rel=1e-12)
    assert stats.std == pytest.approx(finite.std(), rel=1e-12)
    counts, edges = np.histogram(finite, bins=64, range=(finite.min(), finite.max()))
    assert stats.histogram_counts == tuple(counts)
    xs, ys = panel.histogram_view.histogram.getData()
    np.testing.assert_allclose(xs, edges)
    np.testing.assert_array_equal(ys, counts)
    # what the labels say
    labels = {key: label.text() for key, label in panel.value_labels.items()}
    assert labels["count"] == "5,000"
    assert labels["nan"] == "3 (0.06%)"
    assert labels["min"] == "-inf" and labels["max"] == "inf"
    assert labels["subnormal"] == "2 (0.04%)"
    assert labels["mean"] == f"{finite.mean():.7g}"
    assert panel.status_text() == "5,000 values"
    assert not panel.is_running()


def test_min_max_are_shown_as_values_of_the_view_type(qtbot, tmp_path):
    path = tmp_path / "be.bin"
    np.array([0.1, 2.5, -7.25], dtype=">f4").tofile(path)
    document = open_document(qtbot, path, dtype="float32", little_endian=False)
    panel = make_panel(qtbot, document)
    qtbot.waitUntil(lambda: panel.statistics is not None, timeout=5000)
    assert panel.value_labels["min"].text() == "-7.25"
    assert panel.value_labels["max"].text() == "2.5"
    assert panel.value_labels["dtype"].text() == "float32"


def test_big_view_waits_for_compute_and_cancel_keeps_the_gui_responsive(qtbot, tmp_path):
    path = tmp_path / "big.bin"
    with open(path, "wb") as f:
        f.truncate(512 << 20)  # sparse: 128 Mi float32 zeros, no disk used
    document = open_document(qtbot, path, dtype="float32")
    started = []
    panel = make_panel(qtbot, document, chunk_elements=1 << 15)
    panel.computationStarted.connect(started.append)
    assert panel.statistics is None and not panel.is_running() and started == []
    assert panel.status_text().startswith("The view has 134,217,728 values: press Compute")

    ticks = []
    timer = QTimer()
    timer.timeout.connect(lambda: ticks.append(1))
    timer.start(5)
    progress = []
    assert panel.compute_button.isEnabled()
    qtbot.mouseClick(panel.compute_button, Qt.MouseButton.LeftButton)
    task = started[0]
    task.progressChanged.connect(lambda done, total: progress.append((done, total)))
    assert panel.is_running() and started == [task]
    qtbot.waitUntil(lambda: len(ticks) >= 5 and bool(progress), timeout=10_000)
    assert panel.is_running()  # the event loop ran while the worker works
    assert progress[-1][1] == 2 * 134_217_728
    assert panel.status_text().startswith("Computing 134,217,728 values…")
    with qtbot.waitSignal(task.cancelled, timeout=10_000):
        panel.cancel()
    timer.stop()
    assert panel.statistics is None
    assert not panel.is_running()
    assert panel.status_text() == "Cancelled (press Compute to start again)"
    assert task.state == "cancelled"


def test_returning_to_a_previous_setting_uses_the_cache(qtbot, tmp_path):
    x = sample_values()
    path = tmp_path / "data.bin"
    x.tofile(path)
    document = open_document(qtbot, path, dtype="float32")
    started = []
    panel = make_panel(qtbot, document)
    panel.computationStarted.connect(started.append)
    qtbot.waitUntil(lambda: panel.statistics is not None, timeout=5000)
    first = panel.statistics

    with qtbot.waitSignal(panel.statisticsChanged, timeout=5000,
                          check_params_cb=lambda s: s is not None):
        document.set_slice_text("[:100]")
    assert panel.statistics.count == 100 and len(started) == 1

    with qtbot.waitSignal(panel.statisticsChanged, timeout=5000,
                          check_params_cb=lambda s: s is not None):
        document.update_params(dtype="int32")
    assert panel.statistics.dtype == "int32"
    assert panel.statistics.min == int(x[:100].view(np.int32).min())
    assert len(started) == 2

    document.update_params(dtype="float32")  # back to the [:100] float32 view: cached
    assert len(started) == 2
    assert panel.statistics.count == 100 and panel.statistics.dtype == "float32"
    assert panel.status_text() == "100 values (cached)"
    document.set_slice_text("")
    assert len(started) == 2
    assert panel.statistics is first
    document.set_slice_text("[...]")  # the same view through another text
    document.set_slice_text("[::")  # an invalid edit: the document keeps the last good view
    assert document.error is not None
    assert panel.compute() is None and len(started) == 2
    assert panel.statistics is first
    assert not panel.is_running()


def test_a_new_view_cancels_the_old_computation(qtbot, tmp_path):
    path = tmp_path / "big.bin"
    with open(path, "wb") as f:
        f.truncate(64 << 20)
    document = open_document(qtbot, path, dtype="float32")
    panel = make_panel(qtbot, document, chunk_elements=1 << 12)  # 16 Mi values: not automatic
    old_task = panel.compute()
    assert panel.is_running()
    document.set_slice_text("[:1000]")
    with qtbot.waitSignal(old_task.cancelled, timeout=10_000):
        pass
    qtbot.waitUntil(lambda: panel.statistics is not None, timeout=5000)
    assert panel.statistics.count == 1000 and panel.statistics.zero_count == 1000


def test_file_truncated_mid_session_gives_an_error_not_a_crash(qtbot, tmp_path):
    x = sample_values()
    path = tmp_path / "data.bin"
    x.tofile(path)
    document = open_document(qtbot, path, dtype="float32")
    panel = make_panel(qtbot, document)
    qtbot.waitUntil(lambda: panel.statistics is not None, timeout=5000)

    os.truncate(path, 400)  # 100 float32 values left; pages past them would SIGBUS
    assert panel.compute() is None  # cached for the old file, but the file changed: refused
    assert panel.statistics is None
    assert panel.status_text() == (f"Error: '{path}' changed on disk since it was opened "
                                   "(size 20000 -> 400 bytes) (reload it)")
    document.set_slice_text("[:10]")  # the document refuses to decode the changed file too
    assert document.error is not None and panel.statistics is None

    document.reload()
    qtbot.waitUntil(lambda: panel.statistics is not None, timeout=5000)
    assert panel.statistics.count == 10
    assert panel.statistics.mean == pytest.approx(float(x[:10][np.isfinite(x[:10])].mean()))


def test_file_modified_during_the_computation_reports_an_error(qtbot, tmp_path):
    path = tmp_path / "big.bin"
    with open(path, "wb") as f:
        f.truncate(256 << 20)
    document = open_document(qtbot, path, dtype="float32")
    panel = make_panel(qtbot, document, chunk_elements=1 << 14)
    task = panel.compute()
    qtbot.waitUntil(lambda: panel.progress_bar.value() > 0, timeout=10_000)
    with qtbot.waitSignal(task.failed, timeout=10_000):
        os.utime(path, ns=(0, 0))  # same size, new mtime: the check before the next block fails
    assert panel.statistics is None and not panel.is_running()
    assert panel.status_text() == (f"Error: '{path}' changed on disk since it was opened "
                                   "(it was modified) (reload it)")


def test_closing_the_files_clears_the_panel(qtbot, tmp_path):
    path = tmp_path / "data.bin"
    sample_values().tofile(path)
    document = open_document(qtbot, path, dtype="float32")
    panel = make_panel(qtbot, document)
    qtbot.waitUntil(lambda: panel.statistics is not None, timeout=5000)
    document.close_files()
    assert panel.statistics is None
    assert panel.status_text() == "No file open"
    assert panel.value_labels["mean"].text() == "—"


def test_complex_views_show_magnitudes(qtbot, tmp_path):
    path = tmp_path / "c.bin"
    np.array([3 + 4j, -5 + 12j, 0j], dtype=np.complex64).tofile(path)
    document = open_document(qtbot, path, dtype="complex64")
    panel = make_panel(qtbot, document)
    qtbot.waitUntil(lambda: panel.statistics is not None, timeout=5000)
    assert panel.statistics.quantity == "magnitude"
    assert (panel.statistics.min, panel.statistics.max) == (0.0, 13.0)
    assert panel.value_labels["dtype"].text() == "complex64 (|z|)"
    assert panel.value_labels["max"].text() == "13.0"


def test_the_quantity_combo_gives_statistics_of_the_real_part_phase_and_db(qtbot, tmp_path):
    path = tmp_path / "c.bin"
    np.array([3 + 4j, -5 + 12j, 0j], dtype=np.complex64).tofile(path)
    document = open_document(qtbot, path, dtype="complex64")
    panel = make_panel(qtbot, document)
    combo = panel.findChild(QComboBox, "stats.quantity")
    assert combo.isVisibleTo(panel)
    qtbot.waitUntil(lambda: panel.statistics is not None, timeout=5000)
    combo.setCurrentText("real")  # as the user would
    qtbot.waitUntil(lambda: panel.statistics is not None and panel.statistics.quantity == "real", timeout=5000)
    assert (panel.statistics.min, panel.statistics.max, panel.statistics.mean) == (-5.0, 3.0, pytest.approx(-2 / 3))
    assert panel.value_labels["dtype"].text() == "complex64 (re z)"
    panel.set_quantity("dB")
    qtbot.waitUntil(lambda: panel.statistics is not None and panel.statistics.quantity == "dB", timeout=5000)
    # |3+4j| = 5 -> 13.979 dB, |-5+12j| = 13 -> 22.279 dB, 0 -> -inf
    assert panel.statistics.max == pytest.approx(20 * np.log10(13.0))
    assert panel.statistics.neginf_count == 1
    panel.set_quantity("magnitude")  # back to the first setting: from the cache
    qtbot.waitUntil(lambda: panel.statistics is not None and panel.statistics.quantity == "magnitude", timeout=5000)
    assert panel.statistics.max == 13.0 and "cached" in panel.status_text()


def test_the_quantity_combo_is_hidden_for_real_views(qtbot, tmp_path):
    path = tmp_path / "r.bin"
    np.arange(4, dtype=np.float32).tofile(path)
    panel = make_panel(qtbot, open_document(qtbot, path, dtype="float32"))
    assert not panel.findChild(QComboBox, "stats.quantity").isVisibleTo(panel)


def test_view_as_slice_changes_never_show_another_slices_statistics(qtbot, tmp_path):
    # Each row i of a 64 x 4096 float32 file holds i + [0, 1, ..., 4095] / 4096: every row has
    # its own mean. View as int32 converts only the slice, into a new copy on every change.
    rows = np.arange(64, dtype=np.float32)[:, None] * 100 + np.arange(4096, dtype=np.float32)
    path = tmp_path / "rows.bin"
    rows.tofile(path)
    document = open_document(qtbot, path, dtype="float32", shape=(64, 4096), view_as="int32")
    panel = make_panel(qtbot, document)
    qtbot.waitUntil(lambda: panel.statistics is not None, timeout=5000)
    rng = np.random.default_rng(3)
    for row in rng.integers(0, 64, 128):
        document.set_slice_text(f"[{row}]")
        qtbot.waitUntil(lambda: panel.statistics is not None and not panel.is_running(),
                        timeout=5000)
        expected = compute_statistics(document.result.view)
        assert panel.statistics.mean == expected.mean == row * 100 + 2047.5
        assert panel.statistics.min == row * 100 and panel.statistics.max == row * 100 + 4095


def test_reload_after_an_in_place_rewrite_with_the_mtime_restored_recomputes(qtbot, tmp_path):
    path = tmp_path / "data.bin"
    np.full(1000, 2.0, dtype=np.float32).tofile(path)
    document = open_document(qtbot, path, dtype="float32")
    panel = make_panel(qtbot, document)
    qtbot.waitUntil(lambda: panel.statistics is not None, timeout=5000)
    assert panel.statistics.mean == 2.0
    before = os.stat(path)
    with open(path, "r+b") as f:  # same inode, same size
        f.write(np.full(1000, 7.0, dtype=np.float32).tobytes())
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))  # the identity says "unchanged"
    document.reload()
    qtbot.waitUntil(lambda: panel.statistics is not None and not panel.is_running(), timeout=5000)
    assert panel.statistics.mean == 7.0
    assert panel.status_text() == "1,000 values"


def test_statistics_of_a_replaced_file_are_marked_stale(qtbot, tmp_path):
    path = tmp_path / "data.bin"
    np.full(10, 2.0, dtype=np.float32).tofile(path)
    document = open_document(qtbot, path, dtype="float32")
    panel = make_panel(qtbot, document)
    qtbot.waitUntil(lambda: panel.statistics is not None, timeout=5000)
    other = tmp_path / "other.bin"
    np.full(10, 9.0, dtype=np.float32).tofile(other)
    os.replace(other, path)  # the map still holds the old inode's 2.0s
    with qtbot.waitSignal(document.filesChangedOnDisk, timeout=5000):
        document.changes_on_disk()
    assert panel.statistics is not None and panel.statistics.mean == 2.0
    assert panel.status_text() == ("10 values (stale: data.bin was replaced on disk; "
                                   "File > Reload recomputes)")
    document.reload()
    qtbot.waitUntil(lambda: panel.statistics is not None and panel.statistics.mean == 9.0,
                    timeout=5000)
    assert panel.status_text() == "10 values"


def test_the_histogram_can_show_counts_on_a_log_axis(qtbot, tmp_path):
    # 1,000 zeros, 10 ones and one 3 in 4 bins over [0, 3]: counts 1000, 10, 0, 1.
    path = tmp_path / "counts.bin"
    np.array([0] * 1000 + [1] * 10 + [3], dtype=np.uint8).tofile(path)
    document = open_document(qtbot, path, dtype="uint8")
    panel = make_panel(qtbot, document, bins=4)
    panel.show()
    qtbot.waitExposed(panel)
    qtbot.waitUntil(lambda: panel.statistics is not None, timeout=5000)
    check = panel.findChild(QCheckBox, "stats.logScale")
    assert check is not None and not check.isChecked() and not panel.log_scale
    np.testing.assert_array_equal(panel.histogram_view.histogram.getData()[1], [1000, 10, 0, 1])
    changes = []
    panel.logScaleChanged.connect(changes.append)
    qtbot.mouseClick(check, Qt.MouseButton.LeftButton, pos=QPoint(8, check.height() // 2))  # the box
    assert panel.log_scale and changes == [True]
    assert document.view_options.value.histogram_log_scale  # a view option of the document
    assert panel.histogram_view.plot.getAxis("left").logMode
    # Drawn as log10(count); an empty bin sits on the floor of half a count, where bars start.
    np.testing.assert_allclose(panel.histogram_view.histogram.getData()[1], [3.0, 1.0, np.log10(0.5), 0.0])
    assert panel.histogram_view.histogram.opts["fillLevel"] == pytest.approx(np.log10(0.5))
    panel.set_log_scale(False)
    assert not check.isChecked() and changes == [True, False]
    np.testing.assert_array_equal(panel.histogram_view.histogram.getData()[1], [1000, 10, 0, 1])
    assert panel.histogram_view.histogram.opts["fillLevel"] == 0


def test_the_statistics_widgets_have_stable_names(qtbot, tmp_path):
    path = tmp_path / "v.bin"
    np.arange(10, dtype=np.uint8).tofile(path)
    panel = make_panel(qtbot, open_document(qtbot, path, dtype="uint8"))
    from PySide6.QtWidgets import QLabel, QProgressBar, QPushButton, QWidget

    assert panel.findChild(QPushButton, "stats.compute") is panel.compute_button
    assert panel.findChild(QPushButton, "stats.cancel") is panel.cancel_button
    assert panel.findChild(QProgressBar, "stats.progress") is panel.progress_bar
    assert panel.findChild(QLabel, "stats.status") is panel.status_label
    assert panel.findChild(QWidget, "stats.histogram") is panel.histogram_view.plot
    assert panel.findChild(QLabel, "stats.value.max") is panel.value_labels["max"]


def test_a_narrow_panel_shows_its_fields_in_one_column(qtbot, tmp_path):
    from PySide6.QtWidgets import QScrollArea

    path = tmp_path / "v.bin"
    np.arange(10, dtype=np.uint8).tofile(path)
    panel = StatisticsPanel(open_document(qtbot, path, dtype="uint8"))
    area = QScrollArea()
    qtbot.addWidget(area)
    area.setWidgetResizable(True)
    area.setWidget(panel)  # as in its dock
    area.resize(700, 600)
    area.show()
    qtbot.waitExposed(area)
    qtbot.waitUntil(lambda: panel.statistics is not None, timeout=5000)
    qtbot.waitUntil(lambda: panel.field_columns == 2)
    # The histogram takes the height left over: nothing to scroll in a 600 px dock.
    assert panel.height() == area.viewport().height() and area.verticalScrollBar().maximum() == 0
    plot = panel.histogram_view.plot
    assert plot.mapTo(panel, plot.rect().bottomLeft()).y() >= 600 - 20
    labels = panel.value_labels
    assert labels["count"].x() > labels["dtype"].x() and labels["count"].y() == labels["dtype"].y()
    area.resize(230, 600)
    qtbot.waitUntil(lambda: panel.field_columns == 1)
    assert panel.width() <= area.viewport().width()  # no scrolling sideways
    order = ["dtype", "min", "max", "mean", "std", "zeros", "count", "finite", "nan", "posinf",
             "neginf", "subnormal"]  # the left column, then the right one
    qtbot.waitUntil(lambda: labels["subnormal"].y() > labels["zeros"].y())
    ys = [labels[key].y() for key in order]
    assert ys == sorted(ys) and len(set(ys)) == 12
    assert len({labels[key].x() for key in order}) == 1
    assert labels["max"].text() == "9"
    area.resize(700, 600)
    qtbot.waitUntil(lambda: panel.field_columns == 2)


def test_figures_before_the_histogram_reach_the_labels_first(qtbot, tmp_path):
    x = sample_values()
    path = tmp_path / "data.bin"
    x.tofile(path)
    document = open_document(qtbot, path, dtype="float32")
    panel = make_panel(qtbot, document, auto_limit=0)  # nothing computed until asked
    shown = []
    panel._interim.figures.connect(lambda key, figures: shown.append(
        (figures.complete, figures.histogram_counts, panel.value_labels["count"].text())))
    task = panel.compute()
    with qtbot.waitSignal(task.finished, timeout=10_000):
        pass
    assert len(shown) == 1
    complete, histogram, count_label = shown[0]
    assert complete is False and histogram == ()  # the cheap figures, before the histogram
    assert count_label == "5,000"  # already on the label when they arrived
    # the interim figures were written to the labels; the final ones are the same numbers
    assert panel.value_labels["count"].text() == "5,000"
    assert panel.value_labels["mean"].text() == f"{x[np.isfinite(x)].astype(np.float64).mean():.7g}"
    assert panel.statistics.complete and len(panel.statistics.histogram_counts) == 64
