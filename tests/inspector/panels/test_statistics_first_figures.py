"""The Statistics panel shows each figure as soon as it is known: the type and the count at once,
the extremes of a big view next, then the counts and moments, the histogram last; every figure
not known yet reads "computing…" (driven through the widgets' objectNames, docs/ui-names.md)."""

import numpy as np
import pytest
from PySide6.QtWidgets import QLabel

from core.pipeline.pipeline import DecodeParams
from inspector.panels.statistics_panel import StatisticsPanel
from inspector.state.background_task import shutdown_tasks
from inspector.state.document import Document

FIELDS = ("dtype", "count", "min", "max", "mean", "std", "finite", "nan", "posinf", "neginf", "zeros",
          "subnormal")


@pytest.fixture(autouse=True)
def _no_leftover_tasks(qtbot):
    yield
    assert shutdown_tasks(10_000)
    qtbot.wait(1)


def texts(panel):
    shown = {key: panel.findChild(QLabel, f"stats.value.{key}").text() for key in FIELDS}
    shown["histogram"] = panel.findChild(QLabel, "stats.histogramNote").text()
    return shown


def open_panel(qtbot, tmp_path, values, dtype, **kwargs):
    path = tmp_path / "data.bin"
    values.tofile(path)
    document = Document()
    assert document.open_files([str(path)], DecodeParams(dtype=dtype))
    panel = StatisticsPanel(document, auto_limit=0, **kwargs)
    qtbot.addWidget(panel)
    return panel


def computed_in_steps(qtbot, panel):
    """The texts right after Compute, after each interim figures, and at the end."""
    steps = []
    panel._interim.figures.connect(lambda _key, _figures: steps.append(texts(panel)))  # after the panel's slot
    task = panel.compute()
    steps.insert(0, texts(panel))
    with qtbot.waitSignal(task.finished, timeout=10_000):
        pass
    qtbot.waitUntil(lambda: panel.statistics is not None, timeout=5000)
    return steps + [texts(panel)]


def test_extremes_then_moments_then_histogram(qtbot, tmp_path):
    x = np.array([2.5, np.nan, -123.5, 0.0, 7.0, np.inf], dtype=np.float32)
    panel = open_panel(qtbot, tmp_path, x, "float32", extremes_first_above=0)
    start, extremes, moments, end = computed_in_steps(qtbot, panel)
    computing = "computing…"
    # known before a byte is read: the type and the count
    assert (start["dtype"], start["count"]) == ("float32", "6")
    assert {start[key] for key in FIELDS if key not in ("dtype", "count")} == {computing}
    assert start["histogram"] == "histogram: computing…"
    # the extremes (NaN ignored): min and max, and the -Inf count they prove (none below -123.5)
    assert (extremes["min"], extremes["max"], extremes["neginf"]) == ("-123.5", "inf", "0")
    for key in ("mean", "std", "finite", "nan", "posinf", "zeros", "subnormal"):
        assert extremes[key] == computing, key
    assert extremes["histogram"] == "histogram: computing…"
    # then every figure but the histogram
    assert computing not in [moments[key] for key in FIELDS]
    assert (moments["nan"], moments["posinf"], moments["zeros"]) == ("1 (16.7%)", "1 (16.7%)", "1 (16.7%)")
    assert moments["mean"] == f"{np.mean([2.5, -123.5, 0.0, 7.0]):.7g}"
    assert moments["histogram"] == "histogram: computing…"
    # the end: the same figures, and the histogram
    assert end == {**moments, "histogram": ""}
    assert panel.statistics.complete and sum(panel.statistics.histogram_counts) == 4


def test_a_small_view_shows_its_moments_first(qtbot, tmp_path):
    x = np.arange(10, dtype=np.int32)
    panel = open_panel(qtbot, tmp_path, x, "int32")  # below EXTREMES_FIRST_ABOVE: one interim
    start, moments, end = computed_in_steps(qtbot, panel)
    assert start["min"] == "computing…" and start["count"] == "10"
    assert (moments["min"], moments["max"], moments["mean"], moments["zeros"]) == ("0", "9", "4.5", "1 (10%)")
    assert moments["histogram"] == "histogram: computing…" and end["histogram"] == ""


def test_complex_views_name_their_quantity_while_computing(qtbot, tmp_path):
    z = np.array([3 + 4j, 1j], dtype=np.complex64)
    panel = open_panel(qtbot, tmp_path, z, "complex64", extremes_first_above=0)
    start, moments, end = computed_in_steps(qtbot, panel)  # no extremes stage for complex values
    assert start["dtype"] == "complex64 (|z|)" and start["max"] == "computing…"
    assert (moments["min"], moments["max"]) == ("1.0", "5.0") == (end["min"], end["max"])


def test_cancel_while_computing_clears_the_pending_texts(qtbot, tmp_path):
    path = tmp_path / "big.bin"
    with open(path, "wb") as f:
        f.truncate(64 << 20)  # 16 Mi float32 zeros, sparse
    document = Document()
    assert document.open_files([str(path)], DecodeParams(dtype="float32"))
    panel = StatisticsPanel(document, auto_limit=0, chunk_elements=1 << 12)
    qtbot.addWidget(panel)
    task = panel.compute()
    assert texts(panel)["mean"] == "computing…"
    with qtbot.waitSignal(task.cancelled, timeout=10_000):
        panel.cancel()
    shown = texts(panel)
    assert shown["mean"] == "—" and shown["histogram"] == "" and panel.statistics is None
