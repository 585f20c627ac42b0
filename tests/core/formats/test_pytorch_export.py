"""torch.export archives (.pt2) written by ``torch.export.save`` itself: every weight and constant
read back bit-exactly as ``torch.export.load`` gives it (fixtures/pytorch_export/make_fixtures.py,
PyTorch 2.13.0), with strides and shared storages; configs are parsed, never run."""

from __future__ import annotations

import json
import os
import shutil
import zipfile

import numpy as np
import pytest

import core
import core.cli
from core.errors import ContainerError
from core.formats.registry import list_file

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "pytorch_export")
ARCHIVE = os.path.join(HERE, "module.pt2")
CONFIG = "module/data/weights/model_weights_config.json"


def _expected():
    with np.load(os.path.join(HERE, "module.expected.npz")) as saved:
        names = [str(n) for n in saved["names"]]
        return names, {n: saved[f"v{i}"] for i, n in enumerate(names)}, [str(s) for s in saved["strides"]]


def test_every_weight_and_constant_reads_back_as_torch_export_load_gives_it():
    names, expected, _ = _expected()
    listing = list_file(ARCHIVE)
    assert listing.format == "pytorch"
    assert listing.metadata["format"].startswith("torch.export archive (.pt2)")
    assert [e.name for e in listing.entries] == names == [
        "scale", "lin.weight", "lin.bias", "base", "base_tail", "transposed", "constants/offsets"]
    for entry in listing.entries:
        assert entry.mappable and entry.problem is None
        got = core.tensor(ARCHIVE, entry.name)
        want = expected[entry.name]
        if entry.dtype == "bfloat16":
            got = got.view(np.int16)
        assert got.shape == want.shape and np.ascontiguousarray(got).tobytes() == want.tobytes(), entry.name


def test_strides_and_shared_storages_are_those_torch_saved():
    _, _, strides = _expected()
    entries = {e.name: e for e in list_file(ARCHIVE).entries}
    assert entries["transposed"].strides == (1, 3) and strides[5] == "1,3"
    assert entries["transposed"].shape == (3, 2)
    assert entries["base"].shares == ("base_tail",) and entries["base_tail"].shares == ("base",)
    assert entries["base_tail"].offset == entries["base"].offset + 16  # one row of 4 float32 later
    assert entries["lin.weight"].strides is None and entries["scale"].stored_type == "torch.bfloat16"


def test_the_command_lists_and_shows_an_archive(capsys):
    assert core.cli.main([ARCHIVE, "--list", "--json"]) == 0
    tensors = {t["name"]: t for t in json.loads(capsys.readouterr().out)["tensors"]}
    assert tensors["transposed"]["strides"] == [1, 3] and tensors["base"]["shares"] == ["base_tail"]
    assert core.cli.main([ARCHIVE, "--tensor", "constants/offsets", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["values"] == [7, -8]


def _rewritten(tmp_path, config: bytes | None = None, archive_format: bytes | None = None) -> str:
    """The fixture with its weights config (or archive_format) replaced, all members stored."""
    out = tmp_path / "changed.pt2"
    with zipfile.ZipFile(ARCHIVE) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == CONFIG and config is not None:
                data = config
            if info.filename == "module/archive_format" and archive_format is not None:
                data = archive_format
            target.writestr(info.filename, data)
    return str(out)


def _config_with(change) -> bytes:
    with zipfile.ZipFile(ARCHIVE) as source:
        config = json.loads(source.read(CONFIG))
    change(config["config"])
    return json.dumps(config).encode()


def test_a_config_that_is_not_json_is_one_message(tmp_path):
    path = _rewritten(tmp_path, b'{"config": {"lin.weight": ')
    with pytest.raises(ContainerError, match="its model weights config is not JSON"):
        list_file(path)


@pytest.mark.parametrize("change, problem", [
    (lambda c: c["lin.bias"].update(use_pickle=True), "torch.export pickled it (a tensor subclass)"),
    (lambda c: c["lin.bias"]["tensor_meta"].update(dtype=99), "its dtype number 99 is not a known"),
    (lambda c: c["lin.bias"]["tensor_meta"].update(layout=1), "its layout 1 is not strided"),
    (lambda c: c["lin.bias"]["tensor_meta"]["sizes"][0].update(as_int="s0"), "are not plain integers"),
    (lambda c: c["lin.bias"].update(path_name="../../../etc/passwd"), "is not in the zip"),
    (lambda c: c["lin.bias"]["tensor_meta"]["sizes"][0].update(as_int=2 ** 40), "reaches element"),
])
def test_bad_config_entries_are_problems_of_their_tensor_only(tmp_path, change, problem):
    entries = {e.name: e for e in list_file(_rewritten(tmp_path, _config_with(change))).entries}
    assert problem in entries["lin.bias"].problem
    assert entries["lin.weight"].problem is None and entries["constants/offsets"].problem is None


def test_another_archive_format_is_refused_naming_it(tmp_path):
    with pytest.raises(ContainerError, match="archive_format of 'zip9', not a torch.save checkpoint"):
        list_file(_rewritten(tmp_path, archive_format=b"zip9"))


def test_listing_never_writes_next_to_the_archive(tmp_path):
    shutil.copy(ARCHIVE, tmp_path / "m.pt2")
    before = sorted(os.listdir(tmp_path))
    list_file(str(tmp_path / "m.pt2"))
    assert sorted(os.listdir(tmp_path)) == before
