"""Quantization made visible (issue 32 item 7): PyTorch qtensors and ONNX DequantizeLinear
initializers carry their scale, zero point and axis, and are followed by a ``NAME
(dequantized)`` entry whose float32 values equal, bit for bit, what the writer's own reader
gives (``torch.Tensor.dequantize()``, ONNX Runtime's DequantizeLinear: the make_fixtures.py
scripts beside the fixtures). TFLite's own tests: test_tflite_dequantized.py."""

from __future__ import annotations

import json
import os

import numpy as np
import pytest

import core
import core.budget
import core.cli
from core.errors import BudgetError
from core.formats.entry import Quantization, Storage, find_entry
from core.formats.quantization import checked_quantization, dequantized_of, is_dequantized
from core.formats.registry import list_file

FIXTURES = os.path.join(os.path.dirname(__file__), "fixtures")
TORCH = os.path.join(FIXTURES, "pytorch", "quantized_values.pt")
QDQ = os.path.join(FIXTURES, "onnx_quantized", "qdq.onnx")
HAND = os.path.join(FIXTURES, "onnx_quantized", "hand.onnx")
TFLITE = os.path.join(FIXTURES, "tflite", "quantized.tflite")


def _expected(path: str) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    with np.load(os.path.splitext(path)[0] + ".expected.npz") as saved:
        return {str(n): (saved[f"q{i}"], saved[f"real{i}"]) for i, n in enumerate(saved["names"])}


@pytest.mark.parametrize("path", [TORCH, QDQ, HAND])
def test_every_dequantized_entry_equals_the_writers_own_values_bit_for_bit(path):
    expected = _expected(path)
    listing = list_file(path)
    quantized = [e for e in listing.entries if e.quantization is not None and not is_dequantized(e)]
    assert {e.name for e in quantized} == set(expected)
    names = [e.name for e in listing.entries]
    for entry in quantized:
        q, real = expected[entry.name]
        assert np.array_equal(core.tensor(path, entry.name), q), entry.name  # the integers as stored
        computed = dequantized_of(listing, entry)
        assert computed is not None and names.index(computed.name) == names.index(entry.name) + 1
        assert (computed.name, computed.storage, computed.dtype) == (entry.name + " (dequantized)",
                                                                     Storage.COMPUTED, "float32")
        assert (computed.offset, computed.nbytes, computed.quantization) == (entry.offset, entry.nbytes,
                                                                             entry.quantization)
        values = core.tensor(path, computed.name)
        assert values.dtype == np.float32 and values.shape == real.shape
        assert values.tobytes() == np.ascontiguousarray(real).tobytes(), entry.name  # NaN-aware: bits
        assert np.count_nonzero(values) > values.size // 2


def test_pytorch_parameters_per_tensor_per_channel_and_strided():
    entries = {e.name: e for e in list_file(TORCH).entries}
    # per tensor: the float32 torch dequantizes with (static_cast<float>); the pickled double beside it
    assert entries["qint8"].quantization == Quantization((float(np.float32(0.0123)),), (3,), None, "int8")
    assert entries["qint8"].extras["q_scale"] == 0.0123
    assert entries["qint32"].quantization.zero_point == (-7,) and entries["qint32"].dtype == "int32"
    # per channel: from the NAME/scales (float64) and NAME/zero_points (int64) storages
    assert entries["per_channel0"].quantization == Quantization((0.011, 0.023, 0.031, 0.047), (0, 3, -2, 1), 0, "int8")
    one = entries["per_channel1"].quantization
    assert (one.axis, one.zero_point, one.stored_dtype) == (1, (0, 3, 200, 128), "uint8")
    assert one.scale == tuple(float(s) for s in np.array([0.011, 0.023, 0.031, 0.047], np.float32))
    # a transposed qtensor: its integers are read at its strides
    assert entries["transposed (dequantized)"].strides == (1, 37)
    assert "per_channel0/scales" in entries and entries["per_channel0/scales"].quantization is None


def test_onnx_parameters_axis_defaults_blocks_and_activations():
    entries = {e.name: e for e in list_file(HAND).entries}
    assert entries["u8_no_zero"].quantization == Quantization((0.0625,), (0,), None, "uint8")  # no zero point
    assert entries["i8_default_axis"].quantization.axis == 1  # DequantizeLinear's default
    assert entries["u8_negative_axis"].quantization.axis == 1  # -1 of a 2-d tensor
    assert entries["i32_typed"].storage is Storage.COPY  # int32_data: its dequantized entry decodes it
    assert entries["i4_axis0"].quantization.stored_dtype == "int4"
    blocked = entries["i8_blocked"]
    assert blocked.quantization is None and "i8_blocked (dequantized)" not in entries
    assert "blocks of 2" in blocked.extras["quantization not used"]
    assert "activation (dequantized)" not in entries and entries["s_activation"].quantization is None
    qdq = {e.name: e for e in list_file(QDQ).entries}
    assert qdq["conv.weight_quantized"].quantization.summary() == "per-channel axis 0 (4)"
    assert qdq["input_scale"].quantization is None  # an activation's scale: not quantized itself


def test_the_listing_json_and_text_show_the_quantization(capsys):
    assert core.cli.main([TORCH, "--list", "--json"]) == 0
    tensors = {t["name"]: t for t in json.loads(capsys.readouterr().out)["tensors"]}
    assert tensors["per_channel0"]["quantization"] == {"scale": [0.011, 0.023, 0.031, 0.047],
                                                       "zero_point": [0, 3, -2, 1], "axis": 0}
    assert tensors["qint8"]["quantization"] == {"scale": [float(np.float32(0.0123))], "zero_point": [3],
                                                "axis": None}
    assert tensors["per_channel0/scales"]["quantization"] is None
    assert tensors["qint8 (dequantized)"]["storage"] == "computed"
    assert core.cli.main([TFLITE, "--list"]) == 0
    text = capsys.readouterr().out
    line = next(row for row in text.splitlines() if row.startswith("functional_1/conv_1/convolution "))
    assert "q: per-channel axis 0 (4)" in line
    assert core.cli.main([HAND, "--list"]) == 0
    line = next(row for row in capsys.readouterr().out.splitlines() if row.startswith("u8_no_zero "))
    assert "q: scale 0.0625 zp 0" in line


@pytest.mark.parametrize("path, name", [(TORCH, "per_channel1"), (HAND, "i4_axis0"),
                                        (TFLITE, "functional_1/dense_1/MatMul1")])
def test_dequantize_opens_the_dequantized_entry_of_any_quantized_tensor(path, name, capsys):
    assert core.cli.main([path, "--tensor", name, "--dequantize", "--json", "--limit", "100000"]) == 0
    captured = capsys.readouterr()
    shown = json.loads(captured.out)
    assert shown["dtype"] == "float32"
    assert np.array_equal(np.array(shown["values"], np.float32), core.tensor(path, name + " (dequantized)"))
    assert "scale * (q - zero point)" in captured.err
    assert core.cli.main([path, "--tensor", name + " (dequantized)", "--dequantize", "--json", "--limit", "0"]) == 0
    assert json.loads(capsys.readouterr().out)["dtype"] == "float32"  # already dequantized: itself


def test_dequantize_of_a_tensor_that_is_not_quantized_shows_it_with_a_note(capsys):
    assert core.cli.main([TORCH, "--tensor", "per_channel0/scales", "--dequantize", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["values"] == [0.011, 0.023, 0.031, 0.047]
    assert "note: --dequantize: 'per_channel0/scales' is not quantized; shown as stored" in captured.err


def test_dequantizing_is_within_the_copy_budget(monkeypatch):
    monkeypatch.setattr(core.budget, "COPY_BUDGET_BYTES", 1000)  # 148 integers: 148 + 148 x 12 bytes
    with pytest.raises(BudgetError, match="dequantizing 'qint8 \\(dequantized\\)'"):
        core.tensor(TORCH, "qint8 (dequantized)")
    assert core.tensor(TORCH, "qint8").shape == (4, 37)  # the integers stay a view


def test_parameters_that_do_not_fit_are_refused_with_the_reason():
    assert checked_quantization([0.5, 0.25], [0, 1, 2], 0, "int8", (2, 3)) == (
        "its 2 scales and 3 zero points do not fit axis 0 of its shape (2, 3) (a corrupt quantization)")
    assert "do not fit axis 5" in checked_quantization([1.0, 2.0], [0], 5, "int8", (2, 3))
    assert checked_quantization([], [0], None, "int8", (2,)) == "it has no scale"
    assert "not an integer type" in checked_quantization([1.0], [0], None, "float32", (2,))
    # one scale and one zero point are per tensor whatever the axis says; -1 counts from the end
    assert checked_quantization([0.5], [], 3, "uint8", (2,)) == Quantization((0.5,), (0,), None, "uint8")
    assert checked_quantization([1.0, 2.0, 3.0], [0], -1, "int8", (2, 3)).axis == 1


def test_find_entry_and_summary_forms():
    listing = list_file(TORCH)
    entry = find_entry(listing, "per_channel0")
    assert entry.quantization.summary() == "per-channel axis 0 (4)"
    assert find_entry(listing, "quint8").quantization.summary() == "scale 0.0371 zp 128"
    assert dequantized_of(listing, find_entry(listing, "per_channel0/scales")) is None
