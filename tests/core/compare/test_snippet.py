"""core.compare.snippet: the numpy code, run here (exec, in tests only), finds the engine's mismatches."""

import contextlib
import io

import ml_dtypes
import numpy as np
import pytest

from core.compare.rules import resolve_rules
from core.compare.scanner import Side, compare_sides
from core.compare.snippet import numpy_compare_snippet
from core.pipeline.pipeline import DecodeParams, Pipeline

BASE = np.array([1.5, -2.25, np.nan, np.inf, 0.1, -0.0, 3e4, 7.0, 1e-3, -8.5, 42.0, 0.5])
NUDGE = np.array([0, 1e-6, 0, 0, 1e-2, 0, 0.5, 0, 0, 0, 1e-5, 0])


def run(source: str) -> dict:
    namespace: dict = {}
    with contextlib.redirect_stdout(io.StringIO()) as out:
        exec(compile(source, "<snippet>", "exec"), namespace)  # test only: the product never runs it
    namespace["printed"] = out.getvalue()
    return namespace


CASES = {
    "f32-defaults-be-vs-le": ("<f4", ">f4", {}, 0, None),
    "f16-vs-f32": ("<f2", "<f4", {}, 0, None),
    "bf16-ulp": ("bf16", "bf16", {"ulp": 1}, 0, None),
    "f64-tolerances-nan-mismatch": ("<f8", "<f8", {"rtol": 1e-3, "atol": 1e-4, "nan_policy": "mismatch"}, 0, None),
    "f32-bitwise": ("<f4", "<f4", {"bitwise": True}, 0, None),
    "int-exact-broadcast": ("<i4", "<i8", {}, 0, (3, 4)),
    "f32-shift": ("<f4", "<f4", {}, 2, None),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_snippet_counts_the_engines_mismatches(name, tmp_path):
    type_a, type_b, rules_given, shift, shape_a = CASES[name]

    def encode(values, code):
        if code == "bf16":
            return np.asarray(values).astype(ml_dtypes.bfloat16).tobytes()
        if code[1] in "iu":
            return np.nan_to_num(np.asarray(values) * 10, posinf=99).astype(code).tobytes()
        return np.asarray(values).astype(code).tobytes()

    names = {"<f4": "float32", ">f4": "float32", "<f2": "float16", "<f8": "float64", "bf16": "bfloat16",
             "<i4": "int32", "<i8": "int64"}
    b_values = BASE + NUDGE
    (tmp_path / "a.bin").write_bytes(encode(BASE, type_a))
    (tmp_path / "b.bin").write_bytes(encode(b_values[:4] if shape_a else b_values, type_b))
    params_a = DecodeParams(dtype=names[type_a], little_endian=type_a != ">f4", shape=shape_a)
    params_b = DecodeParams(dtype=names[type_b], little_endian=type_b != ">f4")
    with Pipeline([tmp_path / "a.bin"]) as pa, Pipeline([tmp_path / "b.bin"]) as pb:
        ra, rb = pa.run(params_a), pb.run(params_b)
        rules = resolve_rules(ra.view.dtype, rb.view.dtype, **rules_given)
        engine = compare_sides(Side.of(ra), Side.of(rb), rules, shift=shift)
        source = numpy_compare_snippet((pa.source, ra), (pb.source, rb), rules, shift)
    assert "import numpy as np" in source and rules.describe() in source
    namespace = run(source)
    assert int(np.count_nonzero(namespace["mismatch"])) == engine.mismatched
    assert namespace["printed"] == engine.summary() + "\n"
    assert engine.mismatched > 0  # every case has something to find


@pytest.mark.parametrize(("mismatched", "size", "percent"), [(1, 200_000, "<0.001%"), (199_999, 200_000, ">99.99%")])
def test_snippet_prints_the_engines_share_at_the_extremes(tmp_path, mismatched, size, percent):
    a = np.zeros(size, np.float32)
    b = a.copy()
    b[:mismatched] = 1.0
    (tmp_path / "a.bin").write_bytes(a.tobytes())
    (tmp_path / "b.bin").write_bytes(b.tobytes())
    params = DecodeParams(dtype="float32")
    with Pipeline([tmp_path / "a.bin"]) as pa, Pipeline([tmp_path / "b.bin"]) as pb:
        ra, rb = pa.run(params), pb.run(params)
        rules = resolve_rules(ra.view.dtype, rb.view.dtype)
        engine = compare_sides(Side.of(ra), Side.of(rb), rules)
        source = numpy_compare_snippet((pa.source, ra), (pb.source, rb), rules)
    assert engine.summary() == f"Mismatched elements: {mismatched} / {size} ({percent})"
    assert run(source)["printed"] == engine.summary() + "\n"
