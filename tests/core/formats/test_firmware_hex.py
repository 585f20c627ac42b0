"""Intel HEX and Motorola S-record flash images (written by bincopy, and by hand for the damaged
ones): one entry per segment, its bytes; bad checksums and overlapping records refused."""

from __future__ import annotations

import numpy as np
import pytest

from core import tensor
from core.errors import ContainerError
from core.formats.registry import list_file

bincopy = pytest.importorskip("bincopy")

BOOT = bytes(range(256)) * 4
APP = b"\x01\x02\x03tensor-inspector"


@pytest.fixture
def image():
    made = bincopy.BinFile()
    made.add_binary(BOOT, address=0x08000000)
    made.add_binary(APP, address=0x08004000)
    made.execution_start_address = 0x08000101
    return made


@pytest.mark.parametrize("kind", ["ihex", "srec"])
def test_segments_are_the_images_bytes(tmp_path, image, kind):
    path = tmp_path / f"fw.{'hex' if kind == 'ihex' else 's19'}"
    path.write_text(image.as_ihex() if kind == "ihex" else image.as_srec())
    listing = list_file(str(path))
    assert listing.format == ("intel-hex" if kind == "ihex" else "srec")
    assert [(e.name, e.shape, e.extras["end"]) for e in listing.entries] == [
        ("0x08000000", (1024,), "0x080003FF"), ("0x08004000", (len(APP),), f"0x{0x08004000 + len(APP) - 1:08X}")]
    assert listing.metadata["gaps"] == "0x08000400-0x08003FFF"
    assert listing.metadata["execution start"] == "0x08000101"
    np.testing.assert_array_equal(tensor(str(path), "0x08000000"), np.frombuffer(BOOT, np.uint8))
    assert tensor(str(path), "0x08004000").tobytes() == APP


def test_a_bad_checksum_and_overlapping_records_are_refused(tmp_path):
    bad = tmp_path / "bad.hex"
    bad.write_text(":0B00000068656C6C6F20776F726C6498\n:00000001FF\n")  # checksum 0x98, should be 0x99
    with pytest.raises(ContainerError, match="not a valid Intel HEX file: .*crc"):
        list_file(str(bad))
    overlap = tmp_path / "overlap.hex"
    overlap.write_text(":0400000001020304F2\n:0400020005060708E0\n:00000001FF\n")
    with pytest.raises(ContainerError, match="records overlap"):
        list_file(str(overlap))


def test_text_that_only_looks_like_hex_is_not_an_image(tmp_path):
    path = tmp_path / "notes.txt"
    path.write_text(":-) not a hex file\n")
    assert list_file(str(path)) is None
