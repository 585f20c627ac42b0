"""Record layouts from compact field lists and numpy dtype descriptions: offsets by hand from the
rules, values against numpy's own structured reading of the same bytes."""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import CoreError
from core.records.field_list import parse_field_list, parse_numpy_layout


def test_a_field_list_packs_its_fields_in_order():
    layout = parse_field_list("ts:u32, ch:i16[4], gain:f32, pad:4, flags:u8")
    assert [(f.name, f.offset, f.dtype, f.shape) for f in layout.fields] == [
        ("ts", 0, "uint32", ()), ("ch", 4, "int16", (4,)), ("gain", 12, "float32", ()), ("flags", 20, "uint8", ())]
    assert layout.itemsize == 21
    assert [c.name for c in layout.columns()] == ["ts", "ch[0]", "ch[1]", "ch[2]", "ch[3]", "gain", "flags"]


def test_offsets_sizes_and_byte_orders_can_be_given():
    layout = parse_field_list("id:u16, x@8:>f32, m:f32[2][3], size:64", little_endian=True)
    assert [(f.name, f.offset, f.little_endian, f.shape) for f in layout.fields] == [
        ("id", 0, True, ()), ("x", 8, False, ()), ("m", 12, True, (2, 3))]
    assert layout.itemsize == 64
    assert [c.name for c in layout.columns()][2:5] == ["m[0][0]", "m[0][1]", "m[0][2]"]


def test_values_are_numpys_structured_reading():
    expected = np.dtype({"names": ["ts", "ch", "gain"], "formats": ["<u4", ("<i2", (4,)), ">f4"],
                         "offsets": [0, 4, 12], "itemsize": 16})
    data = np.zeros(5, expected)
    data["ts"] = np.arange(5) * 10
    data["ch"][:, 3] = -np.arange(5)
    data["gain"] = np.linspace(0, 1, 5)
    layout = parse_field_list("ts:u32, ch:i16[4], gain:>f32")
    records = layout.records(np.frombuffer(data.tobytes() + b"\x01\x02", np.uint8))  # 2 trailing bytes
    columns = {c.name: c for c in layout.columns()}
    assert records.shape == (5,)
    np.testing.assert_array_equal(layout.values(records, columns["ts"]), data["ts"])
    np.testing.assert_array_equal(layout.values(records, columns["ch[3]"]), data["ch"][:, 3])
    np.testing.assert_array_equal(layout.values(records, columns["gain"]), data["gain"])
    assert layout.field_params("ch") == {"dtype": "int16", "little_endian": True, "offset": 4, "record_size": 16,
                                         "fixed_length": 8, "shape": (-1, 4)}


def test_a_numpy_description_is_read_as_literals_and_flattened():
    layout = parse_numpy_layout("[('ts', '<u4'), ('imu', [('acc', '<f4', (3,)), ('t', '>i2')]), "
                                "('pts', [('x', '<f2'), ('y', '<f2')], (2,))]")
    assert [(f.name, f.offset, f.dtype, f.shape, f.little_endian) for f in layout.fields] == [
        ("ts", 0, "uint32", (), True), ("imu.acc", 4, "float32", (3,), True), ("imu.t", 16, "int16", (), False),
        ("pts[0].x", 18, "float16", (), True), ("pts[0].y", 20, "float16", (), True),
        ("pts[1].x", 22, "float16", (), True), ("pts[1].y", 24, "float16", (), True)]
    assert layout.itemsize == 26
    explicit = parse_numpy_layout("{'names': ['a', 'b'], 'formats': ['<u2', '<f8'], 'offsets': [0, 8], 'itemsize': 24}")
    assert [(f.name, f.offset) for f in explicit.fields] == [("a", 0), ("b", 8)] and explicit.itemsize == 24


@pytest.mark.parametrize(("text", "said"), [
    ("ts u32", "is not name:type"),
    ("ts:u33", "not a type this tool decodes"),
    ("a:u32, b@2:u8", "overlaps the field before it"),
    ("a:u32, size:2", "smaller than the fields"),
    ("a:u8, a:u8", "names a twice"),
    ("a:u8[0]", "dimension of 0"),
    ("pad:4", "only padding"),
    ("a:f64[1099511627776]", "more than a record may hold"),
])
def test_bad_field_lists_say_why(text, said):
    with pytest.raises(CoreError, match=said):
        parse_field_list(text)


@pytest.mark.parametrize(("text", "said"), [
    ("__import__('os').system('true')", "not a list or dict of literals"),
    ("[('a', 'O')]", "not a number"),
    ("[('a', 'S4')]", "not a number"),
    ("[('a', 'nonsense')]", "numpy refuses"),
    ("'u4'", "neither a list of fields nor a dict"),
])
def test_bad_numpy_descriptions_are_refused_and_never_run(text, said):
    with pytest.raises(CoreError, match=said):
        parse_numpy_layout(text)
