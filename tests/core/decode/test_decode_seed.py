"""The 18 examples of the tf.io.decode_raw documentation (seeds/004_6d9d338d5e84413e.txt), exactly."""

from __future__ import annotations

import numpy as np
import pytest

from core.decode.decode_raw import decode_raw

CHR_1234 = "".join([chr(1), chr(2), chr(3), chr(4)])
X_16 = ["12345678", "87654321"]
X_16_EXPECTED = [[12849, 13363, 13877, 14391], [14136, 13622, 13108, 12594]]

# (input_bytes, out_type, keyword arguments, expected shape, expected values or None, dtype)
SEED_EXAMPLES = [
    ("1", "uint8", {}, (1,), [49], np.uint8),
    ("1,2", "uint8", {}, (3,), [49, 44, 50], np.uint8),
    (["1", "2"], "uint8", {}, (2, 1), None, np.uint8),
    ([["1"], ["2"]], "uint8", {}, (2, 1, 1), None, np.uint8),
    ("123", "uint8", {}, (3,), [49, 50, 51], np.uint8),
    ("1234", "uint8", {}, (4,), [49, 50, 51, 52], np.uint8),
    ("12", "uint16", {}, (1,), [12849], np.uint16),
    ("1234", "uint16", {}, (2,), [12849, 13363], np.uint16),
    ("12345678", "int64", {}, (1,), [4050765991979987505], np.int64),
    ("1234567887654321", "int64", {}, (2,), [4050765991979987505, 3544952156018063160], np.int64),
    ("\x0a\x0b", "int16", {}, (1,), [2826], np.int16),
    ("\x0a\x0b", "int16", {"little_endian": False}, (1,), [2571], np.int16),
    ([["1"], ["23"]], "uint8", {"fixed_length": 4}, (2, 1, 4),
     [[[49, 0, 0, 0]], [[50, 51, 0, 0]]], np.uint8),
    (["1212"], "uint16", {"fixed_length": 4}, (1, 2), [[12849, 12849]], np.uint16),
    (CHR_1234, "uint16", {"fixed_length": 2}, (1,), [513], np.uint16),
    (CHR_1234, "uint16", {"fixed_length": 2, "little_endian": False}, (1,), [258], np.uint16),
    (X_16, "int16", {}, (2, 4), X_16_EXPECTED, np.int16),
    (X_16, "int16", {"fixed_length": len(X_16[0])}, (2, 4), X_16_EXPECTED, np.int16),
]


def test_there_are_eighteen_examples():
    assert len(SEED_EXAMPLES) == 18


@pytest.mark.parametrize(
    ("input_bytes", "out_type", "kwargs", "shape", "values", "dtype"), SEED_EXAMPLES,
    ids=[f"seed{i:02d}" for i in range(len(SEED_EXAMPLES))],
)
def test_seed_example(input_bytes, out_type, kwargs, shape, values, dtype):
    result = decode_raw(input_bytes, out_type, **kwargs)
    assert result.shape == shape
    assert result.dtype.type is dtype
    if values is not None:
        assert result.tolist() == values


def test_seed_hex_values_of_the_endianness_examples():
    assert hex(int(decode_raw("\x0a\x0b", "int16")[0])) == "0xb0a"
    assert hex(int(decode_raw("\x0a\x0b", "int16", little_endian=False)[0])) == "0xa0b"
    assert hex(int(decode_raw(CHR_1234, "uint16", fixed_length=2)[0])) == "0x201"
    assert hex(int(decode_raw(CHR_1234, "uint16", fixed_length=2, little_endian=False)[0])) == "0x102"


def test_spec_padding_example_pads_before_swapping():
    # docs/semantics.md §2: "123", uint16, fixed_length 4, big-endian -> [12594, 13056]
    assert decode_raw("123", "uint16", little_endian=False, fixed_length=4).tolist() == [12594, 13056]
