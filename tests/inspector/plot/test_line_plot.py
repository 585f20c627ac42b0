"""LinePlot on big data: pyramid off the GUI thread, exact zoom, peaks kept, NaN/Inf survive."""

from __future__ import annotations

import re

import numpy as np
import pytest

from core.display.line_decimation import peak_decimate
from inspector.plot import line_plot as line_plot_module
from inspector.plot.line_plot import EXACT_PER_PIXEL, PYRAMID_THRESHOLD, LinePlot
from inspector.plot.panel import PlotPanel, configure_pyqtgraph

N_BIG = 10**7


@pytest.fixture(scope="module")
def big_memmap(tmp_path_factory) -> tuple[np.memmap, int, int]:
    """A 10**7-point float32 file: noisy sine with one spike up and one down at odd places."""
    path = tmp_path_factory.mktemp("big") / "big_f32.bin"
    t = np.arange(N_BIG, dtype=np.float64)
    data = (np.sin(t / 2e5) + np.random.default_rng(5).normal(0, 0.05, N_BIG)).astype(np.float32)
    i_max, i_min = 3_333_337, 7_777_771
    data[i_max], data[i_min] = 9.5, -8.25
    data.tofile(path)
    del data
    return np.memmap(path, dtype=np.float32, mode="r"), i_max, i_min


@pytest.fixture
def panel(qtbot) -> PlotPanel:
    configure_pyqtgraph()
    widget = PlotPanel()
    qtbot.addWidget(widget)
    widget.resize(900, 500)
    return widget


def wait_for_pyramid(qtbot, plot: LinePlot) -> None:
    qtbot.waitUntil(lambda: plot.pyramid is not None, timeout=20_000)


def test_memmap_10m_points_keeps_global_peaks(qtbot, panel, big_memmap):
    data, i_max, i_min = big_memmap
    panel.set_array(data)
    plot = panel.line_plot
    assert np.shares_memory(plot.values, data)  # a view of the file, never a copy
    px = plot.width_px()
    # Before the pyramid: a strided preview of about 4 samples per pixel.
    x, _ = panel.curve.getData()
    assert plot.pyramid is None and len(x) <= EXACT_PER_PIXEL * px + 1
    with qtbot.waitSignal(plot.overviewReady, timeout=20_000):
        pass
    x, y = panel.curve.getData()
    assert len(x) <= 2 * (px + 2) <= 4000
    assert y.max() == 9.5 and y.min() == -8.25
    # The spikes are drawn in the buckets that hold them.
    assert abs(x[np.argmax(y)] - i_max) <= N_BIG / px and abs(x[np.argmin(y)] - i_min) <= N_BIG / px


def test_memmap_zoom_levels(qtbot, panel, big_memmap):
    data, i_max, _ = big_memmap
    panel.set_array(data)
    plot = panel.line_plot
    wait_for_pyramid(qtbot, plot)
    px = plot.width_px()
    # Mid zoom: pyramid answer equals direct peak decimation of the visible range.
    plot.view_box.setXRange(2_000_000, 4_000_000, padding=0)
    plot.refresh()
    start, stop = plot.visible_range()
    bucket = plot.pyramid.choose_bucket(stop - start, px)
    want = peak_decimate(np.asarray(data[start:stop]), bucket, offset=start).curve()
    x, y = panel.curve.getData()
    np.testing.assert_array_equal(x, want[0])
    np.testing.assert_array_equal(y, want[1])
    assert y.max() == 9.5  # i_max is in range
    # Far in: the exact slice.
    plot.view_box.setXRange(i_max - 100, i_max + 100, padding=0)
    plot.refresh()
    start, stop = plot.visible_range()
    x, y = panel.curve.getData()
    np.testing.assert_array_equal(x, np.arange(start, stop))
    np.testing.assert_array_equal(y, data[start:stop])
    # A range between "exact" and the base bucket: read directly and decimated.
    plot.view_box.setXRange(5_000_000, 5_000_000 + 20 * px, padding=0)
    plot.refresh()
    start, stop = plot.visible_range()
    want = peak_decimate(np.asarray(data[start:stop]), -(-(stop - start) // px), offset=start).curve()
    np.testing.assert_array_equal(panel.curve.getData()[1], want[1])


def test_new_array_cancels_the_build(qtbot, panel, big_memmap):
    data, _, _ = big_memmap
    panel.set_array(data)
    small = np.arange(10, dtype=np.float32)
    panel.set_array(small)
    assert line_plot_module._overview_pool().waitForDone(20_000)
    qtbot.wait(1)  # deliver any queued result of the cancelled build
    assert panel.line_plot.pyramid is None
    np.testing.assert_array_equal(panel.curve.getData()[1], small)


def test_nan_and_inf_in_a_big_array(qtbot, panel):
    n = PYRAMID_THRESHOLD + 500_001
    data = np.cos(np.arange(n) / 1e4).astype(np.float32)
    data[1_000_000:1_400_000] = np.nan  # many all-NaN buckets
    data[2_000_003] = np.inf
    data[123] = -np.inf
    panel.set_array(data)
    wait_for_pyramid(qtbot, panel.line_plot)
    _, y = panel.curve.getData()
    assert np.isnan(y).any()
    assert np.nanmax(y) == np.inf and np.nanmin(y) == -np.inf
    finite = y[np.isfinite(y)]
    assert finite.max() == pytest.approx(1.0) and finite.min() == pytest.approx(-1.0)
    symbols = sorted(spot.symbol() for spot in panel.line_plot.inf_markers.points())
    assert symbols == ["t", "t1"]
    assert not panel.grab().isNull()


def test_all_nan_big_array(qtbot, panel):
    data = np.full(PYRAMID_THRESHOLD + 1, np.nan, dtype=">f8")
    panel.set_array(data)
    wait_for_pyramid(qtbot, panel.line_plot)
    _, y = panel.curve.getData()
    assert len(y) and np.isnan(y).all()
    assert not panel.grab().isNull()


def test_the_strided_preview_is_labelled_while_the_overview_builds(qtbot, panel, big_memmap):
    data, _, _ = big_memmap
    panel.set_array(data)
    plot = panel.line_plot
    x, _ = panel.curve.getData()
    stride = int(x[1] - x[0])  # the preview's step: ceil(visible / (4 px))
    start, stop = plot.visible_range()
    assert stride == -(-(stop - start) // (EXACT_PER_PIXEL * plot.width_px())) > 1
    text = plot.status_text()  # the worker may already have read part of the array
    assert re.fullmatch(f"preview \\(every {stride:,}(st|nd|rd|th) value, peaks may be missing\\) — "
                        r"building the exact overview: \d{1,2}%", text), text
    with qtbot.waitSignal(plot.overviewReady, timeout=20_000):
        pass
    assert plot.status_text() == ""


def test_a_spike_in_a_view_over_16_gib_reaches_the_overview(qtbot, tmp_path):
    # A sparse float64 file of 16 GiB + 8 KiB (no disk used) with one 1e30 at an index the
    # strided preview skips. Above 16 GiB the plot used to keep the preview for ever.
    from core.pipeline.pipeline import DecodeParams
    from inspector.state.document import Document

    path = tmp_path / "sparse.bin"
    spike = 1_234_567_891
    with open(path, "wb") as f:
        f.truncate((16 << 30) + 8192)
        f.seek(spike * 8)
        f.write(np.float64(1e30).tobytes())
    document = Document()
    assert document.open_files([str(path)], DecodeParams(dtype="float64"))
    configure_pyqtgraph()
    panel = PlotPanel(document=document)
    qtbot.addWidget(panel)
    panel.resize(900, 500)
    plot = panel.line_plot
    x, y = panel.curve.getData()
    assert spike % int(x[1] - x[0]) != 0 and y.max() == 0.0  # the preview misses the spike
    assert plot.status_text().startswith("preview (every ")
    with qtbot.waitSignal(plot.overviewReady, timeout=600_000):
        pass
    top_mins, top_maxs = plot.pyramid.level(plot.pyramid.level_count - 1)
    assert top_maxs.max() == 1e30 and top_mins.min() == 0.0
    assert panel.curve.yData.max() == 1e30  # the curve's data (getData clips to the view)
    assert plot.status_text() == ""
    document.close_files()
