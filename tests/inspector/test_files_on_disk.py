"""Files changed on disk under an open MainWindow: every view shows one version of the file.

Table, hex view, data inspector and status bar all read the one source (the engine's map) and
follow the document's one change signal: before a change they agree on the old bytes, after
it they are all cleared (never the new bytes in one next to old numbers in another), after
*Reload* they all agree on the new bytes. A path swapped for a FIFO never blocks the window.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from PySide6.QtCore import QSettings, Qt

from core.pipeline.pipeline import DecodeParams
from inspector.main_window import MainWindow
from inspector.plot.panel import configure_pyqtgraph
from inspector.state.settings_store import SettingsStore

ROOT = Path(__file__).resolve().parents[2]
CLEARED = "; the view was cleared until you reload"


@pytest.fixture
def window(qtbot, tmp_path):
    configure_pyqtgraph()
    w = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(w)
    yield w
    w.document.close_files()


def shown(window, index=1):
    """What each view shows for element ``index`` (None where a view shows nothing)."""
    model = window.table_panel.model
    hex_view = window.hex_view
    return {
        "table": int(model.value_at(index, 0)) if model.rowCount() > index else None,
        "hex": hex_view.row_text(0)[10:21] if hex_view.row_count() else None,
        "inspector": window.data_inspector.value_text("int16", True),
        "status": window.statusBar().selection_label.text().split("   ")[0] or None,
    }


def bump_mtime(path):
    """A rewrite within one clock tick may keep the mtime: move it explicitly."""
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 1_000_000_000))


def test_table_hex_view_inspector_and_status_bar_agree_across_changes(window, qtbot, tmp_path):
    path = tmp_path / "v.bin"
    path.write_bytes(bytes([1, 0, 2, 1, 3, 0, 4, 0]))  # int16 LE: 1, 258, 3, 4
    assert window.open_paths([str(path)], DecodeParams(dtype="int16"))
    window.document.select((1,))
    assert shown(window) == {"table": 258, "hex": "01 00 02 01", "inspector": "258",
                             "status": "[1] = 258"}
    assert window.hex_view.highlighted() == (0, 2, 2)

    # Rewritten in place, same size, other bytes: 5, 772 (bytes 04 03), 7, 8.
    with qtbot.waitSignal(window.document.filesChangedOnDisk, timeout=5000):
        with open(path, "r+b") as f:
            f.write(bytes([5, 0, 4, 3, 7, 0, 8, 0]))
        bump_mtime(path)
    cleared = {"table": None, "hex": None, "inspector": "\u2014", "status": None}
    assert shown(window) == cleared  # neither 258 nor 772 anywhere: no mix
    assert window.hex_view.message() == "v.bin changed on disk" + CLEARED
    assert window.file_watch_banner.message() == "v.bin changed on disk" + CLEARED
    assert window.statistics_panel.statistics is None
    window.document.select((2,))  # a selection now reads nothing either
    window.grab()
    assert shown(window) == cleared

    qtbot.mouseClick(window.file_watch_banner.reload_button, Qt.MouseButton.LeftButton)
    window.document.select((1,))
    assert shown(window) == {"table": 772, "hex": "05 00 04 03", "inspector": "772",
                             "status": "[1] = 772"}
    assert window.file_watch_banner.isHidden()

    # Shrunk to 4 bytes: cleared alike, then reloaded as two values.
    with qtbot.waitSignal(window.document.filesChangedOnDisk, timeout=5000):
        os.truncate(path, 4)
    assert shown(window) == cleared
    assert window.file_watch_banner.message() == "v.bin shrank from 8 to 4 bytes" + CLEARED
    window.document.reload()
    assert window.document.result.view.shape == (2,)
    window.document.select((1,))
    assert shown(window) == {"table": 772, "hex": "05 00 04 03", "inspector": "772",
                             "status": "[1] = 772"}
    assert window.statusBar().file_label.text() == "v.bin (4 bytes)"


def test_a_replaced_file_keeps_one_consistent_old_view(window, qtbot, tmp_path):
    path = tmp_path / "v.bin"
    path.write_bytes(bytes([1, 0, 2, 1]))
    assert window.open_paths([str(path)], DecodeParams(dtype="int16"))
    window.document.select((1,))
    new = tmp_path / "v.new"
    new.write_bytes(bytes([9, 9, 9, 9]))
    with qtbot.waitSignal(window.document.filesChangedOnDisk, timeout=5000):
        os.replace(new, path)  # the map still holds the old inode: every view keeps it
    window.document.select((0,))
    window.document.select((1,))
    assert shown(window) == {"table": 258, "hex": "01 00 02 01", "inspector": "258",
                             "status": "[1] = 258"}
    assert window.file_watch_banner.message() == "v.bin was replaced on disk"


FIFO_SCRIPT = textwrap.dedent("""
    import os, sys
    from PySide6.QtCore import QElapsedTimer, QSettings
    from PySide6.QtWidgets import QApplication
    from core.pipeline.pipeline import DecodeParams
    from inspector.main_window import MainWindow
    from inspector.plot.panel import configure_pyqtgraph
    from inspector.state.settings_store import SettingsStore

    path, ini = sys.argv[1:3]
    app = QApplication([])
    configure_pyqtgraph()
    with open(path, "wb") as out:
        out.write(bytes(range(64)))
    window = MainWindow(SettingsStore(QSettings(ini, QSettings.IniFormat)))
    window.show()
    window.open_paths([path], DecodeParams(dtype="int16"))
    window.document.select((3,))
    app.processEvents()
    os.remove(path)
    os.mkfifo(path)  # nobody ever writes it: opening it for reading would block forever
    timer = QElapsedTimer()
    timer.start()
    banner = window.file_watch_banner
    while "replaced" not in banner.message() and timer.elapsed() < 20000:
        app.processEvents()
    window.grab()  # hex view, table, inspector repaint
    print(banner.message())
    window.document.reload()  # the user presses Reload
    app.processEvents()
    print(window.document.error.message, flush=True)
    os._exit(0)  # skip interpreter finalisation with a live window (PySide teardown)
""")


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="needs FIFOs")
def test_a_path_swapped_for_a_fifo_never_blocks_the_window(tmp_path):
    script = tmp_path / "fifo.py"
    script.write_text(FIFO_SCRIPT)
    path = tmp_path / "data.bin"
    env = dict(os.environ, QT_QPA_PLATFORM="offscreen", XDG_CONFIG_HOME=str(tmp_path / "config"),
               PYTHONPATH=str(ROOT))
    # The timeout is the watchdog: a blocking open of the FIFO would hang the child.
    done = subprocess.run([sys.executable, str(script), str(path), str(tmp_path / "s.ini")],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == [
        "data.bin was replaced on disk",
        f"'{path}' is a named pipe (FIFO), not a regular file; it is not opened because reading "
        "it could block or never end (save the data to a regular file first)",
    ]
