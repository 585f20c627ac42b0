"""GUI figures: first paint versus file size, table cost per screen, slice-edit latency, plot."""

from __future__ import annotations

import os
import time

import numpy as np

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")  # measured headless, like CI

from benchmarks.harness import Row, median_time, run_probe, sparse_file, temp_dir

MiB = 1 << 20
GiB = 1 << 30

_FIRST_PAINT = """
import os, sys, time, json
t0 = time.perf_counter()
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication
from core.pipeline.pipeline import DecodeParams
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore
app = QApplication([])
configure_pyqtgraph()
w = MainWindow(SettingsStore(QSettings({ini!r}, QSettings.IniFormat)))
w.resize(1400, 860)
w.open_paths([{path!r}], DecodeParams(dtype="float32", little_endian=False, record_size={record}))
w.show()
w.grab()  # forces the first paint of every visible widget
# From the parent's spawn of this process (interpreter start-up included) to the painted window;
# the teardown below is not part of it.
RESULT = dict(first_paint=time.perf_counter() - t0, shape=list(w.document.result.view.shape),
              since_spawn=time.time() - float(os.environ["TI_BENCH_SPAWNED"]))
w.close()
w.deleteLater()  # pyqtgraph items must go before the interpreter tears Qt down
app.processEvents()
del w
"""


def first_paint_rows(big: int) -> list[Row]:
    """Whole process (Python + Qt start-up + open + first paint) for a big sparse file vs 1 KiB.

    Started as an installed program starts: with its bytecode cached (a warm-up start writes it,
    under a temporary ``PYTHONPYCACHEPREFIX`` so the source tree is untouched), even when the
    environment says ``PYTHONDONTWRITEBYTECODE`` (then every start compiled every module).
    """
    with temp_dir() as tmp:
        small_path = sparse_file(tmp, "small.bin", 1024, header=b"\1" * 1024)
        big_path = sparse_file(tmp, "big.bin", big)
        ini = f"{tmp}/settings.ini"
        bytecode = {"PYTHONPYCACHEPREFIX": f"{tmp}/pycache", "PYTHONDONTWRITEBYTECODE": ""}
        probes: dict[str, list[dict]] = {"small": [], "big": []}
        run_probe(_FIRST_PAINT.format(ini=ini, path=str(small_path), record=256),
                  env=dict(bytecode, TI_BENCH_SPAWNED=repr(time.time())))  # writes the bytecode
        for _ in range(3):  # interleaved: the machine's load hits both alike
            for name, path, record in (("small", small_path, 256), ("big", big_path, 4096)):
                code = _FIRST_PAINT.format(ini=ini, path=str(path), record=record)
                probes[name].append(run_probe(code, env=dict(bytecode, TI_BENCH_SPAWNED=repr(time.time()))))
        runs = {name: (sorted(p["since_spawn"] for p in runs_of)[1], sorted(p["peak_rss"] for p in runs_of)[1])
                for name, runs_of in probes.items()}
    label = f"{big / GiB:g} GiB" if big >= GiB else f"{big // MiB} MiB"
    wall_big, rss_big = runs["big"]
    wall_small, rss_small = runs["small"]
    added = rss_big - rss_small
    return [
        Row("GUI time to first paint, 1 KiB file (process start to painted window)", wall_small, None, "",
            "<= 0.6 s", wall_small <= 0.6),
        Row(f"GUI time to first paint, {label} sparse (process start to painted window)", wall_big,
            wall_small, "same for a 1 KiB file", "<= 1.2x the 1 KiB file", wall_big <= 1.2 * wall_small),
        Row(f"GUI added peak memory, {label} vs 1 KiB", added, None, "", "< 50 MiB", added < 50 * MiB, unit="B"),
    ]


def table_rows(big: int, repeats: int) -> list[Row]:
    """``data()`` for one screen (40 rows x 12 columns, display + colour + tooltip roles)."""
    from PySide6.QtCore import Qt
    from PySide6.QtWidgets import QApplication

    from core import DecodeParams, Pipeline
    from inspector.state.display_axes import DisplayAxes
    from inspector.table.model import ArrayTableModel

    app = QApplication.instance() or QApplication([])  # noqa: F841 (models need an app)
    roles = (Qt.DisplayRole, Qt.ForegroundRole, Qt.BackgroundRole)
    with temp_dir() as tmp:
        path = sparse_file(tmp, "table.bin", big)
        with Pipeline(path) as p:
            view = p.run(DecodeParams(dtype="float32", little_endian=False, record_size=4096)).view
            axes = DisplayAxes()
            model = ArrayTableModel(axes)
            axes.reset(view.shape)
            model.set_array(view)
            rng = np.random.default_rng(0)
            tops = rng.integers(0, max(model.rowCount() - 40, 1), 64)
            state = {"i": 0}

            def one_screen():
                top = int(tops[state["i"] % len(tops)])
                state["i"] += 1
                for r in range(top, top + 40):
                    for c in range(12):
                        index = model.index(r, c)
                        for role in roles:
                            model.data(index, role)

            seconds = median_time(one_screen, repeats=repeats * 5)
            del view, model
    label = f"{big / GiB:g} GiB" if big >= GiB else f"{big // MiB} MiB"
    return [Row(f"table data() per screen (40x12 cells, 3 roles), {label} map", seconds, None, "", "< 5 ms",
                seconds < 0.005)]


def slice_edit_rows(size: int, repeats: int) -> list[Row]:
    """From a slice edit to table and plot updated, on a memory-mapped file."""
    from PySide6.QtCore import QSettings
    from PySide6.QtWidgets import QApplication

    from core.pipeline.pipeline import DecodeParams
    from inspector.main_window import MainWindow
    from inspector.plot.panel import configure_pyqtgraph
    from inspector.state.settings_store import SettingsStore

    app = QApplication.instance() or QApplication([])
    configure_pyqtgraph()
    side = int((size // 4) ** 0.5)
    with temp_dir() as tmp:
        path = sparse_file(tmp, "slice.bin", side * side * 4)
        window = MainWindow(SettingsStore(QSettings(f"{tmp}/s.ini", QSettings.IniFormat)))
        window.resize(1400, 860)
        window.show()
        window.open_paths([str(path)], DecodeParams(dtype="float32", shape=(side, side)))
        texts = ["[100:5000, ::3]", "[::-7, 20:900]", "[5, :]", "[..., ::2]"]
        state = {"i": 0}

        def edit():
            window.document.set_slice_text(texts[state["i"] % len(texts)])
            state["i"] += 1

        def edit_and_paint():
            edit()
            window.repaint()  # synchronous paint of every visible widget

        updated = median_time(edit, repeats=repeats * 4)
        painted = median_time(edit_and_paint, repeats=repeats * 4)
        window.close()
        window.deleteLater()
        app.processEvents()
    label = f"{size / GiB:g} GiB" if size >= GiB else f"{size // MiB} MiB"
    return [
        Row(f"slice edit -> table model and plot items updated, {label} map", updated, None, "", "< 30 ms",
            updated < 0.030),
        Row(f"slice edit -> whole window repainted, {label} map", painted, None, "", "< 30 ms", painted < 0.030,
            note="(includes Qt painting)"),
    ]


def plot_rows(points: int, repeats: int) -> list[Row]:
    """A line of ``points`` float32 values from a map: first paint, then pan/zoom redraws."""
    from PySide6.QtWidgets import QApplication

    from inspector.plot.panel import PlotPanel, configure_pyqtgraph

    app = QApplication.instance() or QApplication([])
    configure_pyqtgraph()
    with temp_dir() as tmp:
        path = f"{tmp}/line.bin"
        rng = np.random.default_rng(4)
        with open(path, "wb") as f:
            chunk = 1 << 24
            for start in range(0, points, chunk):
                n = min(chunk, points - start)
                t = np.arange(start, start + n, dtype=np.float64)
                f.write((np.sin(t / 1e5) + 0.1 * rng.standard_normal(n)).astype(np.float32).tobytes())
        values = np.memmap(path, dtype=np.float32, mode="r")
        panel = PlotPanel()
        panel.resize(800, 500)
        panel.show()
        app.processEvents()

        def first_paint():
            panel.set_array(values)
            panel.grab()

        first = median_time(first_paint, repeats=max(1, repeats // 2), warmup=0)
        line = panel.line_plot
        deadline = 0
        while line.pyramid is None and deadline < 2000:  # wait for the background overview
            app.processEvents()
            deadline += 1
            import time

            time.sleep(0.005)
        view_box = line.curve.getViewBox()
        spans = [(0, points), (points // 4, points // 2), (points // 3, points // 3 + points // 50), (0, points // 10)]
        state = {"i": 0}

        def redraw():
            lo, hi = spans[state["i"] % len(spans)]
            state["i"] += 1
            view_box.setXRange(lo, hi, padding=0)
            app.processEvents()
            panel.grab()

        redraw_s = median_time(redraw, repeats=repeats * 3)
        panel.set_array(None)
        panel.close()
        panel.deleteLater()
        app.processEvents()
        del values
    label = f"10^{int(round(np.log10(points)))}" if points >= 10 else str(points)
    return [
        Row(f"plot first paint, {label}-point float32 map", first, None, "", "< 300 ms", first < 0.3),
        Row(f"plot pan/zoom redraw, {label} points", redraw_s, None, "", "< 50 ms", redraw_s < 0.05),
    ]


def _worst_lateness(app, start, running) -> tuple[float | None, float]:
    """Run ``start()`` and pump the event loop while ``running()``; the worst lateness (s) of a
    10 ms timer meanwhile, and the elapsed time (s)."""
    import time

    from PySide6.QtCore import QElapsedTimer, QTimer

    clock = QElapsedTimer()
    lateness: list[float] = []
    state = {"last": 0}

    def tick():
        now = clock.elapsed()
        lateness.append(max(0, now - state["last"] - 10) / 1000)
        state["last"] = now

    timer = QTimer()
    timer.setInterval(10)
    timer.timeout.connect(tick)
    clock.start()
    timer.start()
    started = time.perf_counter()
    start()
    while running() and time.perf_counter() - started < 300:
        app.processEvents()
        time.sleep(0.001)
    elapsed = time.perf_counter() - started
    timer.stop()
    return (max(lateness) if lateness else None), elapsed


def event_loop_rows(nbytes: int) -> list[Row]:
    """Worst GUI event-loop delay (a 10 ms timer's lateness) while statistics run in the worker."""

    from PySide6.QtWidgets import QApplication

    from core.pipeline.pipeline import DecodeParams
    from inspector.panels.statistics_panel import StatisticsPanel
    from inspector.state.document import Document

    app = QApplication.instance() or QApplication([])
    with temp_dir() as tmp:
        path = f"{tmp}/stats.bin"
        rng = np.random.default_rng(5)
        with open(path, "wb") as f:
            chunk = 1 << 24
            for start in range(0, nbytes // 4, chunk):
                f.write(rng.standard_normal(min(chunk, nbytes // 4 - start), dtype=np.float32).tobytes())
        document = Document()
        document.open_files([path], DecodeParams(dtype="float32"))
        panel = StatisticsPanel(document, auto_limit=0)
        worst, elapsed = _worst_lateness(app, panel.compute, panel.is_running)
        panel.deleteLater()
        document.close_files()
        app.processEvents()
    label = f"{nbytes // MiB} MiB"
    return [Row(f"GUI event-loop latency (worst) during statistics of {label}", worst, None, "", "< 50 ms",
                worst is not None and worst < 0.05, note=f"(computed in {elapsed:.2f} s)")]


def compare_latency_rows(nbytes: int) -> list[Row]:
    """Worst lateness of a 10 ms timer while the window's comparison of two float32 files runs
    (the same measure as for statistics): the comparison must leave the GUI responsive."""

    from PySide6.QtWidgets import QApplication

    from core.pipeline.pipeline import DecodeParams
    from inspector.state.comparison import Comparison
    from inspector.state.document import Document

    app = QApplication.instance() or QApplication([])
    with temp_dir() as tmp:
        paths = [f"{tmp}/a.bin", f"{tmp}/b.bin"]
        rng = np.random.default_rng(6)
        for path in paths:
            with open(path, "wb") as f:
                chunk = 1 << 24
                for start in range(0, nbytes // 4, chunk):
                    f.write(rng.standard_normal(min(chunk, nbytes // 4 - start), dtype=np.float32).tobytes())
        document = Document()
        document.open_files([paths[0]], DecodeParams(dtype="float32"))
        comparison = Comparison(document)
        comparison.open_b([paths[1]])  # opening B is not part of the run
        comparison.cancel()
        worst, elapsed = _worst_lateness(app, comparison.compare, lambda: comparison.is_running)
        comparison.close_b()
        document.close_files()
        app.processEvents()
    return [Row(f"GUI event-loop latency (worst) while comparing two {nbytes // MiB} MiB files", worst, None,
                "", "< 50 ms", worst is not None and worst < 0.05, note=f"(compared in {elapsed:.2f} s)")]


def model_latency_rows(nbytes: int, tensors: int = 256) -> list[Row]:
    """Worst lateness of a 10 ms timer while the Model dock scans a safetensors file of
    ``tensors`` float32 tensors (random values) and while Compare models compares it with a
    copy of itself, rows streaming into their tables: the window must stay responsive."""

    from PySide6.QtWidgets import QApplication
    from safetensors.numpy import save_file

    from inspector.compare.models_panel import ModelComparePanel
    from inspector.panels.model_panel import ModelPanel
    from inspector.state.comparison import Comparison
    from inspector.state.document import Document
    from inspector.state.model_comparison import ModelComparison
    from inspector.state.model_scan import ModelScan

    app = QApplication.instance() or QApplication([])
    out = []
    with temp_dir() as tmp:
        rng = np.random.default_rng(7)
        count = nbytes // 4 // tensors
        values = {f"layers.{i}.weight": rng.standard_normal(count, dtype=np.float32) for i in range(tensors)}
        paths = [f"{tmp}/a.safetensors", f"{tmp}/b.safetensors"]
        for path in paths:
            save_file(values, path)
        del values
        document = Document()
        scan = ModelScan(document, auto_bytes=0)
        panel = ModelPanel(scan)
        document.open_files([paths[0]])
        worst, elapsed = _worst_lateness(app, scan.start, lambda: scan.running)
        label = f"{nbytes // MiB} MiB, {tensors} tensors"
        out.append(Row(f"GUI event-loop latency (worst) while the Model dock scans {label}", worst, None, "",
                       "< 50 ms", worst is not None and worst < 0.05,
                       note=f"({len(scan.rows)} rows in {elapsed:.2f} s)"))
        comparison = Comparison(document)
        models = ModelComparison(comparison)
        pairs = ModelComparePanel(models)
        worst, elapsed = _worst_lateness(app, lambda: models.open(*paths), lambda: models.running)
        out.append(Row(f"GUI event-loop latency (worst) while comparing two models of {label}", worst, None, "",
                       "< 50 ms", worst is not None and worst < 0.05,
                       note=f"({len(models.rows)} pairs in {elapsed:.2f} s)"))
        for widget in (panel, pairs):
            widget.deleteLater()
        document.close_files()
        app.processEvents()
    return out


def rows(*, tiny: bool, quick: bool, repeats: int) -> list[Row]:
    big = 8 * MiB if tiny else 8 * GiB
    out = first_paint_rows(big)
    out += table_rows(big, repeats)
    out += slice_edit_rows(4 * MiB if tiny else 1 * GiB, repeats)
    out += plot_rows(10**5 if tiny else (10**7 if quick else 10**8), repeats)
    out += event_loop_rows(4 * MiB if tiny else (256 * MiB if quick else 1 * GiB))
    out += compare_latency_rows(4 * MiB if tiny else (256 * MiB if quick else 1 * GiB))
    out += model_latency_rows(4 * MiB if tiny else (256 * MiB if quick else 1 * GiB))
    return out
