"""core.export.arrays: round trips through np.load, exact bytes and text, atomic writes."""

from __future__ import annotations

import os
import sys
import tracemalloc

import ml_dtypes
import numpy as np
import pytest

from core.errors import Cancelled, CoreError, ExportError, SourceError
from core.export.arrays import csv_size_warning, export_view

BF16 = np.dtype(ml_dtypes.bfloat16)


def _views():
    base = np.arange(60, dtype=">f4").reshape(3, 4, 5) * 0.5 - 7
    return {
        "big-endian": base,
        "strided": base[::2, 1::2, ::-1],
        "transposed": base.transpose(2, 0, 1),
        "0-d": base[1, 2, 3:4].reshape(()),
        "zero-size": base[:, 4:, :],
        "int16-le": np.arange(-6, 6, dtype="<i2").reshape(3, 4)[:, ::3],
        "complex-be": (np.arange(6) + 1j * np.arange(6)[::-1]).astype(">c16").reshape(2, 3),
        "uint64": np.array([2**64 - 1, 0, 2**63], dtype=">u8"),
    }


VIEWS = _views()


@pytest.mark.parametrize("name", sorted(VIEWS))
@pytest.mark.parametrize("chunk", [1, 3, 1 << 22])
def test_npy_round_trip_keeps_values_and_byte_order(tmp_path, name, chunk):
    view = VIEWS[name]
    path = tmp_path / "out.npy"
    written = export_view(view, path, "npy", chunk_elements=chunk)
    loaded = np.load(path)
    assert written == os.path.getsize(path)
    assert loaded.shape == view.shape and loaded.dtype == view.dtype
    np.testing.assert_array_equal(loaded, view)
    assert os.listdir(tmp_path) == ["out.npy"]


@pytest.mark.parametrize("little", [True, False])
def test_npy_forced_byte_order(tmp_path, little):
    view = VIEWS["strided"]
    export_view(view, tmp_path / "o.npy", "npy", little_endian=little)
    loaded = np.load(tmp_path / "o.npy")
    assert loaded.dtype.str == ("<f4" if little else ">f4")
    np.testing.assert_array_equal(loaded, view)


def test_npy_conversion_uses_the_view_as_rule(tmp_path):
    view = np.array([[1.7, -3.2], [np.nan, 300.0]], dtype=">f8")
    export_view(view, tmp_path / "o.npy", "npy", dtype="uint8")
    loaded = np.load(tmp_path / "o.npy")
    assert loaded.dtype == np.uint8
    assert loaded.tolist() == [[1, 0], [0, 255]]  # truncate, clamp, NaN -> 0


def test_npy_bool_is_normalised(tmp_path):
    view = np.frombuffer(bytes([0, 2, 1, 255]), np.uint8).view(np.bool_)
    export_view(view, tmp_path / "o.npy", "npy")
    with open(tmp_path / "o.npy", "rb") as f:
        assert f.read()[-4:] == bytes([0, 1, 1, 1])
    assert np.load(tmp_path / "o.npy").tolist() == [False, True, True, True]


def test_npy_refuses_bfloat16(tmp_path):
    with pytest.raises(ExportError, match="no bfloat16 type .*float32") as info:
        export_view(np.zeros(3, BF16), tmp_path / "o.npy", "npy")
    assert info.value.field == "dtype"
    assert os.listdir(tmp_path) == []
    export_view(np.array([0.1, -2], BF16), tmp_path / "o.npy", "npy", dtype="float32")
    assert np.load(tmp_path / "o.npy").tolist() == [float(ml_dtypes.bfloat16(0.1)), -2.0]


BIN_CASES = [
    ("strided", None, None),
    ("strided", None, True),
    ("transposed", "float64", False),
    ("int16-le", None, False),
    ("int16-le", "int8", None),
    ("complex-be", None, True),
    ("complex-be", "complex64", False),
    ("uint64", None, None),
]


@pytest.mark.parametrize("name, dtype, little", BIN_CASES)
def test_bin_bytes_equal_astype_tobytes(tmp_path, name, dtype, little):
    view = VIEWS[name]
    target = view.dtype if dtype is None else np.dtype(dtype)
    if little is not None:
        target = target.newbyteorder("<" if little else ">")
    elif dtype is not None:
        target = target.newbyteorder(view.dtype.byteorder)
    written = export_view(view, tmp_path / "o.bin", "bin", dtype=dtype, little_endian=little,
                          chunk_elements=4)
    data = (tmp_path / "o.bin").read_bytes()
    assert data == view.astype(target).tobytes()
    assert written == len(data)


def test_bin_bfloat16_big_endian(tmp_path):
    view = np.array([1.5, -2.0], BF16)
    export_view(view, tmp_path / "o.bin", "bin", little_endian=False)
    assert (tmp_path / "o.bin").read_bytes() == bytes([0x3F, 0xC0, 0xC0, 0x00])


def test_bin_zero_size_and_zero_d(tmp_path):
    assert export_view(VIEWS["zero-size"], tmp_path / "z.bin", "bin") == 0
    assert (tmp_path / "z.bin").read_bytes() == b""
    export_view(VIEWS["0-d"], tmp_path / "s.bin", "bin", little_endian=True)
    assert (tmp_path / "s.bin").read_bytes() == np.array(VIEWS["0-d"], "<f4").tobytes()


# ----------------------------------------------------------------------------- csv
CSV_CASES = [
    (np.array([[1, -2, 3], [40, 50, -60]], dtype=">i4"), {}, "1,-2,3\n40,50,-60\n"),
    (np.array([0.1, np.nan, np.inf, -np.inf, -0.0, 1e20], np.float32), {},
     "0.1\nnan\ninf\n-inf\n-0.0\n1e+20\n"),
    (np.array([0.1, 1 / 3]), {}, "0.1\n0.3333333333333333\n"),
    (np.array([0.1, 1 / 3, np.nan]), {"csv_decimals": 3}, "0.100\n0.333\nnan\n"),
    (np.array(2.5, dtype=">f8"), {}, "2.5\n"),
    (np.arange(8, dtype=np.uint8).reshape(2, 2, 2), {},
     "# shape (2, 2, 2)\n0,1\n2,3\n4,5\n6,7\n"),
    (np.array([True, False]), {}, "1\n0\n"),
    (np.array([1 + 2j, 0.5 - 1j]), {}, "(1.0+2.0j)\n(0.5-1.0j)\n"),
    (np.array([0.1 - 0.2j], np.complex64), {}, "(0.1-0.2j)\n"),  # float32 digits
    (np.array([1.5 + 2j]), {"csv_decimals": 1}, "(1.5+2.0j)\n"),
    (np.array([0.1, 3, 1 / 3], BF16), {}, "0.1\n3.0\n0.334\n"),  # bfloat16 digits, as the table
    (np.array([1.7, -2.5]), {"dtype": "int16"}, "1\n-2\n"),
    (np.zeros((2, 0)), {}, "\n\n"),
    (np.zeros((0, 3)), {}, ""),
    (np.zeros((0, 2, 3)), {}, "# shape (0, 2, 3)\n"),
]


@pytest.mark.parametrize("case", range(len(CSV_CASES)))
@pytest.mark.parametrize("chunk", [1, 2, 1 << 22])
def test_csv_text_is_exact(tmp_path, case, chunk):
    view, options, text = CSV_CASES[case]
    written = export_view(view, tmp_path / "o.csv", "csv", chunk_elements=chunk, **options)
    assert (tmp_path / "o.csv").read_text() == text
    assert written == len(text)


def test_csv_of_a_strided_view_reads_back(tmp_path):
    view = np.arange(120, dtype=">f4").reshape(2, 3, 4, 5)[:, ::2, 1:, ::-2] / 7
    export_view(view, tmp_path / "o.csv", "csv", chunk_elements=5)
    lines = (tmp_path / "o.csv").read_text().splitlines()
    assert lines[0] == "# shape (2, 2, 3, 3)"
    back = np.loadtxt(lines[1:], delimiter=",", dtype=np.float32)
    np.testing.assert_array_equal(back, view.reshape(-1, 3))


def test_csv_size_warning():
    assert csv_size_warning(np.zeros(10)) is None
    message = csv_size_warning(np.zeros((4, 5)), limit=10)
    assert message.startswith("The view has 20 values") and ".npy" in message


# ----------------------------------------------------------------------------- safety
def test_cancel_leaves_nothing(tmp_path):
    polls = []

    def cancelled():
        polls.append(1)
        return len(polls) > 2

    for fmt in ("npy", "bin", "csv"):
        with pytest.raises(Cancelled):
            export_view(np.arange(10.0), tmp_path / f"o.{fmt}", fmt, chunk_elements=3,
                        cancelled=cancelled)
        polls.clear()
    assert os.listdir(tmp_path) == []


def test_cancel_keeps_an_existing_file_untouched(tmp_path):
    (tmp_path / "o.bin").write_bytes(b"old")
    with pytest.raises(Cancelled):
        export_view(np.arange(10.0), tmp_path / "o.bin", "bin", cancelled=lambda: True)
    assert os.listdir(tmp_path) == ["o.bin"]
    assert (tmp_path / "o.bin").read_bytes() == b"old"


def test_source_change_mid_export_leaves_nothing(tmp_path):
    calls = []

    def check():
        calls.append(1)
        if len(calls) == 3:
            raise SourceError("data.bin changed on disk (reopen it)")

    with pytest.raises(SourceError):
        export_view(np.arange(10.0), tmp_path / "o.npy", "npy", chunk_elements=2, check=check)
    assert os.listdir(tmp_path) == []


def test_directory_destination_is_refused(tmp_path):
    (tmp_path / "d").mkdir()
    with pytest.raises(ExportError, match="is a directory"):
        export_view(np.arange(3), tmp_path / "d", "bin")
    assert os.listdir(tmp_path) == ["d"] and os.listdir(tmp_path / "d") == []


def test_missing_folder_is_an_export_error(tmp_path):
    with pytest.raises(ExportError, match="Cannot write in"):
        export_view(np.arange(3), tmp_path / "nope" / "o.bin", "bin")


@pytest.mark.skipif(sys.platform != "linux", reason="/dev/full is Linux's")
def test_failing_write_leaves_no_temp_file(tmp_path, monkeypatch):
    real_fdopen = os.fdopen

    def full_disk(fd, mode):
        os.close(fd)
        return real_fdopen(os.open("/dev/full", os.O_WRONLY), mode, buffering=0)

    monkeypatch.setattr(os, "fdopen", full_disk)
    with pytest.raises(ExportError, match="No space left"):
        export_view(np.arange(1000.0), tmp_path / "o.bin", "bin")
    assert os.listdir(tmp_path) == []


def test_refuses_to_overwrite_the_source(tmp_path):
    source = tmp_path / "data.bin"
    source.write_bytes(bytes(range(16)))
    view = np.memmap(source, dtype="<u4", mode="r")
    os.link(source, tmp_path / "alias.bin")
    for target in (source, tmp_path / "alias.bin"):
        with pytest.raises(ExportError, match="file being inspected.*choose another"):
            export_view(view, target, "bin", source_paths=[str(source)])
    assert source.read_bytes() == bytes(range(16))
    assert sorted(os.listdir(tmp_path)) == ["alias.bin", "data.bin"]
    del view


def test_existing_file_is_replaced_and_keeps_its_mode(tmp_path):
    (tmp_path / "o.bin").write_bytes(b"old contents")
    os.chmod(tmp_path / "o.bin", 0o640)
    export_view(np.array([1, 2], "<u2"), tmp_path / "o.bin", "bin")
    assert (tmp_path / "o.bin").read_bytes() == b"\x01\x00\x02\x00"
    assert os.stat(tmp_path / "o.bin").st_mode & 0o777 == 0o640


def test_bad_arguments(tmp_path):
    with pytest.raises(ExportError, match="Unknown export format 'xls'"):
        export_view(np.arange(3), tmp_path / "o", "xls")
    with pytest.raises(CoreError, match="Unknown data type"):
        export_view(np.arange(3), tmp_path / "o", "bin", dtype="float8")
    assert os.listdir(tmp_path) == []


def test_progress(tmp_path):
    calls = []
    export_view(np.arange(10.0), tmp_path / "o.bin", "bin", chunk_elements=4,
                progress=lambda d, t: calls.append((d, t)))
    assert calls == [(4, 10), (8, 10), (10, 10)]


def test_bounded_memory_on_a_strided_memory_map(tmp_path):
    path = tmp_path / "big.bin"
    with open(path, "wb") as f:  # sparse: costs no disk
        f.truncate(32 << 20)
    mm = np.memmap(path, dtype=">f4", mode="r")
    view = mm.reshape(-1, 256)[:, ::2].T  # 16 MiB of strided values
    chunk = 1 << 15
    tracemalloc.start()
    try:
        written = export_view(view, tmp_path / "o.npy", "npy", dtype="float64",
                              little_endian=True, chunk_elements=chunk)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert written == os.path.getsize(tmp_path / "o.npy") == 128 + (32 << 20)
    assert peak < 8 * chunk * 8
    del mm


def test_big_endian_bfloat16_view(tmp_path):
    values = np.array([1.5, -2.0, np.nan], BF16)
    swapped = np.frombuffer(values.byteswap().tobytes(), dtype=BF16.newbyteorder(">"))
    export_view(swapped, tmp_path / "o.bin", "bin")
    assert (tmp_path / "o.bin").read_bytes() == values.byteswap().tobytes()
    export_view(swapped, tmp_path / "o.bin", "bin", little_endian=True)
    assert (tmp_path / "o.bin").read_bytes() == values.tobytes()
    export_view(swapped, tmp_path / "o.csv", "csv")
    assert (tmp_path / "o.csv").read_text() == "1.5\n-2.0\nnan\n"
    export_view(swapped, tmp_path / "o.npy", "npy", dtype="float32")
    np.testing.assert_array_equal(np.load(tmp_path / "o.npy"), [1.5, -2.0, np.nan])


def test_shrunk_source_stops_the_export(tmp_path):
    from core.files.sources import open_source

    path = tmp_path / "data.bin"
    path.write_bytes(np.arange(256, dtype="<f4").tobytes())
    source = open_source(str(path))
    try:
        view = source.layout().arrays[0].view("<f4")
        with open(path, "r+b") as f:
            f.truncate(100)
        with pytest.raises(SourceError):
            export_view(view, tmp_path / "o.npy", "npy", check=source.check_unchanged,
                        source_paths=[str(path)])
    finally:
        del view
        source.close()
    assert os.listdir(tmp_path) == ["data.bin"]


def test_new_file_gets_the_usual_mode(tmp_path):
    old = os.umask(0o027)
    try:
        export_view(np.arange(3), tmp_path / "o.bin", "bin")
    finally:
        os.umask(old)
    assert os.stat(tmp_path / "o.bin").st_mode & 0o777 == 0o640
