"""The layout of a stored structured dtype: its own offsets and byte orders, non-numbers as their
raw bytes, objects refused; and numpy descriptions read with padding as np.load reads it."""

from __future__ import annotations

import numpy as np
import pytest

from core.errors import CoreError
from core.records.field_list import parse_numpy_layout
from core.records.structured import structured_layout


def test_the_dtypes_own_offsets_byte_orders_and_padding():
    dtype = np.dtype({"names": ["ts", "imu", "label"],
                      "formats": ["<u4", [("acc", ">f4", (3,)), ("t", "<i2")], "S5"],
                      "offsets": [0, 8, 22], "itemsize": 32})
    found = structured_layout(dtype)
    assert found.text == ("{'names': ['ts', 'imu', 'label'], 'formats': ['<u4', {'names': ['acc', 't'], "
                          "'formats': [('>f4', (3,)), '<i2'], 'offsets': [0, 12], 'itemsize': 14}, ('|u1', (5,))], "
                          "'offsets': [0, 8, 22], 'itemsize': 32}")
    assert [(f.name, f.offset, f.dtype, f.shape, f.little_endian) for f in found.layout.fields] == [
        ("ts", 0, "uint32", (), True), ("imu.acc", 8, "float32", (3,), False), ("imu.t", 20, "int16", (), True),
        ("label", 22, "uint8", (5,), True)]
    assert found.as_bytes == ("label",) and found.extras() == {"record size": 32, "fields": 4, "as bytes": "label"}
    data = np.zeros(2, dtype)
    data["imu"]["acc"] = [[1.5, -2, 3], [4, 5, 6.25]]
    data["label"] = [b"ab", b"cdefg"]
    records = found.layout.records(np.frombuffer(data.tobytes(), np.uint8))
    columns = {c.name: found.layout.values(records, c) for c in found.layout.columns()}
    assert columns["imu.acc[2]"].tolist() == [3.0, 6.25]
    assert [columns[f"label[{k}]"][1] for k in range(5)] == list(b"cdefg")


def test_a_sub_array_of_strings_is_bytes_per_element():
    found = structured_layout(np.dtype([("n", "<i2"), ("names", "<U2", (3,))]))
    leaf = found.layout.field_named("names")
    assert (leaf.offset, leaf.shape, found.layout.itemsize) == (2, (3, 8), 26)


@pytest.mark.parametrize(("dtype", "said"), [
    (np.dtype([("a", "<i4"), ("o", "O")]), "the member 'o' holds objects"),
    (np.dtype([("a", [("deep", "O")])]), "the member 'a.deep' holds objects"),
    (np.dtype("<f4"), "has no named fields"),
])
def test_objects_and_plain_types_are_refused_by_name(dtype, said):
    with pytest.raises(CoreError, match=said):
        structured_layout(dtype)


def test_a_numpy_description_reads_unnamed_void_fields_as_padding():
    layout = parse_numpy_layout("[('a', '<u4'), ('', '|V4'), ('b', '>f8')]")  # how np.save writes padding
    assert [(f.name, f.offset) for f in layout.fields] == [("a", 0), ("b", 8)] and layout.itemsize == 16
