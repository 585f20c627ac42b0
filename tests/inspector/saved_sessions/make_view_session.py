"""How ``view_session/`` was made: run with the code of commit 0724924 (before the display
options moved into the state layer), from the repository root::

    QT_QPA_PLATFORM=offscreen python tests/inspector/saved_sessions/make_view_session.py

It writes two raw float32 files (A: ``cube.bin``, a 2 x 3 x 4 x 5 tensor; B: ``golden.bin``, A
plus 0.25 in its first half), opens A in the window as a user would, chooses a display that
differs from every default and saves the session with File > Save Session
(``SessionActions.save``), then prints what the window shows after opening it again. The files
lie beside the session, so the session names them by relative paths; the test
(``test_saved_session_opens_identically.py``) copies the folder and gives the copies the
recorded modification times, so the session opens as it did when it was saved.

The display chosen: slice ``[:, :, 1:]`` (view 2 x 3 x 3 x 5), rows along axis 3 and columns
along axis 1 (a transposed, moved plane), axis 0 fixed at 1 and axis 2 at 2, the plot a line
along axis 2, the table in ``scientific`` with 3 decimals and the heat map on, element
(1, 2, 2, 3) selected, three bookmarks (an element, a region and bytes) and a comparison with B
(atol 0.3, NaN counted as a mismatch, the table showing |A - B|).
"""

from __future__ import annotations

import os
import sys
import tempfile

import numpy as np
from PySide6.QtCore import QSettings
from PySide6.QtWidgets import QApplication

HERE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "view_session")


def write_data(folder: str) -> tuple[str, str]:
    a, b = os.path.join(folder, "cube.bin"), os.path.join(folder, "golden.bin")
    values = (np.arange(120, dtype=np.float32) - 60) / 8
    values.tofile(a)
    golden = values.copy()
    golden[:60] += 0.25
    golden.tofile(b)
    return a, b


def main() -> None:
    sys.path.insert(0, os.getcwd())
    from core.pipeline.pipeline import DecodeParams
    from core.session.bookmark import Bookmark
    from inspector.main_window import MainWindow
    from inspector.plot.panel import configure_pyqtgraph
    from inspector.state.settings_store import SettingsStore

    app = QApplication.instance() or QApplication([])
    configure_pyqtgraph()
    os.makedirs(HERE, exist_ok=True)
    a, b = write_data(HERE)
    with tempfile.TemporaryDirectory() as settings_dir:
        settings = SettingsStore(QSettings(os.path.join(settings_dir, "s.ini"), QSettings.IniFormat))
        window = MainWindow(settings)
        window.show()
        assert window.open_paths([a], DecodeParams(dtype="float32", shape=(2, 3, 4, 5)), "[:, :, 1:]")
        axes = window.document.display_axes
        axes.set_axes(3, 1)
        axes.set_index(0, 1)
        axes.set_index(2, 2)
        window.plot_panel.set_line_axis(2)
        window.table_panel.set_display_options("scientific", 3, True)
        window.document.select((1, 2, 2, 3))
        window.bookmarks_panel.add_element()
        window.document.bookmarks.add(Bookmark("second channel", "region", slice_text="[:, 1]",
                                               note="all of channel 1", colour="#e6a700"))
        window.document.bookmarks.add(Bookmark("first row", "bytes", byte_range=(0, 20),
                                               note="five floats", colour="#2f9e44"))
        assert window.comparison.open_b([b])
        window.comparison.update_settings(atol=0.3, nan_policy="mismatch")
        window.comparison.set_quantity("abs")
        session = os.path.join(HERE, "view.session.json")
        assert window.session_actions.save(session)
        window.comparison.close_b()
        window.close_file()
        assert window.session_actions.open_session(session)
        shown = {
            "slice": window.document.slice_text,
            "axes": (axes.row_axis, axes.col_axis, axes.indices),
            "plot": (window.plot_panel.mode, window.plot_panel.line_axis),
            "table": window.table_panel.display_options(),
            "selection": window.document.selection,
            "bookmarks": window.document.bookmarks.names(),
            "comparison": (window.comparison.paths, window.comparison.quantity,
                           window.comparison.settings.atol, window.comparison.settings.nan_policy),
        }
        for key, value in shown.items():
            print(f"{key}: {value}")
        window.close()
    app.processEvents()


if __name__ == "__main__":
    main()
