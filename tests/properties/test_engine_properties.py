"""Property tests for : whatever the parameters, the engine answers or refuses cleanly.

Random decode parameters (known and unknown type names, byte orders, fixed_length / offset /
record_size from small to absurd, zero and negative included, shape text with garbage), random
slice specs and random slice expressions (slice characters mixed with unicode) go through the
public API. The only exceptions allowed out are ``core.CoreError`` subclasses with a non-empty
message and a ``field`` the GUI knows (plus ``IndexError`` for an element index, as docs/semantics.md says).
Hypothesis' ``deadline`` bounds every example: the files are small, so an example that takes
seconds would be a hang (e.g. an allocation or a loop sized by a parameter instead of the data).
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from core import CoreError, DecodeParams, Pipeline, SliceSpec, parse_slice, strided_slice
from core.dtypes.table import ENGINE_TYPES
from core.errors import SliceSyntaxError
from core.slicing.expr import format_slice

FIELDS = {None, "dtype", "little_endian", "fixed_length", "offset", "record_size", "shape",
          "view_as", "files", "slice"}
PROPERTY_SETTINGS = settings(
    max_examples=120, deadline=2000, suppress_health_check=[HealthCheck.function_scoped_fixture],
)

TYPE_NAMES = st.one_of(
    st.sampled_from(list(ENGINE_TYPES) + ["half", "float", "double", "uint32", "uint64"]),
    st.sampled_from(["", "float33", "object", "str", "U8", "V16", "<f4", "void", "int4", "O"]),
    st.text(max_size=12),
)
SIZES = st.one_of(
    st.none(),
    st.integers(-8, 80),
    st.sampled_from([0, -1, -(2**63), 2**31, 2**40, 2**62, 2**63, 2**80]),
)
SHAPE_TEXT = st.one_of(
    st.none(),
    st.text(alphabet="0123456789,-x*() []+", max_size=16),
    st.text(max_size=16),
    st.sampled_from(["-1", "2,-1", "-1,-1", "0", "0,-1", "99999999999999999999,0", "9" * 5000]),
)
VIEW_AS = st.one_of(st.none(), st.sampled_from(["uint8", "FLOAT32", "int64", "bool", "STRING",
                                                  "float99", "", "complex128"]))


def assert_clean_refusal(error: BaseException) -> None:
    assert isinstance(error, CoreError), f"{type(error).__name__} escaped: {error!r}"
    assert error.message.strip(), f"empty message from {type(error).__name__}"
    assert error.field in FIELDS, error.field


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """Small files of awkward sizes, one .npy; opened once per module."""
    folder = tmp_path_factory.mktemp("props")
    rng = np.random.default_rng(10)
    paths = {}
    for size in (0, 1, 3, 8, 37, 64):
        path = folder / f"raw_{size}.bin"
        path.write_bytes(rng.integers(0, 256, size, dtype=np.uint8).tobytes())
        paths[size] = str(path)
    npy = folder / "small.npy"
    np.save(npy, np.arange(12, dtype=">i2").reshape(3, 4))
    paths["npy"] = str(npy)
    pipelines = {key: Pipeline([path]) for key, path in paths.items()}
    pipelines["pair"] = Pipeline([paths[8], paths[37]])
    yield pipelines
    for pipeline in pipelines.values():
        pipeline.close()


@PROPERTY_SETTINGS
@given(
    which=st.sampled_from([0, 1, 3, 8, 37, 64, "npy", "pair"]),
    dtype=st.one_of(st.none(), TYPE_NAMES),
    little_endian=st.one_of(st.none(), st.booleans(), st.sampled_from([0, 1, "yes"])),
    fixed_length=SIZES, offset=SIZES, record_size=SIZES, shape=SHAPE_TEXT, view_as=VIEW_AS,
    extended_types=st.booleans(),
)
def test_random_decode_parameters_decode_or_refuse_cleanly(
    files, which, dtype, little_endian, fixed_length, offset, record_size, shape, view_as, extended_types
):
    try:
        params = DecodeParams(dtype=dtype, little_endian=little_endian, fixed_length=fixed_length,
                              offset=offset, record_size=record_size, shape=shape,
                              view_as=view_as, extended_types=extended_types)
        result = files[which].run(params)
    except Exception as error:
        assert_clean_refusal(error)
        return
    assert isinstance(result.view, np.ndarray)
    assert result.view.size * result.view.dtype.itemsize <= 2**31  # nothing absurd was allocated
    assert len(result.steps) >= 4 and all(isinstance(step, str) and step for step in result.steps)
    if result.view.size:
        first = (0,) * result.view.ndim
        try:
            file_index, byte_offset, nbytes = result.byte_offset(first)
        except CoreError as error:  # a copied view has no byte offsets: said so, not a crash
            assert_clean_refusal(error)
        else:
            assert 0 <= file_index < len(files[which].source.files)
            assert byte_offset >= 0 and nbytes >= 0


INT64 = st.one_of(st.integers(-10, 10), st.sampled_from([-(2**63), 2**63 - 1, 2**63, -(2**64), 2**31]))
MASK = st.one_of(st.integers(0, 2**8), st.sampled_from([-1, 2**31 - 1, 2**31, -(2**31), 2**40]))


@PROPERTY_SETTINGS
@given(
    shape=st.lists(st.integers(0, 4), max_size=4).map(tuple),
    begin=st.lists(INT64, max_size=6), end=st.lists(INT64, max_size=6),
    strides=st.one_of(st.none(), st.lists(INT64, max_size=6)),
    masks=st.tuples(MASK, MASK, MASK, MASK, MASK),
)
def test_random_slice_specs_slice_or_refuse_cleanly(shape, begin, end, strides, masks):
    x = np.arange(int(np.prod(shape)), dtype=np.int16).reshape(shape)
    names = ("begin_mask", "end_mask", "ellipsis_mask", "new_axis_mask", "shrink_axis_mask")
    try:
        spec = SliceSpec(tuple(begin), tuple(end), None if strides is None else tuple(strides),
                         **dict(zip(names, masks)))
        view = spec.apply(x)
    except Exception as error:
        assert_clean_refusal(error)
        return
    assert isinstance(view, np.ndarray)
    assert view.size == 0 or np.shares_memory(view, x)  # always a view, never a copy
    # The same spec through the functional form gives the same answer.
    same = strided_slice(x, spec.begin, spec.end, spec.strides,
                         **{name: getattr(spec, name) for name in names})
    np.testing.assert_array_equal(same, view)
    assert parse_slice(format_slice(spec)) == spec


SLICE_ALPHABET = st.one_of(
    st.sampled_from(list("0123456789:,.[]()-+ \t") + ["...", "None", "tf.newaxis", "np.", "=",
                                                      "strided_slice(", "begin=", "_mask="]),
    st.characters(),  # any unicode code point, surrogates and controls included
)
SLICE_TEXT = st.lists(SLICE_ALPHABET, max_size=30).map("".join)


@PROPERTY_SETTINGS
@given(text=SLICE_TEXT, shape=st.lists(st.integers(0, 5), max_size=4).map(tuple))
def test_random_slice_expressions_parse_or_point_at_a_column(text, shape):
    try:
        spec = parse_slice(text)
    except Exception as error:
        assert_clean_refusal(error)
        assert isinstance(error, SliceSyntaxError)
        assert 0 <= error.column <= len(text) and error.length >= 0
        assert f"column {error.column + 1}" in error.message
        return
    assert parse_slice(format_slice(spec)) == spec
    x = np.zeros(shape, dtype=np.uint8)
    try:
        view = spec.apply(x)
    except Exception as error:
        assert_clean_refusal(error)
    else:
        assert view.size == 0 or np.shares_memory(view, x)


@PROPERTY_SETTINGS
@given(text=SLICE_TEXT, dtype=st.sampled_from(["uint8", "int16", "float32"]))
def test_random_slice_expressions_through_the_pipeline(files, text, dtype):
    try:
        spec = parse_slice(text)
        result = files[64].run(DecodeParams(dtype=dtype, record_size=16), spec)
    except Exception as error:
        assert_clean_refusal(error)
        return
    assert isinstance(result.view, np.ndarray)


@settings(max_examples=60, deadline=2000)
@given(st.binary(max_size=200))
def test_random_npy_headers_open_or_refuse_cleanly(tmp_path_factory, header):
    path = tmp_path_factory.mktemp("npy") / "random.npy"
    path.write_bytes(b"\x93NUMPY" + header)
    try:
        with Pipeline([str(path)]) as pipeline:
            pipeline.run(DecodeParams())
    except Exception as error:
        assert_clean_refusal(error)


@settings(max_examples=80, deadline=2000)
@given(
    data=st.binary(max_size=64),
    dtype=st.sampled_from(ENGINE_TYPES),
    little_endian=st.booleans(),
    fmt=st.sampled_from(["npy", "bin", "csv"]),
    target=st.sampled_from([None, "uint8", "int64", "float16", "bfloat16", "float32", "complex64", "bool"]),
)
def test_statistics_and_export_of_any_bytes_never_fail(tmp_path_factory, data, dtype, little_endian,
                                                       fmt, target):
    """Any bytes decoded as any type (signalling NaNs, infinities, subnormals included)."""
    from core import decode_raw, resolve_dtype
    from core.dtypes.table import packed_row
    from core.export.arrays import export_view
    from core.scan.statistics import compute_statistics

    packed = packed_row(dtype)  # int24 is stored in 3 bytes, decoded into 4
    itemsize = packed.stored_size if packed else resolve_dtype(dtype, extended_types=True).itemsize
    view = decode_raw(data[: len(data) // itemsize * itemsize], dtype, little_endian,
                      extended_types=True)
    stats = compute_statistics(view, chunk_elements=3)
    assert stats.count == view.size
    assert all(np.isfinite(edge) for edge in stats.histogram_edges)
    path = tmp_path_factory.mktemp("export") / f"view.{fmt}"
    try:
        export_view(view, path, fmt, dtype=target, chunk_elements=5)
    except Exception as error:
        assert_clean_refusal(error)


# Regressions found by the properties above (each raised something other than a CoreError).
def test_signalling_nans_convert_without_a_warning():
    from core.tflite.conversions import convert_to

    snan16 = np.frombuffer(bytes([0x01, 0x7D]), np.float16)  # numpy widens it bit for bit
    assert convert_to(snan16, "uint8").tolist() == [0]  # was: RuntimeWarning (an error in tests)
    assert convert_to(snan16, "int32").tolist() == [0]


def test_statistics_ignore_signalling_nans():
    from core.scan.statistics import compute_statistics

    values = np.frombuffer(b"\x00\x00\x00\x7d", np.float16)  # [0.0, signalling NaN]
    stats = compute_statistics(values)  # was: ValueError "supplied range of [nan, nan]"
    assert (stats.nan_count, stats.finite_count, stats.min, stats.max) == (1, 1, 0.0, 0.0)


@pytest.mark.parametrize("shape, message", [
    ((2**62, 4, 0), "shape (4611686018427387904, 4, 0) is too large: its dimensions multiply to "
                    "more than 9223372036854775807 (use smaller dimensions)"),
    ("1" * 5000, "in shape '" + "1" * 80 + "...', dimension 1 ('" + "1" * 40 + "...') does not "
                 "fit in int64 (write dimensions as integers separated by commas, e.g. 4,-1,3)"),
    ("١٢", "in shape '١٢', dimension 1 ('١٢') is not an integer (write dimensions as integers "
           "separated by commas, e.g. 4,-1,3)"),
])
def test_shapes_numpy_cannot_make_are_refused(files, shape, message):
    with pytest.raises(CoreError) as caught:  # was: numpy's bare ValueError, or int()'s
        files[0].run(DecodeParams(shape=shape))
    assert (caught.value.message, caught.value.field) == (message, "shape")
