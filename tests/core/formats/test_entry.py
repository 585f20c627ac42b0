"""Container entries become ordinary decode parameters; names are found exactly."""

import pytest

from core.errors import ContainerError
from core.files.sources import open_source
from core.formats.entry import ContainerListing, TensorEntry, find_entry
from core.formats.reader import HeaderReader
from core.pipeline.pipeline import DecodeParams, Pipeline

ENTRY = TensorEntry(name="layer.weight", dtype="int16", little_endian=False, shape=(2, 2),
                    offset=4, nbytes=8, stored_type="I16")


def test_entry_params_show_the_tensor_as_a_view(tmp_path):
    path = tmp_path / "c.bin"
    path.write_bytes(b"HEAD" + bytes([0, 1, 0, 2, 1, 0, 255, 255]) + b"TAIL")
    with Pipeline([str(path)]) as pipeline:
        result = pipeline.run(ENTRY.params())
    assert result.view.tolist() == [[1, 2], [256, -1]]  # big-endian int16
    assert result.zero_copy
    assert result.trailing_bytes == (4,)


def test_entry_params_overrides():
    params = ENTRY.params(dtype="uint8", shape=None)
    assert (params.dtype, params.offset, params.length, params.shape) == ("uint8", 4, 8, None)


def test_unmappable_entry_says_why():
    entry = TensorEntry(name="q", dtype=None, little_endian=True, shape=(32,), offset=0,
                        nbytes=18, stored_type="Q4_0", problem="Q4_0 blocks need dequantizing")
    assert not entry.mappable
    with pytest.raises(ContainerError, match="Q4_0 blocks need dequantizing"):
        entry.params()


def test_find_entry_exact_and_closest_names():
    listing = ContainerListing("safetensors", "m.safetensors", (
        ENTRY, TensorEntry("layer.bias", "int16", True, (2,), 12, 4)))
    assert find_entry(listing, "layer.bias").offset == 12
    with pytest.raises(ContainerError, match="closest: 'layer.weight', 'layer.bias'") as caught:
        find_entry(listing, "layer.weights")
    assert caught.value.field == "tensor"


def test_header_reader_refuses_reads_past_the_end(tmp_path):
    path = tmp_path / "short.safetensors"
    path.write_bytes(b"0123456789")
    with open_source(str(path)) as source:
        reader = HeaderReader(source, 0, "safetensors")
        assert reader.read(2, 3) == b"234"
        with pytest.raises(ContainerError, match=r"safetensors file .*short.safetensors' at byte 8: "
                           r"the header \(5 bytes from byte 8\) reaches past the end of the file "
                           r"\(10 bytes\)"):
            reader.read(8, 5)


def test_params_over_explicit_options_win():
    given = DecodeParams()
    assert ENTRY.params_over(given) == ENTRY.params()
    # same item size: the entry's shape stays; another byte order
    params = ENTRY.params_over(DecodeParams(dtype="uint16", little_endian=True))
    assert (params.dtype, params.little_endian, params.shape, params.offset, params.length) == \
        ("uint16", True, (2, 2), 4, 8)
    # another item size: flat (decode shape) unless a shape is given
    assert ENTRY.params_over(DecodeParams(dtype="uint8")).shape is None
    assert ENTRY.params_over(DecodeParams(dtype="uint8", shape=(8,))).shape == (8,)
    # an explicit offset takes the layout over: to the end of the file unless a length is given
    params = ENTRY.params_over(DecodeParams(offset=0))
    assert (params.offset, params.length, params.shape) == (0, None, None)
    assert ENTRY.params_over(DecodeParams(offset=0, length=4)).length == 4
    assert ENTRY.params_over(DecodeParams(record_size=4)).shape is None


def test_params_over_opens_an_unmappable_entry_as_bytes_only_when_asked():
    entry = TensorEntry(name="q", dtype=None, little_endian=True, shape=(32,), offset=10,
                        nbytes=18, stored_type="Q4_0", problem="Q4_0 blocks need dequantizing")
    with pytest.raises(ContainerError, match="Q4_0 blocks need dequantizing"):
        entry.params_over(DecodeParams())
    params = entry.params_over(DecodeParams(dtype="uint8"))
    assert (params.dtype, params.offset, params.length, params.shape) == ("uint8", 10, 18, None)
    empty = TensorEntry("gone", None, True, (4,), 0, 0, "F32", problem="outside the file")
    with pytest.raises(ContainerError, match="outside the file"):
        empty.params_over(DecodeParams(dtype="uint8"))
