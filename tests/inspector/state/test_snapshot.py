"""Document.snapshot / Document.restore, the session's display both ways, and the document as
the one way to close (closing before the maps close, history and error cleared)."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from PySide6.QtCore import QSettings

from core.pipeline.pipeline import DecodeParams
from core.session.bookmark import Bookmark
from inspector.state.document import Document
from inspector.state.settings_store import SettingsStore
from inspector.state.snapshot import DocumentSnapshot, from_session, session_display, to_session
from inspector.state.view_options import ViewOptions

CUBE = DecodeParams(dtype="float32", shape=(2, 3, 4, 5))


@pytest.fixture
def path(tmp_path) -> str:
    file = tmp_path / "cube.bin"
    np.arange(120, dtype=np.float32).tofile(file)
    return str(file)


@pytest.fixture
def document(qtbot, path):
    doc = Document()
    assert doc.open_files([path], CUBE, "[:, 1:]")
    yield doc
    doc.close_files()


def set_up(document: Document) -> None:
    axes = document.display_axes
    axes.set_axes(3, 1)
    axes.set_index(0, 1)
    axes.set_index(2, 2)
    document.view_options.choose(plot_line_axis=2, table_format="scientific", table_decimals=3, heat_map=True)
    document.select((1, 1, 2, 4))
    document.bookmarks.add(Bookmark("head", "bytes", byte_range=(0, 8)))


def test_snapshot_records_everything_a_session_does(document, path):
    set_up(document)
    snapshot = document.snapshot()
    assert snapshot == DocumentSnapshot(
        paths=(path,), params=CUBE, tensor=None, slice_text="[:, 1:]", row_axis=3, col_axis=1,
        indices=(1, 0, 2, 0),
        view_options=ViewOptions(table_format="scientific", table_decimals=3, heat_map=True, plot_line_axis=2),
        selection=(1, 1, 2, 4), bookmarks=document.bookmarks.items)
    assert session_display(snapshot) == {
        "row_axis": 3, "col_axis": 1, "indices": [1, 0, 2, 0], "plot_mode": "line", "plot_line_axis": 2,
        "table_format": "scientific", "table_decimals": 3, "heat_map": True, "selection": [1, 1, 2, 4]}


def test_restore_in_another_document_shows_the_same_view(qtbot, document):
    set_up(document)
    snapshot = document.snapshot()
    other = Document()
    assert other.restore(snapshot)
    assert other.snapshot() == snapshot
    assert not other.history.can_undo  # opening is no edit
    np.testing.assert_array_equal(other.result.view, document.result.view)
    other.close_files()


def test_a_session_round_trip_through_its_display_keeps_the_view(qtbot, document):
    set_up(document)
    snapshot = document.snapshot()
    session = to_session(snapshot)
    assert session.display == session_display(snapshot)
    assert from_session(session, ViewOptions()) == snapshot


def test_what_does_not_fit_the_view_stays_as_it_was(qtbot, document):
    document.view_options.choose(plot_line_axis=1)
    current = document.snapshot()
    assert document.restore(dataclasses.replace(current, row_axis=7, col_axis=0, indices=(1, 1, 1, 1),
                                                view_options=ViewOptions(plot_line_axis=3, heat_map=True),
                                                selection=(9, 9, 9, 9)))
    after = document.snapshot()
    assert (after.row_axis, after.col_axis, after.indices) == (2, 3, (0, 0, 0, 0))  # axes 7: none set
    assert after.view_options.plot_line_axis == 1 and after.view_options.heat_map  # the table's choice applies
    assert after.selection == (0, 0, 0, 0)
    assert document.restore(dataclasses.replace(current, view_options=ViewOptions(plot_line_axis=4)))
    assert document.view_options.value.plot_line_axis == 1  # the view has no axis 4


def test_a_display_with_stale_values_keeps_the_current_choices(qtbot, document):
    session = dataclasses.replace(to_session(document.snapshot()), display={
        "table_format": "octal", "table_decimals": 40, "heat_map": 1, "plot_mode": "line",
        "plot_line_axis": "two", "selection": "none"})
    base = ViewOptions(table_format="hex", plot_line_axis=1)
    snapshot = from_session(session, base)
    assert snapshot.view_options == ViewOptions(table_format="hex", plot_line_axis=1, heat_map=True)
    assert (snapshot.row_axis, snapshot.indices, snapshot.selection) == (None, None, None)
    image = from_session(dataclasses.replace(session, display={"plot_mode": "image"}), base)
    assert image.view_options.plot_line_axis is None


def test_remembered_settings_give_back_the_view_options(qtbot, tmp_path):
    store = SettingsStore(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat))
    assert store.view_options(ViewOptions()) == ViewOptions()  # never chosen: the defaults
    chosen = ViewOptions(table_format="fixed", table_decimals=2, heat_map=True, plot_line_axis=3,
                         histogram_log_scale=True, complex_part="re")
    store.set_view_options(chosen)
    again = SettingsStore(QSettings(str(tmp_path / "s.ini"), QSettings.IniFormat))
    assert again.view_options(ViewOptions()) == dataclasses.replace(chosen, complex_part="abs")  # not remembered
    again.set_view_options(ViewOptions(plot_line_axis=None))
    assert again.view_options(ViewOptions(plot_line_axis=2)).plot_line_axis is None  # "image"


def test_close_files_is_the_one_way_to_close(qtbot, document):
    document.update_params(little_endian=False)
    document.set_slice_text("[")  # an error on screen
    assert document.history.can_undo and document.error is not None
    seen = []
    document.closing.connect(lambda: seen.append((document.pipeline is not None, document.result is not None)))
    with qtbot.waitSignal(document.filesChanged):
        document.close_files()
    assert seen == [(True, True)]  # views let go of their arrays while the maps are still open
    assert not document.history.can_undo and document.error is None
    assert (document.paths, document.shown_paths, document.views_cleared_by) == ((), (), None)
    assert document.view_options.fitted_to == (None, False)


def test_shown_paths_are_the_files_of_the_last_good_view(qtbot, document, path, tmp_path):
    assert document.shown_paths == (path,)
    other = tmp_path / "odd.bin"
    other.write_bytes(bytes(7))
    assert document.open_files([str(other)], CUBE)  # 7 bytes cannot be decoded as the cube
    assert document.paths == (str(other),) and document.shown_paths == (path,)
    document.update_params(dtype="uint8", shape=None)
    assert document.shown_paths == (str(other),)
