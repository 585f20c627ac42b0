"""The Bytes panel and the data inspector follow every new result, not only a new index."""

import numpy as np
import pytest

from core.pipeline.pipeline import DecodeParams
from inspector.bytes.data_inspector import DataInspector
from inspector.bytes.link import BytesLink
from inspector.state.document import Document
from inspector.widgets.hex_view import HexView


@pytest.fixture
def linked(qtbot, tmp_path):
    path = tmp_path / "data.bin"
    path.write_bytes(np.arange(256, dtype=np.uint8).tobytes() * 2)  # bytes 0..255, 0..255
    document = Document()
    hex_view, inspector = HexView(), DataInspector()
    qtbot.addWidget(hex_view)
    qtbot.addWidget(inspector)
    link = BytesLink(document, hex_view, inspector)
    assert document.open_files([str(path)], DecodeParams(dtype="uint8"))
    yield document, hex_view, inspector, link
    document.close_files()


def test_a_new_type_moves_the_highlight_for_the_same_index(linked):
    document, hex_view, inspector, _ = linked
    document.select((100,))
    assert hex_view.highlighted() == (0, 100, 1)
    assert inspector.data()[:2] == bytes([100, 101])
    document.update_params(dtype="int16")  # the index stays (100,); its bytes are now 200..201
    assert document.selection == (100,)
    assert hex_view.highlighted() == (0, 200, 2)
    assert inspector.data()[:2] == bytes([200, 201])
    assert inspector.value_text("int16", True) == str(201 * 256 + 200 - 65536)


def test_a_new_offset_or_slice_moves_the_bytes_too(linked):
    document, hex_view, inspector, _ = linked
    document.select((10,))
    document.update_params(offset=4)  # element 10 is now byte 14
    assert hex_view.highlighted() == (0, 14, 1)
    assert inspector.data()[0] == 14
    document.set_slice_text("[::2]")  # element 10 of the view is element 20: byte 24
    assert hex_view.highlighted() == (0, 24, 1)
    assert inspector.data()[0] == 24


def test_a_byte_clicked_outside_the_view_is_decoded_and_reported(linked, qtbot):
    document, hex_view, inspector, link = linked
    document.update_params(offset=8)
    with qtbot.waitSignal(link.message) as blocker:
        hex_view.bytesSelected.emit(0, 3)
    assert blocker.args == ["byte 3 is not part of any element of the view"]
    assert inspector.data()[0] == 3
    hex_view.bytesSelected.emit(0, 9)
    assert document.selection == (1,)


def test_a_type_chosen_in_the_inspector_is_one_undoable_edit(linked):
    document, _, inspector, _ = linked
    inspector.typeChosen.emit("float32", False)
    assert (document.params.dtype, document.params.little_endian) == ("float32", False)
    document.undo()
    assert document.params.dtype == "uint8"
