"""A field of a padded structured ``.npy`` read with --record-size and --fixed-length keeps its
last record: the record size includes padding the last record lacks (docs/semantics.md §3)."""

from __future__ import annotations

import json

import numpy as np
import pytest

from core.cli import main
from core.files.sources import open_source
from core.pipeline.pipeline import DecodeParams, Pipeline

FIELDS = np.dtype([("a", "u1"), ("b", "<f4"), ("c", "<i2")], align=True)  # a@0, b@4, c@8, itemsize 12


@pytest.fixture
def structured(tmp_path):
    array = np.zeros(5, FIELDS)
    array["a"] = np.arange(5)
    array["b"] = np.arange(5) * 1.5 + 0.25
    array["c"] = -np.arange(5) - 7
    path = tmp_path / "s.npy"
    np.save(path, array)
    header = path.stat().st_size - array.nbytes
    assert (FIELDS.itemsize, FIELDS.fields["b"][1], FIELDS.fields["c"][1], header) == (12, 4, 8, 192)
    return path, np.load(path), header


# trailing: the last record's bytes after the field (b: 8..12, c: 10..12); field a starts the
# record, so all 5 records are whole and none is trailing (as before)
@pytest.mark.parametrize("field, dtype, width, trailing", [("b", "float32", 4, 4), ("c", "int16", 2, 2),
                                                          ("a", "uint8", 1, 0)])
def test_every_record_of_a_field_is_read(structured, capsys, field, dtype, width, trailing):
    path, expected, header = structured
    offset = header + FIELDS.fields[field][1]
    assert main([str(path), "--offset", str(offset), "--record-size", "12", "--fixed-length", str(width),
                 "--dtype", dtype, "--json"]) == 0
    out, err = capsys.readouterr()
    document = json.loads(out)
    assert document["shape"] == [5, 1]
    assert [row[0] for row in document["values"]] == expected[field].tolist()
    assert document["trailing_bytes"] == [trailing]


def test_the_last_record_is_a_view_of_its_own_bytes(structured):
    path, expected, header = structured
    with Pipeline([str(path)]) as pipeline:
        result = pipeline.run(DecodeParams(dtype="float32", offset=header + 4, record_size=12, fixed_length=4))
        assert result.view.shape == (5, 1)
        assert result.view[4, 0] == np.float32(6.25)
        assert result.byte_offset((4, 0)) == (0, header + 4 + 4 * 12, 4)  # bytes 244..247 of the file
        assert result.element_at_byte(0, header + 4 + 4 * 12 + 2) == (4, 0)
        assert result.element_at_byte(0, header + 4 + 4 * 12 + 4) is None  # the field c of record 4


def test_a_last_record_whose_used_bytes_do_not_fit_still_does_not_count(tmp_path):
    path = tmp_path / "d.bin"
    path.write_bytes(bytes(range(27)))  # 2 records of 12, then 3 bytes
    with open_source(str(path)) as source:
        layout = source.layout(offset=0, record_size=12, used=4)
        assert layout.input_shape == (2,) and layout.trailing_bytes == (3,)
        layout = source.layout(offset=0, record_size=12, used=3)
        assert layout.input_shape == (3,) and layout.trailing_bytes == (0,)
        assert layout.arrays[0].tolist() == [[0, 1, 2], [12, 13, 14], [24, 25, 26]]
        assert not layout.arrays[0].flags.writeable
        whole = source.layout(offset=0, record_size=12)  # the decode reads whole records
        assert whole.input_shape == (2,) and whole.trailing_bytes == (3,)
