"""A URL goes wherever a path goes: the command, sessions (stored as URLs, never with
credentials), and the table names the file of each element of a batch (issue 34, item 3)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from core.cli import main
from core.errors import SessionError
from core.pipeline.pipeline import DecodeParams
from core.session.document import save_session
from core.session.loading import load_session
from core.session.records import Session, capture_file


def test_the_command_lists_and_prints_a_remote_container(nginx, capsys):
    from safetensors.numpy import save

    url = nginx.write("cli/model.safetensors", save({"w": np.arange(6, dtype=np.float32).reshape(2, 3)}))
    assert main([url, "--list"]) == 0
    assert "w" in capsys.readouterr().out
    assert main([url, "--tensor", "w", "--slice", "1, ::2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["values"] == [3.0, 5.0]


def test_the_command_says_why_a_url_cannot_be_read(nginx, capsys):
    assert main([nginx.url("cli/missing.bin")]) != 0
    err = capsys.readouterr().err
    assert "was not found" in err and "cli/missing.bin" in err


def test_a_session_stores_a_url_as_such_and_loads_it_back(nginx, tmp_path):
    url = nginx.write("sessions/data.bin", np.arange(64, dtype=np.int16).tobytes())
    session = Session(files=(capture_file(url),), params=DecodeParams(dtype="int16", shape=(8, 8)), slice_text="[1:3]")
    path = tmp_path / "remote.session.json"
    save_session(session, str(path))
    stored = json.loads(path.read_text())
    assert [f["path"] for f in stored["files"]] == [url]  # not made relative, not a local path
    assert stored["files"][0]["size"] == 128
    loaded = load_session(str(path))
    assert [f.path for f in loaded.session.files] == [url]
    assert loaded.missing == () and loaded.changed == ()
    nginx.write("sessions/data.bin", np.arange(32, dtype=np.int16).tobytes())  # smaller now
    from core.files import remote
    remote._infos.clear()
    again = load_session(str(path))
    assert [n.what for n in again.changed] == ["size"]
    assert "128 bytes then, 64 now" in again.changed[0].message


def test_a_session_refuses_a_url_with_credentials(nginx):
    url = nginx.write("sessions/secret.bin", b"\0" * 8).replace("http://", "http://user:pass@")
    with pytest.raises(SessionError) as caught:
        capture_file(url)
    assert "credentials" in caught.value.message and "pass@" not in caught.value.message


def test_the_table_names_the_file_of_each_element_of_a_batch(qtbot, tmp_path):
    from PySide6.QtCore import QSettings, Qt

    from inspector.main_window import MainWindow
    from inspector.state.settings_store import SettingsStore

    for i in range(3):
        np.full(4, i, np.uint16).tofile(tmp_path / f"frame_{i}.raw")
    window = MainWindow(SettingsStore(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat)))
    qtbot.addWidget(window)
    assert window.open_paths([str(tmp_path / "frame_*.raw")], DecodeParams(dtype="uint16"))
    assert len(window.document.paths) == 3
    model = window.table_panel.model
    tip = model.data(model.index(2, 1), Qt.ItemDataRole.ToolTipRole)
    assert tip.endswith("from frame_2.raw, byte 2")
