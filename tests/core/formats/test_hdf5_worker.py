"""The HDF5 worker (core.formats.hdf5_worker): calls that hang, run out of memory or crash
become one message naming the file; normal calls answer, reuse their worker, and bring values
back bit-exact. The mechanism is tested with the probes of worker_probes.py (a hang or a
memory blow-up cannot be had from h5py on demand), plus real damaged HDF5 files."""

from __future__ import annotations

import mmap
import os
import pathlib
import subprocess
import sys
import time

import numpy as np
import pytest

from core.errors import ContainerError
from core.formats.hdf5_worker import FIX, FileRange, run

WHERE = "the hdf5 file 'probe.h5'"


@pytest.fixture
def probes(monkeypatch):
    monkeypatch.syspath_prepend(str(pathlib.Path(__file__).parent))
    import worker_probes

    return worker_probes


@pytest.fixture
def file(tmp_path):
    path = tmp_path / "probe.h5"
    path.write_bytes(b"0123456789abcdef")
    fd = os.open(path, os.O_RDONLY)
    yield FileRange(fd, 4, 8, str(path))
    os.close(fd)


def call(function, file, *args, **limits):
    return run(function, file, *args, where=WHERE, what="probing it", **limits)


def test_a_call_answers_from_another_process_and_reuses_it(probes, file):
    pid, head = call(probes.pid_and_head, file, 8)
    assert head == b"456789ab" and pid != os.getpid()
    started = time.perf_counter()
    again, _ = call(probes.pid_and_head, file, 8)
    assert again == pid  # the idle worker answered: no new process
    assert time.perf_counter() - started < 0.5


def test_a_hang_is_stopped_at_the_time_limit(probes, file):
    started = time.perf_counter()
    with pytest.raises(ContainerError) as caught:
        call(probes.sleep_forever, file, time_limit=1.0)
    assert 1.0 <= time.perf_counter() - started < 4.0
    assert caught.value.message == (
        f"{WHERE}: libhdf5 hung probing it (no answer within 1 s, so it was stopped; the file is "
        f"likely damaged) ({FIX})")
    assert caught.value.field == "files"
    assert call(probes.pid_and_head, file, 2)[1] == b"45"  # the next call has a new worker


@pytest.mark.parametrize("probe", ["allocate", "allocate_with_numpy"])
def test_memory_past_the_limit_is_a_message(probes, file, probe):
    with pytest.raises(ContainerError) as caught:
        call(getattr(probes, probe), file, 512 << 20, memory_limit=64 << 20, field="tensor")
    assert caught.value.message == (
        f"{WHERE}: libhdf5 ran out of memory probing it (it needed more than 64.0 MiB more, so it "
        f"was stopped; the file is likely damaged) ({FIX})")
    assert caught.value.field == "tensor"
    # within the limit the same call answers
    assert call(probes.allocate, file, 16 << 20, memory_limit=64 << 20) == 16 << 20


def test_a_worker_that_exits_is_a_message(probes, file):
    with pytest.raises(ContainerError) as caught:
        call(probes.exit_with, file, 3, memory_limit=1 << 30)
    assert caught.value.message == (
        f"{WHERE}: libhdf5 stopped probing it: the worker process running it died (it exited with "
        f"status 3; it crashed or passed its 1.0 GiB memory limit; the file is likely damaged) ({FIX})")


def test_a_segfault_is_a_message(probes, file):
    with pytest.raises(ContainerError, match=r"^the hdf5 file 'probe.h5': libhdf5 stopped probing "
                       r"it: the worker process running it died \(it was killed by SIGSEGV; "):
        call(probes.segfault, file)
    assert call(probes.pid_and_head, file, 1)[1] == b"4"


def test_engine_errors_pass_through_and_others_are_described(probes, file):
    with pytest.raises(ContainerError) as caught:
        call(probes.raise_container_error, file)
    assert (caught.value.message, caught.value.field) == ("a refusal of the function itself", "tensor")
    with pytest.raises(ContainerError) as caught:
        call(probes.raise_key_error, file)
    assert caught.value.message == (f"{WHERE}: libhdf5 failed probing it (KeyError: 'no such "
                                    f"object') (the file is likely damaged; {FIX})")


def test_shared_values_come_back_bit_exact_without_a_pickled_copy(probes, file):
    answer = call(probes.shared_arange, file, 1_000_000)
    values = answer["values"]
    assert values.dtype == np.dtype("<i4") and values.shape == (1_000_000,)
    np.testing.assert_array_equal(values, np.arange(1_000_000, dtype="<i4"))
    base = values
    while not isinstance(base, mmap.mmap):
        base = base.obj if isinstance(base, memoryview) else base.base
    assert len(base) == 4_000_000  # mapped from the worker's anonymous file
    assert answer["small"].tolist() == [0, 1, 2]


def test_a_cancelled_listing_stops_the_worker(probes, file):
    from core.formats.listing_control import ListingCancelled, ListingControl, controlled

    control = ListingControl()
    started = time.perf_counter()
    with controlled(control), pytest.raises(ListingCancelled):
        import threading

        threading.Timer(0.3, control.cancel).start()
        call(probes.sleep_forever, file, time_limit=30.0)
    assert time.perf_counter() - started < 3.0


# -- real HDF5 files ---------------------------------------------------------------------------
h5py = pytest.importorskip("h5py")


def test_the_parent_never_loads_h5py(tmp_path):
    path = tmp_path / "x.h5"
    with h5py.File(path, "w") as out:
        out.create_dataset("c", data=np.arange(6, dtype="<i2"), chunks=(3,), compression="gzip")
    code = ("import sys; from core.formats.registry import list_file; "
            "from core.files.sources import open_source; from core.formats.values import entry_values; "
            f"l = list_file({str(path)!r}); s = open_source({str(path)!r}); "
            "print(entry_values(s, l, l.entries[0]).array.tolist(), 'h5py' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         cwd=pathlib.Path(__file__).parents[3])
    assert out.stdout == "[0, 1, 2, 3, 4, 5] False\n"


def _damaged_chunk(tmp_path):
    path = tmp_path / "damaged.h5"
    with h5py.File(path, "w") as out:
        out.create_dataset("a", data=np.arange(10, dtype="<i4"))
        out.create_dataset("g/c", data=np.arange(1000, dtype="<i8"), chunks=(100,), compression="gzip")
        chunk = out["g/c"].id.get_chunk_info(0)
    data = bytearray(path.read_bytes())
    data[chunk.byte_offset:chunk.byte_offset + chunk.size] = b"\xff" * chunk.size
    path.write_bytes(bytes(data))
    return path


def test_a_damaged_chunk_is_a_message_and_the_rest_reads(tmp_path):
    from core.files.sources import open_source
    from core.formats.entry import find_entry
    from core.formats.registry import list_file
    from core.formats.values import entry_values

    path = _damaged_chunk(tmp_path)
    listing = list_file(str(path))
    assert [(e.name, e.readable, e.problem) for e in listing.entries] == [("a", True, None), ("g/c", True, None)]
    with open_source(str(path)) as source:
        with pytest.raises(ContainerError) as caught:
            entry_values(source, listing, find_entry(listing, "g/c"))
    assert caught.value.message == (
        f"the HDF5 file '{path}': dataset 'g/c': the HDF5 library cannot read it (Can't "
        "synchronously read data (filter returned failure during read)) (list the file again; "
        "it may have changed or be corrupt)")


def test_a_damaged_superblock_is_a_message(tmp_path):
    from core.formats.registry import list_file

    path = tmp_path / "superblock.h5"
    with h5py.File(path, "w") as out:
        out.create_dataset("x", data=np.arange(100))
    data = bytearray(path.read_bytes())
    data[8:48] = b"\xee" * 40  # the superblock after the signature
    path.write_bytes(bytes(data))
    with pytest.raises(ContainerError) as caught:
        list_file(str(path))
    assert caught.value.message == (f"the hdf5 file '{path}': the HDF5 library cannot open it (Unable "
                                    "to synchronously open file (bad superblock version number)) (the "
                                    "file is truncated or corrupt)")
