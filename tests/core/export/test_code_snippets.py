"""core.export.code_snippets: the generated code, run here (exec, in tests only), gives the app's view."""

from __future__ import annotations

import ml_dtypes
import numpy as np
import pytest

from core.errors import ExportError
from core.export.code_snippets import numpy_snippet, tensorflow_snippet
from core.pipeline.pipeline import DecodeParams, Pipeline
from core.slicing.expr import parse_slice

BF16 = np.dtype(ml_dtypes.bfloat16)
VALUES = np.array([1.5, -2.25, np.nan, np.inf, 0.1, -0.0, 3e4, 7.0, 1e-3, -8.5, 42.0, 0.5])


def _bytes(values, dtype):
    return np.asarray(values).astype(dtype).tobytes()


# Each case: files (name -> bytes), params, slice text.
CASES = {
    "f32-be-offset-shape-slice": (
        {"a.bin": b"HEADER--" * 2 + _bytes(VALUES, ">f4")},
        DecodeParams(dtype="float32", little_endian=False, offset=16, shape=(3, -1)),
        "1:, ::-2",
    ),
    "records-trailing": (
        {"r.bin": _bytes(np.arange(-9, 9), "<i2") + b"xyz"},
        DecodeParams(dtype="int16", record_size=6),
        "-1",
    ),
    "records-shape-newaxis": (
        {"r.bin": b"\x00" * 4 + _bytes(np.arange(24), ">u2") + b"z"},
        DecodeParams(dtype="uint16", little_endian=False, offset=4, record_size=8,
                     shape=(2, 3, 4)),
        "..., tf.newaxis, 1:3",
    ),
    "fixed-length-padding": (
        {"p.bin": bytes(range(1, 19))},
        DecodeParams(dtype="uint16", little_endian=False, record_size=6, fixed_length=8),
        "",
    ),
    "fixed-length-truncation": (
        {"t.bin": _bytes(VALUES, "<f4")},
        DecodeParams(dtype="float32", record_size=12, fixed_length=8),
        ":, 1",
    ),
    "two-files-records": (
        {"a.bin": _bytes(VALUES[:8], ">f8"), "b.bin": _bytes(VALUES[4:], ">f8")},
        DecodeParams(dtype="double", little_endian=False, record_size=16),
        "::-1, 1:",
    ),
    "two-files-fixed-length": (
        {"a.bin": bytes(range(10)), "b.bin": bytes(range(100, 104))},
        DecodeParams(dtype="int16", fixed_length=6),
        None,
    ),
    "bfloat16-le": (
        {"h.bin": _bytes(VALUES, BF16)},
        DecodeParams(dtype="bfloat16", shape=(4, 3)),
        "1::2",
    ),
    "bfloat16-be": (
        {"h.bin": np.frombuffer(_bytes(VALUES, BF16), "<u2").astype(">u2").tobytes()},
        DecodeParams(dtype="bfloat16", little_endian=False, record_size=8),
        "2, ::3",
    ),
    "half-fixed-length": (
        {"f.bin": _bytes(VALUES, "<f2")},
        DecodeParams(dtype="half", record_size=6, fixed_length=4),
        None,
    ),
    "bool-bytes": (
        {"b.bin": bytes([0, 2, 1, 255, 0, 7])},
        DecodeParams(dtype="bool", shape=(2, 3)),
        ":, ::-1",
    ),
    "complex64-be": (
        {"c.bin": _bytes(VALUES[:8] + 1j * VALUES[4:], ">c8")},
        DecodeParams(dtype="complex64", little_endian=False, shape=(2, 4)),
        None,
    ),
    "uint32-extended": (
        {"u.bin": _bytes([0, 1, 2**32 - 1, 2**31], "<u4")},
        DecodeParams(dtype="uint32"),
        "2:",
    ),
    "scalar-result": (
        {"s.bin": _bytes(np.arange(12), "<i8")},
        DecodeParams(dtype="int64", shape=(3, 4)),
        "2, -1",
    ),
    "mask-only-spec": (
        {"m.bin": _bytes(np.arange(12), "<i4")},
        DecodeParams(dtype="int32", shape=(3, 4)),
        "strided_slice(begin=[1, 0], end=[0, 3], strides=[1, 2], begin_mask=1, "
        "shrink_axis_mask=1)",
    ),
    "odd-path-name": (
        {"it's a \"file\".bin": _bytes(np.arange(6), "<f8")},
        DecodeParams(dtype="float64"),
        "::2",
    ),
}


def _make(tmp_path, name):
    files, params, text = CASES[name]
    paths = []
    for file_name, data in files.items():
        path = tmp_path / file_name
        path.write_bytes(data)
        paths.append(str(path))
    return paths, params, text


def _expected(paths, params, text):
    with Pipeline(paths) as pipeline:
        spec = parse_slice(text) if text else None
        return np.array(pipeline.run(params, spec).view, copy=True)


def _check_same(actual, expected):
    actual = np.asarray(actual)
    assert actual.shape == expected.shape
    assert actual.dtype.name == expected.dtype.name
    if expected.dtype.name == "bfloat16":
        actual, expected = actual.astype(np.float32), expected.astype(np.float32)
    np.testing.assert_array_equal(actual, expected)


def _snippet(make, paths, params, text=None):
    """``make`` (numpy_snippet or tensorflow_snippet) of one run, as the app and CLI call it."""
    with Pipeline(paths) as pipeline:
        spec = parse_slice(text) if text else None
        return make(pipeline.source, pipeline.run(params, spec))


def _run(source):
    namespace: dict = {}
    exec(compile(source, "<snippet>", "exec"), namespace)  # test only: the product never runs it
    return namespace["x"]


@pytest.mark.parametrize("name", sorted(CASES))
def test_numpy_snippet_reproduces_the_view(tmp_path, name):
    paths, params, text = _make(tmp_path, name)
    source = _snippet(numpy_snippet, paths, params, text)
    assert "import numpy as np" in source
    assert all(repr(path) in source for path in paths)
    _check_same(_run(source), _expected(paths, params, text))


@pytest.mark.parametrize("name", sorted(CASES))
def test_tensorflow_snippet_reproduces_the_view(tmp_path, name):
    pytest.importorskip("tensorflow")
    paths, params, text = _make(tmp_path, name)
    source = _snippet(tensorflow_snippet, paths, params, text)
    _check_same(_run(source).numpy(), _expected(paths, params, text))


def test_numpy_snippet_golden_text(tmp_path):
    paths, params, text = _make(tmp_path, "records-trailing")
    source = _snippet(numpy_snippet, paths, params, text)
    assert source.splitlines()[:2] == [
        "# tensor-inspector's view, reproduced with numpy: int16, little-endian, records of 6 "
        "bytes, shape (6, 3), slice [-1].",
        "# 3 trailing bytes of 'r.bin' are not decoded.",
    ]
    assert source.rstrip().splitlines()[-3:] == [
        "raw = read_bytes(path, start, length).reshape(6, 6)",
        "x = raw.view(np.dtype('<i2'))  # decode_raw: int16",
        "x = x[-1]",
    ]


def test_tensorflow_snippet_golden_text(tmp_path):
    paths, params, text = _make(tmp_path, "f32-be-offset-shape-slice")
    lines = _snippet(tensorflow_snippet, paths, params, text).rstrip().splitlines()
    assert lines[0] == "import tensorflow as tf" or lines[1] == "import tensorflow as tf"
    assert lines[-4:] == [
        f"elements = read_elements({paths[0]!r}, 16, 48)",
        "x = tf.io.decode_raw(elements, tf.float32, little_endian=False)",
        "x = tf.reshape(x, [3, 4])",
        "x = tf.strided_slice(x, begin=[1, 0], end=[0, 0], strides=[1, -2], begin_mask=2, "
        "end_mask=3, ellipsis_mask=0, new_axis_mask=0, shrink_axis_mask=0)",
    ]


def test_mask_only_spec_is_explained(tmp_path):
    paths, params, text = _make(tmp_path, "mask-only-spec")
    source = _snippet(numpy_snippet, paths, params, text)
    assert "# tf.strided_slice(x, begin=[1, 0], end=[0, 3]" in source
    assert "x = x[1, 0:3:2, ...]" in source


def test_npy_defaults_are_resolved(tmp_path):
    path = tmp_path / "data.npy"
    np.save(path, np.arange(24, dtype=">f4").reshape(2, 3, 4))
    params = DecodeParams()
    source = _snippet(numpy_snippet, [str(path)], params, "1, :, ::3")
    assert "np.dtype('>f4')" in source and "x = x.reshape((2, 3, 4))" in source
    _check_same(_run(source), _expected([str(path)], params, "1, :, ::3"))


def test_view_as_is_a_note_in_the_tensorflow_snippet(tmp_path):
    paths, _params, text = _make(tmp_path, "records-trailing")
    params = DecodeParams(dtype="int16", record_size=6, view_as="uint8")
    assert "# The app also views these values as uint8" in _snippet(tensorflow_snippet, paths, params, text)


@pytest.mark.parametrize("dtype", ["float32", "int16", "float64", "uint16"])
@pytest.mark.parametrize("view_as", ["uint8", "int8", "int32", "int64", "uint64", "bool", "float16", "float32", "bfloat16"])
def test_numpy_snippet_applies_view_as_like_the_pipeline(tmp_path, dtype, view_as):
    values = np.array([254.9, 255.5, -0.5, np.nan, np.inf, -np.inf, 300.0, 1.99, -1e20, 1e20, 0.99, -3.5])
    if np.dtype(dtype).kind != "f":
        values = np.array([0, 1, 2, 255, 256, 300, 65535, 32767, 7, 128, 127, 9])
    path = tmp_path / "values.bin"
    with np.errstate(invalid="ignore", over="ignore"):
        raw = values.astype(dtype).tobytes()
    path.write_bytes(raw)
    params = DecodeParams(dtype=dtype, view_as=view_as)
    snippet = _snippet(numpy_snippet, [str(path)], params, "[1:]")
    with np.errstate(invalid="ignore", over="ignore"):
        got = _run(snippet)
    expected = _expected([str(path)], params, "[1:]")
    _check_same(got, expected)


def test_writes_the_run_it_is_given_without_running_again(tmp_path, monkeypatch):
    paths, params, text = _make(tmp_path, "bool-bytes")
    with Pipeline(paths) as pipeline:
        result = pipeline.run(params, parse_slice(text) if text else None)

        def no_second_run(*_args, **_kwargs):
            raise AssertionError("the snippet ran the pipeline again")

        monkeypatch.setattr(Pipeline, "run", no_second_run)
        monkeypatch.setattr(type(pipeline.source), "layout", no_second_run)
        source = numpy_snippet(pipeline.source, result)
        assert tensorflow_snippet(pipeline.source, result).count("tf.io.decode_raw") == 1
    assert "x = raw != 0" in source


def test_a_slice_that_is_not_a_slice_spec_is_refused(tmp_path):
    class Reverse:
        def apply(self, array):
            return array[::-1]

    path = tmp_path / "a.bin"
    path.write_bytes(bytes(range(8)))
    with Pipeline([str(path)]) as pipeline:
        result = pipeline.run(DecodeParams(), Reverse())
        assert result.view.tolist() == [7, 6, 5, 4, 3, 2, 1, 0]
        for make in (numpy_snippet, tensorflow_snippet):
            with pytest.raises(ExportError, match="given as a SliceSpec, not Reverse") as info:
                make(pipeline.source, result)
            assert info.value.field == "slice"
