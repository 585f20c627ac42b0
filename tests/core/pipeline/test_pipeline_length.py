"""``length``: the data is ``length`` bytes after ``offset`` (a tensor inside a larger file)."""

import json

import numpy as np
import pytest

from core.cli import main
from core.errors import SourceError
from core.export.code_snippets import numpy_snippet
from core.pipeline.pipeline import DecodeParams, Pipeline


@pytest.fixture
def twenty(tmp_path):
    path = tmp_path / "twenty.bin"
    path.write_bytes(bytes(range(20)))
    return str(path)


def test_length_selects_the_bytes_after_the_offset_as_a_view(twenty):
    with Pipeline([twenty]) as pipeline:
        result = pipeline.run(DecodeParams(dtype="uint8", offset=4, length=6))
        assert result.view.tolist() == [4, 5, 6, 7, 8, 9]
        assert result.trailing_bytes == (10,)  # bytes 10..19 are reported, not dropped
        assert result.zero_copy
        assert result.byte_map.locate(result.view, 2) == (0, 6, 1)
        assert "not decoded: 10 trailing bytes" in result.steps[0]


def test_length_with_records_and_a_wider_type(twenty):
    with Pipeline([twenty]) as pipeline:
        result = pipeline.run(DecodeParams(dtype="int16", offset=4, length=8, record_size=4))
    # records [4 5 6 7] and [8 9 10 11], little-endian int16 pairs
    assert result.view.tolist() == [[4 + 5 * 256, 6 + 7 * 256], [8 + 9 * 256, 10 + 11 * 256]]
    assert result.trailing_bytes == (8,)


def test_zero_length_is_an_empty_element(twenty):
    with Pipeline([twenty]) as pipeline:
        assert pipeline.run(DecodeParams(dtype="uint8", offset=20, length=0)).view.shape == (0,)


@pytest.mark.parametrize(("offset", "length", "words"), [
    (4, 17, "length 17 from offset 4 reaches past the end"),
    (4, -1, "length -1 is negative"),
])
def test_bad_lengths_name_the_field(twenty, offset, length, words):
    with Pipeline([twenty]) as pipeline, pytest.raises(SourceError, match=words) as caught:
        pipeline.run(DecodeParams(dtype="uint8", offset=offset, length=length))
    assert caught.value.field == "length"


def test_npy_offset_default_with_a_length_starts_at_the_data(tmp_path):
    path = tmp_path / "a.npy"
    np.save(path, np.arange(10, dtype="<i4"))
    with Pipeline([str(path)]) as pipeline:
        result = pipeline.run(DecodeParams(length=12))
    assert result.view.tolist() == [0, 1, 2]


def test_numpy_snippet_reproduces_a_length(twenty):
    with Pipeline([twenty]) as pipeline:
        source = numpy_snippet(pipeline.source, pipeline.run(DecodeParams(dtype="uint8", offset=3, length=5)))
    namespace: dict = {}
    exec(compile(source, "<snippet>", "exec"), namespace)  # test only: the product never runs it
    assert np.asarray(namespace["x"]).tolist() == [3, 4, 5, 6, 7]


def test_cli_length(twenty, capsys):
    assert main([twenty, "--dtype", "uint8", "--offset", "2", "--length", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["values"] == [2, 3, 4]
