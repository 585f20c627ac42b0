"""Session files: every field round trips, paths next to the session are relative, moved and
changed files are found, saving is atomic and never lands on an inspected file."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
from pathlib import Path

import pytest

from core.errors import SessionError
from core.pipeline.pipeline import DecodeParams
from core.session.session_file import (
    SESSION_VERSION,
    Bookmark,
    FileChangeNote,
    LoadedSession,
    Session,
    SessionFile,
    capture_file,
    load_session,
    save_session,
)

DATA = bytes(range(16))


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "data.bin").write_bytes(DATA)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "more.bin").write_bytes(b"\x01\x02\x03\x04")
    return tmp_path


def full_session(folder: Path) -> Session:
    """A session with every field set to something other than its default."""
    data, more = capture_file(str(folder / "data.bin"), hash=True), capture_file(str(folder / "sub" / "more.bin"))
    return Session(
        files=(data, more),
        params=DecodeParams(dtype="int16", little_endian=False, fixed_length=8, offset=0, record_size=8,
                            shape=(2, -1), view_as="uint8", extended_types=False, length=16),
        tensor="weights/0",
        slice_text="1:, ::-1",
        display={"row_axis": 0, "col_axis": 1, "indices": [0, 0, 3], "plot_mode": "image",
                 "plot_line_axis": 1, "table_format": "hex", "levels": 0.5, "heat": True, "none": None},
        comparison={"files": (more,), "overrides": {"dtype": "uint8", "offset": None},
                    "rtol": 0.001, "atol": 1e-05, "ulp": 3, "bitwise": True, "nan_policy": "mismatch",
                    "shift": -4, "quantity": "ulp"},
        bookmarks=(
            Bookmark("peak", "element", file_index=0, params=DecodeParams(dtype="uint8", shape=(4, 4)),
                     tensor="t", slice_text="1:3, ::2", index=(1, 1), note="the maximum", colour="#ff0000"),
            Bookmark("rows", "region", file_index=1, slice_text="x[10:20, :]", note="a band"),
            Bookmark("header", "bytes", file_index=1, byte_range=(1, 2), colour="#00AA00"),
        ),
    )


def test_every_field_round_trips(folder):
    session = full_session(folder)
    save_session(session, str(folder / "s.json"))
    loaded = load_session(str(folder / "s.json"))
    assert loaded.session == session
    assert loaded.session.version == SESSION_VERSION == 1
    assert (loaded.missing, loaded.changed, loaded.notes) == ((), (), ())
    assert loaded.path == str(folder / "s.json")


def test_the_json_is_small_readable_and_in_a_fixed_key_order(folder):
    session = full_session(folder)
    save_session(session, str(folder / "s.json"))
    text = (folder / "s.json").read_text(encoding="utf-8")
    document = json.loads(text)
    assert list(document) == ["format", "version", "files", "params", "tensor", "slice_text",
                              "display", "comparison", "bookmarks"]
    assert document["format"] == "tensor-inspector-session" and document["version"] == 1
    assert document["files"][0] == {"path": "data.bin", "size": 16,
                                    "mtime_ns": os.stat(folder / "data.bin").st_mtime_ns,
                                    "sha256": hashlib.sha256(DATA).hexdigest()}
    assert document["files"][1]["path"] == "sub/more.bin"
    # DecodeParams by field name, in field order; None fields left out
    assert document["params"] == {"dtype": "int16", "little_endian": False, "fixed_length": 8, "offset": 0,
                                  "record_size": 8, "shape": [2, -1], "view_as": "uint8",
                                  "extended_types": False, "length": 16}
    assert document["bookmarks"][0]["params"] == {"dtype": "uint8", "shape": [4, 4], "extended_types": True}
    assert document["comparison"]["overrides"] == {"dtype": "uint8", "offset": None}
    assert '  "version": 1,\n' in text and '"shape": [2, -1],' in text and text.endswith("}\n")


def test_none_params_are_left_out(folder):
    session = Session(files=(capture_file(str(folder / "data.bin")),), params=DecodeParams())
    save_session(session, str(folder / "s.json"))
    document = json.loads((folder / "s.json").read_text())
    assert document["params"] == {"extended_types": True}
    assert "tensor" not in document and "comparison" not in document
    assert document["bookmarks"] == [] and document["slice_text"] == "" and document["display"] == {}
    assert load_session(str(folder / "s.json")).session == session


def test_a_strided_entrys_strides_round_trip(folder):
    params = DecodeParams(dtype="int16", offset=0, length=16, shape=(4, 2), strides=(1, 4))
    session = Session(files=(capture_file(str(folder / "data.bin")),), params=params, tensor="fortran")
    save_session(session, str(folder / "s.json"))
    assert json.loads((folder / "s.json").read_text())["params"]["strides"] == [1, 4]
    loaded = load_session(str(folder / "s.json"))
    assert loaded.session == session and loaded.notes == ()


def test_files_outside_the_session_folder_are_absolute(folder, tmp_path_factory):
    elsewhere = tmp_path_factory.mktemp("elsewhere")
    (elsewhere / "far.bin").write_bytes(b"abc")
    session = Session(files=(capture_file(str(elsewhere / "far.bin")),), params=DecodeParams())
    save_session(session, str(folder / "sub" / "s.json"))
    document = json.loads((folder / "sub" / "s.json").read_text())
    assert document["files"][0]["path"] == str(elsewhere / "far.bin")
    # a file in the parent folder is outside too
    session = Session(files=(capture_file(str(folder / "data.bin")),), params=DecodeParams())
    save_session(session, str(folder / "sub" / "s.json"))
    assert json.loads((folder / "sub" / "s.json").read_text())["files"][0]["path"] == str(folder / "data.bin")


def test_moving_the_folder_with_session_and_data_still_loads(folder, tmp_path_factory):
    save_session(full_session(folder), str(folder / "s.json"))
    moved = tmp_path_factory.mktemp("moved") / "project"
    shutil.copytree(folder, moved)  # copies keep the modification times (copy2)
    shutil.rmtree(folder)
    loaded = load_session(str(moved / "s.json"))
    assert [f.path for f in loaded.session.files] == [str(moved / "data.bin"), str(moved / "sub" / "more.bin")]
    assert loaded.missing == () and loaded.changed == ()
    assert loaded.session.comparison["files"][0].path == str(moved / "sub" / "more.bin")


def test_a_missing_file_is_reported_by_index_and_can_be_located(folder, tmp_path_factory):
    save_session(full_session(folder), str(folder / "s.json"))
    new_home = tmp_path_factory.mktemp("new_home")
    shutil.move(str(folder / "data.bin"), str(new_home / "data.bin"))
    loaded = load_session(str(folder / "s.json"))
    assert loaded.missing == (0,) and loaded.changed == ()
    located = loaded.with_located(0, str(new_home / "data.bin"))
    assert isinstance(located, LoadedSession)
    assert located.missing == () and located.changed == ()
    assert located.session.files[0].path == str(new_home / "data.bin")
    assert located.session.files[0].size == 16  # the record is kept
    assert located.session.files[1] == loaded.session.files[1]


def test_locating_one_file_finds_the_others_moved_with_it(folder, tmp_path_factory):
    save_session(full_session(folder), str(folder / "s.json"))
    shutil.copy(folder / "s.json", tmp_path_factory.mktemp("keep") / "s.json")
    target = tmp_path_factory.mktemp("target") / "data"
    shutil.copytree(folder, target)
    os.remove(folder / "data.bin")
    shutil.rmtree(folder / "sub")
    loaded = load_session(str(folder / "s.json"))
    assert loaded.missing == (0, 1)
    located = loaded.with_located(0, str(target / "data.bin"))
    assert located.missing == ()
    assert located.session.files[1].path == str(target / "sub" / "more.bin")


def test_locating_a_file_that_changed_flags_it(folder, tmp_path_factory):
    save_session(full_session(folder), str(folder / "s.json"))
    other = tmp_path_factory.mktemp("other") / "data.bin"
    other.write_bytes(DATA + b"!")
    os.remove(folder / "data.bin")
    located = load_session(str(folder / "s.json")).with_located(0, str(other))
    assert located.missing == ()
    assert [(n.index, n.what) for n in located.changed] == [(0, "size")]


def test_locating_a_path_that_does_not_exist_is_refused(folder):
    save_session(full_session(folder), str(folder / "s.json"))
    loaded = load_session(str(folder / "s.json"))
    with pytest.raises(SessionError, match=r"nowhere\.bin' does not exist \(choose the file where it is now\)"):
        loaded.with_located(0, str(folder / "nowhere.bin"))
    with pytest.raises(SessionError, match="has no file 5"):
        loaded.with_located(5, str(folder / "data.bin"))


def test_a_file_whose_size_changed_is_flagged(folder):
    save_session(full_session(folder), str(folder / "s.json"))
    with open(folder / "sub" / "more.bin", "ab") as out:
        out.write(b"xyz")
    loaded = load_session(str(folder / "s.json"))
    assert loaded.changed == (FileChangeNote(1, "size", f"'{folder / 'sub' / 'more.bin'}' changed since the "
                                             "session was saved: 4 bytes then, 7 now"),)
    assert loaded.missing == ()


def test_same_size_other_time_without_hash_is_flagged_mtime(folder):
    save_session(full_session(folder), str(folder / "s.json"))
    path = folder / "sub" / "more.bin"
    st = os.stat(path)
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 5_000_000_000))
    loaded = load_session(str(folder / "s.json"))
    assert [(n.index, n.what) for n in loaded.changed] == [(1, "mtime")]
    assert "was modified since the session was saved" in loaded.changed[0].message


def test_with_a_hash_the_content_decides(folder):
    save_session(full_session(folder), str(folder / "s.json"))
    path = folder / "data.bin"
    st = os.stat(path)
    # the same bytes with a new time (a colleague's copy): unchanged
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns + 7_000_000_000))
    assert load_session(str(folder / "s.json")).changed == ()
    # other bytes of the same size with the old time: the hash catches it
    path.write_bytes(bytes(reversed(DATA)))
    os.utime(path, ns=(st.st_atime_ns, st.st_mtime_ns))
    loaded = load_session(str(folder / "s.json"))
    assert [(n.index, n.what) for n in loaded.changed] == [(0, "hash")]
    assert "same size, other content (its SHA-256 differs)" in loaded.changed[0].message
    # without hash checks, only size and time count: unchanged
    assert load_session(str(folder / "s.json"), check_hashes=False).changed == ()


def test_capture_file_records_size_time_and_optional_hash(folder):
    path = str(folder / "data.bin")
    record = capture_file(path)
    assert record == SessionFile(path, 16, os.stat(path).st_mtime_ns, None)
    assert capture_file(path, hash=True).sha256 == hashlib.sha256(DATA).hexdigest()
    relative = os.path.relpath(path)
    assert capture_file(relative).path == path  # absolute in memory


@pytest.mark.parametrize("name, message", [
    ("missing.bin", r"missing\.bin' does not exist \(check the path\)"),
    ("sub", r"sub' is a directory, not a file"),
])
def test_capture_file_refuses_what_is_not_a_regular_file(folder, name, message):
    with pytest.raises(SessionError, match=message):
        capture_file(str(folder / name))


def test_capture_file_refuses_devices_and_proc(folder):
    with pytest.raises(SessionError, match=r"'/dev/null' is a character device, not a regular file"):
        capture_file("/dev/null")
    with pytest.raises(SessionError, match=r"'/proc/self/status' is in /proc"):
        capture_file("/proc/self/status", hash=True)


def test_with_files_keeps_the_layout_for_new_files(folder):
    session = full_session(folder)
    (folder / "c.bin").write_bytes(b"c" * 32)
    (folder / "d.bin").write_bytes(b"d" * 8)
    moved = session.with_files([str(folder / "c.bin"), str(folder / "d.bin")])
    assert [(f.path, f.size) for f in moved.files] == [(str(folder / "c.bin"), 32), (str(folder / "d.bin"), 8)]
    assert all(f.sha256 is None for f in moved.files)
    assert (moved.params, moved.slice_text, moved.display, moved.bookmarks, moved.tensor) == (
        session.params, session.slice_text, session.display, session.bookmarks, session.tensor)
    with pytest.raises(SessionError, match=r"bookmark 'rows' marks file 2 but only 1 file given"):
        session.with_files([str(folder / "c.bin")])
    with pytest.raises(SessionError, match="at least one file"):
        Session(files=(), params=DecodeParams()).with_files([])


def test_save_refuses_to_write_over_an_inspected_file(folder):
    session = full_session(folder)
    for target in (folder / "data.bin", folder / "sub" / "more.bin"):
        with pytest.raises(SessionError, match="is the file being inspected"):
            save_session(session, str(target))
    os.symlink(folder / "data.bin", folder / "link.json")
    with pytest.raises(SessionError, match="is the file being inspected"):
        save_session(session, str(folder / "link.json"))
    assert (folder / "data.bin").read_bytes() == DATA


def test_save_refuses_a_directory_or_fifo(folder):
    session = full_session(folder)
    with pytest.raises(SessionError, match="is a directory"):
        save_session(session, str(folder / "sub"))
    os.mkfifo(folder / "pipe")
    with pytest.raises(SessionError, match="is not a regular file"):
        save_session(session, str(folder / "pipe"))


def test_save_is_atomic_and_leaves_no_temporary_file(folder):
    session = full_session(folder)
    (folder / "s.json").write_text("old")
    bad = Session(files=session.files, params=session.params,
                  comparison={"files": session.files[:1], "rtol": float("nan")})
    with pytest.raises(SessionError, match="cannot be written as JSON: Out of range float values"):
        save_session(bad, str(folder / "s.json"))
    assert (folder / "s.json").read_text() == "old"
    save_session(session, str(folder / "s.json"))
    assert sorted(p.name for p in folder.iterdir()) == ["data.bin", "s.json", "sub"]


def test_save_refuses_what_could_not_be_loaded_back(folder):
    session = full_session(folder)
    bad = Session(files=session.files, params=session.params,
                  comparison={"files": session.files[:1], "quantity": "max"})
    with pytest.raises(SessionError, match=r"comparison\.quantity is 'max': use one of a, b, abs, rel, ulp"):
        save_session(bad, str(folder / "s.json"))
    assert not (folder / "s.json").exists()


def test_comparison_paths_are_recorded_when_saving(folder):
    session = Session(files=(capture_file(str(folder / "data.bin")),), params=DecodeParams(),
                      comparison={"files": [str(folder / "sub" / "more.bin")]})
    save_session(session, str(folder / "s.json"))
    comparison = load_session(str(folder / "s.json")).session.comparison
    assert comparison == {"files": (capture_file(str(folder / "sub" / "more.bin")),), "overrides": {},
                          "rtol": None, "atol": None, "ulp": None, "bitwise": False, "shift": 0,
                          "nan_policy": "equal", "quantity": "abs"}


def test_missing_comparison_files_are_reported_apart(folder):
    save_session(full_session(folder), str(folder / "s.json"))
    os.remove(folder / "sub" / "more.bin")
    loaded = load_session(str(folder / "s.json"))
    assert loaded.missing == (1,) and loaded.comparison_missing == (0,)


def test_display_must_be_flat(folder):
    files = (capture_file(str(folder / "data.bin")),)
    with pytest.raises(SessionError, match=r"display\.axes must be a number, a text"):
        Session(files=files, params=DecodeParams(), display={"axes": {"row": 0}})
    with pytest.raises(SessionError, match=r"display\.indices must be a list of at most 64 whole numbers"):
        Session(files=files, params=DecodeParams(), display={"indices": [0, "1"]})
    with pytest.raises(SessionError, match=r"display\.level is nan: use a finite number"):
        Session(files=files, params=DecodeParams(), display={"level": float("nan")})


def test_display_values_from_numpy_and_tuples_are_made_plain(folder):
    import numpy as np

    files = (capture_file(str(folder / "data.bin")),)
    session = Session(files=files, params=DecodeParams(),
                      display={"indices": (np.int64(0), 2), "row_axis": np.intp(1), "level": np.float32(0.5),
                               "heat": np.bool_(True)})
    assert session.display == {"indices": [0, 2], "row_axis": 1, "level": 0.5, "heat": True}
    assert [type(v) for v in session.display.values()] == [list, int, float, bool]
    save_session(session, str(folder / "s.json"))
    assert load_session(str(folder / "s.json")).session == session
