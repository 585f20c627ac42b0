"""Constellation samples: every point when the signal is short, bounded evenly spread runs read through BlockReader."""

import mmap
import os

import numpy as np
import pytest

from core.display.constellation import constellation_sample
from core.errors import SourceError
from core.files.sources import MappedRange
from core.scan.blocks import BlockReader


def test_a_short_signal_is_shown_whole_with_i_and_q_exact():
    signal = np.array([1 + 2j, -3.5 - 0.25j, 0j], dtype=np.complex64)
    sample = constellation_sample(signal)
    assert sample.indices.tolist() == [0, 1, 2]
    assert sample.i.tolist() == [1.0, -3.5, 0.0] and sample.q.tolist() == [2.0, -0.25, 0.0]
    assert not sample.is_sample and sample.total == 3


def test_a_long_signal_gives_evenly_spread_runs():
    signal = np.arange(100) + 1j * np.arange(100, 200)
    sample = constellation_sample(signal, max_points=12, run_length=4)
    # 3 runs of 4: starts 0, (1 * 96) // 2 = 48, 96
    assert sample.indices.tolist() == [0, 1, 2, 3, 48, 49, 50, 51, 96, 97, 98, 99]
    assert sample.i.tolist() == [float(i) for i in sample.indices]
    assert sample.q.tolist() == [float(i + 100) for i in sample.indices]
    assert sample.is_sample and sample.total == 100


def test_a_mapped_signal_is_read_with_pread_and_a_shrunk_file_is_reported(tmp_path):
    path = tmp_path / "iq.bin"
    values = (np.arange(1000) - 1j * np.arange(1000)).astype("<c8")
    path.write_bytes(values.tobytes())
    fd = os.open(path, os.O_RDONLY)
    try:
        mem = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
        signal = np.frombuffer(mem, dtype="<c8")
        address = np.frombuffer(mem, np.uint8).__array_interface__["data"][0]
        reader = BlockReader([MappedRange(str(path), fd, address, len(mem))])
        sample = constellation_sample(signal, reader, max_points=10, run_length=5)
        assert sample.indices.tolist() == [0, 1, 2, 3, 4, 995, 996, 997, 998, 999]
        assert sample.q.tolist() == [-float(i) for i in sample.indices]
        os.truncate(path, 4000)
        with pytest.raises(SourceError):
            constellation_sample(signal, reader, max_points=10, run_length=5)
        del signal
    finally:
        os.close(fd)


def test_only_1d_complex_signals():
    with pytest.raises(TypeError, match="complex"):
        constellation_sample(np.zeros(3))
    with pytest.raises(ValueError, match="1-d"):
        constellation_sample(np.zeros((2, 2), np.complex64))
