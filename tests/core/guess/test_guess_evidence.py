"""Each kind of evidence on hand-made files: names, size arithmetic, headers, records, rows,
.npy, and the bounded sample."""

from __future__ import annotations

import numpy as np

from core.dtypes.table import ENGINE_TYPES, TYPE_ROWS, type_row
from core.guess import guess_report
from core.guess.headers import text_header_end
from core.guess.names import parse_hints
from core.guess.plausibility import GUESS_TYPES, typed_values
from core.guess.sizes import divisors_between, implied_header


def _smooth(n, seed=0):
    t = np.arange(n)
    return np.sin(t / 13.7) + 0.5 * np.cos(t / 51.3)


def test_name_tokens():
    hints = parse_hints("frames_3x224x224_f32be")
    assert hints.dtypes == ("float32",)
    assert hints.little_endian is False
    assert hints.dims == ((3, 224, 224),)
    hints = parse_hints("IMG_1024x768_u16_le")
    assert (hints.dtypes, hints.little_endian, hints.dims) == (("uint16",), True, ((1024, 768),))
    assert parse_hints("data image final").empty
    assert parse_hints("bfloat16 half").dtypes == ("bfloat16", "float16")
    assert parse_hints("a_le_b_be").little_endian is None  # both: no order


def test_every_word_of_the_type_table_is_a_hint_and_no_other():
    for row in TYPE_ROWS:
        for word in row.name_words:
            assert parse_hints(f"x_{word}_le").dtypes == (row.name,), word
    assert parse_hints("mask_bool_u64_int4").dtypes == ()  # types without words in the table


def test_type_facts_come_from_the_type_table():
    # the guess keeps its priors only: sizes, kinds and float layouts are the table's
    assert all(isinstance(prior, float) for prior in GUESS_TYPES.values())
    assert set(GUESS_TYPES) <= set(ENGINE_TYPES)
    assert [len(typed_values(np.zeros(64, np.uint8), name, True)) for name in ("uint8", "float16", "complex64")] == [
        64 // type_row(name).itemsize for name in ("uint8", "float16", "complex64")]


def test_keyword_dimensions_in_a_text_header():
    hints = parse_hints("width=640\nheight: 480\ntype int16 big\n", keywords=True)
    assert hints.keyword_dims == {"width": 640, "height": 480}
    assert hints.dtypes == ("int16",) and hints.little_endian is False


def test_size_arithmetic():
    assert divisors_between(120, 8, 40) == [8, 10, 12, 15, 20, 24, 30, 40]
    assert implied_header(3 * 224 * 224 * 4 + 128, (3, 224, 224), 4) == 128
    assert implied_header(100, (10, 10), 2) is None


def test_text_header_end_rounds_up_over_padding():
    assert text_header_end(b"WIDTH 4\nHEIGHT 4\n".ljust(512, b"\0") + b"\x01\x02" * 200) == (512, "WIDTH 4\nHEIGHT 4\n")
    assert text_header_end(b"# a text header\n" + bytes([200, 1, 2, 3]) * 50) == (16, "# a text header\n")
    assert text_header_end(bytes(range(256))) is None


def test_name_dimensions_and_type_give_shape_and_header(tmp_path):
    values = (_smooth(2 * 30 * 40) * 1000).astype(">i2")
    path = tmp_path / "scan_2x30x40_int16_be.raw"
    path.write_bytes(b"\x00" * 64 + values.tobytes())
    best = guess_report(str(path)).candidates[0]
    assert (best.params.dtype, best.params.little_endian, best.params.offset, best.params.shape) == \
        ("int16", False, 64, (2, 30, 40))
    assert "the name says int16" in best.reasons
    assert "2x30x40 int16 items fill the file exactly after a header of 64 bytes" in best.reasons


def test_rows_of_an_image(tmp_path):
    y, x = np.mgrid[0:64, 0:100]
    image = (np.sin(x / 9.0) * np.cos(y / 7.0) * 100 + 128).astype(np.uint8)
    path = tmp_path / "picture.bin"
    path.write_bytes(image.tobytes())
    best = guess_report(str(path)).candidates[0]
    assert (best.params.dtype, best.params.offset, best.params.shape) == ("uint8", 0, (64, 100))
    assert any(reason.startswith("rows of 100 items") for reason in best.reasons)


def test_records_with_a_marker(tmp_path):
    records = b"".join(b"SYNC" + i.to_bytes(4, "big") + (_smooth(60, i) * 20000 + i).astype(">i4").tobytes()
                       for i in range(50))
    path = tmp_path / "telemetry.bin"
    path.write_bytes(records)
    best = guess_report(str(path)).candidates[0]
    assert (best.params.dtype, best.params.little_endian, best.params.record_size) == ("int32", False, 248)
    assert any("repeat every 248 bytes" in reason for reason in best.reasons)


def test_npy_header_gives_its_layout(tmp_path):
    path = tmp_path / "a.npy"
    np.save(path, np.arange(12, dtype=">f8").reshape(3, 4))
    report = guess_report(str(path))
    assert report.convincing and len(report.candidates) == 1
    params = report.candidates[0].params
    assert (params.dtype, params.little_endian, params.offset, params.length, params.shape) == \
        ("float64", False, 128, 96, (3, 4))
    assert report.candidates[0].reasons[0].startswith("a .npy header (version 1.0) says float64")


def test_big_sparse_file_reads_a_bounded_sample(tmp_path):
    path = tmp_path / "huge.bin"
    values = (_smooth(1 << 20) * 1000).astype("<i2").tobytes()
    with open(path, "wb") as f:
        f.truncate(8 << 30)
        f.seek((4 << 30) - len(values) // 2)
        f.write(values)
    report = guess_report(str(path))
    assert report.bytes_read == 64 * 1024 + 256 * 1024 + 16 * 1024
    assert report.reasons[0] == "8,589,934,592 bytes"
