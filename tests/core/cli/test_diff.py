"""``tensor-inspect diff A B``: exit status 0 / 1 / 2, text and JSON output, per-side options."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from core.cli import main

ROOT = Path(__file__).resolve().parents[3]


def diff(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["diff", *[str(a) for a in args]])
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.fixture
def pair(tmp_path):
    a = np.array([1.0, 2.0, 3.0, 4.0, np.nan, 6.0], np.float32)
    b = a.copy()
    b[1] = 2.5
    (tmp_path / "a.bin").write_bytes(a.tobytes())
    (tmp_path / "b.bin").write_bytes(b"HEAD" + b.astype(">f4").tobytes())  # 4-byte header, big-endian
    (tmp_path / "same.bin").write_bytes(a.tobytes())
    return tmp_path


def test_equal_files_exit_zero_with_numpys_summary(pair, capsys):
    status, out, err = diff(capsys, pair / "a.bin", pair / "same.bin", "--dtype", "float32")
    assert (status, err) == (0, "")
    assert "Mismatched elements: 0 / 6 (0%)" in out.splitlines()
    assert out.splitlines()[-1] == "equal within tolerance"


def test_different_files_exit_one_with_lists(pair, capsys):
    status, out, err = diff(capsys, pair / "a.bin", pair / "b.bin", "--dtype", "float32",
                            "--b-offset", "4", "--b-big-endian")
    assert (status, err) == (1, "")
    lines = out.splitlines()
    assert lines[:2] == [f"A: {pair / 'a.bin'}: float32 (little-endian), shape (6,)",
                         f"B: {pair / 'b.bin'}: float32 (big-endian), shape (6,)"]
    assert lines[2] == ("rule: |a - b| <= atol + rtol * |b| with rtol=1.3e-06, atol=1e-05 (float32 defaults); "
                        "NaN matches NaN; compared as float32")
    assert "Mismatched elements: 1 / 6 (16.7%)" in lines
    assert "Max absolute difference: 0.5 at A[1]" in lines
    assert "  A[1]: a=2.0 b=2.5 abs=0.5 rel=0.2 ulp=2097152" in lines
    assert lines[-1] == "not equal"


def test_tolerance_options_decide_the_exit_status(pair, capsys):
    common = (pair / "a.bin", pair / "b.bin", "--dtype", "float32", "--b-offset", "4", "--b-big-endian")
    assert diff(capsys, *common, "--atol", "0.5", "--rtol", "0")[0] == 0
    assert diff(capsys, *common, "--atol", "0.49", "--rtol", "0")[0] == 1
    assert diff(capsys, *common, "--rtol", "0.2", "--atol", "0")[0] == 0  # 0.5 <= 0.2 * 2.5
    assert diff(capsys, *common, "--ulp", "2097152")[0] == 0
    assert diff(capsys, *common, "--ulp", "2097151")[0] == 1
    assert diff(capsys, *common, "--atol", "1", "--nan-policy", "mismatch")[0] == 1


def test_json_has_every_figure(pair, capsys):
    status, out, _ = diff(capsys, pair / "a.bin", pair / "b.bin", "--dtype", "float32", "--b-offset", "4",
                          "--b-big-endian", "--json")
    document = json.loads(out)
    assert status == 1 and document["equal"] is False
    assert document["summary"] == "Mismatched elements: 1 / 6 (16.7%)"
    assert (document["compared"], document["mismatched"], document["finite_pairs"]) == (6, 1, 5)
    assert document["a"] == {"file": str(pair / "a.bin"), "dtype": "float32", "shape": [6]}
    assert document["max_absolute"] == {"value": 0.5, "flat": 1, "index_a": [1], "index_b": [1]}
    assert document["max_ulp"]["value"] == 2097152
    assert document["categories_a"] == {"nan": 1, "posinf": 0, "neginf": 0}
    assert document["first"][0]["a"] == 2.0 and document["first"][0]["b"] == 2.5
    assert document["rule"]["rtol"] == 1.3e-6 and document["rule"]["common_type"] == "float32"
    assert document["histogram"]["exact"] == 4 and document["histogram"]["exponents"] == [0]


def test_shift_auto_realigns_a_header(tmp_path, capsys):
    a = np.arange(40, dtype=np.float32) ** 2
    b = a.copy()
    b[10] = -1.0
    (tmp_path / "a.bin").write_bytes(a.tobytes())
    (tmp_path / "b.bin").write_bytes(b"HEADHEAD" + b.tobytes())  # 8 bytes: two float32
    status, out, _ = diff(capsys, tmp_path / "a.bin", tmp_path / "b.bin", "--dtype", "float32",
                          "--shift", "auto", "--max-shift", "4")
    assert "suggested shift 2: 97.5% of 40 sampled pairs equal, correlation" in out  # all but A[10]
    assert "shift: A[k] against B[k + 2] (flat C order)" in out
    assert "Mismatched elements: 1 / 40 (2.5%)" in out
    assert f"  A[10] B[12]: a=100.0 b=-1.0 abs=101 rel=101 ulp={0x42C80000 + 0x3F800000}" in out  # across zero
    assert status == 1
    status, out, err = diff(capsys, tmp_path / "a.bin", tmp_path / "a.bin", "--dtype", "float32", "--shift", "-1")
    assert status == 1 and "Mismatched elements: 39 / 39 (100%)" in out  # A[k] against A[k - 1], k = 1..39


def test_code_prints_the_numpy_snippet(pair, capsys):
    status, out, _ = diff(capsys, pair / "a.bin", pair / "b.bin", "--dtype", "float32", "--b-offset", "4",
                          "--b-big-endian", "--code")
    assert status == 0
    assert "mismatch = ~np.isclose(aw, bw, rtol=1.3e-06, atol=1e-05, equal_nan=True)" in out


@pytest.mark.parametrize("args, message", [
    (("--dtype", "float32", "--b-shape", "2,4"),
     "error: side B: Input to reshape is a tensor with 6 values, but the requested shape has 8"),
    (("--dtype", "float32", "--a-slice", "::2", "--b-slice", "1:"),
     "error: A has shape (3,) and B has shape (5,): they neither match nor broadcast"),
    (("--dtype", "float32", "--b-shape", "2,3"),
     "error: A has shape (6,) and B has shape (2, 3): they neither match nor broadcast"),
    (("--dtype", "float32", "--b-dtype", "float16", "--bitwise"),
     "error: bitwise mode compares the bits of one type, but A is float32 and B is float16"),
    (("--dtype", "complex64"), "error: cannot compare complex64 values"),
    (("--dtype", "float32", "--ulp", "3", "--rtol", "1"), "error: give either a ULP tolerance or rtol/atol"),
    (("--dtype", "float32", "--shift", "x"), "error: --shift takes a whole number of elements or 'auto'"),
    (("--dtype", "float32", "--rtol", "-1"), "error: rtol must be a finite number >= 0"),
    (("--dtype", "float32", "--limit", "-1"), "error: --limit -1 is negative"),
    (("--nan-policy", "maybe"), "error: argument --nan-policy: invalid choice"),
])
def test_bad_input_exits_two_with_one_error_line(pair, capsys, args, message):
    status, out, err = diff(capsys, pair / "a.bin", pair / "same.bin", *args)
    assert status == 2 and out == ""
    assert err.startswith(message) and err.count("\n") == 1


def test_a_missing_file_and_an_empty_side(pair, capsys, tmp_path):
    status, _, err = diff(capsys, pair / "a.bin", tmp_path / "missing.bin")
    assert status == 2 and "missing.bin" in err
    (tmp_path / "empty.bin").write_bytes(b"")
    status, out, err = diff(capsys, tmp_path / "empty.bin", tmp_path / "empty.bin", "--dtype", "float32")
    assert status == 0 and "Mismatched elements: 0 / 0 (0%)" in out
    status, _, err = diff(capsys, tmp_path / "empty.bin", pair / "a.bin", "--dtype", "float32")
    assert status == 2 and "A has shape (0,) and B has shape (6,)" in err


def test_subprocess_exit_status_and_dash_values(pair):
    run = subprocess.run([sys.executable, "-m", "core", "diff", str(pair / "a.bin"), str(pair / "same.bin"),
                          "--dtype", "float32", "--shape", "-1,3", "--b-shape", "-1,3"],
                         cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert run.returncode == 0, run.stderr
    assert "shape (2, 3)" in run.stdout
    helped = subprocess.run([sys.executable, "-m", "core", "diff", "--help"], cwd=ROOT, capture_output=True,
                            text=True, timeout=60)
    assert helped.returncode == 0 and "--b-offset" in helped.stdout and "exit status: 0" in helped.stdout
