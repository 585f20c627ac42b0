"""tensor-inspect scan and the model diff of tensor-inspect diff: output, JSON and exit statuses."""

from __future__ import annotations

import json

import numpy as np
from safetensors import numpy as safetensors_numpy

from core.cli import main


def _save(path, tensors):
    safetensors_numpy.save_file(tensors, str(path))
    return str(path)


def test_scan_flags_nan_and_exits_1(tmp_path, capsys):
    bad = np.ones(4, np.float32)
    bad[2] = np.nan
    path = _save(tmp_path / "m.safetensors", {"ok": np.ones(3, np.float32), "bad": bad, "zero": np.zeros(2, np.float32)})
    assert main(["scan", path]) == 1
    out = capsys.readouterr().out
    bad_line = next(line for line in out.splitlines() if line.startswith("bad"))
    assert bad_line.split()[-1] == "nan"
    assert main(["scan", path, "--fail-on", "zeros"]) == 1
    assert main(["scan", path, "--fail-on", "none"]) == 0
    capsys.readouterr()
    assert main(["scan", path, "--json", "--fail-on", "inf"]) == 0
    document = json.loads(capsys.readouterr().out)
    by = {t["name"]: t for t in document["tensors"]}
    assert by["bad"]["nan"] == 1 and by["bad"]["flags"] == ["nan"] and by["bad"]["max"] == 1.0
    assert by["zero"]["flags"] == ["zeros", "constant"]
    assert document["summary"] == {"tensors": 3, "flagged": 0, "errors": 0, "skipped": 0, "fail_on": ["inf"]}


def test_scan_of_a_missing_path_is_exit_2_and_the_rest_is_scanned(tmp_path, capsys):
    path = _save(tmp_path / "m.safetensors", {"ok": np.ones(3, np.float32)})
    assert main(["scan", str(tmp_path / "gone.pt"), path]) == 2
    captured = capsys.readouterr()
    assert "ok" in captured.out and "gone.pt" in captured.err


def test_model_diff_exit_statuses_and_json(tmp_path, capsys):
    w = np.linspace(-1, 1, 10, dtype=np.float32)
    a = _save(tmp_path / "a.safetensors", {"model.w": w, "model.v": w})
    b = _save(tmp_path / "b.safetensors", {"w": w, "v": w + np.float32(1e-7)})
    assert main(["diff", a, b]) == 0
    out = capsys.readouterr().out
    assert "removing the prefix 'model.'" in out and "every pair within tolerance" in out
    c = _save(tmp_path / "c.safetensors", {"w": w, "v": w * np.float32(2)})
    assert main(["diff", a, c, "--json"]) == 1
    document = json.loads(capsys.readouterr().out)
    assert [p["name"] for p in document["pairs"]] == ["v", "w"]  # worst first
    v = document["pairs"][0]
    assert v["status"] == "differs" and v["compare"]["agreement"]["cosine"] == 1.0
    # B = 2A is the reference: Σb² = 4 Σa², Σ(a - b)² = Σa², SNR = 10 log10(4)
    assert abs(v["compare"]["agreement"]["snr_db"] - 10 * np.log10(4)) < 1e-9
    assert document["pairs"][1]["compare"]["agreement"]["snr_db"] == "inf"
    assert document["first_divergent"] == {"name": "v", "index": 0}  # safetensors lists names sorted
    assert document["summary"]["within"] is False and document["summary"]["differs"] == 1


def test_model_diff_bad_options_are_one_error_line(tmp_path, capsys):
    a = _save(tmp_path / "a.safetensors", {"x": np.ones(2, np.float32)})
    b = _save(tmp_path / "b.safetensors", {"y": np.ones(2, np.float32)})
    assert main(["diff", a, b]) == 2
    assert "no tensor name in common" in capsys.readouterr().err
    assert main(["diff", a, b, "--map", "(unclosed=x"]) == 2
    assert "does not parse" in capsys.readouterr().err
    names = tmp_path / "names.json"
    names.write_text('{"x": 3}')
    assert main(["diff", a, b, "--map", str(names)]) == 2
    assert "one JSON object" in capsys.readouterr().err
    names.write_text('{"x": "y"}')
    assert main(["diff", a, b, "--map", str(names)]) == 0
    assert main(["diff", a, b, "--match", "order", "--slice", "0"]) == 2
    assert "--slice is not taken" in capsys.readouterr().err


def test_two_containers_with_a_layout_option_are_compared_as_bytes(tmp_path, capsys):
    a = _save(tmp_path / "a.safetensors", {"x": np.ones(2, np.float32)})
    assert main(["diff", a, a, "--dtype", "uint8"]) == 0
    assert "uint8" in capsys.readouterr().out
