"""The slice editor's entry table model (the spec algebra it calls: tests/core/slicing/test_editing.py)."""

from PySide6.QtCore import Qt

from core.slicing.expr import parse_slice
from inspector.slice_editor.entries_model import SliceEntriesModel


def test_model_reports_edits_without_changing_itself(qtbot):
    model = SliceEntriesModel()
    model.set_spec(parse_slice("[1:3, ...]"))
    edited, rejected = [], []
    model.specEdited.connect(edited.append)
    model.editRejected.connect(rejected.append)
    assert model.rowCount() == 2 and model.columnCount() == 9
    assert model.index(0, 1).data(Qt.ItemDataRole.EditRole) == "1"
    assert model.index(1, 0).data() == "ellipsis"
    assert model.index(0, 0).data(Qt.ItemDataRole.ToolTipRole) == "as an item: 1:3"
    assert model.setData(model.index(0, 2), " 9_000_000_000 ")
    assert edited == [parse_slice("[1:9000000000, ...]")]
    assert model.spec() == parse_slice("[1:3, ...]")  # unchanged until set_spec
    assert not model.setData(model.index(0, 3), "two")
    assert rejected == [
        "stride of entry 0 'two' is not an integer (type a whole number such as -1 or 5)"
    ]
    assert model.setData(
        model.index(1, 8), Qt.CheckState.Checked.value, Qt.ItemDataRole.CheckStateRole
    )
    assert edited[-1].shrink_axis_mask == 2
    assert not model.flags(model.index(0, 0)) & Qt.ItemFlag.ItemIsEditable
