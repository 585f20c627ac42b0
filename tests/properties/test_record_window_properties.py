"""A reshape of non-contiguous records copies only the records its slice reaches
(core.pipeline.record_window): the values, shape and byte offsets equal those of slicing the
copy of every record, for arbitrary specs (issue 30 item 20)."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from core import DecodeParams, Pipeline
from core.errors import SliceError
from core.slicing.spec import SliceSpec

# 24 records of 12 bytes; 8 bytes (two uint32) of each decoded: the records are not contiguous
RECORDS, RECORD_SIZE = 24, 12
TARGETS = [(-1,), (4, 12), (3, 2, 8), (48, 1), (2, -1, 3), (16, 3)]


@st.composite
def specs(draw):
    """Arbitrary specs over up to 4 entries (bounds past the sizes, every mask)."""
    n = draw(st.integers(0, 4))
    values = st.lists(st.integers(-50, 50), min_size=n, max_size=n).map(tuple)
    strides = st.lists(st.sampled_from([-5, -2, -1, 1, 1, 2, 3, 7]), min_size=n, max_size=n)
    mask = st.integers(0, (1 << (n + 1)) - 1)
    return SliceSpec(draw(values), draw(values), tuple(draw(strides)), begin_mask=draw(mask),
                     end_mask=draw(mask), ellipsis_mask=draw(st.sampled_from([0, 0, 1 << draw(st.integers(0, n))])),
                     new_axis_mask=draw(mask), shrink_axis_mask=draw(mask))


@pytest.fixture(scope="module")
def records_file(tmp_path_factory):
    path = tmp_path_factory.mktemp("window") / "records.bin"
    np.arange(RECORDS * RECORD_SIZE // 4, dtype="<u4").tofile(path)
    return str(path)


@settings(max_examples=300, deadline=None)
@given(target=st.sampled_from(TARGETS), spec=specs())
def test_the_window_equals_slicing_the_whole_copy(records_file, target, spec):
    params = DecodeParams(dtype="uint32", record_size=RECORD_SIZE, fixed_length=8, shape=target)
    with Pipeline([records_file]) as pipeline:
        whole = pipeline.run(params)
        assert whole.tensor is not None and not whole.zero_copy
        try:
            expected = spec.apply(whole.tensor)
        except SliceError as error:
            with pytest.raises(SliceError) as caught:
                pipeline.run(params, spec)
            assert caught.value.message == error.message
            return
        windowed = pipeline.run(params, spec)
        assert windowed.view.shape == expected.shape
        assert np.array_equal(windowed.view, expected)
        assert windowed.tensor_shape == whole.tensor_shape
        for index in list(np.ndindex(expected.shape))[:6]:
            flat = int(np.ravel_multi_index(index, expected.shape)) if expected.shape else 0
            value = int(expected[index])
            # value v sits at byte 4 * v of the file (the file holds 0, 1, 2, ... as uint32)
            assert windowed.byte_offset(index) == (0, 4 * value, 4), (index, flat)
