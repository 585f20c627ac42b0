"""A session's files outside its folder are reported with the file they open
(core/session/loading.py rules; the command's ``note:``, the window's banner)."""

from __future__ import annotations

import json
import os

import pytest

from core.cli import main
from core.pipeline.pipeline import DecodeParams
from core.session.session_file import Bookmark, Session, capture_file, load_session, save_session


@pytest.fixture
def layout(tmp_path):
    """tmp/shared/s.json, tmp/shared/inside.bin, tmp/elsewhere/data.bin (bytes 0..15)."""
    (tmp_path / "shared").mkdir()
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "elsewhere" / "data.bin").write_bytes(bytes(range(16)))
    (tmp_path / "shared" / "inside.bin").write_bytes(bytes(range(16)))
    return tmp_path


def session_naming(layout, stored_path: str) -> str:
    """A session in shared/ whose one file is written as ``stored_path`` (a received session)."""
    path = layout / "shared" / "s.json"
    save_session(Session(files=(capture_file(str(layout / "shared" / "inside.bin")),),
                         params=DecodeParams(dtype="uint8"),
                         bookmarks=(Bookmark("head", "bytes", byte_range=(0, 4)),)), str(path))
    document = json.loads(path.read_text())
    document["files"][0]["path"] = stored_path
    path.write_text(json.dumps(document))
    return str(path)


def test_a_relative_path_climbing_out_is_reported_with_the_file_it_opens(layout):
    session = session_naming(layout, "../elsewhere/data.bin")
    loaded = load_session(session, check_hashes=False)
    folder = os.path.realpath(layout / "shared")
    opened = os.path.realpath(layout / "elsewhere" / "data.bin")
    assert loaded.outside == (f"files[0] '../elsewhere/data.bin' leads out of the session's folder "
                              f"'{folder}': it opens '{opened}'",)


def test_an_absolute_path_elsewhere_is_reported_too(layout):
    target = str(layout / "elsewhere" / "data.bin")
    loaded = load_session(session_naming(layout, target), check_hashes=False)
    assert loaded.outside == (f"files[0] '{target}' is an absolute path outside the session's folder "
                              f"'{os.path.realpath(layout / 'shared')}': it opens '{os.path.realpath(target)}'",)


def test_a_link_inside_the_folder_to_a_file_outside_is_reported(layout):
    os.symlink(layout / "elsewhere" / "data.bin", layout / "shared" / "link.bin")
    loaded = load_session(session_naming(layout, "link.bin"), check_hashes=False)
    assert len(loaded.outside) == 1
    assert loaded.outside[0].endswith(f"it opens '{os.path.realpath(layout / 'elsewhere' / 'data.bin')}'")


def test_files_inside_the_folder_say_nothing(layout):
    assert load_session(session_naming(layout, "inside.bin"), check_hashes=False).outside == ()
    assert load_session(session_naming(layout, "./sub/../inside.bin"), check_hashes=False).outside == ()


def test_the_command_notes_the_file_a_bytes_bookmark_opens(layout, capsys):
    session = session_naming(layout, "../elsewhere/data.bin")
    assert main(["--session", session, "--bookmark", "head"]) == 0
    out, err = capsys.readouterr()
    assert "00 01 02 03" in out.splitlines()
    opened = os.path.realpath(layout / "elsewhere" / "data.bin")
    notes = [line for line in err.splitlines() if "leads out" in line]
    assert notes == [f"note: session '{session}': files[0] '../elsewhere/data.bin' leads out of the "
                     f"session's folder '{os.path.realpath(layout / 'shared')}': it opens '{opened}'"]
