"""TFRecord files of tf.train.Example: records with CRC check, features as decode_raw batches.

Files are written by a small TFRecord writer here whose Example bytes come from the protobuf
library (message classes built from a descriptor of tensorflow/core/example/feature.proto and
example.proto), so the wire format read by core.formats.tfrecord is the real one.
"""

import os
import struct

import numpy as np
import pytest

from core.errors import ContainerError, DecodeError
from core.files.sources import open_source
from core.formats import tfrecord
from core.formats.entry import Storage, find_entry
from core.formats.reader import HeaderReader
from core.formats.registry import list_file
from core.formats.values import entry_values
from core.pipeline.pipeline import Pipeline

descriptor_pb2 = pytest.importorskip("google.protobuf.descriptor_pb2")
from google.protobuf import descriptor_pool, message_factory


def _example_class():
    proto = descriptor_pb2.FileDescriptorProto(name="example_test.proto", package="tensorflow",
                                               syntax="proto3")
    F = descriptor_pb2.FieldDescriptorProto

    def message(name, *fields):
        msg = proto.message_type.add(name=name)
        for number, (field_name, kind, label, type_name, packed) in enumerate(fields, 1):
            f = msg.field.add(name=field_name, number=number, type=kind, label=label)
            if type_name:
                f.type_name = type_name
            if packed is not None:
                f.options.packed = packed
        return msg

    rep, opt = F.LABEL_REPEATED, F.LABEL_OPTIONAL
    message("BytesList", ("value", F.TYPE_BYTES, rep, None, None))
    message("FloatList", ("value", F.TYPE_FLOAT, rep, None, True))
    message("Int64List", ("value", F.TYPE_INT64, rep, None, True))
    feature = message("Feature", ("bytes_list", F.TYPE_MESSAGE, opt, ".tensorflow.BytesList", None),
                      ("float_list", F.TYPE_MESSAGE, opt, ".tensorflow.FloatList", None),
                      ("int64_list", F.TYPE_MESSAGE, opt, ".tensorflow.Int64List", None))
    feature.oneof_decl.add(name="kind")
    for f in feature.field:
        f.oneof_index = 0
    features = message("Features", ("feature", F.TYPE_MESSAGE, rep, ".tensorflow.Features.FeatureEntry", None))
    entry = features.nested_type.add(name="FeatureEntry")
    entry.field.add(name="key", number=1, type=F.TYPE_STRING, label=opt)
    entry.field.add(name="value", number=2, type=F.TYPE_MESSAGE, label=opt, type_name=".tensorflow.Feature")
    entry.options.map_entry = True
    message("Example", ("features", F.TYPE_MESSAGE, opt, ".tensorflow.Features", None))
    # tensorflow/core/example/feature.proto's FeatureList(s) and example.proto's SequenceExample
    message("FeatureList", ("feature", F.TYPE_MESSAGE, rep, ".tensorflow.Feature", None))
    lists = message("FeatureLists", ("feature_list", F.TYPE_MESSAGE, rep,
                                     ".tensorflow.FeatureLists.FeatureListEntry", None))
    entry = lists.nested_type.add(name="FeatureListEntry")
    entry.field.add(name="key", number=1, type=F.TYPE_STRING, label=opt)
    entry.field.add(name="value", number=2, type=F.TYPE_MESSAGE, label=opt, type_name=".tensorflow.FeatureList")
    entry.options.map_entry = True
    message("SequenceExample", ("context", F.TYPE_MESSAGE, opt, ".tensorflow.Features", None),
            ("feature_lists", F.TYPE_MESSAGE, opt, ".tensorflow.FeatureLists", None))
    pool = descriptor_pool.DescriptorPool()
    pool.Add(proto)
    return tuple(message_factory.GetMessageClass(pool.FindMessageTypeByName(f"tensorflow.{name}"))
                 for name in ("Example", "SequenceExample"))


Example, SequenceExample = _example_class()


def _fill(feature, value) -> None:
    if isinstance(value, bytes):
        feature.bytes_list.value.append(value)
    elif isinstance(value, list) and value and isinstance(value[0], bytes):
        feature.bytes_list.value.extend(value)
    elif isinstance(value, list) and value and isinstance(value[0], float):
        feature.float_list.value.extend(value)
    else:
        feature.int64_list.value.extend(value)


def sequence_example(context: dict, **lists) -> bytes:
    """A serialized tf.train.SequenceExample: ``lists[name]`` is a list of frames, each a value
    as :func:`example` takes them."""
    message = SequenceExample()
    for key, value in context.items():
        _fill(message.context.feature[key], value)
    for key, frames in lists.items():
        feature_list = message.feature_lists.feature_list[key]
        for frame in frames:
            _fill(feature_list.feature.add(), frame)
    return message.SerializeToString(deterministic=True)


def example(**features) -> bytes:
    message = Example()
    for key, value in features.items():
        _fill(message.features.feature[key], value)
    return message.SerializeToString(deterministic=True)


def frame(data: bytes) -> bytes:
    """One TFRecord record (TensorFlow's record_writer.cc framing)."""
    length = struct.pack("<Q", len(data))
    return (length + struct.pack("<I", tfrecord.masked_crc32c(length)) + data
            + struct.pack("<I", tfrecord.masked_crc32c(data)))


def write(path, *records: bytes) -> str:
    path.write_bytes(b"".join(frame(r) for r in records))
    return str(path)


def test_masked_crc_matches_tensorflow_known_value():
    # crc32c(b"123456789") = 0xe3069283 (the CRC-32C check value); masked by TF's rule.
    crc = 0xE3069283
    assert tfrecord.masked_crc32c(b"123456789") == (((crc >> 15) | (crc << 17)) + 0xA282EAD8) & 0xFFFFFFFF
    assert tfrecord._crc32c_python(b"123456789") == crc


def test_bytes_feature_is_the_decode_raw_batch_with_real_byte_offsets(tmp_path):
    images = [bytes([i, i + 1, i + 2, 200 + i]) for i in range(3)]
    records = [example(image_raw=img, label=[i]) for i, img in enumerate(images)]
    path = write(tmp_path / "train.tfrecord", *records)
    listing = list_file(path)
    assert listing.format == "tfrecord" and listing.problems == ()
    assert listing.metadata["records"] == "3"
    entry = find_entry(listing, "image_raw")
    assert (entry.dtype, entry.shape, entry.stored_type) == ("uint8", (3, 4), "bytes_list")
    raw = open(path, "rb").read()
    # every element's offset is where its bytes really are, inside record i's data
    for i, (start, size) in enumerate(entry.elements):
        assert size == 4 and raw[start:start + 4] == images[i]
    params = entry.params()
    # the batch's shape: one string per record, its bytes on the last axis
    assert (params.offset, params.length, params.shape, params.elements) == (None, None, (3, 4), entry.elements)
    with Pipeline(path) as pipeline:
        result = pipeline.run(params)
        assert result.view.tolist() == [list(img) for img in images]
        assert result.zero_copy  # equal lengths, evenly spaced records: a strided view
        assert result.byte_offset((2, 3)) == (0, entry.elements[2][0] + 3, 1)
        assert result.element_at_byte(0, entry.elements[1][0] + 2) == (1, 2)
        assert result.element_at_byte(0, 0) is None  # a record header
        as_uint16 = pipeline.run(entry.params(dtype="uint16"))
        assert as_uint16.view.tolist() == [[i + (i + 1) * 256, i + 2 + (200 + i) * 256] for i in range(3)]


def test_bytes_of_different_lengths_need_fixed_length_as_decode_raw_says(tmp_path):
    path = write(tmp_path / "v.tfrecord", example(s=b"abcd"), example(s=b"xy"), example(s=b"pqrs"))
    entry = find_entry(list_file(path), "s")
    assert entry.shape == (3,) and "2 to 4 bytes" in entry.extras["element lengths"]
    with Pipeline(path) as pipeline:
        with pytest.raises(DecodeError, match="DecodeRaw requires input strings to all be the same "
                           "size, but element 1 has size 4 != 2") as caught:
            pipeline.run(entry.params())
        assert caught.value.field == "fixed_length"
        result = pipeline.run(entry.params(fixed_length=4))
        assert result.view.tolist() == [list(b"abcd"), [120, 121, 0, 0], list(b"pqrs")]
        assert not result.zero_copy and "gathered" in result.steps[1]
        # element 1's byte 1 is 'y' in the file; byte 2 is padding (no file bytes)
        start = entry.elements[1][0]
        assert result.byte_offset((1, 1)) == (0, start + 1, 1)
        assert result.byte_offset((1, 2))[2] == 0
        assert result.element_at_byte(0, start + 1) == (1, 1)


def test_float_list_is_float32_per_record_and_int64_a_decoded_copy(tmp_path):
    path = write(tmp_path / "f.tfrecord",
                 example(x=[1.5, -2.0], n=[7, -3, 300]), example(x=[0.25, 8.0], n=[1, 2, 3]))
    listing = list_file(path)
    x = find_entry(listing, "x")
    assert (x.dtype, x.shape, x.stored_type) == ("float32", (2, 2), "float_list")
    with Pipeline(path) as pipeline:
        result = pipeline.run(x.params())
        assert result.view.tolist() == [[1.5, -2.0], [0.25, 8.0]]
    n = find_entry(listing, "n")
    # varints are not a view of the file: a copy, decoded by the format's values hook
    assert n.shape == (2, 3) and n.storage is Storage.COPY and not n.mappable and n.problem is None
    with open_source(path) as source:
        assert tfrecord.int64_values(source, n).tolist() == [[7, -3, 300], [1, 2, 3]]
        values = entry_values(source, listing, n)
        assert values.array.dtype == np.int64 and values.array.tolist() == [[7, -3, 300], [1, 2, 3]]
        assert values.how == "varints decoded"
        with pytest.raises(ContainerError, match="not an int64_list"):
            tfrecord.int64_values(source, x)


def test_a_feature_without_values_says_so(tmp_path):
    empty = Example()
    empty.features.feature["nothing"].bytes_list.SetInParent()
    path = write(tmp_path / "e.tfrecord", empty.SerializeToString(), empty.SerializeToString())
    entry = find_entry(list_file(path), "nothing")
    assert entry.shape == (0,) and entry.problem == "feature 'nothing' holds no values in any record"


def test_one_record_gives_plain_entries(tmp_path):
    path = write(tmp_path / "one.tfrecord", example(image_raw=b"\x01\x02\x03", x=[3.0]))
    listing = list_file(path)
    image = find_entry(listing, "image_raw")
    assert image.elements is None and image.shape == (3,)
    with Pipeline(path) as pipeline:
        assert pipeline.run(image.params()).view.tolist() == [1, 2, 3]
        assert pipeline.run(find_entry(listing, "x").params()).view.tolist() == [3.0]


def test_corrupt_record_is_reported_with_its_offset_and_the_rest_stay_usable(tmp_path):
    records = [example(image_raw=bytes([i] * 4)) for i in range(3)]
    raw = bytearray(b"".join(frame(r) for r in records))
    second = len(frame(records[0]))
    raw[second + 12 + 5] ^= 0xFF  # a byte of record 1's data: its data CRC fails
    path = tmp_path / "bad.tfrecord"
    path.write_bytes(bytes(raw))
    listing = list_file(str(path))
    assert len(listing.problems) == 1
    assert f"record 1 at byte {second}: the data CRC does not match" in listing.problems[0]
    assert "bad.tfrecord" in listing.problems[0]
    entry = find_entry(listing, "image_raw")
    assert entry.extras["records with it"] == 2
    assert entry.extras["records without it"] == (1,)
    with Pipeline(str(path)) as pipeline:
        assert pipeline.run(entry.params()).view.tolist() == [[0] * 4, [2] * 4]


def test_hostile_lengths_and_truncation_stop_the_walk_with_a_problem(tmp_path):
    good = frame(example(a=b"xy"))
    # a truncated second record
    path = tmp_path / "cut.tfrecord"
    path.write_bytes(good + good[:20])
    listing = list_file(str(path))
    assert listing.metadata["records"] == "1"
    assert f"record 1 at byte {len(good)}: its" in listing.problems[0] and "truncated" in listing.problems[0]
    # a lying length whose CRC was recomputed (a huge length): refused before any allocation
    huge = struct.pack("<Q", 1 << 60)
    path.write_bytes(good + huge + struct.pack("<I", tfrecord.masked_crc32c(huge)) + b"\0" * 8)
    listing = list_file(str(path))
    assert "reach past the end of the file" in listing.problems[0]
    # a length whose CRC does not match
    path.write_bytes(good + struct.pack("<Q", 4) + b"\0\0\0\0" + b"abcd" + b"\0" * 4)
    assert "the length's CRC does not match" in list_file(str(path)).problems[0]


def test_hostile_example_bytes_are_reported_per_record(tmp_path):
    # field 1, wire type 2, length 100 but only 3 bytes follow: a lying protobuf length
    path = write(tmp_path / "p.tfrecord", b"\x0a\x64abc", example(a=b"ok"))
    listing = list_file(str(path))
    assert "record 0 at byte 0: not a tf.train.Example (a field of 100 bytes runs past its " \
           "message (3 bytes left) at byte 14)" in listing.problems[0]
    assert find_entry(listing, "a").extras["records with it"] == 1
    # a varint of more than 10 bytes, and a deprecated group wire type
    assert tfrecord.sniff(frame(b"\x08" + b"\xff" * 11)[:12], 100)
    with pytest.raises(tfrecord._WireError, match="varint"):
        tfrecord.parse_example(b"\x08" + b"\xff" * 11, 0)
    with pytest.raises(tfrecord._WireError, match="wire type 3"):
        tfrecord.parse_example(b"\x0b", 0)


def test_sniff_needs_a_matching_length_crc(tmp_path):
    good = frame(example(a=b"xy"))
    assert tfrecord.sniff(good, len(good))
    assert not tfrecord.sniff(b"\x05" + good[1:], len(good))
    assert not tfrecord.sniff(good[:12], 12)  # the record does not fit
    path = tmp_path / "raw.bin"
    path.write_bytes(bytes(range(64)))
    assert list_file(str(path)) is None or list_file(str(path)).format != "tfrecord"


def test_the_index_budget_says_the_listing_is_partial_and_how_to_list_the_rest(tmp_path, monkeypatch):
    import core.budget

    path = write(tmp_path / "many.tfrecord", *[example(a=bytes([i])) for i in range(5)])
    # each record (30 bytes: 12 + a 14-byte Example + 4) costs 2 ranges (its payload, one string):
    # a budget of 7 ranges lists 3 records
    monkeypatch.setattr(core.budget, "COPY_BUDGET_BYTES", 7 * tfrecord.RANGE_COST)
    listing = list_file(path)
    assert listing.metadata["records"] == "3"
    assert listing.metadata["partial"].startswith("partial listing: the first 3 of 5 records (bytes 0 to 90);")
    assert "raise it with TENSOR_INSPECTOR_COPY_BUDGET" in listing.metadata["partial"]
    assert listing.problems == (f"the tfrecord file '{path}': {listing.metadata['partial']}",)
    assert find_entry(listing, "a").shape == (3, 1)


def test_hostile_random_corruption_never_crashes(tmp_path):
    """Flipped bytes give a listing whose problems name the record and byte, never a crash."""
    import random

    records = [example(image_raw=bytes([i] * 6), x=[float(i)], n=[i, -i]) for i in range(4)]
    blob = b"".join(frame(r) for r in records)
    rng = random.Random(16)
    for _ in range(300):
        bad = bytearray(blob)
        for _ in range(rng.randint(1, 3)):
            bad[rng.randrange(12, len(bad))] = rng.randrange(256)
        path = tmp_path / "f.tfrecord"
        path.write_bytes(bytes(bad))
        listing = list_file(str(path))
        for problem in listing.problems:
            assert "tfrecord file" in problem and "at byte" in problem


def test_raw_records_are_one_entry_as_tf_data_yields_them(tmp_path):
    # TFRecordWriter.write(array.tobytes()): no Examples, the records are decode_raw's input.
    # Each record's key byte is a field number 0, which protobuf never uses: not an Example.
    path = write(tmp_path / "raw.tfrecord", *(struct.pack("<4h", i, -i, 2 * i, 300) for i in range(3)))
    listing = list_file(path)
    assert listing.problems == ()
    assert listing.metadata == {"records": "3",
                                "features": "none (the records are raw bytes, not tf.train.Example)"}
    (entry,) = listing.entries
    assert (entry.name, entry.dtype, entry.shape, entry.stored_type) == ("records", "uint8", (3, 8), "record bytes")
    # a record: 12 header bytes, its 8 data bytes, a 4-byte CRC
    assert entry.elements == ((12, 8), (36, 8), (60, 8))
    with Pipeline(path) as pipeline:
        values = pipeline.run(entry.params(dtype="int16")).view
        assert values.tolist() == [[0, 0, 0, 300], [1, -1, 2, 300], [2, -2, 4, 300]]
        padded = pipeline.run(entry.params(dtype="int16", little_endian=False, fixed_length=10)).view
        assert padded.tolist()[1] == [256, -1, 512, 0x2C01, 0]  # big-endian 01 00, ff ff, 02 00, 2c 01


def test_raw_records_of_different_lengths_and_field_zero(tmp_path):
    path = write(tmp_path / "v.tfrecord", b"\x00\x01\x02", b"\x00\x05")
    (entry,) = list_file(path).entries
    assert entry.shape == (2,) and entry.extras["element lengths"] == "2 to 3 bytes (decode_raw needs fixed_length)"
    with Pipeline(path) as pipeline:
        assert pipeline.run(entry.params(fixed_length=4)).view.tolist() == [[0, 1, 2, 0], [0, 5, 0, 0]]
    with pytest.raises(tfrecord._WireError, match="field number 0 is not valid protobuf"):
        tfrecord.parse_example(b"\x00\x01", 0)
    one = write(tmp_path / "one.tfrecord", b"\x00abc")
    (entry,) = list_file(one).entries
    assert (entry.shape, entry.offset, entry.nbytes, entry.elements) == ((4,), 12, 4, None)


# -- shapes as TensorFlow gives them, every record, compressed files ---------------------------
def _cli(path, *options, capsys):
    """``tensor-inspect PATH OPTIONS --json``: (document, stderr)."""
    import json

    from core.cli import main

    status = main([str(path), *options, "--json", "--limit", "100000"])
    captured = capsys.readouterr()
    assert status == 0, captured.err
    return json.loads(captured.out), captured.err


def test_two_strings_per_record_are_records_by_values_by_bytes_and_slice_by_record(tmp_path, capsys):
    # parse_example(FixedLenFeature([2], tf.string)) + decode_raw: (5, 2, 12)
    strings = [[bytes([10 * r + v] * 12) for v in range(2)] for r in range(5)]
    path = write(tmp_path / "pairs.tfrecord", *(example(pair=s) for s in strings))
    entry = find_entry(list_file(path), "pair")
    assert (entry.shape, entry.batch, len(entry.elements)) == ((5, 2, 12), (5, 2), 10)
    document, _ = _cli(path, "--tensor", "pair", capsys=capsys)
    assert document["shape"] == [5, 2, 12]
    assert document["values"][4][1] == [41] * 12
    picked, _ = _cli(path, "--tensor", "pair", "--slice", "3", capsys=capsys)
    assert picked["shape"] == [2, 12] and picked["values"] == [[30] * 12, [31] * 12]
    # another item size keeps the batch: (records, values, values per string)
    wide, _ = _cli(path, "--tensor", "pair", "--dtype", "uint16", capsys=capsys)
    assert wide["shape"] == [5, 2, 6] and wide["values"][2][1][0] == 21 * 257


def test_int64_features_open_everywhere_as_parse_example_gives_them(tmp_path, capsys):
    # FixedLenFeature([], tf.int64) -> (records,); FixedLenFeature([2], tf.int64) -> (records, 2)
    path = write(tmp_path / "ids.tfrecord",
                 *(example(label=[r], pair=[-r, 1 << 40]) for r in range(4)))
    listing = list_file(path)
    label = find_entry(listing, "label")
    assert (label.shape, label.storage, label.dtype) == ((4,), Storage.COPY, "int64")
    document, err = _cli(path, "--tensor", "label", capsys=capsys)
    assert (document["shape"], document["dtype"], document["values"]) == ([4], "int64", [0, 1, 2, 3])
    assert err.startswith("note: 'label' is an int64_list of varints in the file: these are its decoded values")
    pair, _ = _cli(path, "--tensor", "pair", "--slice", "-1", capsys=capsys)
    assert pair["values"] == [-3, 1 << 40]


def test_a_float_list_whose_length_varies_is_zero_padded_as_a_var_len_feature(tmp_path, capsys):
    path = write(tmp_path / "ragged.tfrecord",
                 example(x=[1.5], n=[5]), example(x=[2.0, -3.0, 0.25], n=[7, 8]), example(label=[1]),
                 example(x=[4.0, 8.0], n=[-1, 2, 3]))
    listing = list_file(path)
    x = find_entry(listing, "x")
    assert (x.shape, x.storage, x.extras["values per record"]) == ((4, 3), Storage.COMPUTED, "1 to 3")
    assert x.extras["records without it"] == (2,)
    document, err = _cli(path, "--tensor", "x", capsys=capsys)
    # tf.sparse.to_dense(parse_example(VarLenFeature(tf.float32))["x"]): zeros where no value
    assert document["values"] == [[1.5, 0, 0], [2.0, -3.0, 0.25], [0, 0, 0], [4.0, 8.0, 0]]
    assert err.startswith("note: 'x' is a float_list of 1 to 3 values per record: zero padded to the "
                          "longest record (3 values), as tf.sparse.to_dense of a VarLenFeature gives it")
    n, _ = _cli(path, "--tensor", "n", capsys=capsys)
    assert n["values"] == [[5, 0, 0], [7, 8, 0], [0, 0, 0], [-1, 2, 3]]


def test_sequence_examples_list_their_feature_lists_by_record_and_frame(tmp_path, capsys):
    records = [sequence_example({"id": [r]},
                                frames=[[float(r), float(f), 0.5] for f in range(2)],  # 2 frames of 3
                                tokens=[[10 * r + f] for f in range(3)],              # 3 frames of 1
                                words=[b"ab%d" % r, b"cd%d" % r],                     # 2 frames, 3 bytes
                                ragged=[[1] * (r + 1)])                               # 1 frame, r + 1
               for r in range(3)]
    path = write(tmp_path / "seq.tfrecord", *records)
    listing = list_file(path)
    assert listing.problems == ()
    names = [e.name for e in listing.entries]
    # in the file's order (deterministic serialisation sorts a map's keys)
    assert names == ["id", "feature_lists/frames", "feature_lists/ragged", "feature_lists/tokens",
                     "feature_lists/words"]
    frames = find_entry(listing, "feature_lists/frames")
    assert (frames.shape, frames.storage, frames.extras["frames per record"]) == ((3, 2, 3), Storage.VIEW, 2)
    with Pipeline(path) as pipeline:
        assert pipeline.run(frames.params()).view.tolist() == \
            [[[float(r), float(f), 0.5] for f in range(2)] for r in range(3)]
    tokens, _ = _cli(path, "--tensor", "feature_lists/tokens", capsys=capsys)
    assert (tokens["shape"], tokens["values"]) == ([3, 3], [[0, 1, 2], [10, 11, 12], [20, 21, 22]])
    words, _ = _cli(path, "--tensor", "feature_lists/words", "--slice", "2", capsys=capsys)
    assert words["values"] == [list(b"ab2"), list(b"cd2")]
    ragged = find_entry(listing, "feature_lists/ragged")
    assert not ragged.readable and ragged.problem.startswith(
        "feature list 'ragged' is not a regular tensor: the frames have 1 to 3 values")
    assert find_entry(listing, "id").shape == (3,)


@pytest.mark.parametrize("compression", ["GZIP", "ZLIB"])
def test_gzip_and_zlib_files_are_read_as_decompressed_copies(tmp_path, capsys, compression):
    import gzip
    import zlib

    framed = b"".join(frame(example(image_raw=bytes([r, r + 1]), x=[r / 2, -1.0], label=[r]))
                      for r in range(3))
    # TFRecordOptions(compression_type=...): the whole framed stream, gzip- or zlib-compressed
    packed = gzip.compress(framed) if compression == "GZIP" else zlib.compress(framed)
    path = tmp_path / "c.tfrecord"
    path.write_bytes(packed)
    listing = list_file(str(path))
    assert listing.problems == ()
    assert listing.metadata["compression"] == f"{compression}: values are a decompressed copy"
    image = find_entry(listing, "image_raw")
    assert (image.shape, image.storage, image.nbytes) == ((3, 2), Storage.COPY, 0)
    document, err = _cli(path, "--tensor", "image_raw", capsys=capsys)
    assert document["values"] == [[0, 1], [1, 2], [2, 3]]
    assert err.startswith(f"note: 'image_raw' is in a {compression}-compressed file: these are its "
                          "decompressed values, a copy of 6 bytes")
    x, _ = _cli(path, "--tensor", "x", "--slice", "-1", capsys=capsys)
    assert x["values"] == [1.0, -1.0]
    label, _ = _cli(path, "--tensor", "label", capsys=capsys)
    assert label["values"] == [0, 1, 2]
    # a truncated stream: the records before the cut are listed, the cut is said
    path.write_bytes(packed[:len(packed) * 2 // 3])
    cut = list_file(str(path))
    assert int(cut.metadata["records"]) < 3 and any("stream ends early" in p or "truncated" in p
                                                    for p in cut.problems)


def test_varints_decode_vectorised_as_protobuf_writes_them():
    from core.formats.tfrecord_wire import decode_varints

    message = Example()
    values = [0, 1, 127, 128, 300, -1, -(1 << 63), (1 << 63) - 1, 1 << 40]
    message.features.feature["n"].int64_list.value.extend(values)
    serialized = message.features.feature["n"].int64_list.SerializeToString()
    body = serialized[2:]  # tag 0x0a (field 1, packed), a one-byte length, the packed varints
    assert serialized[0] == 0x0A and serialized[1] == len(body) == 1 + 1 + 1 + 2 + 2 + 10 + 10 + 9 + 6
    assert decode_varints(np.frombuffer(body, np.uint8)).view(np.int64).tolist() == values
    with pytest.raises(tfrecord.WireError, match="end inside a varint"):
        decode_varints(np.frombuffer(b"\x01\x80", np.uint8))
    with pytest.raises(tfrecord.WireError, match="more than 10 bytes"):
        decode_varints(np.frombuffer(b"\xff" * 10 + b"\x01", np.uint8))


def test_a_listing_problem_is_said_where_the_tensor_is_shown(tmp_path, capsys, monkeypatch):
    """Every limit of the lister (the index budget, a corrupt record) reaches the command's notes
    and its JSON, not only --list."""
    import core.budget

    path = write(tmp_path / "many.tfrecord", *[example(label=[i]) for i in range(5)])
    monkeypatch.setattr(core.budget, "COPY_BUDGET_BYTES", 7 * tfrecord.RANGE_COST)
    document, err = _cli(path, "--tensor", "label", capsys=capsys)
    assert document["values"] == [0, 1, 2]
    (problem,) = document["problems"]
    assert "partial listing: the first 3 of 5 records" in problem and "TENSOR_INSPECTOR_COPY_BUDGET" in problem
    assert f"note: {problem}\n" in err
    from core.cli import main

    assert main([path, "--tensor", "label", "--limit", "10"]) == 0
    assert f"note: {problem}\n" in capsys.readouterr().err


def test_a_file_over_64_mib_and_100000_records_is_listed_to_its_last_record(tmp_path, capsys):
    # 150,000 records of a 470-byte image and a label: 79 MB, past the old 64 MiB / 100,000 caps
    image = bytes(range(256)) * 2
    path = tmp_path / "shard.tfrecord"
    with open(path, "wb") as out:
        for r in range(150_000):
            out.write(frame(example(image_raw=image[r % 7:r % 7 + 470], label=[r])))
    assert path.stat().st_size > 64 * 1024 * 1024
    document, err = _cli(path, "--tensor", "label", "--slice", "-2:", capsys=capsys)
    assert document["values"] == [149998, 149999] and "problems" not in document
    assert "partial" not in err


def test_hostile_compressed_streams_never_crash(tmp_path):
    """Flipped bytes of a GZIP TFRecord: a listing whose problems name the file, or no
    TFRecord at all (the stream no longer starts with a record), never an exception."""
    import gzip
    import random

    framed = b"".join(frame(example(image_raw=bytes([i] * 6), n=[i, -i])) for i in range(20))
    packed = gzip.compress(framed, mtime=0)
    rng = random.Random(30)
    for _ in range(200):
        bad = bytearray(packed)
        for _ in range(rng.randint(1, 3)):
            bad[rng.randrange(10, len(bad))] = rng.randrange(256)
        path = tmp_path / "f.tfrecord"
        path.write_bytes(bytes(bad))
        listing = list_file(str(path))
        if listing is None or listing.format != "tfrecord":
            continue
        for problem in listing.problems:
            assert "tfrecord file" in problem
        for entry in listing.entries:
            if entry.readable:
                with open_source(str(path)) as source:
                    try:
                        entry_values(source, listing, entry)
                    except ContainerError as error:
                        assert "list" in str(error)


def test_a_record_longer_than_the_budget_and_a_corrupt_record_are_said_with_the_tensor(tmp_path, capsys,
                                                                                      monkeypatch):
    import core.budget

    records = [frame(example(label=[i])) for i in range(2)] + [frame(example(label=[2], image=bytes(4000)))]
    path = tmp_path / "big.tfrecord"
    path.write_bytes(b"".join(records))
    monkeypatch.setattr(core.budget, "COPY_BUDGET_BYTES", 2000)
    document, err = _cli(path, "--tensor", "label", capsys=capsys)
    assert document["values"] == [0, 1]
    (problem,) = document["problems"]
    assert problem == (f"the tfrecord file '{path}': record 2 at byte {2 * len(records[0])}: reading record 2 "
                       f"({len(records[2]) - 16} bytes) would copy 3.9 KiB, above the 2.0 KiB copy budget (it and "
                       "the records after it are not listed, or raise the budget with TENSOR_INSPECTOR_COPY_BUDGET)")
    assert f"note: {problem}\n" in err
    monkeypatch.undo()
    bad = bytearray(b"".join(records))
    bad[len(records[0]) + 12 + 3] ^= 0xFF  # record 1's data: its CRC fails, it is skipped
    path.write_bytes(bytes(bad))
    document, err = _cli(path, "--tensor", "label", capsys=capsys)
    # record 1 lacks the feature now: densified as a VarLenFeature, its row is zeros, and said
    assert document["values"] == [[0], [0], [2]]
    assert document["problems"] == [f"the tfrecord file '{path}': record 1 at byte {len(records[0])}: the data "
                                    "CRC does not match (a corrupt record, skipped; the others are usable)"]
    assert "note: the tfrecord file" in err


def test_a_file_cut_before_its_listing_reads_is_changed_on_disk_not_a_listing_of_zeros(tmp_path):
    """The records are read with pread (core.scan.blocks), not through the map: a file that
    shrank after it was opened is reported as changed, never read as zeros or a fault."""
    from core.errors import SourceError

    path = write(tmp_path / "cut.tfrecord", *[example(label=[i]) for i in range(50)])
    with open_source(path) as source:
        os.truncate(path, os.path.getsize(path) // 2)
        with pytest.raises(SourceError, match="changed on disk"):
            tfrecord.list_tfrecord(HeaderReader(source, 0, "tfrecord"))
    one = write(tmp_path / "one.tfrecord", example(s=b"abc"))
    packed = tmp_path / "one.gz.tfrecord"
    import gzip

    packed.write_bytes(gzip.compress(open(one, "rb").read()))
    listing = list_file(str(packed))
    assert find_entry(listing, "s").shape == (3,)
    with open_source(str(packed)) as source:
        assert entry_values(source, listing, find_entry(listing, "s")).array.tolist() == list(b"abc")
