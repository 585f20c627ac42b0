"""DataInspector: every engine type in both byte orders, from core.decode.decode_raw.decode_raw."""

from __future__ import annotations

import pytest
from PySide6.QtCore import Qt

from core.dtypes.ml_types import ml_dtypes_module
from core.dtypes.table import ENGINE_TYPES
from inspector.bytes import data_inspector as data_inspector_module
from inspector.bytes.data_inspector import LOADING, MISSING, DataInspector

LEFT = Qt.MouseButton.LeftButton


@pytest.fixture
def inspector(qtbot):
    ml_dtypes_module()  # as in the window a moment after its first paint (see the loading test)
    w = DataInspector()
    qtbot.addWidget(w)
    w.resize(520, 560)
    w.show()
    qtbot.waitExposed(w)
    return w


def test_every_engine_type_has_a_row_and_beyond_tf_types_are_marked(inspector):
    table = inspector.table
    assert table.rowCount() == len(ENGINE_TYPES) == 28
    labels = [table.item(row, 0).text() for row in range(table.rowCount())]
    assert "float16 (half)" in labels and "float32 (float)" in labels
    assert "float64 (double)" in labels and "bfloat16" in labels
    assert "uint32 (beyond TF)" in labels and "uint64 (beyond TF)" in labels
    beyond = table.item(ENGINE_TYPES.index("uint64"), 0)
    assert beyond.font().italic() and "TensorFlow would refuse it" in beyond.toolTip()
    assert not table.item(ENGINE_TYPES.index("int32"), 0).font().italic()


def test_float8_int4_and_int24_rows(inspector):
    inspector.set_bytes(b"\xf8\x00\x80\x3f", offset=0)
    sizes = {inspector.table.item(ENGINE_TYPES.index(n), 1).text() for n in ("int4", "uint4")}
    assert sizes == {"½"} and inspector.table.item(ENGINE_TYPES.index("int24"), 1).text() == "3"
    assert inspector.table.item(ENGINE_TYPES.index("int24"), 0).text() == "int24 (beyond TF)"
    # 0xf8: low nibble 8 first (int4 -8, uint4 8); 0xf8 as e4m3fn is -1.0 * 2**8 = -256, shown
    # as the shortest text that reads back as it: "-260.0" (the next e4m3fn value is -288)
    assert inspector.value_text("int4", True) == "-8"
    assert inspector.value_text("uint4", True) == "8"
    assert "low nibble first" in inspector.value_item("int4", True).toolTip()
    assert inspector.value_text("float8_e4m3fn", True) == "-260.0"
    # f8 00 80: little-endian 0x8000f8 is negative, big-endian 0xf80080 too
    assert inspector.value_text("int24", True) == str(0x8000F8 - (1 << 24))
    assert inspector.value_text("int24", False) == str(0xF80080 - (1 << 24))
    assert inspector.value_text("uint24", False) == str(0xF80080)


def test_little_endian_values_of_known_bytes(inspector):
    inspector.set_bytes(b"\x00\x00\x80\x3f\x00\x00\x00\x00", offset=0x1A)
    expected = {
        "float32": "1.0",
        "int32": "1065353216",
        "uint32": "1065353216",
        "uint16": "0",
        "int16": "0",
        "int8": "0",
        "uint8": "0",
        "bool": "False",
        "float16": "0.0",
        "bfloat16": "0.0",
        "int64": "1065353216",
        "uint64": "1065353216",
        "float64": "5.263544247e-315",
        "complex64": "1.0+0.0j",
    }
    for name, text in expected.items():
        assert inspector.value_text(name, True) == text, name
    assert inspector.value_text("complex128", True) == MISSING
    assert inspector.value_item("complex128", True).toolTip() == "needs 16 bytes"
    assert inspector.bytes_label.text() == (
        "offset 0x1a (26), 8 bytes\n"
        "hex  00 00 80 3f 00 00 00 00\n"
        "bin  00000000 00000000 10000000 00111111\n"
        "     00000000 00000000 00000000 00000000"
    )


def test_big_endian_column(inspector):
    inspector.set_bytes(b"\x3f\x80\x00\x00")
    assert inspector.value_text("float32", False) == "1.0"
    assert inspector.value_text("bfloat16", False) == "1.0"  # from b"\x3f\x80"
    assert inspector.value_text("int32", False) == "1065353216"
    assert inspector.value_text("uint16", False) == "16256"
    assert inspector.value_text("uint16", True) == "32831"
    assert inspector.value_text("float32", True) == "4.6006e-41"  # subnormal
    assert "subnormal" in inspector.value_item("float32", True).toolTip()
    # Single-byte types read the same in both orders.
    assert inspector.value_text("int8", True) == inspector.value_text("int8", False) == "63"
    for name in ("float64", "int64", "uint64", "complex64", "complex128"):
        assert inspector.value_text(name, False) == MISSING
    assert inspector.value_item("int64", False).toolTip() == "needs 8 bytes"
    assert inspector.bytes_label.text().startswith("hex  3f 80 00 00\n")


def test_bool_is_any_nonzero_byte(inspector):
    inspector.set_bytes(b"\x02")
    assert inspector.value_text("bool", True) == inspector.value_text("bool", False) == "True"
    assert inspector.value_text("uint8", True) == "2"
    assert inspector.value_text("int16", True) == MISSING


def test_nan_inf_and_complex_values(inspector):
    nan_f32 = b"\x7f\xc0\x00\x01"
    inf_f16 = b"\x7c\x00"
    inspector.set_bytes(nan_f32 + b"\xff\x80\x00\x00" + b"\x00" * 8)
    assert inspector.value_text("float32", False) == "nan"
    assert "payload 0x1" in inspector.value_item("float32", False).toolTip()
    assert inspector.value_text("complex64", False) == "nan-infj"
    assert inspector.value_text("float64", False) == "2.247120700426743e+307"  # not a NaN
    inspector.set_bytes(inf_f16)
    assert inspector.value_text("float16", False) == "inf"
    assert inspector.value_text("float16", True) == "7.4e-06"  # 0x007c, subnormal
    assert inspector.value_item("float16", False).foreground().color().name() == "#bf5700"


def test_more_than_sixteen_bytes_are_cut_and_empty_input_shows_dashes(inspector):
    inspector.set_bytes(bytes(range(1, 21)), offset=4)
    assert inspector.data() == bytes(range(1, 17))
    assert inspector.value_text("complex128", True) != MISSING
    inspector.set_bytes(b"", offset=7)
    assert inspector.bytes_label.text() == "offset 0x7 (7): no bytes at the cursor"
    assert all(inspector.value_text(n, le) == MISSING for n in ENGINE_TYPES for le in (True, False))


def test_clicking_a_value_cell_emits_type_chosen(inspector, qtbot):
    inspector.set_bytes(b"\x3f\x80\x00\x00")
    viewport = inspector.table.viewport()
    with qtbot.waitSignal(inspector.typeChosen) as blocker:
        qtbot.mouseClick(viewport, LEFT, pos=inspector.cell_rect("float32", False).center())
    assert blocker.args == ["float32", False]
    with qtbot.waitSignal(inspector.typeChosen) as blocker:
        qtbot.mouseClick(viewport, LEFT, pos=inspector.cell_rect("uint64", True).center())
    assert blocker.args == ["uint64", True]
    # The type column is not a choice.
    type_rect = inspector.table.visualItemRect(inspector.table.item(0, 0))
    with qtbot.assertNotEmitted(inspector.typeChosen):
        qtbot.mouseClick(viewport, LEFT, pos=type_rect.center())


def test_ml_dtypes_rows_wait_for_ml_dtypes_then_fill_after_the_first_paint(qtbot, monkeypatch):
    # As at start-up, before anything imported ml_dtypes: its rows show LOADING and the rest are
    # filled; the first paint queues the import, after which every row has its value.
    loaded = {"yes": False}
    monkeypatch.setattr(data_inspector_module, "loaded_ml_dtypes",
                        lambda: ml_dtypes_module() if loaded["yes"] else None)

    def load():
        loaded["yes"] = True
        return ml_dtypes_module()

    monkeypatch.setattr(data_inspector_module, "ml_dtypes_module", load)
    w = DataInspector()
    qtbot.addWidget(w)
    w.set_bytes(b"\x3f\x80\x00\x00", offset=0)
    assert w.value_text("bfloat16", False) == LOADING
    assert w.value_text("float8_e4m3fn", True) == LOADING
    assert "loading ml_dtypes" in w.value_item("bfloat16", False).toolTip()
    assert w.value_text("float32", False) == "1.0" and w.value_text("uint16", True) == "32831"
    w.resize(520, 560)
    w.show()
    qtbot.waitExposed(w)
    qtbot.waitUntil(lambda: w.value_text("bfloat16", False) == "1.0")
    assert loaded["yes"]
    # 0x3f as e4m3fn: (1 + 7/8) * 2**(7 - 7) = 1.875, shown as the shortest text that reads back
    assert w.value_text("float8_e4m3fn", True) == "1.9"
