"""Issue 30 item 15: values that would be copied beyond the copy budget (a compressed npz
member, a chunked HDF5 dataset) are refused by ``--tensor`` with the budget and how to raise
it, never silently."""

from __future__ import annotations

import numpy as np
import pytest

import core.budget
from core.cli import main


@pytest.fixture
def small_budget(monkeypatch):
    monkeypatch.setattr(core.budget, "COPY_BUDGET_BYTES", 16 << 20)


def test_a_compressed_npz_member_over_the_budget_says_why(tmp_path, capsys, small_budget):
    path = tmp_path / "zeros.npz"
    np.savez_compressed(path, z=np.zeros(4 << 20))  # 32 MiB of float64 zeros
    assert main([str(path), "--tensor", "z"]) == 2
    err = capsys.readouterr().err
    assert "decompressing npz member 'z.npy' would copy 32.0 MiB, above the 16.0 MiB copy budget" in err
    assert "TENSOR_INSPECTOR_COPY_BUDGET" in err


def test_a_chunked_hdf5_dataset_over_the_budget_says_why(tmp_path, capsys, small_budget):
    import h5py  # a test dependency (pyproject: test extra)
    path = tmp_path / "big.h5"
    with h5py.File(path, "w") as f:
        f.create_dataset("big", shape=(2048, 2048), dtype="f8", chunks=(256, 256), compression="gzip")
    assert main([str(path), "--tensor", "big"]) == 2
    err = capsys.readouterr().err
    assert "reading HDF5 dataset 'big' would copy 32.0 MiB, above the 16.0 MiB copy budget" in err
    assert "TENSOR_INSPECTOR_COPY_BUDGET" in err
