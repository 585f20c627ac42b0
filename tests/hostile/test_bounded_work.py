"""Work bounded by what is shown (issue 14, items 6 and 7): opening a huge bool file reads no
byte, the command converts and formats only what it prints and streams it, and a strided
reshape copy is refused before reading or read with ``pread``.

Assertions are on bytes scanned or read and on the sizes of the arrays made, never on time.
"""

from __future__ import annotations

import io
import json
import os
import sys

import numpy as np
import pytest

import core.budget
import core.cli
import core.cli.printing
import core.decode.decode_raw as decode_raw_module
import core.scan.blocks
from core import BudgetError, DecodeParams, Pipeline, decode_raw
from core.export.arrays import export_view
from core.scan.statistics import compute_statistics
from core.slicing.expr import parse_slice


@pytest.fixture
def scanned(monkeypatch):
    """Bytes the bool check scans, per call."""
    sizes: list[int] = []
    original = decode_raw_module._any_byte_above_one

    def counting(u8, *args, **kwargs):
        sizes.append(int(u8.size))
        return original(u8, *args, **kwargs)

    monkeypatch.setattr(decode_raw_module, "_any_byte_above_one", counting)
    return sizes


@pytest.fixture
def sparse_tib(tmp_path):
    path = tmp_path / "sparse.bin"
    with open(path, "wb") as handle:
        handle.truncate(1 << 40)
    return str(path)


# ------------------------------------------------------------------ item 6: bool decoding
def test_a_1_tib_file_decoded_as_bool_opens_without_scanning(sparse_tib, scanned):
    with Pipeline([sparse_tib]) as pipeline:
        result = pipeline.run(DecodeParams(dtype="bool"))
        assert result.view.shape == (1 << 40,) and result.zero_copy
        assert bool(result.view[123456789]) is False
    assert scanned == []  # not one byte scanned (was: the whole TiB)


def test_small_bool_inputs_are_still_scanned_and_normalised(scanned):
    decoded = decode_raw(bytes([0, 1, 2, 255]), "bool")
    assert scanned == [4]
    assert decoded.view(np.uint8).tolist() == [0, 1, 1, 1]  # a normalised copy, as before


def test_above_the_scan_limit_raw_bytes_stay_but_every_reader_sees_0_or_1(tmp_path, monkeypatch, scanned):
    monkeypatch.setattr(decode_raw_module, "BOOL_SCAN_LIMIT_BYTES", 8)
    path = tmp_path / "flags.bin"
    path.write_bytes(bytes([0, 1, 2, 255, 0, 7, 1, 0, 9]))  # 9 bytes: above the limit of 8
    with Pipeline([str(path)]) as pipeline:
        view = pipeline.run(DecodeParams(dtype="bool")).view
        assert scanned == []
        assert view.view(np.uint8).tolist() == [0, 1, 2, 255, 0, 7, 1, 0, 9]  # the file's bytes
        assert view.tolist() == [False, True, True, True, False, True, True, False, True]
        assert int(view.sum()) == 6 and view.astype(np.int32).tolist() == [0, 1, 1, 1, 0, 1, 1, 0, 1]
        statistics = compute_statistics(view)
        assert (statistics.count, statistics.zero_count, statistics.max) == (9, 3, 1)
        out = tmp_path / "flags.out.bin"
        export_view(view, out, "bin")
        assert out.read_bytes() == bytes([0, 1, 1, 1, 0, 1, 1, 0, 1])
    path.write_bytes(bytes([0, 1, 2, 255, 0, 7, 1, 0]))  # 8 bytes: at the limit, scanned
    with Pipeline([str(path)]) as pipeline:
        view = pipeline.run(DecodeParams(dtype="bool")).view
    assert scanned == [8]
    assert view.view(np.uint8).tolist() == [0, 1, 1, 1, 0, 1, 1, 0]


# ------------------------------------------------------------------ item 7: the command
@pytest.fixture
def converted(monkeypatch):
    """Sizes of the arrays the command converts for printing."""
    sizes: list[int] = []
    original = core.cli.printing.convert_array

    def recording(values, source, target, **kwargs):
        sizes.append(int(np.asarray(values).size))
        return original(values, source, target, **kwargs)

    monkeypatch.setattr(core.cli.printing, "convert_array", recording)
    return sizes


def test_view_as_on_a_1_tib_view_converts_only_the_printed_values(sparse_tib, converted, capsys):
    # 2**37 float64 values as UINT8 would be a 128 GiB copy: refused before; now 4 are converted.
    assert core.cli.main([sparse_tib, "--dtype", "float64", "--view-as", "uint8", "--limit", "4",
                          "--steps"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[-4:] == [
        "# view as UINT8: TensorBuffer.create_from FLOAT64 -> UINT8 (of the printed values only)",
        "shape: (137438953472,)", "dtype: uint8", "[0 0 ... 0 0]"]
    assert sum(converted) == 4  # plus an empty one to learn the dtype
    assert max(converted) == 4


def test_view_as_prints_the_same_values_as_the_pipeline_converts(tmp_path, capsys):
    path = tmp_path / "values.bin"
    np.array([-1.5, 0.4, 255.6, 300.0, 7.0, 1e9], dtype="<f8").tofile(path)
    assert core.cli.main([str(path), "--dtype", "float64", "--view-as", "uint8", "--json"]) == 0
    printed = capsys.readouterr().out
    with Pipeline([str(path)]) as pipeline:
        expected = pipeline.run(DecodeParams(dtype="float64", view_as="uint8")).view.tolist()
    assert printed == ('{"shape": [6], "dtype": "uint8", "byte_order": "little", "size": 6, '
                       f'"truncated": false, "trailing_bytes": [0], "transposed": false, '
                       f'"values": {expected}}}\n')


class _RecordingOutput(io.StringIO):
    """A text output that records the length of every write."""

    def __init__(self) -> None:
        super().__init__()
        self.writes: list[int] = []

    def write(self, text: str) -> int:
        self.writes.append(len(text))
        return super().write(text)


def test_printing_every_value_streams_in_bounded_blocks(tmp_path, monkeypatch):
    path = tmp_path / "many.bin"
    values = np.arange(50_000, dtype="<u2")
    values.tofile(path)
    monkeypatch.setattr(core.cli.printing, "_PRINT_CHUNK", 1000)
    monkeypatch.setattr(core.cli.printing, "_WRITE_BYTES", 4096)
    blocks: list[int] = []
    original = core.cli.printing._Printed.convert
    monkeypatch.setattr(core.cli.printing._Printed, "convert",
                        lambda self, block: blocks.append(block.size) or original(self, block))
    for json_output in (False, True):
        out = _RecordingOutput()
        writes = out.writes
        monkeypatch.setattr(sys, "stdout", out)
        blocks.clear()
        argv = [str(path), "--dtype", "uint16", "--limit", "50000"] + (["--json"] if json_output else [])
        assert core.cli.main(argv) == 0
        assert max(blocks) == 1000  # never more values at a time than one block
        # written as it goes: a write holds 4096 characters plus at most one piece (one line of
        # text, or the JSON of one block: 1000 values of at most 5 digits and ", ")
        assert max(writes) < 4096 + (7 * 1000 if json_output else 100) and len(writes) > 40
        text = out.getvalue()
        if json_output:
            assert text.endswith(", 49998, 49999]}\n")
            assert json.loads(text)["values"] == values.tolist()
        else:
            assert text == ("shape: (50000,)\ndtype: uint16 (little-endian)\n"
                            + np.array2string(values, threshold=50_000, max_line_width=100,
                                              formatter={"all": lambda v: str(v).rjust(5)}) + "\n")


# ------------------------------------------------------------------ item 7: strided reshape
@pytest.fixture
def preads(monkeypatch):
    """Bytes read by BlockReader's preadv calls."""
    counts: list[int] = []
    original = os.preadv

    def counting(fd, buffers, offset, *args):
        got = original(fd, buffers, offset, *args)
        counts.append(got)
        return got

    monkeypatch.setattr(core.scan.blocks.os, "preadv", counting)
    return counts


def test_a_strided_reshape_copy_is_read_with_pread(tmp_path, preads):
    path = tmp_path / "records.bin"
    np.arange(64, dtype="<u4").tofile(path)  # 16 records of 16 bytes; keep 8 bytes of each
    with Pipeline([str(path)]) as pipeline:
        result = pipeline.run(DecodeParams(dtype="uint32", record_size=16, fixed_length=8, shape=(-1,)))
    assert result.view.tolist() == [v for r in range(16) for v in (4 * r, 4 * r + 1)]
    assert "copied: the truncated records are not contiguous" in result.steps[2]
    assert sum(preads) == 15 * 16 + 8  # the span from the first kept byte to the last


def test_a_strided_reshape_copy_over_the_budget_is_refused_before_reading(sparse_tib, preads, monkeypatch):
    monkeypatch.setattr(core.budget, "COPY_BUDGET_BYTES", 1 << 30)
    monkeypatch.setattr(core.budget, "_ENV_ERROR", None)
    with Pipeline([sparse_tib]) as pipeline, pytest.raises(BudgetError) as caught:
        pipeline.run(DecodeParams(dtype="float32", record_size=4096, fixed_length=8, shape=(-1,)))
    assert caught.value.message.startswith(
        "reshaping the strided (268435456, 2) values to (536870912,) would copy 2.0 GiB, above "
        "the 1.0 GiB copy budget")
    assert preads == []


# ------------------------------------------------------------------ issue 30 item 20
def _write_records(path, records: dict[int, tuple[float, float]]) -> None:
    """Float32 pairs at the start of the 4 KiB records named, in a 1 TiB sparse file."""
    with open(path, "r+b") as handle:
        for record, pair in records.items():
            handle.seek(record * 4096)
            handle.write(np.asarray(pair, dtype="<f4").tobytes())


def test_a_sliced_strided_reshape_reads_only_the_records_the_slice_reaches(sparse_tib, preads):
    last = (1 << 28) - 1  # records of the 1 TiB file
    _write_records(sparse_tib, {0: (1.5, 2.5), 499: (3.0, 4.0), 500: (9.0, 9.0), last: (7.0, 8.0)})
    with Pipeline([sparse_tib]) as pipeline:
        head = pipeline.run(DecodeParams(dtype="float32", record_size=4096, fixed_length=8, shape=(-1,)),
                            parse_slice(":1000"))
        assert head.view.shape == (1000,)
        assert head.view[[0, 1, 998, 999]].tolist() == [1.5, 2.5, 3.0, 4.0]
        assert float(head.view[2]) == 0.0
        assert "records 0 to 499 copied, the 500 the slice reaches" in head.steps[2]
        assert head.steps[3] == "slice: (536870912,) -> (1000,)"
        assert head.tensor is None and head.tensor_shape == (1 << 29,)
        # the bytes read: at most the span of the 500 records, not the file
        assert 500 * 8 <= sum(preads) <= 499 * 4096 + 8
        # and the byte map still names each value's file offset
        assert head.byte_offset(999) == (0, 499 * 4096 + 4, 4)

        preads.clear()
        tail = pipeline.run(DecodeParams(dtype="float32", record_size=4096, fixed_length=8, shape=(-1, 4)),
                            parse_slice("-1:-3:-1, ::-1"))
        assert tail.view.tolist() == [[8.0, 7.0, 0.0, 0.0], [0.0, 0.0, 0.0, 0.0]]
        assert "records 268,435,452 to 268,435,455 copied" in tail.steps[2]
        assert 4 * 8 <= sum(preads) <= 3 * 4096 + 8
        assert tail.byte_offset((0, 0)) == (0, last * 4096 + 4, 4)
        assert tail.byte_offset((1, 3)) == (0, (last - 3) * 4096, 4)


def test_a_whole_strided_reshape_that_would_read_past_the_read_limit_is_refused_before_reading(
        sparse_tib, preads):
    # the copy itself (2 GiB) fits the default budget; reading its records spans the whole TiB
    with Pipeline([sparse_tib]) as pipeline, pytest.raises(BudgetError) as caught:
        pipeline.run(DecodeParams(dtype="float32", record_size=4096, fixed_length=8, shape=(-1,)))
    assert caught.value.message == (
        "reshaping the strided (268435456, 2) values to (536870912,) would read 1.0 TiB of the "
        "file, above the 16.0 GiB read limit (8 x the copy budget) (slice first (only the records "
        "a slice reaches are copied), keep the records' shape (268435456, 2) (a view), or drop the "
        "fixed_length truncation, or raise the budget with TENSOR_INSPECTOR_COPY_BUDGET)")
    assert caught.value.field == "shape"
    assert preads == []


def test_the_command_prints_a_slice_of_a_strided_reshape_of_a_tib_file(sparse_tib, capsys):
    _write_records(sparse_tib, {1: (6.0, -6.0)})
    code = core.cli.main([sparse_tib, "--dtype", "float32", "--record-size", "4096",
                          "--fixed-length", "8", "--shape", "-1", "--slice", "2:6"])
    assert (code, capsys.readouterr().out) == (
        0, "shape: (4,)\ndtype: float32 (little-endian)\n[ 6.0 -6.0  0.0  0.0]\n")
