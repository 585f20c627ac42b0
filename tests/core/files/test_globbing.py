"""Globs open their matches as one batch in natural order, bounded (core/files/globbing.py)."""

from __future__ import annotations

import numpy as np
import pytest

from core import DecodeParams, Pipeline, read_values
from core.errors import SourceError
from core.files.globbing import expand_globs, is_glob
from core.files.sources import open_source


@pytest.fixture
def frames(tmp_path):
    for i in (0, 1, 2, 10, 11):
        np.full((2, 3), i, np.uint16).tofile(tmp_path / f"frame_{i}.raw")
    (tmp_path / "notes.txt").write_text("not a frame")
    (tmp_path / "frame_99.raw.d").mkdir()  # a folder that matches is no file
    return tmp_path


def test_matches_are_files_in_natural_order(frames):
    names = [p.rsplit("/", 1)[-1] for p in expand_globs([str(frames / "frame_*.raw*")])]
    assert names == ["frame_0.raw", "frame_1.raw", "frame_2.raw", "frame_10.raw", "frame_11.raw"]


def test_a_glob_of_equal_frames_stacks_them_as_the_leading_axis(frames):
    values = read_values(str(frames / "frame_*.raw"), "::2, 0, 0", DecodeParams(dtype="uint16", shape=(5, 2, 3)))
    assert values.tolist() == [0, 2, 11]
    with Pipeline(str(frames / "frame_?.raw")) as pipe:
        result = pipe.run(DecodeParams(dtype="uint16", shape=(3, 2, 3)))
        assert [p.rsplit("/", 1)[-1] for p in pipe.source.paths] == ["frame_0.raw", "frame_1.raw", "frame_2.raw"]
        file_index, offset, nbytes = result.byte_offset((2, 1, 1))
        assert (file_index, offset, nbytes) == (2, 8, 2)  # element (1, 1) of the third file: its byte 8


def test_a_file_whose_name_looks_like_a_pattern_is_that_file(tmp_path):
    odd = tmp_path / "run[1].bin"
    odd.write_bytes(b"\x01\x02")
    assert not is_glob(str(odd))
    with open_source(str(odd)) as source:
        assert source.paths == (str(odd),)


def test_no_match_and_too_many_matches_are_errors_naming_the_pattern(frames):
    with pytest.raises(SourceError, match=r"no file matches '.*nothing_\*\.bin'"):
        open_source(str(frames / "nothing_*.bin"))
    with pytest.raises(SourceError, match=r"matches more than 3 files.*narrow the pattern"):
        expand_globs([str(frames / "frame_*.raw")], limit=3)


def test_a_url_pattern_counts_only_its_path():
    assert is_glob("https://host/shards/train-*.tfrecord")
    assert not is_glob("https://host/file.bin?version=3")  # ? starts the query
    assert is_glob("s3://bucket/dumps/layer_[0-9].bin")
