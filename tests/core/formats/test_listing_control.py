"""core.formats.listing_control: progress and cancel of a listing from inside HeaderReader.read;
nothing at all outside a control (the command line lists synchronously)."""

from __future__ import annotations

import numpy as np
import pytest
from safetensors.numpy import save_file

from core.errors import Cancelled, CoreError
from core.files.sources import open_source
from core.formats.listing_control import ListingCancelled, ListingControl, controlled
from core.formats.reader import HeaderReader
from core.formats.registry import list_container


@pytest.fixture
def checkpoint(tmp_path):
    path = tmp_path / "w.safetensors"
    save_file({"a": np.arange(6, dtype=np.float32), "b": np.zeros(3, np.int16)}, str(path))
    return str(path)


def test_outside_a_control_listing_is_unchanged(checkpoint):
    with open_source(checkpoint) as source:
        listing = list_container(HeaderReader(source, 0))
    assert [e.name for e in listing.entries] == ["a", "b"]


def test_a_control_counts_the_header_bytes_read(checkpoint):
    seen = []
    control = ListingControl(seen.append)
    with open_source(checkpoint) as source, controlled(control):
        reader = HeaderReader(source, 0)
        list_container(reader)
    assert control.bytes_read == reader.consumed > 8  # the length word and the JSON header
    assert seen[-1] == control.bytes_read


def test_a_cancelled_control_stops_the_next_header_read(checkpoint):
    control = ListingControl()
    control.cancel()
    with open_source(checkpoint) as source, controlled(control):
        with pytest.raises(ListingCancelled) as caught:
            HeaderReader(source, 0).read(0, 8)
    assert isinstance(caught.value, Cancelled) and isinstance(caught.value, CoreError)
    assert caught.value.message == "listing cancelled" and caught.value.field == "files"
    with open_source(checkpoint) as source:  # the control ended with its block
        assert len(HeaderReader(source, 0).read(0, 8)) == 8


def test_a_cancelled_callable_is_obeyed_too(checkpoint):
    flag = []
    control = ListingControl(cancelled=lambda: bool(flag))
    with open_source(checkpoint) as source, controlled(control):
        reader = HeaderReader(source, 0)
        reader.read(0, 8)
        flag.append(True)
        with pytest.raises(ListingCancelled):
            reader.read(0, 8)
