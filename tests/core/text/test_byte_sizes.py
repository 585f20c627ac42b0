"""The one byte-size formatter (core.text.byte_sizes): every size shown to a reader reads the same."""

from __future__ import annotations

import numpy as np
import pytest

from core.budget import check_copy_budget
from core.errors import BudgetError
from core.export.arrays import csv_size_warning
from core.text.byte_sizes import format_bytes


@pytest.mark.parametrize(("nbytes", "text"), [
    (0, "0 bytes"), (1, "1 byte"), (2, "2 bytes"), (1023, "1023 bytes"), (1024, "1.0 KiB"),
    (1536, "1.5 KiB"), (30 * 1024, "30.0 KiB"), (3 * 1024**2 // 2, "1.5 MiB"),
    (16 * 1024**2, "16.0 MiB"), (2 * 1024**3, "2.0 GiB"), (2**40, "1.0 TiB"), (5 * 2**50, "5.0 PiB"),
    (1023 * 2**60, "1023.0 EiB"),
    (1024**2 - 1, "1024.0 KiB"),  # rounds up to 1024.0 but stays in the smaller unit
    (2**70, "about 2**70 bytes"), (10**309, "about 2**1026 bytes"),
])
def test_format_bytes(nbytes, text):
    assert format_bytes(nbytes) == text


def test_the_csv_warning_writes_its_size_as_every_other_size():
    # 20 float64 values at about 12 characters each: 240 bytes (was "0 MiB" before one formatter)
    assert csv_size_warning(np.zeros((4, 5)), limit=10) == (
        "The view has 20 values: as CSV that is about 240 bytes of text and slow to write and to "
        "read (export .npy or .bin instead, or narrow the slice)")
    # 2**20 int32 values at about 6 characters each: 6.0 MiB (was "6 MiB")
    assert "as CSV that is about 6.0 MiB of text" in csv_size_warning(np.zeros(2**20, np.int32), limit=10)


def test_the_budget_refusal_writes_sizes_with_the_same_formatter():
    with pytest.raises(BudgetError, match=r"padding would copy 1\.0 TiB, above the "):
        check_copy_budget(2**40, "padding", "pad less")
