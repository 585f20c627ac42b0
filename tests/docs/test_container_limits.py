"""The checked list of docs/containers.md ("Refused and limited: the checked list"): every line
is checked against the code with a file from the format's own writer, and every check has its
line. A line says ``refused `ID`: ...`` (the code refuses it, with a message) or ``works `ID`:
...`` (it works, exactly)."""

from __future__ import annotations

import re
import struct
import wave
import zipfile
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from core.api import tensor
from core.cli import main
from core.errors import ContainerError
from core.formats.entry import find_entry
from core.formats.registry import list_file
from core.pipeline.pipeline import DecodeParams, Pipeline

DOC = Path(__file__).resolve().parents[2] / "docs" / "containers.md"
_LINE = re.compile(r"^- (refused|works) `([a-z0-9-]+)`: (.+)$")


def documented() -> dict[str, str]:
    text = DOC.read_text(encoding="utf-8")
    block = text.split("<!-- checked-limits: begin -->")[1].split("<!-- checked-limits: end -->")[0]
    lines = [line for line in block.strip().splitlines() if line.strip()]
    found = {}
    for line in lines:
        match = _LINE.match(line)
        assert match, f"a line of the checked list is not '- refused|works `id`: ...': {line!r}"
        found[match.group(2)] = match.group(1)
    return found


def values_of(path, name: str) -> np.ndarray:
    entry = find_entry(list_file(str(path)), name)
    assert entry.problem is None, entry.problem
    with Pipeline(str(path)) as pipeline:
        return np.array(pipeline.run(entry.params()).view)


def problem_of(path, name: str) -> str:
    entry = find_entry(list_file(str(path)), name)
    assert entry.problem is not None, f"{name!r} was expected to be listed as not usable"
    return entry.problem


# ---------------------------------------------------------------------------- the checks
def check_safetensors_f6_f4(tmp: Path) -> None:
    header = b'{"w":{"dtype":"F4","shape":[4],"data_offsets":[0,2]}}'
    path = tmp / "f4.safetensors"
    path.write_bytes(struct.pack("<Q", len(header)) + header + b"\x12\x34")  # the format's own layout
    entry = find_entry(list_file(str(path)), "w")
    assert entry.dtype is None and "F4" in entry.problem
    assert main([str(path), "--tensor", "w", "--dtype", "uint8", "--json"]) == 0


def check_safetensors_f8(tmp: Path) -> None:
    from safetensors.numpy import save_file

    data = {"e4m3": np.array([0.5, -1.75, 448, 0], ml_dtypes.float8_e4m3fn),
            "e5m2": np.array([0.5, -1.75, 57344, 0], ml_dtypes.float8_e5m2)}
    path = tmp / "f8.safetensors"
    save_file(data, str(path))
    for name, expected in data.items():
        got = values_of(path, name)
        assert got.dtype == expected.dtype and got.tobytes() == expected.tobytes()


def check_safetensors_header_past_end(tmp: Path) -> None:
    path = tmp / "cut.safetensors"
    path.write_bytes(struct.pack("<Q", 1000) + b'{"w":')
    with pytest.raises(ContainerError, match="header"):
        list_file(str(path))


def check_wav_pcm24(tmp: Path) -> None:
    samples = np.array([[0, -1], [8388607, -8388608], [12345, -54321]], np.int32)
    path = tmp / "pcm24.wav"
    with wave.open(str(path), "wb") as out:  # Python's own WAV writer
        out.setnchannels(2)
        out.setsampwidth(3)
        out.setframerate(8000)
        out.writeframes(b"".join(int(v).to_bytes(3, "little", signed=True) for v in samples.reshape(-1)))
    got = values_of(path, "samples")
    assert got.shape == (3, 2) and got.tolist() == samples.tolist()


def check_wav_ulaw(tmp: Path) -> None:
    soundfile = pytest.importorskip("soundfile")
    path = tmp / "ulaw.wav"
    soundfile.write(path, np.zeros((8, 1)), 8000, format="WAV", subtype="ULAW")
    assert "format tag 7" in problem_of(path, "samples")


def check_aiff_c_compressed(tmp: Path) -> None:
    soundfile = pytest.importorskip("soundfile")
    path = tmp / "ulaw.aifc"
    soundfile.write(path, np.zeros((8, 1)), 8000, format="AIFF", subtype="ULAW")
    assert "cannot be mapped" in problem_of(path, "samples")


def check_npz_not_npy(tmp: Path) -> None:
    path = tmp / "mixed.npz"
    np.savez(path, a=np.arange(3))
    with zipfile.ZipFile(path, "a") as archive:
        archive.writestr("notes.txt", "not an array")
    assert problem_of(path, "notes.txt")
    assert values_of(path, "a").tolist() == [0, 1, 2]


def check_hdf5_external(tmp: Path) -> None:
    h5py = pytest.importorskip("h5py")
    path = tmp / "external.h5"
    (tmp / "raw.bin").write_bytes(np.arange(4, dtype="<f4").tobytes())
    with h5py.File(path, "w") as out:
        out.create_dataset("e", shape=(4,), dtype="<f4", external=[(str(tmp / "raw.bin"), 0, 16)])
    assert "external" in problem_of(path, "e")


def check_hdf5_not_numeric(tmp: Path) -> None:
    h5py = pytest.importorskip("h5py")
    path = tmp / "strings.h5"
    with h5py.File(path, "w") as out:
        out.create_dataset("s", data=np.array([b"ab", b"cd"], dtype="S2").astype(h5py.string_dtype()))
    assert problem_of(path, "s")


def check_hdf5_compound_records(tmp: Path) -> None:
    h5py = pytest.importorskip("h5py")
    path = tmp / "compound.h5"
    rows = np.array([(1, -0.5), (2, 0.25)], dtype=[("n", "<u2"), ("x", ">f4")])
    with h5py.File(path, "w") as out:
        out.create_dataset("rows", data=rows)
    entry = find_entry(list_file(str(path)), "rows")
    assert (entry.dtype, entry.shape, entry.storage.value) == ("uint8", (2, 6), "view")
    assert values_of(path, "rows").tobytes() == rows.tobytes()  # each record's bytes as a row
    assert main([str(path), "--tensor", "rows", "--field", "x", "--json"]) == 0


def check_hdf5_compound_vlen(tmp: Path) -> None:
    h5py = pytest.importorskip("h5py")
    path = tmp / "vlen.h5"
    rows = np.zeros(2, [("n", "<i4"), ("name", h5py.string_dtype())])
    rows["name"] = ["ab", "c"]
    with h5py.File(path, "w") as out:
        out.create_dataset("rows", data=rows)
    assert "the member 'name' holds objects" in problem_of(path, "rows")


def check_npz_structured_objects(tmp: Path) -> None:
    path = tmp / "objects.npz"
    np.savez(path, rows=np.array([(1, "x")], dtype=[("a", "<i4"), ("o", "O")]))
    assert "Python objects" in problem_of(path, "rows")


KERAS = Path(__file__).resolve().parents[1] / "core" / "formats" / "fixtures" / "keras"


def check_keras_archive_escape(tmp: Path) -> None:
    path = tmp / "escape.keras"
    with zipfile.ZipFile(KERAS / "model.keras") as source, zipfile.ZipFile(path, "w") as target:
        for info in source.infolist():
            target.writestr(info.filename, source.read(info))
        target.writestr("/etc/x", b"boom")  # Keras' writer never names such a member
    with pytest.raises(ContainerError, match="its member '/etc/x' names a path outside the archive"):
        list_file(str(path))
    assert sorted(p.name for p in tmp.iterdir()) == ["escape.keras"]


def check_keras_deflated_weights(tmp: Path) -> None:
    entry = find_entry(list_file(str(KERAS / "deflated.keras")), "layers/dense/bias")
    assert entry.storage.value == "copy" and entry.extras["compressed"] == "deflate"
    with np.load(KERAS / "deflated.keras.expected.npz") as saved:
        want = saved["v8"]  # Keras' own dense/bias after load_model
    got = tensor(KERAS / "deflated.keras", "layers/dense/bias")
    assert got.dtype == want.dtype and got.tobytes() == want.tobytes()


def check_idx_zero_dimension(tmp: Path) -> None:
    path = tmp / "empty.idx"
    path.write_bytes(b"\x00\x00\x08\x02" + struct.pack(">II", 0, 28))
    assert list_file(str(path)) is None


def check_npy_structured(tmp: Path) -> None:
    path = tmp / "s.npy"
    np.save(path, np.zeros(2, [("a", "<u2"), ("b", "u1")]))
    with Pipeline(str(path)) as pipeline:
        with pytest.raises(Exception, match="structured"):
            pipeline.run(DecodeParams())
        assert pipeline.run(DecodeParams(offset=0, dtype="uint8")).view.size == path.stat().st_size


TF_CHECKPOINT = Path(__file__).resolve().parents[1] / "core" / "formats" / "fixtures" / "tf_checkpoint"


def check_tf_checkpoint_string(tmp: Path) -> None:
    problem = problem_of(TF_CHECKPOINT / "objects" / "ckpt-1.index", "_CHECKPOINTABLE_OBJECT_GRAPH")
    assert "string" in problem and "not decoded" in problem


def check_tf_checkpoint_compressed_block(tmp: Path) -> None:
    index = bytearray((TF_CHECKPOINT / "v1" / "model.ckpt.index").read_bytes())
    # the v1 index has one data block from byte 0; its size is in the index block's one handle
    footer = index[-48:]
    index_offset = footer[2]  # one-byte varints: metaindex (offset, size), then the index block's offset
    key_length = index[index_offset + 1]  # index entry: shared 0, key length, value length, key, handle
    data_size = index[index_offset + 3 + key_length + 1]  # the handle: offset 0, then the size
    index[data_size] = 1  # the data block's trailer: compression type 1 (snappy)
    (tmp / "model.ckpt.index").write_bytes(bytes(index))
    listing = list_file(str(tmp / "model.ckpt.index"))
    assert listing.entries == () and "is compressed (type 1)" in listing.problems[0]


ONNX = Path(__file__).resolve().parents[1] / "core" / "formats" / "fixtures" / "onnx"  # written by onnx


def check_onnx_unshown_types(tmp: Path) -> None:
    for model in ("raw.onnx", "typed.onnx"):
        listing = list_file(str(ONNX / model))
        for name, kind in (("f4", "FLOAT4E2M1"), ("words", "STRING")):
            entry = find_entry(listing, name)
            assert entry.dtype is None and entry.stored_type == kind and not entry.readable
        assert main([str(ONNX / model), "--tensor", "f4", "--dtype", "uint8", "--json"]) == 0
    from core.formats.onnx import ONNX_TYPES
    assert {ONNX_TYPES[n][0] for n in (23, 25, 26, 27, 28) if ONNX_TYPES[n][1] is None} == {
        "FLOAT4E2M1", "UINT2", "INT2", "FLOAT6E2M3", "FLOAT6E3M2"}


def check_onnx_float8_int4(tmp: Path) -> None:
    from core.api import tensor

    for model in ("raw.onnx", "typed.onnx"):
        saved = np.load(ONNX / model.replace(".onnx", ".npz"))
        for i, (name, kind) in enumerate(zip(saved["names"], saved["kinds"])):
            if kind.startswith("FLOAT8") or kind in ("FLOAT16", "BFLOAT16", "INT4", "UINT4"):
                got = tensor(str(ONNX / model), str(name))
                bits = (got.astype(saved[f"v{i}"].dtype) if kind.endswith("INT4")
                        else got.view(saved[f"v{i}"].dtype))
                assert bits.tobytes() == saved[f"v{i}"].tobytes(), (model, name)


def check_onnx_external_outside(tmp: Path) -> None:
    folder = tmp / "model"
    folder.mkdir()
    (tmp / "eights.b").write_bytes(bytes(100))
    for location in (b"../eights.b", b"/etc/passwd"):  # as long as b"weights.bin": no length changes
        data = (ONNX / "external" / "model.onnx").read_bytes().replace(b"weights.bin", location)
        (folder / "model.onnx").write_bytes(data)
        assert "which is not inside the model's folder" in problem_of(folder / "model.onnx", "w")


PYTORCH = Path(__file__).resolve().parents[1] / "core" / "formats" / "fixtures"


def check_pytorch_legacy(tmp: Path) -> None:
    with pytest.raises(ContainerError, match="legacy format \\(before PyTorch 1.6"):
        list_file(str(PYTORCH / "pytorch" / "legacy.pt"))  # torch.save(..., _use_new_zipfile_serialization=False)


def check_pytorch_pt2_pickled(tmp: Path) -> None:
    config_name = "module/data/weights/model_weights_config.json"
    path = tmp / "subclass.pt2"
    with zipfile.ZipFile(PYTORCH / "pytorch_export" / "module.pt2") as source, \
            zipfile.ZipFile(path, "w", zipfile.ZIP_STORED) as target:
        for info in source.infolist():
            data = source.read(info)
            if info.filename == config_name:  # what torch.export.save writes for a tensor subclass
                data = data.replace(b'"path_name": "weight_2", "is_param": true, "use_pickle": false',
                                    b'"path_name": "weight_2", "is_param": true, "use_pickle": true')
            target.writestr(info.filename, data)
    assert "torch.export pickled it (a tensor subclass)" in problem_of(path, "lin.bias")
    assert values_of(path, "constants/offsets").tolist() == [7, -8]


def _zarr_v2_array(folder: Path, doc: dict, chunks: dict[str, bytes]) -> Path:
    import json

    folder.mkdir(parents=True)
    (folder / ".zarray").write_text(json.dumps({"zarr_format": 2, "order": "C", "filters": None, "fill_value": 0,
                                                **doc}))
    for key, data in chunks.items():
        (folder / key).write_bytes(data)
    return folder / ".zarray"


def check_zarr_one_chunk_view(tmp: Path) -> None:
    zarr = pytest.importorskip("zarr")
    from core.formats.entry import Storage
    from core.formats.registry import container_path

    store = tmp / "s.zarr"
    root = zarr.open_group(str(store), mode="w", zarr_format=2)
    root.create_array("one", shape=(2, 3), chunks=(2, 3), dtype=">i4", compressors=None)[...] = [[1, 2, 3], [4, 5, 6]]
    root.create_array("two", shape=(4,), chunks=(2,), dtype="<i4", compressors=None)[...] = [1, 2, 3, 4]
    entries = {e.name: e for e in list_file(container_path(str(store))).entries}
    assert entries["one"].storage is Storage.VIEW and entries["one"].file == "one/0.0"
    assert entries["two"].storage is Storage.COPY and entries["two"].readable


def check_zarr_object_dtype(tmp: Path) -> None:
    path = _zarr_v2_array(tmp / "o.zarr", {"shape": [2], "chunks": [2], "dtype": "|O", "compressor": None,
                                           "filters": [{"id": "pickle"}]}, {"0": b"\x80\x04N."})
    assert "it is an object array" in problem_of(path, "/")


def check_zarr_sharded(tmp: Path) -> None:
    import json

    folder = tmp / "sh.zarr"
    folder.mkdir()
    (folder / "zarr.json").write_text(json.dumps({
        "zarr_format": 3, "node_type": "array", "shape": [4], "data_type": "uint8",
        "chunk_grid": {"name": "regular", "configuration": {"chunk_shape": [4]}},
        "chunk_key_encoding": {"name": "default"}, "fill_value": 0,
        "codecs": [{"name": "sharding_indexed", "configuration": {"chunk_shape": [2], "codecs": [{"name": "bytes"}]}}]}))
    assert "it is sharded (sharding_indexed): not read yet" in problem_of(folder / "zarr.json", "/")


def check_zarr_decompression_bomb(tmp: Path) -> None:
    import zlib

    pytest.importorskip("zarr")  # a copy is read by zarr: without it, the install message comes first

    path = _zarr_v2_array(tmp / "b.zarr", {"shape": [4], "chunks": [4], "dtype": "|u1", "compressor": {"id": "zlib"}},
                          {"0": zlib.compress(b"\x00" * (16 << 20))})
    with pytest.raises(ContainerError, match="decodes to more than 65,600 bytes"):
        tensor(str(path), "/")


CHECKS = {
    "safetensors-f6-f4": ("refused", check_safetensors_f6_f4),
    "safetensors-f8": ("works", check_safetensors_f8),
    "safetensors-header-past-end": ("refused", check_safetensors_header_past_end),
    "wav-pcm24": ("works", check_wav_pcm24),
    "wav-ulaw": ("refused", check_wav_ulaw),
    "aiff-c-compressed": ("refused", check_aiff_c_compressed),
    "npz-not-npy": ("refused", check_npz_not_npy),
    "hdf5-external": ("refused", check_hdf5_external),
    "hdf5-not-numeric": ("refused", check_hdf5_not_numeric),
    "hdf5-compound-records": ("works", check_hdf5_compound_records),
    "hdf5-compound-vlen": ("refused", check_hdf5_compound_vlen),
    "npz-structured-objects": ("refused", check_npz_structured_objects),
    "keras-archive-escape": ("refused", check_keras_archive_escape),
    "keras-deflated-weights": ("works", check_keras_deflated_weights),
    "idx-zero-dimension": ("refused", check_idx_zero_dimension),
    "npy-structured": ("refused", check_npy_structured),
    "pytorch-legacy": ("refused", check_pytorch_legacy),
    "pytorch-pt2-pickled": ("refused", check_pytorch_pt2_pickled),
    "tf-checkpoint-string": ("refused", check_tf_checkpoint_string),
    "tf-checkpoint-compressed-block": ("refused", check_tf_checkpoint_compressed_block),
    "onnx-unshown-types": ("refused", check_onnx_unshown_types),
    "onnx-float8-int4": ("works", check_onnx_float8_int4),
    "onnx-external-outside": ("refused", check_onnx_external_outside),
    "zarr-one-chunk-view": ("works", check_zarr_one_chunk_view),
    "zarr-object-dtype": ("refused", check_zarr_object_dtype),
    "zarr-sharded": ("refused", check_zarr_sharded),
    "zarr-decompression-bomb": ("refused", check_zarr_decompression_bomb),
}


def test_every_line_has_a_check_and_every_check_a_line():
    assert documented() == {name: kind for name, (kind, _check) in CHECKS.items()}


@pytest.mark.parametrize("name", sorted(CHECKS))
def test_the_documented_statement_holds(name, tmp_path, capsys):
    CHECKS[name][1](tmp_path)


def test_the_page_no_longer_says_f8_or_24_bit_pcm_cannot_be_decoded():
    text = DOC.read_text(encoding="utf-8")
    assert "F8_E4M3, F8_E5M2, F8_E8M0, F6_..., F4) have no engine type" not in text
    assert "24-bit PCM** needs a 3-byte integer type that the engine does not have yet" not in text
