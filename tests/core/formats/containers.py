"""Every container the format tests write, built with each format's own writer, with the values
the format's own reader gives (numpy, safetensors, h5py, gguf, protobuf, scipy, soundfile,
idx2numpy, onnx: committed files it wrote; torch's and Keras', saved beside their fixtures; zarr): ``build_all(folder) -> [Container]``.

Shared by ``tests/core/formats/test_every_entry.py`` (the command's ``--tensor``) and
``tests/inspector/panels/test_every_entry_in_the_dock.py`` (the Tensors dock); both load it by
path (the test folders are not packages). The writers of the per-format tests are reused by
loading their modules the same way.
"""

from __future__ import annotations

import importlib.util
import struct
import sys
from dataclasses import dataclass, field
from pathlib import Path

import ml_dtypes
import numpy as np

HERE = Path(__file__).resolve().parent


def load_test_module(name: str):
    """A sibling test module (its writers), loaded by path."""
    spec = importlib.util.spec_from_file_location(f"formats_{name}", HERE / f"{name}.py")
    module = sys.modules.setdefault(spec.name, importlib.util.module_from_spec(spec))
    spec.loader.exec_module(module)
    return module


@dataclass
class Container:
    """One written container: its path, its format, and the reader's values of its entries,
    by name (the rule for a Fortran-order npz member: the C-order reading of its bytes)."""

    path: str
    format: str
    expected: dict[str, np.ndarray] = field(default_factory=dict)


def safetensors_file(folder: Path) -> Container:
    from safetensors.numpy import load_file, save_file

    path = folder / "model.safetensors"
    save_file({"w": np.arange(6, dtype=np.float32).reshape(2, 3) / 3, "ids": np.array([1, -2, 300], np.int64),
               "h": np.array([0.5, -2.0], np.float16), "flags": np.array([True, False, True])}, str(path))
    return Container(str(path), "safetensors", dict(load_file(str(path))))


def npz_file(folder: Path) -> Container:
    path = folder / "stored.npz"
    np.savez(path, a=np.arange(6, dtype=">i2").reshape(2, 3),
             f=np.asfortranarray(np.arange(6, dtype="<f8").reshape(2, 3)))
    with np.load(path) as loaded:
        expected = {"a": loaded["a"], "f": loaded["f"].T}  # listed transposed (docs/containers.md)
    return Container(str(path), "npz", expected)


def compressed_npz_file(folder: Path) -> Container:
    path = folder / "compressed.npz"
    np.savez_compressed(path, a=np.arange(12, dtype="<f4").reshape(3, 4), b=np.array([1, -2], ">i2"))
    with np.load(path) as loaded:
        expected = {name: loaded[name] for name in ("a", "b")}
    return Container(str(path), "npz", expected)


def tflite_file(folder: Path) -> Container:
    tflite = load_test_module("test_tflite")
    path = folder / "model.tflite"
    path.write_bytes(tflite.build_model(tflite.TENSORS, tflite.BUFFERS, tflite.OPERATORS,
                                        opcodes=[tflite.FULLY_CONNECTED, tflite.CONV_2D]))
    model = tflite.S["Model"].Model.GetRootAs(path.read_bytes(), 0)  # the schema's own reader
    graph = model.Subgraphs(0)
    expected = {}
    dtypes = {0: np.float32, 2: np.int32, 3: np.uint8, 9: np.int8}
    for i in range(graph.TensorsLength()):
        tensor = graph.Tensors(i)
        data = model.Buffers(tensor.Buffer()).DataAsNumpy()
        if isinstance(data, np.ndarray) and data.size:
            q = data.view(dtypes[tensor.Type()]).reshape(tensor.ShapeAsNumpy())
            expected[tensor.Name().decode()] = q
            quant = tensor.Quantization()
            if quant is not None and quant.ScaleLength():  # its dequantized entry, from the schema's values
                shape = [1] * q.ndim
                if quant.ScaleLength() > 1:
                    shape[quant.QuantizedDimension()] = quant.ScaleLength()
                scale = quant.ScaleAsNumpy().astype(np.float64).reshape(shape)
                zero = quant.ZeroPointAsNumpy().astype(np.float64).reshape(shape)
                expected[tensor.Name().decode() + " (dequantized)"] = (scale * (q - zero)).astype(np.float32)
    return Container(str(path), "tflite", expected)


def gguf_file(folder: Path) -> Container:
    import gguf

    path = load_test_module("test_gguf").write_gguf(folder / "model.gguf")
    expected = {}
    for tensor in gguf.GGUFReader(path).tensors:  # llama.cpp's reader and dequantizer
        block, _ = gguf.GGML_QUANT_SIZES[tensor.tensor_type]
        if tensor.tensor_type == gguf.GGMLQuantizationType.BF16:  # the reader gives its uint16 words
            values = np.asarray(tensor.data).view(ml_dtypes.bfloat16)
        elif block > 1:
            values = gguf.quants.dequantize(tensor.data, tensor.tensor_type)
        else:
            values = np.asarray(tensor.data)
        expected[tensor.name] = values.reshape(tuple(int(d) for d in reversed(tensor.shape)))
    return Container(path, "gguf", expected)


def tfrecord_file(folder: Path) -> Container:
    tfrecord = load_test_module("test_tfrecord")
    records = [tfrecord.example(image_raw=bytes([i, 2 * i, 3 * i]), label=[i, -i, 300 * i], x=[0.5 * i, -2.0])
               for i in range(3)]
    path = tfrecord.write(folder / "train.tfrecord", *records)
    parsed, data, pos = [], Path(path).read_bytes(), 0
    while pos < len(data):  # the framing, then protobuf's own parser
        (length,) = struct.unpack_from("<Q", data, pos)
        parsed.append(tfrecord.Example.FromString(data[pos + 12:pos + 12 + length]))
        pos += 12 + length + 4
    feature = [example.features.feature for example in parsed]
    return Container(path, "tfrecord", {
        "image_raw": np.array([list(f["image_raw"].bytes_list.value[0]) for f in feature], np.uint8),
        "label": np.array([list(f["label"].int64_list.value) for f in feature], np.int64),
        "x": np.array([list(f["x"].float_list.value) for f in feature], np.float32)})


def wav_file(folder: Path) -> Container:
    from scipy.io import wavfile

    path = folder / "speech.wav"
    wavfile.write(path, 8000, (np.arange(20, dtype=np.int16).reshape(10, 2) - 7) * 1000)
    return Container(str(path), "wav", {"samples": wavfile.read(path)[1]})


def aiff_file(folder: Path) -> Container:
    import soundfile

    path = folder / "speech.aiff"
    soundfile.write(path, np.linspace(-0.5, 0.5, 16).reshape(8, 2), 8000, format="AIFF", subtype="PCM_16")
    return Container(str(path), "aiff", {"samples": soundfile.read(path, dtype="int16")[0]})


def hdf5_file(folder: Path) -> Container:
    import h5py

    path = folder / "data.h5"
    with h5py.File(path, "w") as out:
        out.create_dataset("contiguous", data=np.arange(6, dtype=">f8").reshape(2, 3))
        out.create_dataset("group/chunked", data=np.arange(40, dtype="<i4").reshape(4, 10), chunks=(1, 10),
                           compression="gzip")
        out.create_dataset("compact", data=np.array([3, 1, 4, 1, 5], np.int16),
                           dcpl=_compact_plist(h5py))
    with h5py.File(path, "r") as handle:
        expected = {name: handle[name][()] for name in ("contiguous", "group/chunked", "compact")}
    return Container(str(path), "hdf5", expected)


def _compact_plist(h5py):
    plist = h5py.h5p.create(h5py.h5p.DATASET_CREATE)
    plist.set_layout(h5py.h5d.COMPACT)
    return plist


def idx_file(folder: Path) -> Container:
    import idx2numpy

    path = folder / "train-images-idx3-ubyte"
    idx2numpy.convert_to_file(str(path), np.arange(2 * 3 * 4, dtype=np.uint8).reshape(2, 3, 4))
    return Container(str(path), "idx", {"data": idx2numpy.convert_from_file(str(path))})


def _onnx_fixture(folder: Path, *names: str) -> Container:
    """Committed models written by onnx (fixtures/onnx/make_fixtures.py), copied into ``folder``
    with their expectations (``onnx.numpy_helper.to_array``); the first name is the model."""
    import shutil

    source = HERE / "fixtures" / "onnx"
    for name in names:
        shutil.copyfile(source / name, folder / Path(name).name)
    model = source / names[0]
    with np.load(model.with_suffix(".npz")) as saved:
        expected = {str(n): saved[f"v{i}"] for i, n in enumerate(saved["names"])}
    return Container(str(folder / model.name), "onnx", expected)


def onnx_file(folder: Path) -> Container:
    """An If node's subgraphs: an int32_data copy, raw_data views, a BOOL copy."""
    return _onnx_fixture(folder, "subgraph.onnx")


def onnx_external_file(folder: Path) -> Container:
    """A model whose tensors are views of its sibling weights.bin (external data)."""
    return _onnx_fixture(folder, "external/model.onnx", "external/weights.bin")


def pytorch_file(folder: Path) -> Container:
    """The strided views written by torch.save (fixtures/pytorch, PyTorch 2.13.0: the suite never
    imports torch), with the values torch.load gave, saved beside them."""
    import shutil

    path = folder / "views.pt"
    shutil.copyfile(HERE / "fixtures" / "pytorch" / "views.pt", path)
    with np.load(HERE / "fixtures" / "pytorch" / "views.expected.npz") as saved:
        expected = {str(name): saved[f"v{i}"] for i, name in enumerate(saved["names"])}
    return Container(str(path), "pytorch", expected)


#: A .keras archive's weights by the listing's name -> their index in Keras' get_weights().
_KERAS_NAMES = ("layers/conv2d/kernel", "layers/conv2d/bias", "layers/batch_normalization/gamma",
                "layers/batch_normalization/beta", "layers/batch_normalization/moving_mean",
                "layers/batch_normalization/moving_variance", "layers/embedding/embeddings",
                "layers/dense/kernel", "layers/dense/bias", "layers/sequential/layers/dense/kernel",
                "layers/sequential/layers/dense/bias", "layers/sequential/layers/dense_1/kernel")


def _keras_fixture(folder: Path, name: str) -> Container:
    """A .keras archive written by Keras 3.15.1 (fixtures/keras), with the values Keras' own
    load_model gave, saved beside it; the optimizer's variables as h5py (Keras' reader of
    them) reads them from the weights member."""
    import io
    import shutil
    import zipfile

    import h5py

    path = folder / name
    shutil.copyfile(HERE / "fixtures" / "keras" / name, path)
    with np.load(HERE / "fixtures" / "keras" / f"{name}.expected.npz") as saved:
        expected = {key: saved[f"v{i}"] for i, key in enumerate(_KERAS_NAMES)}
    with zipfile.ZipFile(path) as archive, \
            h5py.File(io.BytesIO(archive.read("model.weights.h5")), "r") as weights:
        expected.update({f"optimizer/vars/{i}": weights[f"optimizer/vars/{i}"][()]
                         for i in range(len(weights["optimizer/vars"]))})
    return Container(str(path), "keras", expected)


def keras_file(folder: Path) -> Container:
    """Keras' own .keras archive: its weights member stored, every weight a view."""
    return _keras_fixture(folder, "model.keras")


def keras_deflated_file(folder: Path) -> Container:
    """The same members re-zipped deflated: every weight a copy from the decompressed member."""
    return _keras_fixture(folder, "deflated.keras")


def _zarr_values(folder: Path) -> dict[str, np.ndarray]:
    """Every array of the store as zarr reads it, by path."""
    import zarr

    found: dict[str, np.ndarray] = {}

    def walk(group, prefix: str) -> None:
        for name, child in group.members():
            if isinstance(child, zarr.Array):
                found[prefix + name] = np.asarray(child[...])
            else:
                walk(child, f"{prefix}{name}/")

    walk(zarr.open_group(str(folder), mode="r"), "")
    return found


def zarr_v2_store(folder: Path) -> Container:
    """A consolidated Zarr v2 group written by zarr (its .zmetadata): a one-chunk array (a
    view of its chunk file), a compressed one and a chunked one (copies read by zarr)."""
    import zarr

    path = folder / "v2.zarr"
    root = zarr.open_group(str(path), mode="w", zarr_format=2)
    root.create_array("raw", shape=(2, 3), chunks=(2, 3), dtype=">i2", compressors=None)[...] = [[1, -2, 3], [4, 5, -6]]
    root.create_array("deep/blosc", shape=(5, 7), chunks=(2, 3), dtype="<f4")[...] = \
        np.arange(35, dtype="<f4").reshape(5, 7) / 4
    root.create_array("chunked", shape=(10,), chunks=(4,), dtype="<u2", compressors=None)[...] = np.arange(10) * 7
    zarr.consolidate_metadata(str(path))
    return Container(str(path / ".zmetadata"), "zarr", _zarr_values(path))


def zarr_v3_store(folder: Path) -> Container:
    """A Zarr v3 group written by zarr (its zarr.json; not consolidated: its folders are walked)."""
    import zarr

    path = folder / "v3.zarr"
    root = zarr.open_group(str(path), mode="w", zarr_format=3)
    root.create_array("a/edge", shape=(3, 5), chunks=(4, 8), dtype="float64", compressors=None)[...] = \
        np.arange(15.0).reshape(3, 5)
    root.create_array("zstd", shape=(40,), chunks=(10,), dtype="int32")[:25] = np.arange(25) - 9
    return Container(str(path / "zarr.json"), "zarr", _zarr_values(path))


BUILDERS = (safetensors_file, npz_file, compressed_npz_file, tflite_file, gguf_file, tfrecord_file,
            wav_file, aiff_file, hdf5_file, idx_file, onnx_file, onnx_external_file, pytorch_file,
            keras_file, keras_deflated_file)
if importlib.util.find_spec("zarr") is not None:  # the optional [zarr] extra (zarr 3)
    BUILDERS += (zarr_v2_store, zarr_v3_store)


def build_all(folder: Path) -> list[Container]:
    """Every container above, written into ``folder``."""
    return [build(folder) for build in BUILDERS]
