"""``--tensor NAME`` opens every listed entry of every container the format tests write, through
the command's one code path (views, copies and computed values alike), and the values are the
format's own reader's (tests/core/formats/containers.py)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import numpy as np
import pytest

from core.cli import main
from core.formats.entry import Storage
from core.formats.registry import list_file

_spec = importlib.util.spec_from_file_location("formats_containers", Path(__file__).with_name("containers.py"))
containers = sys.modules.setdefault("formats_containers", importlib.util.module_from_spec(_spec))
_spec.loader.exec_module(containers)


@pytest.fixture(scope="module")
def written(tmp_path_factory):
    return containers.build_all(tmp_path_factory.mktemp("containers"))


def _printed(path: str, name: str, capsys) -> tuple[dict, str]:
    status = main([path, "--tensor", name, "--json", "--limit", "1000000"])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    return json.loads(captured.out), captured.err


def _values(document: dict, like: np.ndarray) -> np.ndarray:
    if like.dtype.kind == "c":
        return np.array([complex(*pair) for pair in np.ravel(document["values"])]).reshape(like.shape)
    return np.asarray(document["values"], dtype=like.dtype)


def test_every_entry_of_every_container_opens_with_tensor(written, capsys):
    kinds = set()
    for container in written:
        listing = list_file(container.path)
        assert listing.format == container.format and listing.problems == ()
        assert set(container.expected) <= {e.name for e in listing.entries}
        for entry in listing.entries:
            assert entry.readable, f"{container.path}: {entry.name}: {entry.problem}"
            document, err = _printed(container.path, entry.name, capsys)
            assert tuple(document["shape"]) == entry.shape, (container.path, entry.name)
            assert document["size"] == entry.element_count
            # a copy or a computed value says so on stderr; a view of the file does not
            assert ("a copy of" in err) == (entry.storage is not Storage.VIEW), (entry.name, err)
            if entry.name in container.expected:
                expected = container.expected[entry.name]
                np.testing.assert_array_equal(_values(document, expected), expected,
                                              err_msg=f"{container.path}: {entry.name}")
                kinds.add(entry.storage)
    assert kinds == set(Storage)  # every kind checked against a reader: views, copies, computed


@pytest.mark.parametrize("name, tensor, kind, note", [
    ("compressed.npz", "a", Storage.COPY, "'a' is compressed in the file (deflate): these are its decompressed values"),
    ("data.h5", "group/chunked", Storage.COPY, "'group/chunked' is stored in chunks of (1, 10), filters deflate in the file"),
    ("data.h5", "compact", Storage.COPY, "'compact' is stored compact in the file: these are its values as h5py"),
    ("train.tfrecord", "label", Storage.COPY, "'label' is an int64_list of varints in the file: these are its decoded"),
    ("model.gguf", "q8", Storage.COMPUTED, "'q8' (Q8_0) dequantized to float32 by the gguf package: a copy of 512"),
    ("model.gguf", "q4k", Storage.COMPUTED, "'q4k' (Q4_K) dequantized to float32 by the gguf package: a copy of 2048"),
])
def test_each_copy_and_computed_kind_is_checked_against_its_writers_reader(written, capsys, name, tensor, kind, note):
    container = next(c for c in written if Path(c.path).name == name)
    entry = next(e for e in list_file(container.path).entries if e.name == tensor)
    assert entry.storage is kind
    document, err = _printed(container.path, entry.name, capsys)
    assert err.startswith(f"note: {note}")
    np.testing.assert_array_equal(_values(document, container.expected[entry.name]),
                                  container.expected[entry.name])


def test_npy_files_open_directly_as_numpy_reads_them(tmp_path, capsys):
    path = tmp_path / "a.npy"
    array = np.arange(12, dtype=">u2").reshape(3, 4)
    np.save(path, array)
    assert main([str(path), "--json"]) == 0
    np.testing.assert_array_equal(_values(json.loads(capsys.readouterr().out), array), np.load(path))
    fortran = tmp_path / "f.npy"
    np.save(fortran, np.asfortranarray(array))
    assert main([str(fortran), "--json"]) == 0  # shown transposed, the C-order reading of its bytes
    np.testing.assert_array_equal(_values(json.loads(capsys.readouterr().out), array.T), np.load(fortran).T)
