"""The status bar's selection text for the packed types (docs/semantics.md §2a)."""

from core.pipeline.pipeline import DecodeParams, Pipeline
from inspector.panels.status_bar import selection_text


def test_status_bar_names_the_nibble_of_an_int4_value(tmp_path):
    packed_file = tmp_path / "packed.bin"
    packed_file.write_bytes(b"\x21\x43\x65\x87" + b"\x00\x00\x80" + b"\xff\xff\x7f")
    with Pipeline(packed_file) as pipeline:
        result = pipeline.run(DecodeParams(dtype="int4", length=4))
        assert selection_text(result, (3,), (str(packed_file),)) == (
            "[3] = 4   byte 1 high nibble (0x1) of packed.bin")
        result = pipeline.run(DecodeParams(dtype="int24", offset=4))
        assert selection_text(result, (1,), (str(packed_file),)) == (
            "[1] = 8388607   bytes 7..9 (0x7) of packed.bin")
