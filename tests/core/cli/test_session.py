"""``tensor-inspect --session S.json [FILE...] [--bookmark NAME]`` through ``core.cli.main``."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest

from core.cli import main
from core.pipeline.pipeline import DecodeParams
from core.session.session_file import Bookmark, Session, capture_file, save_session

BOOKMARKS = (
    Bookmark("peak", "element", slice_text="1:3, ::2", index=(1, 1), note="largest"),
    Bookmark("row two", "region", slice_text="x[2, :]"),
    Bookmark("header", "bytes", byte_range=(2, 3), note="magic"),
    Bookmark("word", "element", params=DecodeParams(dtype="uint16", shape=(8,)), index=(3,)),
)


def run(capsys, *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    out, err = capsys.readouterr()
    return status, out, err


@pytest.fixture
def session(tmp_path: Path) -> str:
    """data.bin holds uint8 0..15; the session decodes it as 4 x 4 and slices 1:3, ::2."""
    (tmp_path / "data.bin").write_bytes(bytes(range(16)))
    path = str(tmp_path / "s.json")
    save_session(Session(files=(capture_file(str(tmp_path / "data.bin")),),
                         params=DecodeParams(dtype="uint8", shape=(4, 4)), slice_text="1:3, ::2",
                         bookmarks=BOOKMARKS), path)
    return path


def test_the_session_runs_its_pipeline(capsys, session):
    # x = [[0 1 2 3] [4 5 6 7] [8 9 10 11] [12 13 14 15]]; x[1:3, ::2] = rows 1-2, columns 0 and 2
    assert run(capsys, "--session", session) == (0, "shape: (2, 2)\ndtype: uint8\n[[ 4  6]\n [ 8 10]]\n", "")


@pytest.mark.parametrize("extra", [[], ["--json"], ["--limit", "2"], ["--steps"], ["--json", "--limit", "3"]])
def test_it_prints_what_the_plain_command_prints(capsys, session, extra):
    data = str(Path(session).parent / "data.bin")
    plain = run(capsys, data, "--dtype", "uint8", "--shape", "4,4", "--slice", "1:3, ::2", *extra)
    assert run(capsys, "--session", session, *extra) == plain
    assert plain[0] == 0


def test_the_json_values(capsys, session):
    status, out, _ = run(capsys, "--session", session, "--json")
    assert status == 0 and json.loads(out)["values"] == [[4, 6], [8, 10]]


def test_the_layout_applies_to_other_files(capsys, session, tmp_path):
    other = tmp_path / "other.bin"
    other.write_bytes(bytes(range(100, 116)))
    assert run(capsys, "--session", session, str(other)) == (
        0, "shape: (2, 2)\ndtype: uint8\n[[104 106]\n [108 110]]\n", "")


def test_options_on_the_command_line_override_the_session(capsys, session):
    status, out, _ = run(capsys, "--session", session, "--dtype", "int16", "--shape", "2,4", "--slice", "1")
    # int16 little-endian of bytes 8..15: 0x0908, 0x0b0a, 0x0d0c, 0x0f0e
    assert (status, out) == (0, "shape: (4,)\ndtype: int16 (little-endian)\n[2312 2826 3340 3854]\n")
    status, out, _ = run(capsys, "--session", session, "--view-as", "float32", "--slice", "0, :2")
    assert (status, out) == (0, "shape: (2,)\ndtype: float32 (little-endian)\n[0.0 1.0]\n")
    status, _, err = run(capsys, "--session", session, "--dtype", "uint32", "--tf-only")
    assert status == 2 and "uint32" in err


def test_an_explicit_offset_replaces_the_session_elements(capsys, tmp_path):
    (tmp_path / "data.bin").write_bytes(bytes(range(16)))
    path = str(tmp_path / "s.json")
    save_session(Session(files=(capture_file(str(tmp_path / "data.bin")),),
                         params=DecodeParams(dtype="uint8", elements=((0, 2), (8, 2)))), path)
    assert run(capsys, "--session", path)[1] == "shape: (2, 2)\ndtype: uint8\n[[0 1]\n [8 9]]\n"
    assert run(capsys, "--session", path, "--offset", "12")[1] == "shape: (4,)\ndtype: uint8\n[12 13 14 15]\n"


def test_a_slice_written_with_the_tensor_name(capsys, session, tmp_path):
    path = str(tmp_path / "named.json")
    save_session(Session(files=(capture_file(str(tmp_path / "data.bin")),),
                         params=DecodeParams(shape=(4, 4)), slice_text="x[1:3, ::2]"), path)
    assert run(capsys, "--session", path)[1] == "shape: (2, 2)\ndtype: uint8\n[[ 4  6]\n [ 8 10]]\n"


def test_a_container_tensor(capsys, tmp_path):
    np.savez(tmp_path / "pack.npz", a=np.arange(6, dtype="<i4").reshape(2, 3), b=np.zeros(3))
    path = str(tmp_path / "s.json")
    save_session(Session(files=(capture_file(str(tmp_path / "pack.npz")),), params=DecodeParams(),
                         tensor="a", slice_text="::-1"), path)
    expected = run(capsys, str(tmp_path / "pack.npz"), "--tensor", "a", "--slice", "::-1")
    assert expected[1] == "shape: (2, 3)\ndtype: int32 (little-endian)\n[[3 4 5]\n [0 1 2]]\n"
    assert run(capsys, "--session", path) == expected


# -- bookmarks ------------------------------------------------------------------------------------
def test_an_element_bookmark(capsys, session):
    data = str(Path(session).parent / "data.bin")
    assert run(capsys, "--session", session, "--bookmark", "peak") == (
        0, f"bookmark: peak (element)\ndtype: uint8\n[1, 1] = 10   byte 10 (0xa) of {data}\nnote: largest\n", "")
    status, out, _ = run(capsys, "--session", session, "--bookmark", "peak", "--json")
    assert json.loads(out) == {"bookmark": "peak", "kind": "element", "index": [1, 1], "dtype": "uint8",
                               "value": 10, "file": data, "byte_offset": 10, "nbytes": 1, "nibble": None,
                               "note": "largest"}


def test_an_element_bookmark_with_its_own_parameters(capsys, session):
    data = str(Path(session).parent / "data.bin")
    # uint16 little-endian element 3: bytes 6 and 7 -> 0x0706 = 1798
    assert run(capsys, "--session", session, "--bookmark", "word")[1] == (
        f"bookmark: word (element)\ndtype: uint16 (little-endian)\n[3] = 1798   bytes 6..7 (0x6) of {data}\n")
    assert "[3] = 1543" in run(capsys, "--session", session, "--bookmark", "word", "--big-endian")[1]


def test_a_region_bookmark_prints_like_a_plain_run(capsys, session):
    data = str(Path(session).parent / "data.bin")
    plain = run(capsys, data, "--shape", "4,4", "--slice", "2, :", "--steps")
    assert run(capsys, "--session", session, "--bookmark", "row two", "--steps") == plain
    assert plain[1].endswith("shape: (4,)\ndtype: uint8\n[ 8  9 10 11]\n")


def test_a_bytes_bookmark_prints_hex_and_values(capsys, session):
    data = str(Path(session).parent / "data.bin")
    assert run(capsys, "--session", session, "--bookmark", "header") == (0, (
        f"bookmark: header (bytes)\nbytes 2..4 (0x2, 3 bytes) of {data}\n02 03 04\n"
        "values as uint8:\n[0, 2] = 2\n[0, 3] = 3\n[1, 0] = 4\nnote: magic\n"), "")
    status, out, _ = run(capsys, "--session", session, "--bookmark", "header", "--json", "--limit", "2")
    assert json.loads(out) == {
        "bookmark": "header", "kind": "bytes", "file": data, "start": 2, "length": 3, "hex": "02 03",
        "truncated": True, "dtype": "uint8",
        "values": [{"index": [0, 2], "value": 2}, {"index": [0, 3], "value": 3}, {"index": [1, 0], "value": 4}],
        "problem": None, "note": "magic"}


def test_bytes_that_cannot_be_decoded_print_just_hex(capsys, session):
    status, out, _ = run(capsys, "--session", session, "--bookmark", "header", "--shape", "3,3")
    assert status == 0
    assert out.splitlines()[2:] == ["02 03 04", "values: none (Input to reshape is a tensor with 16 values, "
                                    "but the requested shape has 9 (the dimensions must multiply to 16: "
                                    "choose sizes among its divisors 1, 2, 4, 8, 16, or -1 for one "
                                    "dimension))", "note: magic"]


def test_an_unknown_bookmark_lists_the_closest_names(capsys, session):
    assert run(capsys, "--session", session, "--bookmark", "pek") == (
        2, "", f"error: session '{session}' has no bookmark named 'pek' (closest: 'peak')\n")
    status, _, err = run(capsys, "--session", session, "--bookmark", "zzzzzz")
    assert err == (f"error: session '{session}' has no bookmark named 'zzzzzz' (its bookmarks: "
                   "'peak', 'row two', 'header', 'word')\n")


def test_an_element_outside_the_view(capsys, session):
    status, _, err = run(capsys, "--session", session, "--bookmark", "peak", "--shape", "2,8")
    assert status == 2  # x[1:3, ::2] of a 2 x 8 tensor is 1 x 4
    assert err == ("error: bookmark 'peak' marks element [1, 1], which the view of shape (1, 4) does not "
                   "have (the layout differs from the bookmark's: check --shape and the bookmark's slice)\n")


def test_slice_does_not_combine_with_an_element_bookmark(capsys, session):
    status, _, err = run(capsys, "--session", session, "--bookmark", "peak", "--slice", "0")
    assert status == 2 and "--slice cannot be combined with the element bookmark 'peak'" in err


# -- files that moved or changed ------------------------------------------------------------------
def test_a_missing_file_is_named_with_the_fix(capsys, session, tmp_path):
    moved = tmp_path / "elsewhere.bin"
    shutil.move(str(tmp_path / "data.bin"), str(moved))
    assert run(capsys, "--session", session) == (2, "", (
        f"error: the file '{tmp_path / 'data.bin'}' of session '{session}' is missing: it was moved or "
        f"deleted (give its new place: tensor-inspect --session {session} NEWPATH)\n"))
    assert run(capsys, "--session", session, str(moved))[:2] == (
        0, "shape: (2, 2)\ndtype: uint8\n[[ 4  6]\n [ 8 10]]\n")


def test_a_changed_file_is_a_note(capsys, session, tmp_path):
    data = tmp_path / "data.bin"
    st = os.stat(data)
    os.utime(data, ns=(st.st_atime_ns, st.st_mtime_ns + 3_000_000_000))
    status, out, err = run(capsys, "--session", session)
    assert (status, out) == (0, "shape: (2, 2)\ndtype: uint8\n[[ 4  6]\n [ 8 10]]\n")
    assert err == (f"note: '{data}' was modified since the session was saved (same size, another "
                   "modification time; the content may differ)\n")


# -- usage ----------------------------------------------------------------------------------------
def test_usage_errors(capsys, session):
    assert run(capsys, "--bookmark", "peak", "x.bin") == (
        2, "", "error: --bookmark NAME needs --session S.json (the session that holds the bookmark) (see --help)\n")
    assert run(capsys) == (2, "", "error: the following arguments are required: FILE (see --help)\n")
    status, _, err = run(capsys, "--session", session, "--guess")
    assert status == 2 and err == ("error: --guess and --list take files, not a session (give the file "
                                   "instead of --session)\n")
    status, _, err = run(capsys, "--session", "/nonexistent/s.json")
    assert (status, err) == (2, "error: session '/nonexistent/s.json' does not exist (check the path)\n")


def test_help_lists_the_session_options(capsys):
    status, out, _ = run(capsys, "--help")
    assert status == 0 and "--session S.json" in out and "--bookmark NAME" in out
