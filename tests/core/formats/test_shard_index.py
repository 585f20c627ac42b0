"""Sharded safetensors models (model.safetensors.index.json + shards written by the
safetensors package) list as one container, each tensor a view of its shard (issue 32 item 6)."""

from __future__ import annotations

import json
import os
import shutil

import numpy as np
import pytest

import core
import core.cli
from core.errors import ContainerError
from core.formats.registry import list_file

safetensors = pytest.importorskip("safetensors")
from safetensors.numpy import save_file

SHARDS = {
    "model-00001-of-00002.safetensors": {"embed.weight": np.arange(12, dtype=np.float32).reshape(3, 4),
                                         "layer.0.bias": np.array([1.5, -2.5], np.float16)},
    "model-00002-of-00002.safetensors": {"layer.0.weight": np.arange(6, dtype=np.int64).reshape(2, 3) - 3,
                                         "head.weight": np.array([[True, False]])},
}
ORDER = ["embed.weight", "layer.0.weight", "layer.0.bias", "head.weight"]


def _model(folder, weight_map=None):
    for shard, arrays in SHARDS.items():
        save_file(arrays, str(folder / shard))
    if weight_map is None:
        owner = {name: shard for shard, arrays in SHARDS.items() for name in arrays}
        weight_map = {name: owner[name] for name in ORDER}
    total = sum(a.nbytes for arrays in SHARDS.values() for a in arrays.values())
    index = folder / "model.safetensors.index.json"
    index.write_text(json.dumps({"metadata": {"total_size": total}, "weight_map": weight_map}, indent=2))
    return str(index)


def test_every_tensor_of_every_shard_is_listed_in_the_index_order_and_reads_exactly(tmp_path):
    index = _model(tmp_path)
    listing = list_file(index)
    assert listing.format == "safetensors-index"
    assert [e.name for e in listing.entries] == ORDER
    assert listing.metadata == {"shards": "2", "total_size": "102"}
    for entry in listing.entries:
        shard = next(s for s, arrays in SHARDS.items() if entry.name in arrays)
        assert entry.file == shard and entry.problem is None
        expected = SHARDS[shard][entry.name]
        got = core.tensor(index, entry.name)
        assert got.dtype == expected.dtype and np.array_equal(got, expected)


def test_the_command_lists_the_whole_set(tmp_path, capsys):
    index = _model(tmp_path)
    assert core.cli.main([index, "--list", "--json"]) == 0
    tensors = json.loads(capsys.readouterr().out)["tensors"]
    assert [(t["name"], t["file"], t["shape"]) for t in tensors] == [
        ("embed.weight", "model-00001-of-00002.safetensors", [3, 4]),
        ("layer.0.weight", "model-00002-of-00002.safetensors", [2, 3]),
        ("layer.0.bias", "model-00001-of-00002.safetensors", [2]),
        ("head.weight", "model-00002-of-00002.safetensors", [1, 2])]
    assert core.cli.main([index, "--tensor", "layer.0.weight"]) == 0
    assert capsys.readouterr().out == "shape: (2, 3)\ndtype: int64 (little-endian)\n[[-3 -2 -1]\n [ 0  1  2]]\n"


def test_missing_foreign_and_escaping_shards_are_problems_of_their_tensors(tmp_path):
    (tmp_path / "sub").mkdir()
    index = _model(tmp_path / "sub", {
        "embed.weight": "model-00001-of-00002.safetensors",
        "gone": "model-00009-of-00009.safetensors",
        "secret": "../../etc/passwd",
        "absolute": "/etc/hostname",
        "absent": "model-00002-of-00002.safetensors",
    })
    problems = {e.name: e.problem for e in list_file(index).entries}
    assert problems["embed.weight"] is None
    assert problems["gone"] == "its shard 'model-00009-of-00009.safetensors' is missing beside the index"
    assert "'../../etc/passwd' is not inside the index's folder" in problems["secret"]
    assert "'/etc/hostname' is not inside the index's folder" in problems["absolute"]
    assert "has no tensor of that name" in problems["absent"]


def test_an_index_that_is_not_json_or_has_no_map_is_refused_with_its_problem(tmp_path):
    bad = tmp_path / "model.safetensors.index.json"
    bad.write_text('{"weight_map": {"a": ')
    with pytest.raises(ContainerError, match="it is not JSON"):
        list_file(str(bad))
    bad.write_text('{"weight_map": ["a"]}')
    with pytest.raises(ContainerError, match='has no "weight_map" object'):
        list_file(str(bad))


def test_a_shard_opened_by_itself_points_to_its_index(tmp_path):
    _model(tmp_path)
    shard = list_file(str(tmp_path / "model-00002-of-00002.safetensors"))
    assert sorted(e.name for e in shard.entries) == ["head.weight", "layer.0.weight"]
    assert shard.metadata["sharded model"] == (
        "one shard of model.safetensors.index.json: open the index to list every tensor of every shard")
    (tmp_path / "model.safetensors.index.json").unlink()
    assert "sharded model" not in list_file(str(tmp_path / "model-00002-of-00002.safetensors")).metadata


# -- pytorch_model.bin.index.json: shards written by torch.save through transformers' save_pretrained

PT_FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures", "pytorch_sharded")
PT_INDEX = os.path.join(PT_FIXTURES, "pytorch_model.bin.index.json")


def _pt_expected():
    with np.load(os.path.join(PT_FIXTURES, "expected.npz")) as saved:
        return [str(n) for n in saved["names"]], {k: saved[k] for k in saved.files if k != "names"}


def test_a_pytorch_index_lists_every_tensor_of_its_torch_save_shards_and_reads_them_as_torch_load(tmp_path):
    names, expected = _pt_expected()
    with open(PT_INDEX, encoding="utf-8") as file:
        weight_map = json.load(file)["weight_map"]
    listing = list_file(PT_INDEX)
    assert listing.format == "pytorch-index"
    assert listing.metadata["shards"] == "2" and listing.metadata["total_size"] == "7328"
    assert [e.name for e in listing.entries] == names and len(names) == 39
    for entry in listing.entries:
        assert entry.problem is None and entry.file == weight_map[entry.name]
        assert entry.file in ("pytorch_model-00001-of-00002.bin", "pytorch_model-00002-of-00002.bin")
        got = core.tensor(PT_INDEX, entry.name)
        want = expected[entry.name]
        assert got.dtype == want.dtype and got.shape == want.shape
        assert np.array_equal(got.view(np.uint8), want.view(np.uint8))  # bit-exact


def test_the_command_lists_and_shows_a_pytorch_index(capsys):
    _, expected = _pt_expected()
    assert core.cli.main([PT_INDEX, "--list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed["format"] == "pytorch-index"
    first = listed["tensors"][0]
    assert (first["name"], first["file"], first["shape"], first["dtype"]) == (
        "embeddings.LayerNorm.bias", "pytorch_model-00001-of-00002.bin", [8], "float32")
    assert core.cli.main([PT_INDEX, "--tensor", "pooler.dense.bias", "--json"]) == 0
    shown = json.loads(capsys.readouterr().out)
    assert shown["shape"] == [8]
    assert np.array_equal(np.array(shown["values"], np.float32), expected["pooler.dense.bias"])


def test_a_pytorch_shard_opened_by_itself_points_to_its_index(tmp_path):
    for name in os.listdir(PT_FIXTURES):
        if name.startswith("pytorch_model"):
            shutil.copy(os.path.join(PT_FIXTURES, name), tmp_path / name)
    shard = list_file(str(tmp_path / "pytorch_model-00002-of-00002.bin"))
    assert shard.format == "pytorch"
    assert shard.metadata["sharded model"] == (
        "one shard of pytorch_model.bin.index.json: open the index to list every tensor of every shard")
    (tmp_path / "pytorch_model.bin.index.json").unlink()
    assert "sharded model" not in list_file(str(tmp_path / "pytorch_model-00002-of-00002.bin")).metadata


def test_a_shard_of_neither_format_is_the_problem_of_its_tensors(tmp_path):
    (tmp_path / "pytorch_model-00001-of-00001.bin").write_bytes(b"\x00" * 64)
    (tmp_path / "pytorch_model.bin.index.json").write_text(
        json.dumps({"weight_map": {"w": "pytorch_model-00001-of-00001.bin"}}))
    listing = list_file(str(tmp_path / "pytorch_model.bin.index.json"))
    assert listing.format == "pytorch-index"  # no shard listed: told by the index's name
    assert listing.entries[0].problem == ("its shard 'pytorch_model-00001-of-00001.bin' is neither a "
                                          "safetensors file nor a PyTorch checkpoint")
