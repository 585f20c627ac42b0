"""Catalogue: every out_type x byte order x fixed_length case x input rank 0-3 (zero sizes too).

Expectations are derived independently of core.decode.decode_raw: the element bytes are padded or truncated
by hand, joined, and read with ``np.frombuffer`` and an explicit byte order. Values are compared
bit for bit (raw bytes, so NaN payloads count), and every promised view is checked with
``np.shares_memory``.
"""

from __future__ import annotations

import itertools
import math
import zlib

import ml_dtypes
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core.decode.decode_raw import decode_raw
from core.errors import DecodeError

TYPES = {
    "float16": np.float16, "float32": np.float32, "float64": np.float64,
    "bfloat16": ml_dtypes.bfloat16, "int8": np.int8, "int16": np.int16, "int32": np.int32,
    "int64": np.int64, "uint8": np.uint8, "uint16": np.uint16, "complex64": np.complex64,
    "complex128": np.complex128, "bool": np.bool_, "uint32": np.uint32, "uint64": np.uint64,
}
NOT_PADDABLE = {"bool", "complex64", "complex128"}
FIXED_CASES = ("none", "shorter", "equal", "longer", "zero", "not_multiple")
SHAPES = [(), (3,), (0,), (2, 3), (2, 0), (0, 2), (2, 1, 2), (1, 0, 3)]
FORMS = ("bytes", "uint8")


def _element_bytes(rng: np.random.Generator, name: str, length: int, count: int) -> list[bytes]:
    if name == "bool":  # 0/1 bytes keep the bool result a view; >1 bytes are tested elsewhere
        return [rng.integers(0, 2, length, dtype=np.uint8).tobytes() for _ in range(count)]
    elements = [rng.integers(0, 256, length, dtype=np.uint8).tobytes() for _ in range(count)]
    if count and name.startswith(("float", "bfloat", "complex")):
        # a NaN with a payload in the first item; palindromes are NaNs in both byte orders
        itemsize = np.dtype(TYPES[name]).itemsize
        part = itemsize // 2 if name.startswith("complex") else itemsize
        nan = {2: b"\x7d\x7d", 4: b"\x7f\xc1\xc1\x7f", 8: b"\x7f\xf0\x01\x00\x00\x01\xf0\x7f"}
        pattern = nan[part] if name != "bfloat16" else b"\xff\xff"
        elements[0] = pattern + elements[0][part:]
    return elements


def _nest(items: list, shape: tuple[int, ...]):
    if not shape:
        return items[0]
    step = math.prod(shape[1:])
    return [_nest(items[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def _expected(elements: list[bytes], shape, name, little, fixed):
    base = np.dtype(TYPES[name])
    if fixed is not None:
        elements = [e[:fixed] + b"\0" * (fixed - len(e[:fixed])) for e in elements]
        width = fixed // base.itemsize
    else:
        width = len(elements[0]) // base.itemsize if elements else 0
    joined = b"".join(elements)
    if name == "bool":
        values = np.frombuffer(joined, dtype=np.uint8) != 0
    else:
        order = "<" if little else ">"
        dtype = base.newbyteorder(order) if base.itemsize > 1 else base
        values = np.frombuffer(joined, dtype=dtype)
    return values.reshape(tuple(shape) + (width,))


def _fixed_length(case: str, length: int, itemsize: int):
    return {
        "none": None, "shorter": itemsize, "equal": length, "longer": length + 2 * itemsize,
        "zero": 0, "not_multiple": itemsize + 1 if itemsize > 1 else -3,
    }[case]


@pytest.mark.parametrize(
    ("name", "little", "case"), list(itertools.product(TYPES, (True, False), FIXED_CASES)),
)
def test_catalogue(name, little, case):
    rng = np.random.default_rng(zlib.crc32(f"{name}{little}{case}".encode()))
    itemsize = np.dtype(TYPES[name]).itemsize
    length = 3 * itemsize
    fixed = _fixed_length(case, length, itemsize)
    for shape, form in itertools.product(SHAPES, FORMS):
        count = math.prod(shape)
        elements = _element_bytes(rng, name, length, count)
        if form == "bytes":
            source = None
            data = _nest(elements, shape) if shape else elements[0]
            if shape and count == 0:
                data = np.empty(shape, dtype=object)  # nested lists cannot spell (0, 2)
        else:
            source = np.frombuffer(b"".join(elements), dtype=np.uint8).reshape(shape + (length,))
            data = source
        label = f"{name} little={little} fixed={fixed} shape={shape} form={form}"
        if fixed is not None and name in NOT_PADDABLE:
            with pytest.raises(DecodeError, match=r"^Value for attr 'out_type' of \w+ is not"):
                decode_raw(data, name, little, fixed, extended_types=True)
            continue
        if case == "not_multiple":
            pattern = (rf"^fixed_length \({fixed}\) must be a multiple of the size of out_type"
                       if itemsize > 1 else rf"^fixed_length \({fixed}\) must be greater than zero")
            with pytest.raises(DecodeError, match=pattern):
                decode_raw(data, name, little, fixed, extended_types=True)
            continue
        if case == "zero":
            with pytest.raises(DecodeError, match=r"^fixed_length \(0\) must be greater than zero\."):
                decode_raw(data, name, little, fixed, extended_types=True)
            continue
        result = decode_raw(data, name, little, fixed, extended_types=True)
        expected = _expected(elements, shape, name, little, fixed)
        if count and name.startswith(("float", "bfloat", "complex")):
            assert np.isnan(result.reshape(-1)[0]), label
        assert result.shape == expected.shape, label
        assert result.dtype == expected.dtype, label
        assert result.tobytes() == expected.tobytes(), label  # bitwise: NaN payloads included
        view_promised = (fixed is None or fixed <= length) and result.size > 0
        if view_promised and source is not None:
            assert np.shares_memory(result, source), label
        if view_promised and form == "bytes" and not shape:
            assert np.shares_memory(result, np.frombuffer(data, dtype=np.uint8)), label
        if fixed is not None and fixed > length and result.size:
            assert source is None or not np.shares_memory(result, source), label


@pytest.mark.parametrize("name", [n for n in TYPES if np.dtype(TYPES[n]).itemsize > 1])
@pytest.mark.parametrize("little", [True, False])
def test_element_length_not_a_multiple_of_the_item_size(name, little):
    itemsize = np.dtype(TYPES[name]).itemsize
    data = [b"x" * (itemsize + 1)] * 2
    tf = {"float16": "half", "float32": "float", "float64": "double"}.get(name, name)
    message = (f"Input to DecodeRaw has length {itemsize + 1} that is not a multiple of "
               f"{itemsize}, the size of {tf} (choose a record size or fixed_length that is a "
               f"multiple of {itemsize})")
    with pytest.raises(DecodeError) as info:
        decode_raw(data, name, little, extended_types=True)
    assert str(info.value) == message
    assert info.value.field == "fixed_length"


@pytest.mark.parametrize("name", list(TYPES))
def test_empty_elements_never_raise_the_multiple_error(name):
    assert decode_raw(b"", name, extended_types=True).shape == (0,)
    assert decode_raw([b"", b""], name, extended_types=True).shape == (2, 0)
    assert decode_raw(np.zeros((0, 3), object), name, extended_types=True).shape == (0, 3, 0)


@settings(max_examples=150, deadline=None)
@given(
    name=st.sampled_from(sorted(TYPES)),
    little=st.booleans(),
    elements=st.lists(st.binary(max_size=20), max_size=6),
    fixed=st.one_of(st.none(), st.integers(-4, 24)),
    form=st.sampled_from(["list", "object", "S"]),
)
def test_random_ragged_inputs_against_the_oracle(name, little, elements, fixed, form):
    if form == "S":
        data = np.array(elements, dtype=f"S{max([len(e) for e in elements] + [1])}")
        elements = [bytes(e) for e in data.tolist()]  # what TF sees: trailing NULs stripped
    elif form == "object":
        data = np.empty(len(elements), dtype=object)
        data[:] = elements
    else:
        data = elements
    itemsize = np.dtype(TYPES[name]).itemsize
    lengths = {len(e) for e in elements}
    if fixed is not None and (name in NOT_PADDABLE or fixed % itemsize or fixed <= 0):
        with pytest.raises(DecodeError):
            decode_raw(data, name, little, fixed, extended_types=True)
        return
    if fixed is None and (len(lengths) > 1 or (lengths and max(lengths) % itemsize)):
        with pytest.raises(DecodeError, match="same size|not a multiple"):
            decode_raw(data, name, little, fixed, extended_types=True)
        return
    result = decode_raw(data, name, little, fixed, extended_types=True)
    expected = _expected(elements, (len(elements),), name, little, fixed)
    assert result.shape == expected.shape
    assert result.dtype == expected.dtype
    assert result.tobytes() == expected.tobytes()


@pytest.mark.parametrize("fixed_length", [2**31, 2**40, -(2**31) - 2, 10**309])
def test_fixed_length_outside_tfs_32_bit_attribute_is_refused_before_any_allocation(fixed_length):
    with pytest.raises(DecodeError, match="does not fit TensorFlow's 32-bit fixed_length attribute "
                       r"\(use at most 2147483647 bytes, or no fixed_length\)") as caught:
        decode_raw(b"ab", "int16", fixed_length=fixed_length)
    assert caught.value.field == "fixed_length"
