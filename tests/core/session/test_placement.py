"""Where bookmarks lie in the view on screen (core.session.placement), hand-checked."""

from __future__ import annotations

import pytest

from core.errors import SourceError
from core.pipeline.pipeline import DecodeParams
from core.session.bookmark import Bookmark
from core.session.placement import place, region_box, spec_of, view_index
from core.slicing.analysis import analyze

SHAPE = (4, 6)


def _analysis(text: str):
    return analyze(spec_of(text), SHAPE)


def test_view_index_maps_through_a_strided_slice():
    current = _analysis("[1:3, ::2]")  # view (i, j) shows tensor (1 + i, 2 j)
    assert view_index(current, (2, 4)) == (1, 2)
    assert view_index(current, (2, 3)) is None  # off the stride
    assert view_index(current, (0, 0)) is None  # row sliced away


def test_view_index_of_a_taken_axis_and_a_new_axis():
    assert view_index(_analysis("[1]"), (1, 5)) == (5,)
    assert view_index(_analysis("[1]"), (2, 5)) is None
    assert view_index(_analysis("[tf.newaxis, 2]"), (2, 3)) == (0, 3)


def test_region_box_in_strided_and_reversed_views():
    assert region_box(_analysis("[0:2, 1:5]"), _analysis("[1:3, ::2]")) == ((0, 1), (1, 3))
    assert region_box(_analysis("[0:2]"), _analysis("[::-1]")) == ((2, 4), (0, 6))
    assert region_box(_analysis("[0:2, 1:5]"), _analysis("[1]")) == ((1, 5),)
    assert region_box(_analysis("[2:4]"), _analysis("[1]")) is None
    assert region_box(_analysis("[0:10:2, 3]"), _analysis("")) == ((0, 3), (3, 4))  # hull rows 0..2


def test_place_keeps_only_bookmarks_of_the_current_params():
    params = DecodeParams(dtype="float32")
    marks = [
        Bookmark("a", "element", params=params, slice_text="[2]", index=(4,), colour="#ff0000"),
        Bookmark("other dtype", "element", params=DecodeParams(dtype="int8"), index=(2, 4)),
        Bookmark("any params", "element", index=(1, 0), colour="#00ff00"),
        Bookmark("r", "region", slice_text="[0:2, 1:5]", colour="#0000ff"),
        Bookmark("b", "bytes", file_index=0, byte_range=(8, 4), colour="#123456"),
        Bookmark("bad", "element", slice_text="[9]", index=(0,)),
    ]
    offsets = {(1, 2): (0, 64, 4), (0, 0): (0, 24, 4)}
    placed = place(marks, params, spec_of("[1:3, ::2]"), SHAPE, byte_offset=offsets.__getitem__)
    assert placed.elements == (((1, 2), "#ff0000", "a"), ((0, 0), "#00ff00", "any params"))
    assert placed.regions == ((((0, 1), (1, 3)), "#0000ff", "r"),)
    assert placed.byte_ranges == ((0, 64, 68, "#ff0000", "a"), (0, 24, 28, "#00ff00", "any params"),
                                  (0, 8, 12, "#123456", "b"))
    assert placed.element_colour((1, 2)) == "#ff0000"
    assert placed.element_colour((0, 2)) == "#0000ff"  # in the region's box
    assert placed.element_colour((1, 0)) is None


def test_a_tensor_name_before_the_brackets_is_dropped():
    from core.session.placement import plain_slice_text

    assert plain_slice_text("x[10:20, :]") == "[10:20, :]"
    assert plain_slice_text(" weights [1]") == "[1]"
    assert plain_slice_text("[1:2]") == "[1:2]"
    assert region_box(_analysis("x[0:2, 1:5]"), _analysis("")) == ((0, 2), (1, 5))


def test_a_session_is_told_by_its_content(tmp_path):
    from core.session.sniff import looks_like_session, read_head

    assert looks_like_session(b'  {\n  "format": "tensor-inspector-session",\n  "version": 1}')
    assert not looks_like_session(b'{"format": "something-else"}')
    assert not looks_like_session(b'\x00{"format": "tensor-inspector-session"}')  # binary data
    path = tmp_path / "s.bin"
    path.write_bytes(b'{"format":"tensor-inspector-session"}')
    assert looks_like_session(read_head(str(path)))
    assert read_head(str(tmp_path)) == b"" and read_head(str(tmp_path / "none")) == b""


def test_a_fifo_swapped_in_after_the_check_is_never_read(tmp_path, monkeypatch):
    """The session sniff reads through core.files: the open descriptor is re-checked, so a FIFO
    that replaced a regular file between the stat and the open returns no bytes (and no hang)."""
    import os

    import core.files.checked_read as checked_read
    from core.session.sniff import read_head

    fifo = tmp_path / "swapped.json"
    os.mkfifo(fifo)
    assert read_head(str(fifo)) == b""  # refused by the stat
    monkeypatch.setattr(checked_read, "regular_file_stat", lambda path: os.stat(tmp_path))
    assert read_head(str(fifo)) == b""  # the stat was fooled; the descriptor's fstat is not
    with pytest.raises(SourceError, match="FIFO|pipe"):
        checked_read.read_prefix(str(fifo), 10)
    regular = tmp_path / "head.bin"
    regular.write_bytes(bytes(range(200)))
    assert checked_read.read_prefix(str(regular), 16) == bytes(range(16))
    assert checked_read.read_prefix(str(regular), 1000) == bytes(range(200))
