"""Keras weights written by Keras itself (fixtures/keras/make_fixtures.py: Keras 3.15.1 and
tf_keras 2.21.0): ``.weights.h5``, legacy ``.h5`` and ``.keras`` archives listed by Keras' names,
every weight read back bit-exactly as Keras reads it (``get_weights()`` after loading the file);
damaged archives and files refused with a message naming the file and the problem."""

from __future__ import annotations

import json
import os
import shutil
import struct
import zipfile

import numpy as np
import pytest

import core
import core.cli
from core.errors import ContainerError
from core.files.sources import open_source
from core.formats.entry import Storage
from core.formats.reader import HeaderReader
from core.formats.registry import detect_format, list_file

pytest.importorskip("h5py")  # the hdf5 extra; the Keras formats need it

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "keras")

#: Keras 3 weights: the listing's name -> the index of the weight in get_weights() (hand-checked
#: against the HDF5 tree make_fixtures.py prints and the writer's variable paths).
WEIGHTS_H5 = {
    "layers/conv2d/vars/0": 0, "layers/conv2d/vars/1": 1,
    "layers/batch_normalization/vars/0": 2, "layers/batch_normalization/vars/1": 3,
    "layers/batch_normalization/vars/2": 4, "layers/batch_normalization/vars/3": 5,
    "layers/embedding/vars/0": 6, "layers/dense/vars/0": 7, "layers/dense/vars/1": 8,
    "layers/sequential/layers/dense/vars/0": 9, "layers/sequential/layers/dense/vars/1": 10,
    "layers/sequential/layers/dense_1/vars/0": 11,
}
#: The same weights in a .keras archive: config.json names their variables.
ARCHIVE = {
    "layers/conv2d/kernel": 0, "layers/conv2d/bias": 1,
    "layers/batch_normalization/gamma": 2, "layers/batch_normalization/beta": 3,
    "layers/batch_normalization/moving_mean": 4, "layers/batch_normalization/moving_variance": 5,
    "layers/embedding/embeddings": 6, "layers/dense/kernel": 7, "layers/dense/bias": 8,
    "layers/sequential/layers/dense/kernel": 9, "layers/sequential/layers/dense/bias": 10,
    "layers/sequential/layers/dense_1/kernel": 11,
}


def _expected(name: str) -> tuple[list[str], list[np.ndarray]]:
    with np.load(os.path.join(HERE, name + ".expected.npz")) as saved:
        names = [str(n) for n in saved["names"]]
        return names, [saved[f"v{i}"] for i in range(len(names))]


def _same(got: np.ndarray, want: np.ndarray) -> bool:
    """Bit-exact, NaN-aware (the fixtures hold a NaN, a -0.0 and an inf)."""
    return got.shape == want.shape and got.dtype == want.dtype and \
        got.tobytes() == np.ascontiguousarray(want).tobytes()


@pytest.mark.parametrize("fixture, names", [
    ("model.weights.h5", WEIGHTS_H5), ("model.keras", ARCHIVE), ("deflated.keras", ARCHIVE),
    ("legacy_k3.h5", None), ("legacy_tfk.h5", None), ("legacy_tfk_weights.h5", None),
])
def test_every_weight_reads_back_as_keras_reads_it(fixture, names):
    path = os.path.join(HERE, fixture)
    keras_names, weights = _expected(fixture)
    listing = list_file(path)
    assert listing.format == "keras"
    listed = [e.name for e in listing.entries]
    if names is None:  # legacy: the weight names, in layer_names / weight_names order
        names = {name: i for i, name in enumerate(listed[:12])}
        if fixture == "legacy_tfk_weights.h5":  # loaded into a fresh model: Keras renumbered it
            keras_names = [n.replace("conv2d_1", "conv2d").replace("normalization_1", "normalization")
                           .replace("embedding_1", "embedding").replace("dense_3", "dense")
                           .replace("dense_4", "dense_1").replace("dense_5", "dense_2") for n in keras_names]
        assert listed[:12] == keras_names
    for name, index in names.items():
        assert _same(core.tensor(path, name), weights[index]), (fixture, name)
    assert len(names) == 12
    assert np.isnan(weights[1][0]) and np.signbit(weights[1][1]) and np.isinf(weights[11][0, 0])


def test_the_legacy_names_are_keras_weight_names():
    assert [e.name for e in list_file(os.path.join(HERE, "legacy_k3.h5")).entries][9:13] == [
        "head/dense_1/kernel", "head/dense_1/bias", "head/dense_2/kernel", "optimizer_weights/adam/iteration"]
    assert [e.name for e in list_file(os.path.join(HERE, "legacy_tfk.h5")).entries][9:14] == [
        "dense_1/kernel:0", "dense_1/bias:0", "dense_2/kernel:0", "optimizer_weights/iteration:0",
        "optimizer_weights/Adam/m/conv2d/kernel:0"]
    entry = {e.name: e for e in list_file(os.path.join(HERE, "legacy_tfk.h5")).entries}["dense_1/kernel:0"]
    assert entry.extras["dataset"] == "model_weights/head/dense_1/kernel:0"
    assert core.tensor(os.path.join(HERE, "legacy_tfk.h5"), "optimizer_weights/iteration:0").item() == 1


def test_metadata_names_the_keras_version_and_backend():
    assert list_file(os.path.join(HERE, "legacy_tfk.h5")).metadata == {
        "backend": "tensorflow", "keras_version": "2.21.0",
        "layout": "legacy Keras HDF5 (model_weights/<layer>/<weight name>)"}
    weights = list_file(os.path.join(HERE, "legacy_tfk_weights.h5")).metadata
    assert (weights["keras_version"], weights["layout"]) == ("2.21.0", "legacy Keras HDF5 (<layer>/<weight name>)")
    archive = list_file(os.path.join(HERE, "model.keras")).metadata
    assert (archive["keras_version"], archive["model"], archive["archive"]) == ("3.15.1", "Functional", "Keras (.keras)")
    assert list_file(os.path.join(HERE, "legacy_k3.h5")).metadata["keras_version"] == "3.15.1"


def test_keras3_weights_keep_layer_paths_and_say_each_layers_own_name():
    listing = list_file(os.path.join(HERE, "model.weights.h5"))
    entries = {e.name: e for e in listing.entries}
    assert len(entries) == 12 + 22  # the model's 12 and the optimizer's 22 (Adam: 2 + 2 x 10)
    nested = entries["layers/sequential/layers/dense_1/vars/0"]
    assert (nested.extras["object"], nested.shape, nested.storage) == ("dense_2", (3, 2), Storage.VIEW)
    assert [e.name for e in listing.entries][12:15] == ["optimizer/vars/0", "optimizer/vars/1", "optimizer/vars/2"]
    assert core.tensor(os.path.join(HERE, "model.weights.h5"), "optimizer/vars/0").item() == 1  # iterations
    assert core.tensor(os.path.join(HERE, "model.weights.h5"), "optimizer/vars/1").item() == np.float32(0.01)


def test_a_stored_weights_member_is_read_in_place_a_deflated_one_is_a_copy():
    path = os.path.join(HERE, "model.keras")
    with zipfile.ZipFile(path) as zf:
        info = zf.getinfo("model.weights.h5")
        assert info.compress_type == zipfile.ZIP_STORED
    kernel = {e.name: e for e in list_file(path).entries}["layers/dense/kernel"]
    assert kernel.storage is Storage.VIEW and kernel.file is None
    start = kernel.extras["member offset"]
    assert start > info.header_offset and start + info.file_size <= os.path.getsize(path)
    assert start <= kernel.offset and kernel.offset + kernel.nbytes <= start + info.file_size
    with open(path, "rb") as raw:  # the view's bytes are the weight's, in the .keras file itself
        raw.seek(kernel.offset)
        assert raw.read(kernel.nbytes) == _expected("model.keras")[1][7].tobytes()
    deflated = {e.name: e for e in list_file(os.path.join(HERE, "deflated.keras")).entries}["layers/dense/kernel"]
    assert deflated.storage is Storage.COPY and deflated.extras["compressed"] == "deflate"


def _rezip(tmp_path, name: str, change) -> str:
    """model.keras's members re-zipped with ``change(name, data) -> [(name, data)]``."""
    out = tmp_path / name
    with zipfile.ZipFile(os.path.join(HERE, "model.keras")) as source, \
            zipfile.ZipFile(out, "w") as target:
        for info in source.infolist():
            for member, data in change(info.filename, source.read(info)):
                target.writestr(member, data)
    return str(out)


def test_variables_are_named_only_where_the_config_fixes_them(tmp_path):
    def config_says_no_bias(member, data):
        if member == "config.json":
            config = json.loads(data)
            for layer in config["config"]["layers"]:
                if layer["config"]["name"] == "dense":
                    layer["config"]["use_bias"] = False  # but the weights file has two variables
            data = json.dumps(config).encode()
        return [(member, data)]

    names = [e.name for e in list_file(_rezip(tmp_path, "m.keras", config_says_no_bias)).entries]
    assert "layers/dense/vars/0" in names and "layers/dense/vars/1" in names
    assert "layers/dense/kernel" not in names and "layers/conv2d/kernel" in names
    no_config = _rezip(tmp_path, "bare.keras", lambda m, d: [] if m == "config.json" else [(m, d)])
    assert [e.name for e in list_file(no_config).entries][:2] == [
        "layers/batch_normalization/vars/0", "layers/batch_normalization/vars/1"]


def test_an_archive_without_its_weights_member_is_refused(tmp_path):
    path = _rezip(tmp_path, "empty.keras", lambda m, d: [] if m == "model.weights.h5" else [(m, d)])
    with pytest.raises(ContainerError) as caught:
        list_file(path)
    assert caught.value.message == (
        f"the keras file '{path}': it has no model.weights.h5 member, so no weights (its members: "
        "metadata.json, config.json) (save the model again with model.save('x.keras'))")


def test_an_archive_member_escaping_the_archive_is_refused(tmp_path):
    path = _rezip(tmp_path, "escape.keras", lambda m, d: [(m, d)] + ([("../x", b"boom")] if m == "config.json" else []))
    with pytest.raises(ContainerError) as caught:
        list_file(path)
    assert caught.value.message == (
        f"the keras file '{path}': its member '../x' names a path outside the archive (absolute "
        "or with '..'): Keras archives never do (the file is hand-made or hostile; nothing was "
        "extracted)")
    assert not (tmp_path.parent / "x").exists() and sorted(os.listdir(tmp_path)) == ["escape.keras"]


def test_a_truncated_weights_file_is_refused(tmp_path):
    path = tmp_path / "cut.weights.h5"
    data = open(os.path.join(HERE, "model.weights.h5"), "rb").read()
    path.write_bytes(data[: len(data) // 2])
    with pytest.raises(ContainerError) as caught:
        list_file(str(path))
    message = caught.value.message
    assert message.startswith(f"the keras file '{path}': the HDF5 library cannot open it (")
    assert "truncated" in message and message.endswith("(the file is truncated or corrupt)")


def test_a_truncated_archive_is_refused(tmp_path):
    path = tmp_path / "cut.keras"
    data = open(os.path.join(HERE, "model.keras"), "rb").read()
    path.write_bytes(data[:20_000])
    with pytest.raises(ContainerError) as caught:
        list_file(str(path))
    assert caught.value.message.startswith(f"the keras file '{path}': its zip directory cannot be read (")


def test_sniffing_claims_keras_files_only(tmp_path):
    import h5py
    plain = tmp_path / "plain.h5"
    with h5py.File(plain, "w") as out:
        out["x"] = np.arange(3)
    other_zip = tmp_path / "a.zip"
    with zipfile.ZipFile(other_zip, "w") as out:
        out.writestr("readme.txt", "hi")
    found = {}
    for path in (plain, other_zip, *(os.path.join(HERE, f) for f in sorted(os.listdir(HERE))
                                      if f.endswith((".h5", ".keras")))):
        with open_source(str(path)) as source:
            hit = detect_format(HeaderReader(source, 0))
        found[os.path.basename(path)] = hit.name if hit else None
    assert found == {"plain.h5": "hdf5", "a.zip": None, "deflated.keras": "keras", "legacy_k3.h5": "keras",
                     "legacy_tfk.h5": "keras", "legacy_tfk_weights.h5": "keras", "model.keras": "keras",
                     "model.weights.h5": "keras"}
    assert list_file(str(plain)).format == "hdf5"


# ---------------------------------------------------------------------- the command
@pytest.mark.parametrize("fixture, name, storage", [
    ("model.weights.h5", "layers/sequential/layers/dense/vars/1", "view"),
    ("model.keras", "layers/sequential/layers/dense/bias", "view"),
    ("deflated.keras", "layers/sequential/layers/dense/bias", "copy"),
    ("legacy_tfk.h5", "dense_1/bias:0", "view"),
])
def test_the_command_lists_and_prints_each_kind(fixture, name, storage, capsys):
    path = os.path.join(HERE, fixture)
    assert core.cli.main([path, "--list", "--json"]) == 0
    tensors = {t["name"]: t for t in json.loads(capsys.readouterr().out)["tensors"]}
    assert (tensors[name]["shape"], tensors[name]["storage"], tensors[name]["dtype"]) == ([3], storage, "float32")
    assert core.cli.main([path, "--list"]) == 0
    assert name in capsys.readouterr().out
    want = _expected(fixture)[1][10]
    assert core.cli.main([path, "--tensor", name, "--json"]) == 0
    out, err = capsys.readouterr()
    assert np.array(json.loads(out)["values"], np.float32).tobytes() == want.tobytes()  # shortest repr: exact
    assert ("values from the decompressed member, a copy of 12 bytes" in err) == (storage == "copy")


def test_a_dataset_said_to_lie_past_the_weights_member_stops_the_walk_with_a_problem(tmp_path):
    kernel = {e.name: e for e in list_file(os.path.join(HERE, "model.keras")).entries}["layers/dense/kernel"]
    at = kernel.offset - kernel.extras["member offset"]  # 27460: the kernel's offset in the member

    def far_kernel(member, data):
        if member == "model.weights.h5":
            assert data.count(struct.pack("<Q", at)) == 1  # the layout message's address
            data = data.replace(struct.pack("<Q", at), struct.pack("<Q", len(data) - 100))
        return [(member, data)]

    listing = list_file(_rezip(tmp_path, "far.keras", far_kernel))
    assert listing.problems == ("keras: the walk through the weights member stopped ('Unable to "
                                "synchronously open object (invalid dataset size, likely file "
                                "corruption)')",)
    assert [e.name for e in listing.entries] == list(ARCHIVE)[2:6] + list(ARCHIVE)[:2]  # the HDF5 order up to it
    assert all(e.readable for e in listing.entries)


def test_numbers_other_than_the_configs_variables_keep_their_paths(tmp_path):
    import h5py

    def renumbered(member, data):
        if member == "model.weights.h5":
            weights = tmp_path / "w.h5"
            weights.write_bytes(data)
            with h5py.File(weights, "r+") as out:
                out.move("layers/dense/vars/1", "layers/dense/vars/5")  # two variables, not 0 and 1
            data = weights.read_bytes()
        return [(member, data)]

    entries = {e.name: e for e in list_file(_rezip(tmp_path, "gap.keras", renumbered)).entries}
    assert "layers/dense/vars/0" in entries and "layers/dense/vars/5" in entries
    assert "layers/dense/kernel" not in entries and "layers/conv2d/kernel" in entries
    optimizer = entries["optimizer/vars/0"]  # the optimizer's vars group: never a layer's config
    assert optimizer.extras["object"] == "adam" and "class" not in optimizer.extras


def test_a_chunked_weight_in_a_stored_member_is_read_by_h5py_in_place(tmp_path, capsys):
    import h5py

    def chunked(member, data):
        if member == "model.weights.h5":
            weights = tmp_path / "w.h5"
            weights.write_bytes(data)
            with h5py.File(weights, "r+") as out:
                values = out["layers/dense/vars/0"][()]
                del out["layers/dense/vars/0"]
                out.create_dataset("layers/dense/vars/0", data=values, chunks=(11, 4), compression="gzip")
            data = weights.read_bytes()
        return [(member, data)]

    path = _rezip(tmp_path, "chunked.keras", chunked)
    entry = {e.name: e for e in list_file(path).entries}["layers/dense/kernel"]
    assert entry.storage is Storage.COPY and entry.extras["chunks"] == (11, 4)
    assert _same(core.tensor(path, "layers/dense/kernel"), _expected("model.keras")[1][7])
    assert core.cli.main([path, "--tensor", "layers/dense/kernel", "--limit", "1"]) == 0
    assert capsys.readouterr().err.startswith(
        "note: 'layers/dense/kernel' is not one byte range of the model.weights.h5 member: these are "
        "its values as h5py reads them, a copy of 528 bytes in memory")


def test_a_chunked_legacy_weight_is_read_by_its_dataset_path(tmp_path, capsys):
    import h5py

    path = tmp_path / "chunked.h5"
    shutil.copyfile(os.path.join(HERE, "legacy_tfk.h5"), path)
    with h5py.File(path, "r+") as out:
        where = "model_weights/dense/dense/kernel:0"
        values = out[where][()]
        del out[where]
        out.create_dataset(where, data=values, chunks=(11, 4), compression="gzip")
    entry = {e.name: e for e in list_file(str(path)).entries}["dense/kernel:0"]
    assert entry.storage is Storage.COPY and entry.extras["dataset"] == where
    assert _same(core.tensor(path, "dense/kernel:0"), _expected("legacy_tfk.h5")[1][7])
    assert core.cli.main([str(path), "--tensor", "dense/kernel:0", "--limit", "1"]) == 0
    assert capsys.readouterr().err.startswith(
        "note: 'dense/kernel:0' is stored in chunks of (11, 4), filters deflate in the file: these "
        "are its values as h5py reads them")


def test_a_deflated_member_over_the_copy_budget_is_refused_before_it_is_decompressed(monkeypatch):
    import core.budget
    from core.errors import BudgetError

    monkeypatch.setattr(core.budget, "COPY_BUDGET_BYTES", 40_000)  # the member holds 48,228 bytes
    monkeypatch.setattr(core.budget, "_ENV_ERROR", None)
    with pytest.raises(BudgetError) as caught:
        list_file(os.path.join(HERE, "deflated.keras"))
    assert caught.value.message.startswith(
        f"decompressing the model.weights.h5 member of '{os.path.join(HERE, 'deflated.keras')}' would copy ")
    assert len(list_file(os.path.join(HERE, "model.keras")).entries) == 34  # stored: no copy at all


def test_virtual_weights_in_a_member_are_read_from_the_member_only(tmp_path):
    import h5py

    def virtual(member, data):
        if member == "model.weights.h5":
            weights = tmp_path / "w.h5"
            weights.write_bytes(data)
            with h5py.File(weights, "r+") as out:
                out.move("layers/dense/vars/1", "layers/dense/bias_source")
                inside = h5py.VirtualLayout(shape=(4,), dtype="<f4")
                inside[:] = h5py.VirtualSource(".", "layers/dense/bias_source", shape=(4,))
                out.create_virtual_dataset("layers/dense/vars/1", inside)
                outside = h5py.VirtualLayout(shape=(3,), dtype="<f4")
                outside[:] = h5py.VirtualSource("other.h5", "x", shape=(3,))
                del out["layers/conv2d/vars/1"]
                out.create_virtual_dataset("layers/conv2d/vars/1", outside)
            data = weights.read_bytes()
        return [(member, data)]

    path = _rezip(tmp_path, "virtual.keras", virtual)
    entries = {e.name: e for e in list_file(path).entries}
    assert "layers/dense/bias_source" in entries  # not a vars/<i> path: the names stay HDF5 paths
    bias = entries["layers/dense/vars/1"]
    assert bias.storage is Storage.COPY and bias.extras["sources"] == "this file"
    assert _same(core.tensor(path, "layers/dense/vars/1"), _expected("model.keras")[1][8])
    assert entries["layers/conv2d/vars/1"].problem == (
        "HDF5 dataset 'layers/conv2d/vars/1': a virtual dataset inside the model.weights.h5 member "
        "whose sources are other files (other.h5), which libhdf5 cannot find from inside an archive")


def test_a_listing_run_by_the_window_reports_no_other_formats_entries_and_can_be_cancelled():
    from core.formats.listing_control import ListingCancelled, ListingControl, controlled
    from core.formats.registry import list_container

    control = ListingControl()
    with open_source(os.path.join(HERE, "model.keras")) as source, controlled(control):
        listing = list_container(HeaderReader(source, 0))
    assert len(listing.entries) == 34 and control.bytes_read > 0
    assert (control.found_format, control.found) == ("", [])  # nothing said to be PyTorch's
    control.cancel()
    with open_source(os.path.join(HERE, "model.keras")) as source, controlled(control), \
            pytest.raises(ListingCancelled):
        list_container(HeaderReader(source, 0))
