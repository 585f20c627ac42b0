"""PyTorch checkpoints written by ``torch.save`` itself: every tensor read back bit-exactly as
``torch.load(weights_only=True)`` gives it (fixtures/pytorch/make_fixtures.py, PyTorch 2.13.0),
by the names of nested dicts, with strides, shared storages, quantization and byte order; the
suite never imports torch."""

from __future__ import annotations

import io
import json
import os
import zipfile

import numpy as np
import pytest

import core
import core.cli
from core.errors import ContainerError
from core.formats.entry import Quantization, find_entry
from core.formats.quantization import is_dequantized
from core.formats.registry import list_file

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "pytorch")
CHECKPOINTS = ("dtypes", "nested", "tied", "views", "quantized")
#: numpy view types of the bit patterns saved for types numpy lacks
BITS = {"bfloat16": np.uint16, "float8_e4m3fn": np.uint8, "float8_e5m2": np.uint8,
        "float8_e4m3fnuz": np.uint8, "float8_e5m2fnuz": np.uint8, "float8_e8m0fnu": np.uint8}


def _path(name: str) -> str:
    return os.path.join(HERE, name + ".pt")


def _expected(name: str) -> tuple[list[str], dict[str, np.ndarray]]:
    with np.load(os.path.join(HERE, name + ".expected.npz")) as saved:
        names = [str(n) for n in saved["names"]]
        return names, {n: saved[f"v{i}"] for i, n in enumerate(names)}


def _same_bits(got: np.ndarray, want: np.ndarray, dtype: str | None) -> bool:
    if dtype in BITS:
        got = got.view(BITS[dtype])
    return (got.shape == want.shape and got.dtype.itemsize == want.dtype.itemsize
            and np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(want).tobytes())


@pytest.mark.parametrize("which", CHECKPOINTS)
def test_every_tensor_reads_back_as_torch_load_gives_it(which):
    names, expected = _expected(which)
    listing = list_file(_path(which))
    assert listing.format == "pytorch"
    stored = [e for e in listing.entries if not is_dequantized(e)]  # computed ones: test_quantized.py
    assert [e.name for e in stored] == names
    for entry in stored:
        assert entry.mappable, entry.problem
        got = core.tensor(_path(which), entry.name)
        assert _same_bits(got, expected[entry.name], entry.dtype), entry.name  # NaN and -0 too
    assert len(names) == {"dtypes": 23, "nested": 16, "tied": 2, "views": 7, "quantized": 6}[which]


def test_every_dtype_torch_saves_is_its_engine_type():
    entries = {e.name: e for e in list_file(_path("dtypes")).entries}
    for name in ("float32", "float64", "float16", "bfloat16", "float8_e4m3fn", "float8_e5m2",
                 "float8_e4m3fnuz", "float8_e5m2fnuz", "float8_e8m0fnu", "int8", "int16", "int32",
                 "int64", "uint8", "uint16", "uint32", "uint64", "bool", "complex64", "complex128"):
        entry = entries[f"dtypes.{name}"]
        assert (entry.dtype, entry.shape, entry.stored_type) == (name, (6,), f"torch.{name}")
    assert entries["scalar"].shape == () and entries["scalar"].nbytes == 8
    assert entries["empty"].shape == (0, 3) and entries["empty"].nbytes == 0
    assert core.tensor(_path("dtypes"), "scalar").tolist() == 2.5
    assert core.tensor(_path("dtypes"), "empty").shape == (0, 3)


def test_nested_names_and_plain_values_as_metadata():
    listing = list_file(_path("nested"))
    names = [e.name for e in listing.entries]
    assert names[:4] == ["state_dict/0.weight", "state_dict/0.bias", "state_dict/2.weight",
                         "state_dict/2.bias"]
    assert "optimizer/state/0/exp_avg" in names and "optimizer/state/3/exp_avg_sq" in names
    assert listing.metadata["epoch"] == "3" and listing.metadata["global_step"] == "120"
    assert listing.metadata["pytorch-lightning_version"] == "2.5.0"
    assert listing.metadata["byte order"] == "little" and listing.metadata["archive"] == "nested"


def test_tied_weights_say_which_names_share_their_bytes():
    entries = {e.name: e for e in list_file(_path("tied")).entries}
    embed, head = entries["embed.weight"], entries["head.weight"]
    assert (embed.offset, embed.nbytes) == (head.offset, head.nbytes)
    assert embed.shares == ("head.weight",) and head.shares == ("embed.weight",)


def test_non_contiguous_views_have_strides_and_storage_offsets():
    entries = {e.name: e for e in list_file(_path("views")).entries}
    base = entries["base"]
    assert base.strides is None and base.shape == (4, 6) and base.dtype == "int16"
    transposed = entries["transposed"]
    assert (transposed.shape, transposed.strides, transposed.offset) == ((6, 4), (1, 6), base.offset)
    columns = entries["columns"]  # base[:, 2:5]: 2 elements in, rows 6 apart
    assert (columns.shape, columns.strides, columns.offset, columns.nbytes) == \
        ((4, 3), (6, 1), base.offset + 4, (3 * 6 + 2 + 1) * 2)
    assert columns.extras["storage offset"] == 2
    rows = entries["rows"]  # base[1:3]: C order from element 6
    assert (rows.strides, rows.offset, rows.nbytes) == (None, base.offset + 12, 24)
    assert entries["every_other"].strides == (12, 3)
    assert entries["expanded"].strides == (0, 1)
    assert set(base.shares) == {"transposed", "columns", "rows", "every_other"}
    assert entries["tail"].shares is None and entries["tail"].extras["storage offset"] == 6


def test_quantized_tensors_show_integers_scale_and_zero_point():
    entries = {e.name: e for e in list_file(_path("quantized")).entries}
    qint8 = entries["qint8"]
    assert (qint8.dtype, qint8.stored_type) == ("int8", "torch.qint8")
    assert qint8.extras["qscheme"] == "per_tensor_affine"
    # the float32 torch dequantizes with; the pickled float64 is the q_scale extra
    assert qint8.quantization == Quantization((float(np.float32(0.05)),), (3,), None, "int8")
    assert qint8.extras["q_scale"] == 0.05
    assert entries["quint8"].dtype == "uint8" and entries["quint8"].quantization.zero_point == (10,)
    assert entries["qint32"].dtype == "int32" and entries["qint32"].quantization.zero_point == (-2,)
    channel = entries["per_channel"]
    assert channel.extras["qscheme"] == "per_channel_affine"
    # read from the per_channel/scales and per_channel/zero_points storages
    assert channel.quantization == Quantization((float(np.float32(0.1)), float(np.float32(0.02))), (0, 5), 0, "int8")
    # the hand-checked integers: round(value / scale) + zero point
    assert core.tensor(_path("quantized"), "qint8").tolist() == [[-17, 3, 13], [23, 43, 73]]
    # torch.tensor([0.1, 0.02]) is float32, kept as float64 scales
    assert core.tensor(_path("quantized"), "per_channel/scales").tolist() == \
        np.array([0.1, 0.02], np.float32).astype(np.float64).tolist()


def test_a_pickled_module_and_a_torchscript_archive_list_their_parameters():
    with np.load(os.path.join(HERE, "module.expected.npz")) as saved:
        weight, bias = saved["weight"], saved["bias"]
    module = list_file(_path("module"))
    assert [e.name for e in module.entries] == ["_parameters/weight", "_parameters/bias"]
    assert module.metadata["object"] == "torch.nn.modules.linear.Linear"
    assert core.tensor(_path("module"), "_parameters/weight").tobytes() == weight.tobytes()
    script = list_file(_path("script"))
    assert "TorchScript" in script.metadata["format"]
    assert [e.name for e in script.entries] == ["weight", "bias"]
    assert core.tensor(_path("script"), "bias").tobytes() == bias.tobytes()


def test_the_legacy_format_is_refused_naming_it():
    with pytest.raises(ContainerError, match="legacy format \\(before PyTorch 1.6"):
        list_file(_path("legacy"))


def test_the_command_lists_as_json_and_prints_a_tensor(capsys):
    assert core.cli.main([_path("views"), "--list", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert listed["format"] == "pytorch"
    tensors = {t["name"]: t for t in listed["tensors"]}
    assert tensors["transposed"]["strides"] == [1, 6] and tensors["transposed"]["storage"] == "view"
    assert tensors["base"]["strides"] is None
    assert sorted(tensors["base"]["shares"]) == ["columns", "every_other", "rows", "transposed"]
    assert tensors["tail"]["shares"] is None and tensors["tail"]["file"] is None
    assert core.cli.main([_path("views"), "--tensor", "columns"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("shape: (4, 3)\ndtype: int16 (little-endian)\n[[ 2  3  4]\n [ 8  9 10]\n [14 15 16]\n [20 21 22]]\n")
    assert core.cli.main([_path("views"), "--list"]) == 0
    assert "shares bytes with" in capsys.readouterr().out


def _rewritten(path: str, change) -> bytes:
    """The fixture's zip written again (stored) with ``change(name, data) -> data``."""
    out = io.BytesIO()
    with zipfile.ZipFile(path) as source, zipfile.ZipFile(out, "w", zipfile.ZIP_STORED) as target:
        for info in source.infolist():
            target.writestr(info.filename, change(info.filename, source.read(info.filename)))
    return out.getvalue()


def test_a_big_endian_byteorder_record_gives_big_endian_views(tmp_path):
    names, expected = _expected("views")
    itemsize = {"views/data/0": 2, "views/data/1": 4, "views/data/2": 4}

    def swap(name: str, data: bytes) -> bytes:
        if name == "views/byteorder":
            return b"big"
        if name in itemsize:  # the bytes a big-endian machine's torch.save writes
            return np.frombuffer(data, f"<u{itemsize[name]}").astype(f">u{itemsize[name]}").tobytes()
        return data

    path = tmp_path / "big.pt"
    path.write_bytes(_rewritten(_path("views"), swap))
    listing = list_file(str(path))
    assert listing.metadata["byte order"] == "big"
    for entry in listing.entries:
        assert not entry.little_endian
        got = core.tensor(str(path), entry.name)
        assert got.tolist() == expected[entry.name].tolist(), entry.name


def test_a_wrong_name_lists_the_closest(capsys):
    with pytest.raises(ContainerError, match="closest: 'state_dict/0.weight'"):
        find_entry(list_file(_path("nested")), "state_dict/0.weigth")
