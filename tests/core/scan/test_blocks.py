"""BlockReader: views of a map read with pread, bounded buffers, shrinking files reported."""

import mmap
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core.errors import SourceError
from core.files.sources import MappedRange
from core.scan.blocks import BlockReader, byte_span

ROOT = Path(__file__).resolve().parents[3]


@pytest.fixture
def mapped(tmp_path):
    path = tmp_path / "data.bin"
    values = np.arange(6 * 8 * 10, dtype=">i4")
    path.write_bytes(values.tobytes())
    fd = os.open(path, os.O_RDONLY)
    mem = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)
    array = np.frombuffer(mem, dtype=">i4").reshape(6, 8, 10)
    address = np.frombuffer(mem, np.uint8).__array_interface__["data"][0]
    yield path, fd, array, MappedRange(str(path), fd, address, len(mem))
    os.close(fd)  # the map is closed when the last view of it goes


def _joined(reader, view, chunk):
    return np.concatenate([block.copy().reshape(-1) for block in reader.blocks(view, chunk)])


@pytest.mark.parametrize("index", [
    np.s_[...], np.s_[1], np.s_[:, 2], np.s_[::-1, ::3, 1:9:2], np.s_[4:1:-1, :, ::-4], np.s_[:, :, 7],
    np.s_[0:0],
])
@pytest.mark.parametrize("max_span", [4, 40, 1 << 20])
def test_blocks_give_the_view_values_in_c_order(mapped, index, max_span):
    _, _, array, mapped_range = mapped
    view = array[index]
    reader = BlockReader([mapped_range], max_span=max_span)
    assert reader.range_of(view) == (mapped_range if view.size else reader.range_of(view))
    got = _joined(reader, view, 7) if view.size else np.empty(0, view.dtype)
    np.testing.assert_array_equal(got, view.reshape(-1))
    np.testing.assert_array_equal(reader.read(view), view)
    assert all(block.dtype == np.dtype(">i4") for block in reader.blocks(view, 7))


def test_blocks_never_exceed_the_span_and_reuse_one_buffer(mapped):
    _, _, array, mapped_range = mapped
    reader = BlockReader([mapped_range], max_span=64)
    buffers = set()
    for block in reader.blocks(array[:, ::2], 100):
        low, high = byte_span(block)
        assert high - low <= 64
        assert not np.shares_memory(block, array)
        buffers.add(id(block.base))
    assert len(buffers) == 1  # one buffer, reused for every block


def test_a_view_not_backed_by_a_map_is_yielded_as_it_is(mapped):
    _, _, array, mapped_range = mapped
    copy = np.array(array[1])
    reader = BlockReader([mapped_range])
    blocks = list(reader.blocks(copy, 1000))
    assert len(blocks) == 1 and np.shares_memory(blocks[0], copy)


def test_the_byte_span_of_negative_strides():
    x = np.arange(10, dtype=np.int16)
    base = x.__array_interface__["data"][0]
    assert byte_span(x[::-3]) == (base + 0, base + 20)  # elements 9, 6, 3, 0
    assert byte_span(x[2:5]) == (base + 4, base + 10)
    low, high = byte_span(x[3:3])
    assert low == high  # an empty view reads nothing


def test_a_file_truncated_before_a_block_is_read_raises_source_error(mapped):
    path, _, array, mapped_range = mapped
    reader = BlockReader([mapped_range], max_span=80)
    blocks = reader.blocks(array, 20)
    first = next(blocks).copy()
    assert first.reshape(-1).tolist() == list(range(20))
    os.truncate(path, 100)
    with pytest.raises(SourceError, match=r"changed on disk while being read: it is now 100 bytes.*reload") as info:
        list(blocks)
    assert info.value.field == "files"


def test_truncation_during_a_long_scan_never_kills_the_process(tmp_path):
    """The race that SIGBUS'd: another process truncates the file while blocks are being read."""
    script = tmp_path / "race.py"
    script.write_text(
        "import mmap, os, sys, threading, numpy as np\n"
        "from core.scan.blocks import BlockReader, MappedRange\n"
        "from core.errors import SourceError\n"
        "path = sys.argv[1]\n"
        "outcomes = []\n"
        "for trial in range(20):\n"
        "    with open(path, 'wb') as f: f.truncate(64 << 20)\n"
        "    fd = os.open(path, os.O_RDONLY); mem = mmap.mmap(fd, 0, access=mmap.ACCESS_READ)\n"
        "    view = np.frombuffer(mem, np.float32)\n"
        "    address = np.frombuffer(mem, np.uint8).__array_interface__['data'][0]\n"
        "    reader = BlockReader([MappedRange(path, fd, address, len(mem))], max_span=1 << 20)\n"
        "    cut = threading.Timer(0.001 * (trial % 5), os.truncate, (path, (trial % 2) * (32 << 20)))\n"
        "    cut.start()\n"
        "    try:\n"
        "        total = sum(float(b.sum()) for b in reader.blocks(view, 1 << 18))\n"
        "        outcomes.append('complete')\n"
        "    except SourceError:\n"
        "        outcomes.append('changed')\n"
        "    cut.join(); del view; mem.close(); os.close(fd)\n"
        "print(len(outcomes))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    out = subprocess.run([sys.executable, str(script), str(tmp_path / "victim.bin")], cwd=ROOT, env=env,
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr  # -7 would be SIGBUS
    assert out.stdout.strip() == "20"


def test_a_sparse_view_reads_only_near_the_bytes_it_uses(tmp_path, monkeypatch):
    """8 bytes kept from every 1 MiB record: the reader reads 8 bytes per record, not the file."""
    from core.pipeline.pipeline import DecodeParams, Pipeline

    path = tmp_path / "records.bin"
    records, record_size = 64, 1 << 20
    with open(path, "wb") as f:
        f.truncate(records * record_size)
        for record in range(records):
            f.seek(record * record_size)
            f.write(np.uint32(record * 7).tobytes())
    read_bytes = []
    real_preadv = os.preadv

    def counting_preadv(fd, buffers, position):
        count = real_preadv(fd, buffers, position)
        read_bytes.append(count)
        return count

    monkeypatch.setattr(os, "preadv", counting_preadv)
    with Pipeline([str(path)]) as pipeline:
        # fixed_length truncates every record to 8 bytes, (64, 2): the reshape to (16, 8)
        # merges records, which strides cannot express, so it copies
        result = pipeline.run(DecodeParams(dtype="uint32", record_size=record_size,
                                           fixed_length=8, shape=(16, 8)))
        assert "copied" in result.steps[2]
        assert result.view.reshape(-1).tolist() == [v for r in range(records) for v in (7 * r, 0)]
    assert sum(read_bytes) == records * 8
