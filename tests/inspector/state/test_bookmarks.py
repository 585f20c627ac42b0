"""Bookmarks of the document: undoable edits, choosing one restores params + slice + selection."""

from __future__ import annotations

import pytest

from core.errors import SessionError
from core.pipeline.pipeline import DecodeParams
from core.session.bookmark import Bookmark
from inspector.state.document import Document

DATA = bytes(range(24))  # int16 little-endian: element k is 256 + 514 k
GRID = DecodeParams(dtype="int16", shape=(3, 4))


@pytest.fixture
def document(qtbot, tmp_path):
    path = tmp_path / "grid.bin"
    path.write_bytes(DATA)
    doc = Document()
    assert doc.open_files([str(path)], GRID)
    yield doc
    doc.close_files()


def test_add_choose_undo_redo_restores_params_slice_and_selection(document):
    document.select((1, 2))
    marks = document.bookmarks
    added = marks.add(marks.element_bookmark("peak"))
    assert added == Bookmark("peak", "element", params=GRID, index=(1, 2), colour=added.colour)
    # Move elsewhere: other dtype, a slice, another element.
    document.update_params(dtype="uint8", shape=None)
    document.set_slice_text("[5:9]")
    document.select((2,))
    assert marks.choose("peak")
    assert document.params == GRID and document.slice_text == "" and document.selection == (1, 2)
    assert int(document.result.view[1, 2]) == 256 + 514 * 6
    document.undo()  # one step back: the choice as a whole
    assert document.params == DecodeParams(dtype="uint8", shape=None) and document.slice_text == "[5:9]"
    assert document.selection == (2,)
    document.redo()
    assert document.params == GRID and document.selection == (1, 2)
    document.undo()
    document.undo()  # the selection is not an edit: next comes the slice
    assert document.slice_text == "" and document.params.dtype == "uint8"


def test_add_remove_edit_move_are_undoable(document):
    marks = document.bookmarks
    seen = []
    marks.changed.connect(lambda: seen.append(marks.names()))
    marks.add(marks.region_bookmark("rows"))
    marks.add(marks.bytes_bookmark(0, 4, 7))
    assert marks.names() == ("rows", "bytes 0x4..0x7")
    assert marks.items[1].byte_range == (4, 4)
    marks.edit(0, name="r")
    marks.edit(0, name="ro")  # keystrokes in one field merge
    marks.edit(0, note="two rows")
    marks.move(1, 0)
    assert marks.names() == ("bytes 0x4..0x7", "ro")
    marks.remove(0)
    assert marks.names() == ("ro",) and marks.items[0].note == "two rows"
    document.undo()
    document.undo()
    assert marks.names() == ("ro", "bytes 0x4..0x7")
    document.undo()  # the note
    document.undo()  # both name keystrokes
    assert marks.names() == ("rows", "bytes 0x4..0x7") and marks.items[0].note == ""
    assert seen[-1] == ("rows", "bytes 0x4..0x7")


def test_names_are_unique_and_find_names_the_known_ones(document):
    marks = document.bookmarks
    document.select((0, 0))
    marks.add(marks.element_bookmark("a"))
    assert marks.add(marks.element_bookmark("a")).name == "a (2)"
    marks.edit(1, name="a")
    assert marks.names() == ("a", "a (2)")
    with pytest.raises(SessionError, match="'a', 'a \\(2\\)'"):
        marks.find("b")
    assert not marks.choose("b") and "No bookmark is called 'b'" in document.error.message


def test_region_and_bytes_choose(document):
    marks = document.bookmarks
    document.set_slice_text("[1:3, 2:]")
    marks.add(marks.region_bookmark())
    assert marks.names() == ("region [1:3, 2:]",)
    document.set_slice_text("")
    marks.add(Bookmark("b", "bytes", byte_range=(13, 6), params=GRID))  # bytes 13..18: elements 6..9
    chosen = []
    marks.bytesChosen.connect(lambda *args: chosen.append(args))
    document.select((2, 3))
    assert marks.choose("region [1:3, 2:]")
    assert document.slice_text == "[1:3, 2:]" and document.result.view.shape == (2, 2)
    assert document.selection == (0, 0)  # (2, 3) is not in the region: its first element
    assert marks.choose("b")
    assert document.slice_text == "" and document.selection == (1, 2)  # element 6 holds byte 13
    assert chosen == [(0, 13, 6)]


def test_other_files_clear_the_list_reload_keeps_it(document, tmp_path):
    marks = document.bookmarks
    marks.add(marks.region_bookmark("all"))
    document.reload()
    assert marks.names() == ("all",)
    other = tmp_path / "other.bin"
    other.write_bytes(DATA)
    document.open_files([str(other)], GRID)
    assert marks.names() == ()


def test_placements_follow_the_current_view(document):
    marks = document.bookmarks
    document.select((1, 2))
    marks.add(marks.element_bookmark("e"))
    marks.add(Bookmark("b", "bytes", byte_range=(0, 2), colour="#000000"))
    placed = marks.placements()
    assert placed.elements == (((1, 2), marks.items[0].colour, "e"),)
    assert placed.byte_ranges[0][:3] == (0, 12, 14)  # element 6 is bytes 12, 13
    document.set_slice_text("[1]")
    assert marks.placements().elements == (((2,), marks.items[0].colour, "e"),)
    document.set_slice_text("[0]")
    assert marks.placements().elements == ()
    document.update_params(dtype="uint8", shape=None)
    assert marks.placements().elements == () and len(marks.placements().byte_ranges) == 1
