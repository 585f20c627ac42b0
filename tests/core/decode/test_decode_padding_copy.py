"""The padding copy of decode_raw (fixed_length > element length) gives the same bytes whether it
runs in one thread, in two, in steps, or on a raw view that cannot be read as rows."""

from __future__ import annotations

import numpy as np
import pytest

from core.decode import decode_raw as decode_module
from core.decode.decode_raw import decode_raw


@pytest.fixture(params=["one thread", "two threads, small steps"])
def copy_mode(request, monkeypatch):
    if request.param != "one thread":
        monkeypatch.setattr(decode_module, "_PAD_PARALLEL_BYTES", 0)
        monkeypatch.setattr(decode_module, "_PAD_STEP_BYTES", 16)  # 2 rows of 8 bytes a step
    return request.param


def test_padding_keeps_bytes_and_zeroes_the_tail(copy_mode):
    raw = np.arange(7 * 6, dtype=np.uint8).reshape(7, 6)
    out = decode_raw(raw, "uint8", fixed_length=8)
    assert out.shape == (7, 8)
    assert out[3].tolist() == [18, 19, 20, 21, 22, 23, 0, 0]
    assert (out[:, 6:] == 0).all() and (out[:, :6] == raw).all()


def test_padding_of_a_view_that_cannot_be_read_as_rows(copy_mode):
    base = np.arange(4 * 3 * 6, dtype=np.uint8).reshape(4, 3, 6)
    raw = base.transpose(1, 0, 2)  # (3, 4) elements of 6 bytes, not flattenable without a copy
    out = decode_raw(raw, "uint16", fixed_length=8)
    assert out.shape == (3, 4, 4)
    # element (1, 2) is base[2, 1] = bytes 42..47, then two zero bytes; little-endian uint16
    assert out[1, 2].tolist() == [42 + 43 * 256, 44 + 45 * 256, 46 + 47 * 256, 0]
