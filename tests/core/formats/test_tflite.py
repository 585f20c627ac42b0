"""TFLite models: weights and constants by name, inline buffers and buffers past the flatbuffer.

Models are built with the flatbuffers Builder and the ``tflite`` package's generated builder
functions (the TFLite schema), so no TensorFlow is needed.
"""

import dataclasses
import struct
from importlib import import_module

import numpy as np
import pytest

from core.errors import ContainerError
from core.formats import tflite as tflite_format
from core.formats.entry import Quantization, find_entry
from core.formats.registry import list_file
from core.pipeline.pipeline import Pipeline

flatbuffers = pytest.importorskip("flatbuffers")
pytest.importorskip("tflite")
S = {name: import_module(f"tflite.{name}") for name in (
    "Model", "SubGraph", "Tensor", "Buffer", "QuantizationParameters", "Operator", "OperatorCode")}
FLOAT32, INT32, UINT8, STRING, INT8, INT4 = 0, 2, 3, 5, 9, 17
CONV_2D, FULLY_CONNECTED = 3, 9


def _ints(builder, start_vector, values, fmt="Int32"):
    start_vector(builder, len(values))
    for v in reversed(values):
        getattr(builder, f"Prepend{fmt}")(v)
    return builder.EndVector()


def build_model(tensors, buffers, operators=(), opcodes=(), external_base=None, names=("main",)):
    """A TFLite flatbuffer. ``buffers``: bytes (inline ``Buffer.data``) or ``("ext", offset, size)``
    (``Buffer.offset``/``size``, data past the flatbuffer). ``tensors`` per subgraph: dicts with
    name, shape, type, buffer and optional quant=(scales, zero_points, dim), signature."""
    b = flatbuffers.Builder(1024)
    if tensors and isinstance(tensors[0], dict):
        tensors = [tensors]
    buffer_offsets = []
    for data in buffers:
        if isinstance(data, bytes) and data:
            b.StartVector(1, len(data), 16)
            for byte in reversed(data):
                b.PrependUint8(byte)
            vec = b.EndVector()
            S["Buffer"].BufferStart(b)
            S["Buffer"].BufferAddData(b, vec)
        else:
            S["Buffer"].BufferStart(b)
            if isinstance(data, tuple):
                S["Buffer"].BufferAddOffset(b, data[1])
                S["Buffer"].BufferAddSize(b, data[2])
        buffer_offsets.append(S["Buffer"].BufferEnd(b))
    graphs = []
    for graph_number, graph_tensors in enumerate(tensors):
        tensor_offsets = []
        for t in graph_tensors:
            name = b.CreateString(t["name"])
            shape = _ints(b, S["Tensor"].TensorStartShapeVector, list(t["shape"]))
            signature = _ints(b, S["Tensor"].TensorStartShapeSignatureVector, list(t["signature"])) \
                if "signature" in t else None
            quant = None
            if "quant" in t:
                scales, zeros, dim = t["quant"]
                sv = _ints(b, S["QuantizationParameters"].QuantizationParametersStartScaleVector, scales, "Float32")
                zv = _ints(b, S["QuantizationParameters"].QuantizationParametersStartZeroPointVector, zeros, "Int64")
                Q = S["QuantizationParameters"]
                Q.QuantizationParametersStart(b)
                Q.QuantizationParametersAddScale(b, sv)
                Q.QuantizationParametersAddZeroPoint(b, zv)
                Q.QuantizationParametersAddQuantizedDimension(b, dim)
                quant = Q.QuantizationParametersEnd(b)
            T = S["Tensor"]
            T.TensorStart(b)
            T.TensorAddShape(b, shape)
            T.TensorAddType(b, t["type"])
            T.TensorAddBuffer(b, t["buffer"])
            T.TensorAddName(b, name)
            if quant is not None:
                T.TensorAddQuantization(b, quant)
            if signature is not None:
                T.TensorAddShapeSignature(b, signature)
            tensor_offsets.append(T.TensorEnd(b))
        op_offsets = []
        for opcode_index, inputs, outputs in (operators if graph_number == 0 else ()):
            iv = _ints(b, S["Operator"].OperatorStartInputsVector, inputs)
            ov = _ints(b, S["Operator"].OperatorStartOutputsVector, outputs)
            S["Operator"].OperatorStart(b)
            S["Operator"].OperatorAddOpcodeIndex(b, opcode_index)
            S["Operator"].OperatorAddInputs(b, iv)
            S["Operator"].OperatorAddOutputs(b, ov)
            op_offsets.append(S["Operator"].OperatorEnd(b))
        G = S["SubGraph"]
        G.SubGraphStartTensorsVector(b, len(tensor_offsets))
        for o in reversed(tensor_offsets):
            b.PrependUOffsetTRelative(o)
        tv = b.EndVector()
        G.SubGraphStartOperatorsVector(b, len(op_offsets))
        for o in reversed(op_offsets):
            b.PrependUOffsetTRelative(o)
        opv = b.EndVector()
        name = b.CreateString(names[graph_number])
        G.SubGraphStart(b)
        G.SubGraphAddTensors(b, tv)
        G.SubGraphAddOperators(b, opv)
        G.SubGraphAddName(b, name)
        graphs.append(G.SubGraphEnd(b))
    code_offsets = []
    for code in opcodes:
        C = S["OperatorCode"]
        C.OperatorCodeStart(b)
        C.OperatorCodeAddDeprecatedBuiltinCode(b, min(code, 127))
        C.OperatorCodeAddBuiltinCode(b, code)
        code_offsets.append(C.OperatorCodeEnd(b))
    M = S["Model"]
    M.ModelStartBuffersVector(b, len(buffer_offsets))
    for o in reversed(buffer_offsets):
        b.PrependUOffsetTRelative(o)
    bv = b.EndVector()
    M.ModelStartSubgraphsVector(b, len(graphs))
    for o in reversed(graphs):
        b.PrependUOffsetTRelative(o)
    gv = b.EndVector()
    M.ModelStartOperatorCodesVector(b, len(code_offsets))
    for o in reversed(code_offsets):
        b.PrependUOffsetTRelative(o)
    cv = b.EndVector()
    description = b.CreateString("built by the test")
    M.ModelStart(b)
    M.ModelAddVersion(b, 3)
    M.ModelAddBuffers(b, bv)
    M.ModelAddSubgraphs(b, gv)
    M.ModelAddOperatorCodes(b, cv)
    M.ModelAddDescription(b, description)
    b.Finish(M.ModelEnd(b), file_identifier=b"TFL3")
    return bytes(b.Output())


WEIGHTS = np.arange(6, dtype=np.float32).reshape(2, 3) / 4
BIAS = np.array([-1, 7], dtype=np.int32)
QUANT = np.array([[-128, 5], [127, 0]], dtype=np.int8)
TENSORS = [
    dict(name="input", shape=[1, 3], type=FLOAT32, buffer=0, signature=[-1, 3]),
    dict(name="dense/weights", shape=[2, 3], type=FLOAT32, buffer=1),
    dict(name="dense/bias", shape=[2], type=INT32, buffer=2),
    dict(name="conv/filter", shape=[2, 2], type=INT8, buffer=3,
         quant=([0.5, 0.25], [0, 1], 0)),
    dict(name="output", shape=[1, 2], type=FLOAT32, buffer=4),
]
BUFFERS = [b"", WEIGHTS.tobytes(), BIAS.tobytes(), QUANT.tobytes(), b""]
OPERATORS = [(0, [0, 1, 2], [4]), (1, [4, 3], [4])]


def test_inline_buffers_list_weights_with_offsets_quantization_and_users(tmp_path):
    path = tmp_path / "m.tflite"
    model = build_model(TENSORS, BUFFERS, OPERATORS, opcodes=[FULLY_CONNECTED, CONV_2D])
    path.write_bytes(model)
    listing = list_file(str(path))
    assert listing.format == "tflite" and listing.problems == ()
    assert [e.name for e in listing.entries] == ["dense/weights", "dense/bias", "conv/filter",
                                                  "conv/filter (dequantized)"]
    assert listing.metadata["tensors without stored data"].startswith("2 (activations")
    assert listing.metadata["version"] == "3" and listing.metadata["description"] == "built by the test"
    weights = find_entry(listing, "dense/weights")
    assert (weights.dtype, weights.shape, weights.nbytes, weights.stored_type) == ("float32", (2, 3), 24, "FLOAT32")
    assert model[weights.offset:weights.offset + 24] == WEIGHTS.tobytes()
    assert weights.offset % 16 == 0  # force_align: 16 on Buffer.data
    assert weights.extras["used by"] == "FULLY_CONNECTED (operator 0)"
    filt = find_entry(listing, "conv/filter")
    assert filt.quantization == Quantization((0.5, 0.25), (0, 1), 0, "int8")
    assert filt.quantization.summary() == "per-channel axis 0 (2)"
    assert find_entry(listing, "conv/filter (dequantized)").quantization == filt.quantization
    assert filt.extras["used by"] == "CONV_2D (operator 1)"
    with Pipeline(str(path)) as pipeline:
        assert pipeline.run(weights.params()).view.tolist() == WEIGHTS.tolist()
        assert pipeline.run(find_entry(listing, "dense/bias").params()).view.tolist() == [-1, 7]
        result = pipeline.run(filt.params())
        assert result.view.tolist() == QUANT.tolist() and result.zero_copy
        assert result.byte_offset((1, 0)) == (0, filt.offset + 2, 1)


def test_buffers_past_the_flatbuffer_offsets_from_the_file_start(tmp_path):
    # Models over 2 GB keep their data after the flatbuffer (Buffer.offset / Buffer.size).
    placeholder = [b"", ("ext", 2, 24), ("ext", 2, 8), ("ext", 2, 4), b""]
    size = len(build_model(TENSORS, placeholder))
    base = -(-size // 64) * 64
    data = [WEIGHTS.tobytes(), BIAS.tobytes(), QUANT.tobytes()]
    offsets = [base, base + 32, base + 48]
    buffers = [b""] + [("ext", o, len(d)) for o, d in zip(offsets, data)] + [b""]
    model = build_model(TENSORS, buffers)
    assert len(model) == size
    blob = bytearray(model + bytes(base - size) + bytes(64))
    for o, d in zip(offsets, data):
        blob[o:o + len(d)] = d
    path = tmp_path / "big.tflite"
    path.write_bytes(bytes(blob))
    listing = list_file(str(path))
    weights = find_entry(listing, "dense/weights")
    assert (weights.offset, weights.nbytes) == (base, 24)
    with Pipeline(str(path)) as pipeline:
        assert pipeline.run(weights.params()).view.tolist() == WEIGHTS.tolist()
        assert pipeline.run(find_entry(listing, "conv/filter").params()).view.tolist() == QUANT.tolist()


def test_undecodable_types_and_size_mismatches_are_listed_with_a_problem(tmp_path):
    tensors = [dict(name="packed4", shape=[4], type=INT4, buffer=1),
               dict(name="words", shape=[1], type=STRING, buffer=2),
               dict(name="short", shape=[3, 3], type=FLOAT32, buffer=3)]
    path = tmp_path / "odd.tflite"
    path.write_bytes(build_model(tensors, [b"", b"\x21\x43", b"\x01\0\0\0abc", bytes(8)]))
    listing = list_file(str(path))
    packed = find_entry(listing, "packed4")
    assert packed.dtype is None and "INT4 packs two values per byte" in packed.problem
    assert "dtype uint8, offset" in packed.problem
    assert "strings are stored as a count" in find_entry(listing, "words").problem
    short = find_entry(listing, "short")
    assert "shape (3, 3) of FLOAT32 (36 bytes) but its buffer 3 holds 8 bytes" in short.problem
    with pytest.raises(ContainerError, match="INT4"):
        packed.params()
    with Pipeline(str(path)) as pipeline:  # the raw bytes stay reachable
        raw = dataclasses.replace(packed, dtype="uint8", problem=None, shape=(2,))
        assert pipeline.run(raw.params()).view.tolist() == [0x21, 0x43]


def test_second_subgraph_names_are_prefixed(tmp_path):
    graphs = [[dict(name="w", shape=[1], type=FLOAT32, buffer=1)],
              [dict(name="w", shape=[1], type=FLOAT32, buffer=2)]]
    path = tmp_path / "two.tflite"
    path.write_bytes(build_model(graphs, [b"", struct.pack("<f", 1.5), struct.pack("<f", -3.0)],
                                 names=("main", "decoder")))
    listing = list_file(str(path))
    assert [e.name for e in listing.entries] == ["w", "decoder/w"]
    with Pipeline(str(path)) as pipeline:
        assert pipeline.run(find_entry(listing, "decoder/w").params()).view.tolist() == [-3.0]


# -- hostile models -------------------------------------------------------------------------------
def _model_file(tmp_path, blob, name="h.tflite"):
    path = tmp_path / name
    path.write_bytes(bytes(blob))
    return str(path)


def test_hostile_truncated_and_bad_root(tmp_path):
    model = build_model(TENSORS, BUFFERS)
    with pytest.raises(ContainerError, match=r"tflite file .*h.tflite' at byte 92: the buffers vector "
                       r"claims 5 elements of 4 bytes, past the end of the file \(100 bytes\)"):
        list_file(_model_file(tmp_path, model[:100]))
    # cut inside the tensors: each one is a problem naming it and its byte; nothing is listed
    listing = list_file(_model_file(tmp_path, model[:320]))
    assert listing.entries == () and len(listing.problems) == 5
    assert "h.tflite' at byte 424: subgraph 0 tensor 1 at byte 424 lies outside the file (320 bytes)" \
        in listing.problems[1]
    blob = bytearray(model)
    blob[0:4] = struct.pack("<I", 0xFFFFFFF0)  # root offset past the end
    with pytest.raises(ContainerError, match="the model table at byte 4294967280 lies outside the file"):
        list_file(_model_file(tmp_path, blob))


def test_hostile_self_referencing_table_is_refused(tmp_path):
    model = build_model(TENSORS, BUFFERS)
    root = struct.unpack_from("<I", model)[0]
    blob = bytearray(model)
    blob[root:root + 4] = struct.pack("<i", 0)  # the table's vtable is the table itself
    with pytest.raises(ContainerError, match="bad vtable .* self-referencing"):
        list_file(_model_file(tmp_path, blob))


def test_hostile_lying_vector_length_and_buffer_past_the_end(tmp_path):
    model = bytearray(build_model(TENSORS, BUFFERS))
    weights = find_entry(list_file(_model_file(tmp_path, model)), "dense/weights")
    struct.pack_into("<I", model, weights.offset - 4, 0x7FFFFFFF)  # Buffer.data length lies
    listing = list_file(_model_file(tmp_path, model))
    assert [e.name for e in listing.entries] == ["dense/bias", "conv/filter", "conv/filter (dequantized)"]  # the rest usable
    assert "subgraph 0 tensor 1: buffer 1 data claims 2147483647 elements" in listing.problems[0]
    assert f"at byte {weights.offset - 4}" in listing.problems[0]
    ext = build_model(TENSORS, [b"", ("ext", 1 << 40, 24), b"", b"", b""])
    listing = list_file(_model_file(tmp_path, ext, "ext.tflite"))
    assert "buffer 1 (24 bytes from byte 1099511627776, past the flatbuffer) reaches past the end" \
        in listing.problems[0]


def test_hostile_huge_tensor_count_is_refused_without_a_walk(tmp_path, monkeypatch):
    monkeypatch.setattr(tflite_format, "MAX_ITEMS", 4)
    with pytest.raises(ContainerError, match=r"at byte 92: the buffers vector has 5 elements \(more "
                       r"than 4\): a corrupt model"):
        list_file(_model_file(tmp_path, build_model(TENSORS, BUFFERS)))
    listing = list_file(_model_file(tmp_path, build_model(TENSORS, BUFFERS[:4])))
    assert listing.entries == ()
    assert "the tensors of subgraph 0 has 5 elements (more than 4): a corrupt model" in listing.problems[0]


def test_sniff_needs_the_identifier():
    assert tflite_format.sniff(b"\x1c\0\0\0TFL3", 100)
    assert not tflite_format.sniff(b"\x1c\0\0\0TFL2", 100)
    assert not tflite_format.sniff(b"\x1c\0\0\0TFL3", 7)


def test_hostile_random_corruption_never_crashes(tmp_path):
    """Flipped bytes anywhere give a listing (maybe with problems) or a ContainerError."""
    import random

    model = build_model(TENSORS, BUFFERS, OPERATORS, opcodes=[FULLY_CONNECTED, CONV_2D])
    rng = random.Random(16)
    outcomes = set()
    for trial in range(300):
        blob = bytearray(model)
        for _ in range(rng.randint(1, 4)):
            blob[rng.randrange(8, len(blob))] = rng.randrange(256)
        try:
            list_file(_model_file(tmp_path, blob, f"f{trial % 3}.tflite"))
            outcomes.add("listed")
        except ContainerError as error:
            assert "tflite file" in error.message and "at byte" in error.message
            outcomes.add("refused")
    assert outcomes == {"listed", "refused"}
