"""Hostile and broken session files: each gives one clear message; nothing is executed, nothing
written, no special file opened, no unbounded read or recursion (docs/sessions.md, "Bad input")."""

from __future__ import annotations

import builtins
import json
import os
import pickle
import threading
import tracemalloc
from pathlib import Path

import pytest

from core.cli import main
from core.errors import SessionError
from core.session.session_file import (
    MAX_BOOKMARKS,
    MAX_FILES,
    MAX_SESSION_BYTES,
    load_session,
)

WRITE_FLAGS = os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    (tmp_path / "data.bin").write_bytes(bytes(range(16)))
    return tmp_path


def document(folder: Path, **changes: object) -> dict:
    """A valid session document naming data.bin, with ``changes`` applied (None removes a key)."""
    out: dict = {
        "format": "tensor-inspector-session", "version": 1,
        "files": [{"path": "data.bin", "size": 16, "mtime_ns": os.stat(folder / "data.bin").st_mtime_ns}],
        "params": {"dtype": "uint8", "shape": [4, 4]}, "slice_text": "", "display": {}, "bookmarks": [],
    }
    for key, value in changes.items():
        if value is None:
            out.pop(key, None)
        else:
            out[key] = value
    return out


def write(folder: Path, content: object, name: str = "s.json") -> str:
    path = folder / name
    if isinstance(content, bytes):
        path.write_bytes(content)
    elif isinstance(content, str):
        path.write_text(content, encoding="utf-8")
    else:
        path.write_text(json.dumps(content), encoding="utf-8")
    return str(path)


def refused(path: str) -> SessionError:
    with pytest.raises(SessionError) as caught:
        load_session(path)
    return caught.value


def test_a_session_from_a_newer_version(folder):
    error = refused(write(folder, document(folder, version=3, files="a future layout")))
    assert error.message == (f"session '{folder / 's.json'}': it was made by a newer tensor-inspector "
                             "(version 3); this one reads version 1: update tensor-inspector to open it")
    assert error.field == "session"


@pytest.mark.parametrize("content, message", [
    (b"\x80\x03}q\x00.", r"it is not UTF-8 text \(byte 0\); it is not a session file"),
    (pickle.dumps({"format": "tensor-inspector-session"}), r"it is not UTF-8 text"),
    ("format = tensor-inspector-session", r"it is not JSON: Expecting value at line 1, column 1"),
    ('{"format": "tensor-inspector-session",\n "version": 1,', r"it is not JSON: .* at line 2, column 15"),
    ("", r"it is not JSON: Expecting value at line 1, column 1"),
    ("[1, 2, 3]", r": the whole file must be an object \(\{\.\.\.\}\), not a list"),
    ('"a text"', r": the whole file must be an object \(\{\.\.\.\}\), not a text"),
    ("42", r": the whole file must be an object \(\{\.\.\.\}\), not a whole number"),
    ('{"format": "png"}', r"it is not a tensor-inspector session \(its \"format\" is 'png'"),
    ("{}", r"it is not a tensor-inspector session \(its \"format\" is None"),
])
def test_not_a_session(folder, content, message):
    assert pytest.raises(SessionError, load_session, write(folder, content)).match(message)


@pytest.mark.parametrize("changes, message", [
    ({"version": "1"}, r"version must be a whole number, not a text"),
    ({"version": True}, r"version must be a whole number, not true"),
    ({"version": 0}, r"version is 0: it must be at least 1"),
    ({"version": None}, r"version is missing"),
    ({"files": None}, r"files is missing"),
    ({"files": {"path": "data.bin"}}, r"files must be a list, not an object"),
    ({"files": []}, r"files is empty: a session names at least one file"),
    ({"files": ["data.bin"]}, r"files\[0\] must be an object"),
    ({"files": [{"path": "data.bin", "size": "16", "mtime_ns": 0}]}, r"files\[0\]\.size must be a whole number, not a text"),
    ({"files": [{"path": "data.bin", "size": -16, "mtime_ns": 0}]}, r"files\[0\]\.size is -16: it must be at least 0"),
    ({"files": [{"path": "data.bin", "size": 2**63, "mtime_ns": 0}]}, r"files\[0\]\.size is 9223372036854775808"),
    ({"files": [{"path": "data.bin", "size": 16, "mtime_ns": 1.5}]}, r"mtime_ns must be a whole number, not a number with a fraction"),
    ({"files": [{"path": "", "size": 16, "mtime_ns": 0}]}, r"files\[0\]\.path is empty"),
    ({"files": [{"path": "a\u0000b", "size": 16, "mtime_ns": 0}]}, r"files\[0\]\.path contains a NUL character"),
    ({"files": [{"path": "x" * 5000, "size": 16, "mtime_ns": 0}]}, r"files\[0\]\.path is 5,000 characters long"),
    ({"files": [{"path": "data.bin", "size": 16, "mtime_ns": 0, "sha256": "abc"}]}, r"sha256 'abc' is not 64 lowercase hex digits"),
    ({"params": None}, r"params is missing"),
    ({"params": [1]}, r"params must be an object"),
    ({"params": {"offset": -1}}, r"params\.offset is -1: it must be at least 0"),
    ({"params": {"record_size": 12.5}}, r"params\.record_size must be a whole number, not a number with a fraction"),
    ({"params": {"dtype": "float128"}}, r"params: .*float128"),
    ({"params": {"shape": "4,4"}}, r"params\.shape must be a list, not a text"),
    ({"params": {"shape": [4, -2]}}, r"params\.shape\[1\] is -2: it must be at least -1"),
    ({"params": {"extended_types": 1}}, r"params\.extended_types must be true or false, not a whole number"),
    ({"tensor": 7}, r"tensor must be a text, not a whole number"),
    ({"slice_text": ["1:"]}, r"slice_text must be a text, not a list"),
    ({"display": {"axes": {"row": 0}}}, r"display\.axes must be a number, a text"),
    ({"display": "image"}, r"display must be an object of settings"),
    ({"bookmarks": {"a": 1}}, r"bookmarks must be a list, not an object"),
    ({"bookmarks": [{"name": "b", "kind": "region", "file_index": 1}]},
     r"bookmarks\[0\] \('b'\) marks file index 1, but the session has 1 file"),
    ({"comparison": []}, r"comparison must be an object"),
    ({"comparison": {"files": [], "rtol": 1}}, r"comparison\.files is empty"),
    ({"comparison": {"files": [{"path": "data.bin", "size": 16, "mtime_ns": 0}], "rtol": -1}},
     r"comparison\.rtol must be a finite number >= 0 or null"),
    ({"comparison": {"files": [{"path": "data.bin", "size": 16, "mtime_ns": 0}], "nan_policy": "ignore"}},
     r"comparison\.nan_policy is 'ignore': use one of equal, mismatch"),
    ({"comparison": {"files": [{"path": "data.bin", "size": 16, "mtime_ns": 0}], "shift": "3"}},
     r"comparison\.shift must be a whole number"),
])
def test_every_field_is_checked(folder, changes, message):
    error = refused(write(folder, document(folder, **changes)))
    assert error.message.startswith(f"session '{folder / 's.json'}': ")
    assert pytest.raises(SessionError, load_session, str(folder / "s.json")).match(message)


def test_unknown_keys_are_ignored_with_a_note(folder):
    doc = document(folder, colour_scheme="dark")
    doc["files"][0]["owner"] = "me"
    doc["params"]["endianness"] = "little"
    loaded = load_session(write(folder, doc))
    assert loaded.notes == (
        "ignored unknown key 'owner' in files[0] (written by a newer tensor-inspector, or by hand)",
        "ignored unknown key 'endianness' in params (written by a newer tensor-inspector, or by hand)",
        "ignored unknown key 'colour_scheme' (written by a newer tensor-inspector, or by hand)",
    )
    assert loaded.session.params.dtype == "uint8"


@pytest.mark.parametrize("number, message", [
    ("1" + "0" * 400, r"a number of 401 digits is too large"),
    ("-" + "9" * 30, r"a number of 30 digits is too large"),
    ("1e400", r"the number 1e400 is too large"),
    ("NaN", r"NaN is not a number a session may hold"),
    ("-Infinity", r"-Infinity is not a number a session may hold"),
])
def test_absurd_numbers(folder, number, message):
    text = json.dumps(document(folder)).replace('"shape": [4, 4]', f'"offset": {number}')
    assert pytest.raises(SessionError, load_session, write(folder, text)).match(message)


def test_a_key_twice_is_refused(folder):
    text = json.dumps(document(folder)).replace('"version": 1', '"version": 1, "version": 3')
    assert pytest.raises(SessionError, load_session, write(folder, text)).match(
        r"the key 'version' appears twice in one object")


def test_deep_nesting_is_refused_before_parsing(folder):
    deep = "[" * 200_000 + "]" * 200_000
    error = refused(write(folder, deep))
    assert "its JSON is nested 200000 levels deep, more than the 32 a session may be; it was not parsed" in error.message
    inside = json.dumps(document(folder)).replace('"display": {}', '"display": {"x": ' + "[" * 40 + "]" * 40 + "}")
    assert "nested 42 levels deep" in refused(write(folder, inside)).message


def test_brackets_inside_texts_do_not_count_as_nesting(folder):
    note = "[{" * 5000 + '\\" ]'
    doc = document(folder, bookmarks=[{"name": "b", "kind": "region", "note": note.replace('\\"', '"')}])
    loaded = load_session(write(folder, doc))
    assert loaded.session.bookmarks[0].note.startswith("[{[{")


def test_a_huge_session_is_refused_from_its_size_before_reading(folder):
    path = folder / "huge.json"
    with open(path, "wb") as out:
        out.truncate(64 * 1024**3)  # 64 GiB, sparse: reading it would never finish
    tracemalloc.start()
    try:
        error = refused(str(path))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert error.message == (f"the session file '{path}' is 64.0 GiB (68,719,476,736 bytes), more than "
                             f"the 16.0 MiB a session file may be; it was not read (check that it is the right file)")
    assert peak < 1024 * 1024


def test_a_session_just_over_the_cap_is_refused(folder):
    text = json.dumps(document(folder, padding="x" * MAX_SESSION_BYTES))
    assert "more than the 16.0 MiB a session file may be" in refused(write(folder, text)).message


def test_too_many_bookmarks_and_files(folder):
    marks = [{"name": f"b{i}", "kind": "region"} for i in range(MAX_BOOKMARKS + 1)]
    assert "bookmarks has 10,001 items, more than the 10,000 a session may hold" in refused(
        write(folder, document(folder, bookmarks=marks))).message
    files = [{"path": "data.bin", "size": 16, "mtime_ns": 0}] * (MAX_FILES + 1)
    assert "files has 100,001 items, more than the 100,000 a session may hold" in refused(
        write(folder, document(folder, files=files))).message


@pytest.mark.parametrize("make, message", [
    (lambda folder: "/dev/zero", r"'/dev/zero' is a character device, not a regular file"),
    (lambda folder: "/proc/self/status", r"'/proc/self/status' is in /proc"),
    (lambda folder: "/sys/kernel/mm/transparent_hugepage/enabled", r"is in /sys"),
    (lambda folder: str(folder), r"is a directory, not a file"),
])
def test_the_session_file_itself_must_be_a_regular_file(folder, make, message):
    path = make(folder)
    if not os.path.exists(path):
        pytest.skip(f"{path} does not exist here")
    assert pytest.raises(SessionError, load_session, path).match(message)


def _fifo(folder: Path) -> str:
    path = folder / "pipe"
    os.mkfifo(path)
    return str(path)


def test_a_fifo_session_is_refused_without_blocking(folder):
    path = _fifo(folder)
    outcome: list[BaseException] = []
    worker = threading.Thread(target=lambda: outcome.append(refused(path)), daemon=True)
    worker.start()
    worker.join(10)
    assert not worker.is_alive(), "load_session blocked on a FIFO"
    assert "is a named pipe (FIFO), not a regular file" in outcome[0].message


@pytest.mark.parametrize("target, message", [
    ("/dev/zero", r"files\[0\]: '/dev/zero' is a character device, not a regular file"),
    ("/dev/stdin", r"files\[0\]: '/dev/stdin' is"),
    ("/proc/self/environ", r"files\[0\]: '/proc/self/environ' is in /proc"),
    ("FIFO", r"files\[0\]: '.*pipe' is a named pipe \(FIFO\)"),
    ("DIR", r"files\[0\]: '.*sub' is a directory"),
])
def test_paths_to_special_files_are_refused_and_never_opened(folder, monkeypatch, target, message):
    if target == "FIFO":
        target = _fifo(folder)
    elif target == "DIR":
        (folder / "sub").mkdir()
        target = str(folder / "sub")
    opened: list[str] = []
    real_os_open, real_open = os.open, builtins.open
    monkeypatch.setattr(os, "open", lambda p, *a, **k: (opened.append(os.fspath(p)), real_os_open(p, *a, **k))[1])
    monkeypatch.setattr(builtins, "open", lambda p, *a, **k: (opened.append(os.fspath(p)), real_open(p, *a, **k))[1])
    doc = document(folder, files=[{"path": target, "size": 0, "mtime_ns": 0}])
    session_path = write(folder, doc)
    opened.clear()
    assert pytest.raises(SessionError, load_session, session_path).match(message)
    assert opened == [session_path]


def test_loading_never_writes(folder, monkeypatch):
    doc = document(folder, bookmarks=[{"name": "b", "kind": "bytes", "byte_range": [0, 2]}])
    good = write(folder, doc)
    bad = write(folder, document(folder, version=9), "bad.json")
    before = {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir()}
    flags: list[int] = []
    real_os_open = os.open
    monkeypatch.setattr(os, "open", lambda p, f, *a, **k: (flags.append(f), real_os_open(p, f, *a, **k))[1])
    load_session(good)
    with pytest.raises(SessionError):
        load_session(bad)
    assert flags and all(f & WRITE_FLAGS == 0 for f in flags)
    assert {p.name: (p.stat().st_size, p.stat().st_mtime_ns) for p in folder.iterdir()} == before


@pytest.mark.parametrize("content, message", [
    ({"format": "tensor-inspector-session", "version": 3}, "made by a newer tensor-inspector (version 3)"),
    ("[" * 5000, "nested 5000 levels deep"),
    ("not json", "it is not JSON"),
])
def test_the_command_prints_one_line_and_exits_2(folder, capsys, content, message):
    path = write(folder, content)
    assert main(["--session", path]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and err.startswith("error: session ") and message in err
