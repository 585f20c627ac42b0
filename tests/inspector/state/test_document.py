"""Document: one owner of params, slice spec, selection, display axes and the edit history."""

from __future__ import annotations

import numpy as np
import pytest

from core.pipeline.pipeline import DecodeParams
from core.slicing.expr import parse_slice
from core.slicing.spec import SliceSpec
from inspector.plot.panel import PlotPanel, configure_pyqtgraph
from inspector.state.document import Document
from inspector.table.panel import TablePanel

DATA = bytes(range(1, 13))  # 12 bytes: int16 little-endian 513, 1027, 1541, 2055, 2569, 3083


@pytest.fixture
def document(qtbot, tmp_path):
    path = tmp_path / "twelve.bin"
    path.write_bytes(DATA)
    doc = Document()
    assert doc.open_files([str(path)])
    yield doc
    doc.close_files()


def count_resets(document):
    """Wrap ``document.display_axes.reset``: the list receives the shape of every call."""
    calls = []
    axes = document.display_axes
    original = axes.reset

    def reset(shape):
        calls.append(tuple(shape))
        original(shape)

    axes.reset = reset  # every caller reaches it through this one object
    return calls


def test_display_axes_reset_exactly_once_per_new_view_shape(qtbot, document):
    configure_pyqtgraph()
    calls = count_resets(document)
    table = TablePanel(document=document)  # views sharing the axes must not reset them again
    plot = PlotPanel(document=document)
    qtbot.addWidget(table)
    qtbot.addWidget(plot)
    assert document.display_axes.shape == (12,)

    document.update_params(dtype="int16")  # 12 -> 6 elements
    assert calls == [(6,)]
    document.update_params(little_endian=False)  # other values, same shape
    np.testing.assert_array_equal(document.result.view, np.frombuffer(DATA, ">i2"))
    document.set_slice_spec(parse_slice("[::-1]"))  # other order, same shape
    assert calls == [(6,)]
    document.set_slice_spec(parse_slice("[:3]"))
    assert calls == [(6,), (3,)]
    document.undo()  # back to [::-1]: shape (6,)
    assert calls == [(6,), (3,), (6,)]
    assert table.model.array.shape == (6,) and plot.mode == "line"
    np.testing.assert_array_equal(plot.curve.getData()[1], np.frombuffer(DATA, ">i2")[::-1])


def test_display_axes_keep_the_plane_when_only_values_change(tmp_path, qtbot):
    path = tmp_path / "cube.bin"
    path.write_bytes(np.arange(24, dtype="<i2").tobytes())
    document = Document()
    document.open_files([str(path)], DecodeParams(dtype="int16", shape=(2, 3, 4)))
    document.display_axes.set_index(0, 1)
    document.update_params(little_endian=False)  # same shape, bytes read the other way
    assert document.display_axes.indices[0] == 1
    document.close_files()


def test_slice_spec_is_the_state_and_text_is_derived(document):
    assert document.slice_spec == SliceSpec.full() and document.slice_text == ""
    document.set_slice_spec(parse_slice("[1:]"))
    assert document.slice_text == "[1:]"
    assert document.result.view.tolist() == list(range(2, 13))
    # A spec the tensor refuses is kept and reported; the last good view stays.
    document.set_slice_spec(parse_slice("[20]"))
    assert document.slice_spec == parse_slice("[20]")
    assert document.error is not None and document.error.field == "slice"
    assert document.result.view.tolist() == list(range(2, 13))
    # A new tensor that makes the pending spec valid applies it.
    document.update_params(record_size=1)  # shape (12, 1): index 20 still out of range
    assert document.error is not None
    document.update_params(record_size=None, shape=(1, 12))
    document.set_slice_spec(parse_slice("[0, 5]"))
    assert document.result.view.tolist() == 6
    with pytest.raises(TypeError, match="SliceSpec"):
        document.set_slice_spec("[1]")


def test_decode_and_slice_edits_share_one_history(document):
    changes = []
    document.historyChanged.connect(lambda: changes.append(document.history.can_undo))
    document.update_params(dtype="int16")
    document.set_slice_spec(parse_slice("[1:]"))
    document.update_params(field="offset", offset=2)
    assert document.result.view.tolist() == [1541, 2055, 2569, 3083]
    document.undo()
    assert document.params.offset is None and document.result.view.tolist() == [1027, 1541, 2055, 2569, 3083]
    document.undo()
    assert document.slice_spec == SliceSpec.full()
    document.undo()
    assert document.params.dtype is None and document.result.view.tolist() == list(range(1, 13))
    document.redo()
    assert document.params.dtype == "int16"
    assert changes == [True, True, True, True, True, False, True]


def test_typing_in_one_decode_field_is_one_undo_step(document):
    document.update_params(field="offset", offset=1)
    document.update_params(field="offset", offset=12)
    document.update_params(field="offset", offset=2)  # "1", "12" (an error: nothing left), "2"
    assert len(document.history) == 1
    document.end_typing()
    document.update_params(field="offset", offset=4)
    assert len(document.history) == 2
    document.undo()
    document.undo()
    assert document.params.offset is None and document.error is None


def test_opening_files_clears_the_history_and_reload_keeps_it(document, tmp_path):
    document.update_params(dtype="int16")
    document.reload()
    assert document.history.can_undo and document.params.dtype == "int16"
    other = tmp_path / "other.bin"
    other.write_bytes(b"\x05\x06")
    document.open_files([str(other)])
    assert not document.history.can_undo and document.history.clean


def test_selection_defaults_to_the_first_element_and_is_dropped_when_it_no_longer_fits(document):
    seen = []
    document.selectionChanged.connect(seen.append)
    assert document.selection == (0,)
    document.select((11,))
    document.update_params(dtype="int16")  # 6 elements: (11,) is gone, the first is selected
    assert document.selection == (0,)
    document.select((4,))
    document.update_params(little_endian=False)  # still fits: kept
    assert document.selection == (4,)
    assert seen == [(11,), (0,), (4,)]


def test_slice_text_that_does_not_parse_blocks_decoding_until_a_spec_is_set(tmp_path):
    path = tmp_path / "four.bin"
    path.write_bytes(b"\x01\x02\x03\x04")
    document = Document()
    assert document.open_files([str(path)], slice_text="[1,")
    assert document.result is None and document.error.field == "slice"
    assert document.unparsed_slice_text == "[1," and document.slice_text == "[1,"  # kept for settings
    document.set_slice_spec(SliceSpec.full())  # the same spec as before, but it replaces the text
    assert document.unparsed_slice_text is None and document.error is None
    assert document.result.view.tolist() == [1, 2, 3, 4]
    assert not document.history.can_undo  # nothing to go back to: the text never applied
    document.close_files()
