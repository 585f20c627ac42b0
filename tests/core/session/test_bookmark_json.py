"""A bookmark as a JSON object: every field round trips, and each wrong field is named."""

from __future__ import annotations

import pytest

from core.errors import SessionError
from core.pipeline.pipeline import DecodeParams
from core.session.bookmark import DEFAULT_COLOUR, Bookmark

ELEMENT = Bookmark("peak", "element", file_index=2, params=DecodeParams(dtype="float32", offset=16, shape=(3, -1)),
                   tensor="layer/w", slice_text="1:, 0", index=(4,), note="the peak\nsecond line", colour="#12abEF")
REGION = Bookmark("band", "region", slice_text="x[10:20, :]")
BYTES = Bookmark("magic", "bytes", byte_range=(0, 4), note="file magic")


@pytest.mark.parametrize("mark", [ELEMENT, REGION, BYTES])
def test_round_trip(mark):
    assert Bookmark.from_json(mark.to_json()) == mark


def test_the_object_names_fields_and_leaves_out_nones():
    assert ELEMENT.to_json() == {
        "name": "peak", "kind": "element", "file_index": 2,
        "params": {"dtype": "float32", "offset": 16, "shape": [3, -1], "extended_types": True},
        "tensor": "layer/w", "slice_text": "1:, 0", "index": [4], "note": "the peak\nsecond line",
        "colour": "#12abEF"}
    assert BYTES.to_json() == {"name": "magic", "kind": "bytes", "file_index": 0, "slice_text": "",
                               "byte_range": [0, 4], "note": "file magic", "colour": DEFAULT_COLOUR}


def test_optional_keys_take_their_defaults():
    assert Bookmark.from_json({"name": "b", "kind": "bytes", "byte_range": [3, 1]}) == \
        Bookmark("b", "bytes", byte_range=(3, 1))


def test_unknown_keys_are_noted_not_fatal():
    notes: list[str] = []
    mark = Bookmark.from_json({**REGION.to_json(), "shape_hint": 3}, "bookmarks[0]", notes)
    assert mark == REGION
    assert notes == ["ignored unknown key 'shape_hint' in bookmarks[0] (written by a newer "
                     "tensor-inspector, or by hand)"]


@pytest.mark.parametrize("data, message", [
    ([], r"^bookmarks\[1\] must be an object \(\{\.\.\.\}\), not a list"),
    ({"kind": "bytes"}, r"^bookmarks\[1\]\.name is missing"),
    ({"name": 5, "kind": "region"}, r"^bookmarks\[1\]\.name must be a text, not a whole number"),
    ({"name": "a", "kind": "element", "index": [1, -2]}, r"^bookmarks\[1\]\.index\[1\] is -2: it must be at least 0"),
    ({"name": "a", "kind": "element", "index": [True]}, r"^bookmarks\[1\]\.index\[0\] must be a whole number, not true"),
    ({"name": "a", "kind": "element", "index": "3"}, r"^bookmarks\[1\]\.index must be a list, not a text"),
    ({"name": "a", "kind": "element", "index": list(range(65))}, r"index has 65 items, more than the 64"),
    ({"name": "a", "kind": "bytes", "byte_range": [1]}, r"byte_range must be a \[start, length\] pair"),
    ({"name": "a", "kind": "bytes", "byte_range": [-1, 4]}, r"byte_range\[0\] is -1: it must be at least 0"),
    ({"name": "a", "kind": "bytes", "byte_range": [10**30, 1]},
     r"byte_range\[0\] is a number of 31 digits: it must be at least 0"),
    ({"name": "a", "kind": "bytes", "byte_range": [0, 0]}, r"^bookmarks\[1\]: Bookmark 'a': byte range start 0, length 0"),
    ({"name": "a", "kind": "circle"}, r"^bookmarks\[1\]: Unknown bookmark kind 'circle'"),
    ({"name": "a", "kind": "region", "colour": "red"}, r"Bookmark colour 'red' is not #rrggbb"),
    ({"name": "a", "kind": "region", "file_index": -1}, r"file_index is -1: it must be at least 0"),
    ({"name": "a", "kind": "region", "note": "x" * 70000}, r"note is 70,000 characters long, more than the 65,536"),
    ({"name": "a\0b", "kind": "region"}, r"name contains a NUL character"),
    ({"name": "a", "kind": "region", "params": {"dtype": "flaot32"}}, r"^bookmarks\[1\]\.params: .*flaot32"),
    ({"name": "a", "kind": "region", "params": {"offset": -8}}, r"params\.offset is -8: it must be at least 0"),
    ({"name": "a", "kind": "region", "params": {"shape": [-1, -1]}}, r"params\.shape has more than one -1"),
    ({"name": "a", "kind": "region", "params": {"little_endian": "yes"}},
     r"params\.little_endian must be true or false, not a text"),
    ({"name": "a", "kind": "region", "params": {"elements": [[0, 1, 2]]}}, r"params\.elements\[0\] has 3 items"),
    ({"name": "a", "kind": "region", "params": {"view_as": "quaternion"}}, r"view as: Unknown data type 'quaternion'"),
])
def test_each_wrong_field_is_named(data, message):
    with pytest.raises(SessionError, match=message) as caught:
        Bookmark.from_json(data, "bookmarks[1]")
    assert caught.value.field == "bookmark"
