"""Quantized TFLite tensors (issue 32 item 7): each is followed by a computed entry of its
dequantized float32 values, equal to ``scale * (q - zero_point)`` per channel as computed from
what TensorFlow's own interpreter reports (fixtures/tflite/make_fixtures.py, TensorFlow 2.21)."""

from __future__ import annotations

import os

import numpy as np
import pytest

import core
import core.cli
from core.errors import ContainerError
from core.formats.entry import Storage, find_entry
from core.formats.quantization import dequantize_affine
from core.formats.registry import list_file

HERE = os.path.join(os.path.dirname(__file__), "fixtures", "tflite")
MODEL = os.path.join(HERE, "quantized.tflite")


def _expected() -> dict[str, tuple[np.ndarray, np.ndarray]]:
    with np.load(os.path.join(HERE, "quantized.expected.npz")) as saved:
        return {str(n): (saved[f"q{i}"], saved[f"real{i}"]) for i, n in enumerate(saved["names"])}


def test_every_quantized_weight_has_a_dequantized_entry_equal_to_the_interpreters_values():
    expected = _expected()
    listing = list_file(MODEL)
    quantized = [e for e in listing.entries if e.quantization is not None and e.storage is Storage.VIEW]
    assert {e.name for e in quantized} == {"functional_1/dense_1/MatMul1", "arith.constant1",
                                           "functional_1/conv_1/convolution"}
    for entry in quantized:
        q, real = expected[entry.name]
        assert np.array_equal(core.tensor(MODEL, entry.name), q)  # the integers, a view
        computed = find_entry(listing, entry.name + " (dequantized)")
        assert computed.storage is Storage.COMPUTED and computed.dtype == "float32"
        assert (computed.offset, computed.nbytes, computed.shape) == (entry.offset, entry.nbytes, entry.shape)
        values = core.tensor(MODEL, computed.name)
        assert values.dtype == np.float32 and values.tobytes() == real.tobytes()  # bit-exact
    conv = core.tensor(MODEL, "functional_1/conv_1/convolution (dequantized)")
    assert np.count_nonzero(conv) > 100  # real weights, not zeros


def test_the_command_prints_dequantized_values_with_a_note(capsys):
    assert core.cli.main([MODEL, "--tensor", "functional_1/dense_1/MatMul1 (dequantized)", "--slice", "0, :3"]) == 0
    captured = capsys.readouterr()
    q, real = _expected()["functional_1/dense_1/MatMul1"]
    assert captured.out.startswith("shape: (3,)\ndtype: float32")
    assert "scale * (q - zero point) of its INT8 values" in captured.err
    assert str(float(real[0, 0]))[:6] in captured.out.replace(" ", "")


def test_the_rule_per_tensor_per_channel_and_refusals():
    q = np.array([[-128, 0, 127], [1, 2, 3]], np.int8)
    assert dequantize_affine(q, [0.5], [1], None, "t").tolist() == [[-64.5, -0.5, 63.0], [0.0, 0.5, 1.0]]
    assert dequantize_affine(q, [1.0, 0.25], [0, 2], 0, "t").tolist() == [[-128.0, 0.0, 127.0],
                                                                         [-0.25, 0.0, 0.25]]
    with pytest.raises(ContainerError, match="2 scales and 1 zero points, which do not fit axis 1"):
        dequantize_affine(q, [1.0, 2.0], [0], 1, "t")
    with pytest.raises(ContainerError, match="has no quantization scale"):
        dequantize_affine(q, [], [], None, "t")
