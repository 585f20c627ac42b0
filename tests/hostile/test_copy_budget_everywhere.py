"""Issue #10: every operation that copies either streams within the copy budget or refuses.

The budget is set small (``core.budget.COPY_BUDGET_BYTES`` monkeypatched to 1 KiB, or the
``TENSOR_INSPECTOR_COPY_BUDGET`` environment variable in a subprocess, since it is read at
import) and each copying operation is driven past it: padding, stacking several files, "view
as", bool normalisation, a strided reshape, joining Python bytes, TensorBuffer copies and the
command's printing *refuse* with a message that names the operation and the fix; statistics and
export *stream* in blocks that fit the budget and give the same answer as with a large budget.
Never a ``MemoryError``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import core.budget
from core import BudgetError, DecodeParams, Pipeline, TensorBuffer, decode_raw
from core.cli import main as cli_main
from core.export.arrays import export_view
from core.scan.statistics import compute_statistics

ROOT = Path(__file__).resolve().parents[2]
BUDGET = 1024
SUFFIX = "above the 1.0 KiB copy budget"
HOW = "or raise the budget with TENSOR_INSPECTOR_COPY_BUDGET)"


@pytest.fixture
def small_budget(monkeypatch):
    monkeypatch.setattr(core.budget, "COPY_BUDGET_BYTES", BUDGET)
    monkeypatch.setattr(core.budget, "_ENV_ERROR", None)


@pytest.fixture
def data_file(tmp_path):
    path = tmp_path / "data.bin"
    np.arange(2048, dtype="<u2").tofile(path)  # 4 KiB
    return str(path)


def refusal(run) -> BudgetError:
    with pytest.raises(BudgetError) as caught:
        run()
    return caught.value


# ------------------------------------------------------------------------- refusals
def test_padding_to_fixed_length_is_refused(small_budget, data_file):
    with Pipeline([data_file]) as pipeline:
        error = refusal(lambda: pipeline.run(DecodeParams(fixed_length=8192)))
    assert error.field == "fixed_length"
    assert error.message == (f"padding to fixed_length 8192 would copy 8.0 KiB, {SUFFIX} "
                             f"(choose a smaller fixed_length, {HOW}")


def test_padding_within_the_budget_still_works(small_budget, tmp_path):
    path = tmp_path / "small.bin"
    path.write_bytes(b"\x01\x02\x03")
    with Pipeline([str(path)]) as pipeline:
        result = pipeline.run(DecodeParams(dtype="uint16", fixed_length=1024))
    assert result.view.shape == (512,) and result.view[:2].tolist() == [0x0201, 0x0003]


def test_stacking_several_files_is_refused(small_budget, data_file, tmp_path):
    other = tmp_path / "other.bin"
    other.write_bytes(bytes(4096))
    with Pipeline([data_file, str(other)]) as pipeline:
        error = refusal(lambda: pipeline.run(DecodeParams()))
    assert error.field == "files"
    assert error.message == (f"stacking 2 files into one batch would copy 8.0 KiB, {SUFFIX} "
                             f"(open fewer files, or select less with record_size and "
                             f"fixed_length, {HOW}")


def test_view_as_is_refused(small_budget, data_file):
    with Pipeline([data_file]) as pipeline:
        error = refusal(lambda: pipeline.run(DecodeParams(dtype="uint16", view_as="float32")))
    assert error.field == "view_as"
    assert error.message == (f"viewing (2048,) values as FLOAT32 would copy 8.0 KiB, {SUFFIX} "
                             f"(slice the tensor to fewer values first, {HOW}")


def test_view_as_of_a_small_slice_works(small_budget, data_file):
    from core import parse_slice

    with Pipeline([data_file]) as pipeline:
        result = pipeline.run(DecodeParams(dtype="uint16", view_as="uint8"), parse_slice("254:258"))
    assert result.view.tolist() == [254, 255, 255, 255]  # clamped: TensorBuffer's UINT8 rule


def test_bool_normalisation_is_refused(small_budget, data_file):
    with Pipeline([data_file]) as pipeline:
        error = refusal(lambda: pipeline.run(DecodeParams(dtype="bool")))
    assert error.field == "dtype"
    assert error.message == (f"normalising bool bytes (any nonzero byte is True) would copy "
                             f"4.0 KiB, {SUFFIX} (decode fewer bytes as bool, or choose uint8, "
                             f"{HOW}")


def test_a_reshape_that_needs_a_copy_is_refused(small_budget, data_file):
    with Pipeline([data_file]) as pipeline:  # truncated records are not contiguous
        error = refusal(lambda: pipeline.run(DecodeParams(dtype="uint16", record_size=8,
                                                          fixed_length=4, shape="-1")))
    assert error.field == "shape"
    assert error.message == (f"reshaping the strided (512, 2) values to (1024,) would copy 2.0 "
                             f"KiB, {SUFFIX} (slice first (only the records a slice reaches are "
                             f"copied), keep the records' shape (512, 2) (a view), or drop the "
                             f"fixed_length truncation, {HOW}")


def test_joining_python_bytes_is_refused(small_budget):
    error = refusal(lambda: decode_raw([b"x" * 600, b"y" * 600], "uint8"))
    assert error.message == (f"joining 2 input elements into one buffer would copy 1.2 KiB, "
                             f"{SUFFIX} (decode fewer elements at a time, {HOW}")


def test_tensor_buffer_copies_are_refused(small_budget):
    fix = f"(use a smaller buffer, or read values one at a time, {HOW}"
    error = refusal(lambda: TensorBuffer.create_fixed_size((512,), "float32"))
    assert error.message == f"a TensorBuffer of shape (512,) would copy 2.0 KiB, {SUFFIX} {fix}"
    wrapped = TensorBuffer.wrap(np.zeros(512, np.uint8))  # by reference: no copy, allowed
    error = refusal(lambda: wrapped.get_float_array())
    assert error.message == f"get_float_array would copy 2.0 KiB, {SUFFIX} {fix}"
    error = refusal(lambda: wrapped.get_int_array())
    assert error.message == f"get_int_array would copy 2.0 KiB, {SUFFIX} {fix}"
    error = refusal(lambda: TensorBuffer.create_from(wrapped, "float64"))
    assert error.message == f"create_from into FLOAT64 would copy 4.0 KiB, {SUFFIX} {fix}"
    assert TensorBuffer.create_from(wrapped, "uint8").flat_size == 512  # 512 bytes: fits


def test_a_huge_wrapped_map_refuses_get_float_array_instead_of_running_out_of_memory(tmp_path):
    path = tmp_path / "sparse.bin"
    with open(path, "wb") as out:
        out.truncate(1 << 40)
    with Pipeline([str(path)]) as pipeline:
        buffer = pipeline.run(DecodeParams(dtype="float32")).buffer  # wraps the 1 TiB map
        assert buffer.flat_size == 1 << 38
        error = refusal(buffer.get_float_array)
    assert error.message.startswith("get_float_array would copy 1.0 TiB, above the ")


def test_the_command_refuses_a_summary_past_the_budget_and_streams_the_rest(small_budget, data_file, capsys):
    # A summary gathers the values it shows (here 1000 uint8 values, read and converted: 2 bytes
    # each); printing every value streams them in blocks and needs no copy at all.
    assert cli_main([data_file, "--limit", "1000"]) == 2
    assert capsys.readouterr().err == (f"error: printing 1,000 values would copy 2.0 KiB, {SUFFIX} "
                                       f"(lower --limit, {HOW}\n")
    assert cli_main([data_file, "--limit", "100"]) == 0  # 200 bytes: fits
    assert capsys.readouterr().out.startswith("shape: (4096,)\ndtype: uint8\n[  0   0   1   0")
    assert cli_main([data_file, "--limit", "100000", "--json"]) == 0  # streamed: no copy
    document = json.loads(capsys.readouterr().out)
    assert document["values"] == list(np.arange(2048, dtype="<u2").view(np.uint8))
    assert cli_main([data_file, "--limit", "100000"]) == 0
    assert capsys.readouterr().out.endswith(" 254   7 255   7]\n")


def test_a_histogram_with_absurd_bins_is_refused(small_budget):
    error = refusal(lambda: compute_statistics(np.zeros(4), bins=10**9))
    assert error.message == (f"a histogram of 1000000000 bins would copy 14.9 GiB, {SUFFIX} "
                             f"(ask for fewer bins, {HOW}")


# ------------------------------------------------------------------------- streaming
def block_sizes(progress_calls: list[tuple[int, int]]) -> list[int]:
    done = [0] + [d for d, _ in progress_calls]
    return [b - a for a, b in zip(done, done[1:])]


def test_statistics_stream_in_blocks_that_fit_the_budget(small_budget, monkeypatch):
    monkeypatch.setattr(core.budget, "COPY_BUDGET_BYTES", 4096)  # the 64-bin histogram is 1 KiB
    x = np.random.default_rng(10).normal(size=5000).astype(np.float32)
    calls = []
    small = compute_statistics(x, progress=lambda d, t: calls.append((d, t)))
    sizes = block_sizes(calls)
    assert max(sizes) == 4096 // 40 and sum(sizes) == 2 * x.size  # two passes, 102-value blocks
    monkeypatch.setattr(core.budget, "COPY_BUDGET_BYTES", 1 << 30)
    large = compute_statistics(x)
    assert (small.count, small.min, small.max) == (large.count, large.min, large.max)
    assert small.mean == pytest.approx(large.mean, rel=1e-12)
    assert small.std == pytest.approx(large.std, rel=1e-12)
    assert small.histogram_counts == large.histogram_counts


@pytest.mark.parametrize("fmt, per_value", [("csv", 128), ("npy", 2 + 2 * 8), ("bin", 2 + 2 * 8)])
def test_export_streams_in_blocks_that_fit_the_budget(small_budget, monkeypatch, tmp_path, fmt,
                                                      per_value):
    view = np.arange(3000, dtype="<u2").reshape(100, 30)
    calls = []
    small = tmp_path / f"small.{fmt}"
    export_view(view, small, fmt, dtype="float64", progress=lambda d, t: calls.append((d, t)))
    assert 1 < max(block_sizes(calls)) <= BUDGET // per_value
    monkeypatch.setattr(core.budget, "COPY_BUDGET_BYTES", 1 << 30)
    large = tmp_path / f"large.{fmt}"
    export_view(view, large, fmt, dtype="float64")
    assert small.read_bytes() == large.read_bytes()


# ------------------------------------------------------------- the environment variable
def run_cli(args: list[str], budget: str) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(ROOT), TENSOR_INSPECTOR_COPY_BUDGET=budget)
    return subprocess.run([sys.executable, "-m", "core", *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, timeout=120)


def test_the_environment_variable_sets_the_budget(data_file):
    done = run_cli([data_file, "--fixed-length", "8192"], "1KiB")
    assert done.returncode == 2
    assert done.stderr == (f"error: padding to fixed_length 8192 would copy 8.0 KiB, {SUFFIX} "
                           f"(choose a smaller fixed_length, {HOW}\n")
    done = run_cli([data_file, "--fixed-length", "8192", "--limit", "2"], "1MiB")
    assert done.returncode == 0 and done.stdout.startswith("shape: (8192,)")


def test_an_unparseable_environment_variable_is_reported_not_ignored(data_file):
    done = run_cli([data_file, "--fixed-length", "8192"], "lots")
    assert done.returncode == 2
    assert done.stderr == ("error: TENSOR_INSPECTOR_COPY_BUDGET='lots' is not a byte count (set it "
                           "to e.g. 4GiB or 4294967296, or unset it for the 2.0 GiB default)\n")
