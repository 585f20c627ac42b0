"""Padded decode outputs recycle idle buffers (core.decode.output_pool), never live ones."""

from __future__ import annotations

import numpy as np
import pytest

from core.decode import output_pool
from core.decode.decode_raw import decode_raw

RECORD, FIXED = 4000, 4096
COUNT = 4096  # 16 MiB of output: the smallest pooled size


def _records(seed: int) -> np.ndarray:
    return np.random.default_rng(seed).integers(0, 256, (COUNT, RECORD), dtype=np.uint8)


def _expected(records: np.ndarray) -> np.ndarray:
    padded = np.zeros((COUNT, FIXED), np.uint8)
    padded[:, :RECORD] = records
    return padded.view("<f4")


def _address(array: np.ndarray) -> int:
    return array.__array_interface__["data"][0]


@pytest.fixture(autouse=True)
def empty_pool():
    output_pool.release_idle_buffers()
    yield
    output_pool.release_idle_buffers()


def decode(records: np.ndarray) -> np.ndarray:
    return decode_raw(records, "float32", fixed_length=FIXED)


def test_a_dropped_result_lends_its_buffer_to_the_next_decode_which_overwrites_every_byte():
    first_records, second_records = _records(1), _records(2)
    first = decode(first_records)
    address = _address(first)
    del first
    second = decode(second_records)
    assert _address(second) == address
    # the earlier values and their padding are all gone: values and zero padding of the new input
    np.testing.assert_array_equal(second.view(np.uint32), _expected(second_records).view(np.uint32))
    assert second.shape == (COUNT, FIXED // 4) and second.flags.writeable


def test_live_results_and_their_views_are_never_overwritten():
    first_records = _records(3)
    first = decode(first_records)
    second = decode(_records(4))  # the first is alive: its own buffer
    assert not np.shares_memory(first, second)
    tail = first[10:, 5:]  # a view keeps its buffer out of the pool after the result is dropped
    view = memoryview(second)
    del first, second
    third = decode(_records(5))
    assert not np.shares_memory(third, tail)
    np.testing.assert_array_equal(tail.view(np.uint32), _expected(first_records)[10:, 5:].view(np.uint32))
    assert _address(third) != view.obj.__array_interface__["data"][0]  # the memoryview's too
    del view
    fourth = decode(_records(6))  # the second's buffer is idle now (the pool holds two)
    assert not np.shares_memory(fourth, tail) and not np.shares_memory(fourth, third)


def test_small_outputs_are_not_pooled_and_idle_buffers_can_be_given_back():
    small = decode_raw(np.zeros((4, RECORD), np.uint8), "float32", fixed_length=FIXED)
    del small
    assert output_pool.release_idle_buffers() == 0
    result = decode(_records(7))
    assert output_pool.release_idle_buffers() == 0  # in use
    del result
    assert output_pool.release_idle_buffers() == COUNT * FIXED
