"""The headless command ``python -m core`` / ``core.cli.main``."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import ml_dtypes
import numpy as np
import pytest

from core.cli import (
    CliArgumentParser,
    add_pipeline_options,
    build_parser,
    join_dash_values,
    main,
    params_from_args,
)
from core.pipeline.pipeline import DecodeParams

ROOT = Path(__file__).resolve().parents[3]


def _run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "core", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=60)


@pytest.fixture
def floats(tmp_path):
    path = tmp_path / "floats.bin"
    path.write_bytes(np.array([1.5, np.nan, np.inf, -np.inf, 0.1, -2.0], dtype=">f4").tobytes())
    return str(path)


# -- through a subprocess ---------------------------------------------------------------------
def test_help_exits_zero_without_qt():
    out = _run("--help")
    assert out.returncode == 0
    for option in ("--dtype", "--little-endian", "--big-endian", "--fixed-length", "--offset",
                   "--record-size", "--shape", "--slice", "--view-as", "--json", "--limit"):
        assert option in out.stdout
    code = ("import sys\nfrom core.cli import main\n"
            "try:\n    main(['--help'])\nfinally:\n"
            "    print([m for m in sys.modules if m.split('.')[0] in ('PySide6', 'pyqtgraph')])")
    check = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert check.stdout.strip().endswith("[]")


def test_default_output(floats):
    out = _run(floats, "--dtype", "float", "--big-endian", "--shape", "2,3")
    assert out.returncode == 0, out.stderr
    assert out.stdout == ("shape: (2, 3)\n"
                          "dtype: float32 (big-endian)\n"
                          "[[ 1.5  nan  inf]\n"
                          " [-inf  0.1 -2.0]]\n")  # the table's text, in numpy's layout
    assert out.stderr == ""


def test_json_with_nan_and_inf(floats):
    out = _run(floats, "--dtype", "float32", "--big-endian", "--json", "--shape", "-1,2")
    assert out.returncode == 0, out.stderr
    document = json.loads(out.stdout)
    assert document == {
        "shape": [3, 2], "dtype": "float32", "byte_order": "big", "size": 6, "truncated": False,
        "trailing_bytes": [0], "transposed": False,
        "values": [[1.5, "nan"], ["inf", "-inf"], [0.1, -2.0]],
    }


def test_bad_option_prints_one_error_line(floats):
    out = _run(floats, "--dtype", "uint32x")
    assert out.returncode == 2
    assert out.stdout == ""
    lines = out.stderr.splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: Value for attr 'out_type' of uint32x")
    assert "Traceback" not in out.stderr


# -- through main(argv) -----------------------------------------------------------------------
ERROR_CASES = [
    (["{missing}"], r"^error: '.*missing\.bin' does not exist \(check the path\)$"),
    (["{floats}", "--dtype", "foo"], r"^error: Value for attr 'out_type' of foo is not in the list"),
    (["{floats}", "--offset", "x"], r"^error: argument --offset: invalid int value: 'x' \(see --help\)$"),
    (["{floats}", "--frobnicate"], r"^error: unrecognized arguments: --frobnicate"),
    (["{floats}", "--little-endian", "--big-endian"], r"^error: argument --big-endian: not allowed"),
    ([], r"^error: the following arguments are required: FILE"),
    (["{floats}", "--dtype", "uint16", "--fixed-length", "3"], r"^error: fixed_length \(3\) must be"),
    (["{floats}", "--shape", "5"], r"^error: Input to reshape is a tensor with 24 values"),
    (["{floats}", "--shape", "a,b"], r"^error: in shape 'a,b', dimension 1"),
    (["{floats}", "--record-size", "0"], r"^error: record_size 0 must be greater than zero"),
    (["{floats}", "--offset", "999"], r"^error: offset 999 is past the end"),
    (["{dir}"], r"^error: '.*' is a directory, not a file"),
    (["{floats}", "--limit", "-1"], r"^error: --limit -1 is negative"),
    (["{floats}", "--dtype", "uint32", "--tf-only"], r"^error: Value for attr 'out_type' of uint32"),
    (["{floats}", "--fixed-length", str(2**40)], (r"^error: fixed_length \(1099511627776\) does not fit "
                                                 r"TensorFlow's 32-bit fixed_length attribute")),
]


@pytest.mark.parametrize(("argv", "pattern"), ERROR_CASES, ids=[str(i) for i in range(len(ERROR_CASES))])
def test_errors_are_one_line_and_status_two(tmp_path, floats, capsys, argv, pattern):
    names = {"missing": str(tmp_path / "missing.bin"), "floats": floats, "dir": str(tmp_path)}
    status = main([a.format(**names) for a in argv])
    captured = capsys.readouterr()
    assert status == 2
    assert captured.out == ""
    lines = captured.err.splitlines()
    assert len(lines) == 1, captured.err
    assert pytest.importorskip("re").match(pattern, lines[0]), lines[0]
    assert "Traceback" not in captured.err


def test_slice_option_errors_are_one_line_too(floats, capsys):
    status = main([floats, "--slice", "1:2:0:5"])
    captured = capsys.readouterr()
    assert status == 2
    assert len(captured.err.splitlines()) == 1 and captured.err.startswith("error: ")


def test_slice_option_applies(floats, capsys):
    assert main([floats, "--dtype", "float", "--big-endian", "--slice", "::2", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["values"] == [1.5, "inf", 0.1]


def test_dash_values_for_shape_and_slice(floats, capsys):
    assert main([floats, "--dtype", "float", "--big-endian", "--shape", "-1,3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["shape"] == [2, 3]
    assert join_dash_values(["--shape", "-1,4", "--slice", "-1:", "--slice", "--json"],
                            known=["--json"]) == ["--shape=-1,4", "--slice=-1:", "--slice", "--json"]


def test_limit_truncates_json_to_the_first_values_flat(floats, capsys):
    assert main([floats, "--dtype", "uint8", "--shape", "4,6", "--json", "--limit", "5"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["truncated"] is True and document["size"] == 24
    assert document["shape"] == [4, 6]
    assert document["values"] == [0x3F, 0xC0, 0, 0, 0x7F]


def test_limit_summarises_text(tmp_path, capsys):
    path = tmp_path / "big.bin"
    path.write_bytes(np.arange(10000, dtype="<i4").tobytes())
    assert main([str(path), "--dtype", "int32", "--limit", "10"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("shape: (10000,)\ndtype: int32 (little-endian)\n[   0    1    2    3    4 ...")
    assert out.rstrip().endswith("9995 9996 9997 9998 9999]")


def test_huge_sparse_file_prints_a_summary(tmp_path, capsys):
    path = tmp_path / "huge.bin"
    with open(path, "wb") as f:
        f.truncate(8 << 30)
    assert main([str(path), "--dtype", "float32", "--shape", "65536,-1"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("shape: (65536, 32768)\ndtype: float32 (little-endian)\n[[0.0 0.0")
    assert main([str(path), "--record-size", str(1 << 20), "--json", "--limit", "3"]) == 0
    assert json.loads(capsys.readouterr().out)["values"] == [0, 0, 0]


def test_json_type_conventions(tmp_path, capsys):
    path = tmp_path / "v.bin"
    path.write_bytes(np.array([1 + 2j, complex(np.nan, -np.inf)], dtype="<c8").tobytes())
    assert main([str(path), "--dtype", "complex64", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["values"] == [[1.0, 2.0], ["nan", "-inf"]]
    path.write_bytes(bytes([0, 1, 5]))
    assert main([str(path), "--dtype", "bool", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["values"] == [False, True, True]
    path.write_bytes(np.array([0.1, -3.0], dtype=ml_dtypes.bfloat16).byteswap().tobytes())
    assert main([str(path), "--dtype", "bfloat16", "--big-endian", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["values"] == [0.1, -3.0]  # shortest decimals that read back as bfloat16
    path.write_bytes(np.array(7, dtype="<i8").tobytes())
    assert main([str(path), "--dtype", "int64", "--shape", "", "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["shape"] == [] and document["values"] == 7


def test_steps_option(floats, capsys):
    assert main([floats, "--steps", "--record-size", "8"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert out[0].startswith("# source: ") and out[1].startswith("# decode: ")
    assert out[2].startswith("# reshape: ") and out[3] == "# slice: none (the whole tensor)"
    assert out[4] == "shape: (3, 8)"


def test_npy_file_uses_its_header(tmp_path, capsys):
    path = tmp_path / "a.npy"
    np.save(path, np.arange(6, dtype=">i2").reshape(2, 3))
    assert main([str(path), "--json"]) == 0
    document = json.loads(capsys.readouterr().out)
    assert document["values"] == [[0, 1, 2], [3, 4, 5]] and document["byte_order"] == "big"


# -- the shared option set --------------------------------------------------------------------
def test_params_from_args_builds_decode_params():
    parser = build_parser()
    args = parser.parse_args(["f.bin", "--dtype", "half", "--big-endian", "--fixed-length", "8",
                              "--offset", "16", "--record-size", "32", "--shape=-1,2",
                              "--slice", "1:", "--view-as", "UINT8"])
    params, slice_text, view_as = params_from_args(args)
    assert params == DecodeParams(dtype="half", little_endian=False, fixed_length=8, offset=16,
                                  record_size=32, shape=(-1, 2), view_as="UINT8",
                                  extended_types=True)
    assert slice_text == "1:" and view_as == "UINT8"


def test_option_set_can_be_added_to_another_parser(capsys):
    parser = CliArgumentParser(prog="gui")
    parser.add_argument("files", nargs="*")
    add_pipeline_options(parser)
    params, slice_text, view_as = params_from_args(parser.parse_args([]))
    assert params == DecodeParams() and slice_text is None and view_as is None
    with pytest.raises(SystemExit) as stop:
        parser.parse_args(["--offset", "x"])
    assert stop.value.code == 2
    assert capsys.readouterr().err == "error: argument --offset: invalid int value: 'x' (see --help)\n"


def test_types_beyond_tf_print_and_view_as_float8_is_refused(tmp_path, capsys):
    path = tmp_path / "b.bin"
    path.write_bytes(b"\x38\x7f\xff\x21")
    assert main([str(path), "--dtype", "float8_e4m3fn", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (out["dtype"], out["values"]) == ("float8_e4m3fn", [1.0, "nan", "nan", 0.14])
    assert main([str(path), "--dtype", "int4"]) == 0  # low nibble first: 0x38 -> -8, 3
    assert capsys.readouterr().out == (
        "shape: (8,)\ndtype: int8 (unpacked from int4)\n[-8  3 -1  7 -1 -1  1  2]\n")
    assert main([str(path), "--dtype", "int24", "--length", "3", "--big-endian", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["values"] == [0x387FFF]
    assert main([str(path), "--dtype", "float8_e5m2", "--view-as", "float32"]) == 2
    assert capsys.readouterr().err.startswith(
        "error: view as FLOAT32: TFLite's TensorBuffer has no float8_e5m2 type")
    assert main([str(path), "--dtype", "int4", "--tf-only"]) == 2
    assert "int4 is beyond TF's decode_raw" in capsys.readouterr().err
