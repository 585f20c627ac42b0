"""``elements``: explicit (offset, length) byte ranges in one file form a batch of strings.

This is how tf.data hands a container's strings to decode_raw (a TFRecord bytes feature across
its records): input shape (n,), element i the bytes of range i. Evenly spaced ranges of one
length are a strided view of the map; others are gathered into one budget-checked copy.
"""

import numpy as np
import pytest

import core.budget
from core.errors import BudgetError, DecodeError, ExportError, SourceError
from core.export.code_snippets import numpy_snippet
from core.pipeline.pipeline import DecodeParams, Pipeline


@pytest.fixture
def forty(tmp_path):
    path = tmp_path / "forty.bin"
    path.write_bytes(bytes(range(40)))
    return str(path)


def test_evenly_spaced_equal_elements_are_a_strided_view(forty):
    with Pipeline(forty) as pipeline:
        result = pipeline.run(DecodeParams(dtype="uint16", elements=((2, 4), (10, 4), (18, 4))))
        assert result.input_shape == (3,)
        # little-endian uint16 pairs of bytes 2..5, 10..13, 18..21
        assert result.view.tolist() == [[2 + 3 * 256, 4 + 5 * 256], [10 + 11 * 256, 12 + 13 * 256],
                                        [18 + 19 * 256, 20 + 21 * 256]]
        assert result.zero_copy
        assert "3 elements of 4 bytes at their own offsets (first from byte 2; a strided view)" in result.steps[0]
        assert result.byte_offset((1, 1)) == (0, 12, 2)
        assert result.element_at_byte(0, 13) == (1, 1)
        assert result.element_at_byte(0, 7) is None  # between two elements
        assert result.params.offset is None and result.params.elements == ((2, 4), (10, 4), (18, 4))


def test_uneven_elements_are_gathered_once_and_point_at_their_bytes(forty):
    with Pipeline(forty) as pipeline:
        result = pipeline.run(DecodeParams(dtype="uint8", elements=[(30, 3), (2, 3), (11, 3)]))
        assert result.view.tolist() == [[30, 31, 32], [2, 3, 4], [11, 12, 13]]
        assert not result.zero_copy
        assert "copied once: 3 elements gathered from their byte ranges" in result.steps[1]
        assert result.byte_offset((0, 2)) == (0, 32, 1)
        assert result.byte_offset((2, 0)) == (0, 11, 1)
        assert result.element_at_byte(0, 3) == (1, 1)
        assert result.element_at_byte(0, 14) is None


def test_lengths_that_differ_need_fixed_length_as_decode_raw_says(forty):
    with Pipeline(forty) as pipeline:
        with pytest.raises(DecodeError, match=r"^DecodeRaw requires input strings to all be the same "
                           r"size, but element 1 has size 4 != 2 \(set fixed_length") as caught:
            pipeline.run(DecodeParams(elements=((0, 4), (8, 2))))
        assert caught.value.field == "fixed_length"
        padded = pipeline.run(DecodeParams(elements=((0, 4), (8, 2)), fixed_length=4))
        assert padded.view.tolist() == [[0, 1, 2, 3], [8, 9, 0, 0]]
        assert padded.byte_offset((1, 1)) == (0, 9, 1)
        assert padded.byte_offset((1, 2)) == (0, 10, 0)  # zero padding: no file bytes
        assert padded.element_at_byte(0, 10) is None


def test_fixed_length_on_a_strided_batch(forty):
    elements = ((0, 4), (10, 4))
    with Pipeline(forty) as pipeline:
        cut = pipeline.run(DecodeParams(elements=elements, fixed_length=2))
        assert cut.view.tolist() == [[0, 1], [10, 11]] and cut.zero_copy
        grown = pipeline.run(DecodeParams(elements=elements, fixed_length=6))
        assert grown.view.tolist() == [[0, 1, 2, 3, 0, 0], [10, 11, 12, 13, 0, 0]]
        assert grown.byte_offset((1, 3)) == (0, 13, 1)
        assert grown.byte_offset((1, 4))[2] == 0
        assert grown.element_at_byte(0, 12) == (1, 2)


def test_bad_elements_are_refused_with_the_field(forty, tmp_path):
    with Pipeline(forty) as pipeline:
        for params, message in [
            (DecodeParams(elements=((38, 4),)), r"element 0 \(4 bytes from byte 38\) is not inside"),
            (DecodeParams(elements=((-1, 4),)), r"element 0 \(4 bytes from byte -1\)"),
            (DecodeParams(elements=((0, "x"),)), "element 0 must be an \\(offset, length\\) pair"),
            (DecodeParams(elements=()), "no elements given"),
            (DecodeParams(elements=((0, 4),), offset=2), "offset must not be set as well"),
            (DecodeParams(elements=((0, 4),), record_size=2), "record_size must not be set"),
        ]:
            with pytest.raises(SourceError, match=message) as caught:
                pipeline.run(params)
            assert caught.value.field == "elements"
    other = tmp_path / "other.bin"
    other.write_bytes(bytes(8))
    with Pipeline([forty, str(other)]) as pipeline:
        with pytest.raises(SourceError, match="explicit elements address one file"):
            pipeline.run(DecodeParams(elements=((0, 4),)))


def test_gathering_is_budget_checked(forty, monkeypatch):
    monkeypatch.setattr(core.budget, "COPY_BUDGET_BYTES", 4)
    monkeypatch.setattr(core.budget, "_ENV_ERROR", None)
    with Pipeline(forty) as pipeline:
        with pytest.raises(BudgetError, match="gathering 3 elements from their byte ranges") as caught:
            pipeline.run(DecodeParams(elements=((0, 3), (5, 3), (20, 3))))
        assert caught.value.field == "elements"


def test_code_snippets_refuse_explicit_elements(forty):
    with pytest.raises(ExportError, match="not written yet"):
        with Pipeline(forty) as pipeline:
            numpy_snippet(pipeline.source, pipeline.run(DecodeParams(elements=((0, 4), (9, 4)))))


def test_elements_params_are_hashable_and_lists_become_tuples():
    params = DecodeParams(elements=[[0, 4], [8, 4]])
    assert params.elements == ((0, 4), (8, 4))
    assert hash(params) == hash(DecodeParams(elements=((0, 4), (8, 4))))
    assert np.array(params.elements).shape == (2, 2)
