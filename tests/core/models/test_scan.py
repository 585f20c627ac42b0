"""Whole-model scans (issue 33 item 1): the inventory of containers, files and folders, and each
tensor's figures and flags, checked against numpy on files written by the real writers
(safetensors, numpy, torch.save and TensorFlow fixtures)."""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import pytest

from core.errors import Cancelled
from core.models.inventory import inventory, natural_key
from core.models.scan import scan_tensors
from core.pipeline.pipeline import DecodeParams

safetensors_numpy = pytest.importorskip("safetensors.numpy")

FIXTURES = Path(__file__).resolve().parents[1] / "formats" / "fixtures"


def _model(folder: Path) -> tuple[str, dict[str, np.ndarray]]:
    weights = {
        "embed": np.arange(12, dtype=np.float32).reshape(3, 4) - 5.5,
        "broken": np.array([1.0, np.nan, np.inf, -np.inf, 0.0, 2.0], np.float32),
        "zeros": np.zeros((2, 3), np.float16),
        "ones": np.ones(5, np.int8),
        "tiny": np.array([1e-40, 1.0], np.float32),  # a float32 subnormal
        "empty": np.zeros((0, 4), np.float32),
    }
    path = folder / "model.safetensors"
    safetensors_numpy.save_file(weights, str(path))
    return str(path), weights


def test_every_tensor_of_a_container_has_numpys_figures_and_its_flags(tmp_path):
    path, weights = _model(tmp_path)
    found = inventory([path])
    assert found.errors == () and found.skipped == ()
    rows = {r.tensor.name: r for r in scan_tensors(found)}
    assert sorted(rows) == sorted(weights)
    embed = rows["embed"].statistics
    assert (embed.count, embed.min, embed.max, embed.mean) == (12, -5.5, 5.5, 0.0)
    assert embed.std == pytest.approx(float(np.std(weights["embed"])))
    assert rows["embed"].flags == () and rows["embed"].storage == "view"
    broken = rows["broken"].statistics
    assert (broken.nan_count, broken.posinf_count, broken.neginf_count, broken.zero_count) == (1, 1, 1, 1)
    assert broken.mean == 1.0  # over the finite values 1, 0, 2
    assert rows["broken"].flags == ("nan", "inf")
    assert rows["zeros"].flags == ("zeros", "constant")
    assert rows["ones"].flags == ("constant",) and rows["ones"].statistics.min == 1
    assert rows["tiny"].flags == ("subnormal",)
    assert rows["empty"].flags == ("empty",) and rows["empty"].statistics.count == 0
    assert rows["empty"].shape == (0, 4)


def test_a_pytorch_checkpoint_scans_as_torch_load_reads_it():
    path = FIXTURES / "pytorch" / "views.pt"
    with np.load(FIXTURES / "pytorch" / "views.expected.npz") as saved:
        names = [str(n) for n in saved["names"]]
        expected = {n: saved[f"v{i}"] for i, n in enumerate(names)}
    rows = list(scan_tensors(inventory([path])))
    assert [r.tensor.name for r in rows] == names
    for row in rows:
        want = expected[row.tensor.name]
        s = row.statistics
        assert row.shape == want.shape and s.count == want.size
        assert (s.min, s.max) == (want.min(), want.max()), row.tensor.name
        assert s.mean == pytest.approx(float(np.mean(want.astype(np.float64))))


def test_a_folder_is_walked_in_natural_order_and_covered_files_are_not_listed_twice(tmp_path):
    (tmp_path / "dumps").mkdir()
    for i in (10, 2, 1):
        np.save(tmp_path / "dumps" / f"layer{i}.npy", np.full(3, i, np.float32))
    (tmp_path / "notes.txt").write_text("not a tensor")
    (tmp_path / ".hidden.npy").write_bytes(b"")
    shards = FIXTURES / "pytorch_sharded"
    model = tmp_path / "model"
    model.mkdir()
    for name in os.listdir(shards):
        if name.startswith("pytorch_model"):
            (model / name).write_bytes((shards / name).read_bytes())
    found = inventory([tmp_path])
    labels = [t.label for t in found.tensors]
    assert labels[:3] == [os.path.join("dumps", f"layer{i}.npy") for i in (1, 2, 10)]
    index_labels = [label for label in labels if label.startswith(os.path.join("model", "pytorch_model.bin.index.json"))]
    assert len(index_labels) == 39  # every tensor once, through the index: its shards are covered
    assert not any("pytorch_model-0000" in label for label in labels)
    assert [p.path for p in found.skipped] == [str(tmp_path / "notes.txt")]
    assert "give --dtype" in found.skipped[0].message
    rows = {r.tensor.label: r for r in scan_tensors(found)}
    assert rows[os.path.join("dumps", "layer10.npy")].statistics.min == 10.0


def test_raw_files_are_scanned_with_the_decode_options(tmp_path):
    raw = tmp_path / "out.bin"
    np.array([3, -4, 5], ">i2").tofile(raw)
    assert inventory([raw]).tensors == ()  # without a dtype: skipped
    found = inventory([raw], DecodeParams(dtype="int16", little_endian=False))
    [row] = scan_tensors(found)
    assert (row.statistics.min, row.statistics.max, row.storage) == (-4, 5, "raw")


def test_unreadable_paths_are_errors_and_the_rest_is_still_scanned(tmp_path):
    path, _ = _model(tmp_path)
    bad = tmp_path / "bad.safetensors"
    bad.write_bytes(b"\xff" * 8 + b"{")  # a header length past the end
    found = inventory([tmp_path / "missing.pt", bad, path])
    assert [p.path for p in found.errors] == [str(tmp_path / "missing.pt"), str(bad)]
    assert len(list(scan_tensors(found))) == 6


def test_a_file_truncated_during_the_scan_is_an_error_of_its_tensors(tmp_path):
    path = tmp_path / "model.safetensors"
    safetensors_numpy.save_file({"a": np.ones(1 << 16, np.float32), "b": np.ones(1 << 16, np.float32)}, str(path))
    found = inventory([path])
    with open(path, "r+b") as file:
        file.truncate(os.path.getsize(path) - (1 << 17))  # b loses its bytes, then half of a's
    rows = {r.tensor.name: r for r in scan_tensors(found)}
    assert rows["b"].statistics is None and rows["b"].error
    assert "changed" in rows["b"].error or "shorter" in rows["b"].error or "truncated" in rows["b"].error


def test_cancel_stops_the_scan(tmp_path):
    path, _ = _model(tmp_path)
    calls = []
    with pytest.raises(Cancelled):
        for _row in scan_tensors(inventory([path]), cancelled=lambda: calls.append(1) or len(calls) > 2):
            pass


def test_progress_counts_every_tensors_bytes_to_the_end(tmp_path):
    path, weights = _model(tmp_path)
    seen = []
    list(scan_tensors(inventory([path]), progress=lambda done, total: seen.append((done, total))))
    assert seen[-1][0] == seen[-1][1] and [d for d, _ in seen] == sorted(d for d, _ in seen)
    assert len(seen) == len(weights)


def test_natural_order():
    names = ["layer10.bin", "Layer2.bin", "layer1.bin", "layer2.bin", "a.bin"]
    assert sorted(names, key=natural_key) == ["a.bin", "layer1.bin", "Layer2.bin", "layer2.bin", "layer10.bin"]


def test_big_tensors_alone_and_small_ones_side_by_side_give_the_same_rows_in_order(tmp_path, monkeypatch):
    import core.models.scan as scan_module

    path, weights = _model(tmp_path)
    alone = [(r.tensor.name, r.statistics, r.flags) for r in scan_tensors(inventory([path]), workers=1)]
    assert [name for name, *_ in alone] == [t.name for t in inventory([path]).tensors]
    assert dict((name, s.max) for name, s, _f in alone)["embed"] == 5.5  # arange(12) - 5.5
    for big in (1, 6, 1 << 23):  # every tensor alone; those of at least 6 values; none
        monkeypatch.setattr(scan_module, "BIG_TENSOR", big)
        assert [(r.tensor.name, r.statistics, r.flags) for r in scan_tensors(inventory([path]))] == alone
