"""Listings bounded by the file's size and the memory budget; big headers the reference accepts.

- A TFLite model whose tables are shared (a DAG: one operator referenced over and over, its
  inputs naming one tensor 100,000 times) stops its walk at a quarter of the file's size in steps
  and says so; without the bound it makes 5 million "used by" strings for a 1 MB file.
- At most ``entry_limit()`` entries are kept (the copy budget over ENTRY_BYTES, at least 1,000):
  the rest are counted ("N more tensors not listed") in the listing's problems, shown by
  ``--list`` and the Tensors dock.
- A safetensors header between 64 MiB and the reference reader's 100,000,000 bytes is listed.
- Dequantizing a GGUF quantized tensor with a zero dimension is the engine's message.
"""

import contextlib
import io
import json
import struct
import sys
from pathlib import Path

import numpy as np
import pytest

import core.budget
from core.cli import main
from core.errors import ContainerError
from core.files.sources import open_source
from core.formats import gguf as gguf_format
from core.formats.entry import find_entry
from core.formats.registry import list_file

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "core" / "formats"))
import containers

tflite_test = containers.load_test_module("test_tflite")
gguf_test = containers.load_test_module("test_gguf")
flatbuffers = pytest.importorskip("flatbuffers")
S = tflite_test.S


def _dag_model(copies: int, operators: int) -> bytes:
    """One tensor with data; the subgraph's tensors vector names its table ``copies`` times;
    ``operators`` entries of the operators vector name one operator whose inputs are
    ``copies`` zeros."""
    b = flatbuffers.Builder(1024)
    data = np.arange(4, dtype=np.float32).tobytes()
    b.StartVector(1, len(data), 16)
    for byte in reversed(data):
        b.PrependUint8(byte)
    vec = b.EndVector()
    S["Buffer"].BufferStart(b)
    S["Buffer"].BufferAddData(b, vec)
    with_data = S["Buffer"].BufferEnd(b)
    S["Buffer"].BufferStart(b)
    empty = S["Buffer"].BufferEnd(b)
    name = b.CreateString("w")
    shape = tflite_test._ints(b, S["Tensor"].TensorStartShapeVector, [4])
    T = S["Tensor"]
    T.TensorStart(b)
    T.TensorAddShape(b, shape)
    T.TensorAddType(b, 0)
    T.TensorAddBuffer(b, 1)
    T.TensorAddName(b, name)
    tensor = T.TensorEnd(b)
    inputs = tflite_test._ints(b, S["Operator"].OperatorStartInputsVector, [0] * copies)
    S["Operator"].OperatorStart(b)
    S["Operator"].OperatorAddInputs(b, inputs)
    operator = S["Operator"].OperatorEnd(b)
    G = S["SubGraph"]
    G.SubGraphStartTensorsVector(b, copies)
    for _ in range(copies):
        b.PrependUOffsetTRelative(tensor)
    tensors = b.EndVector()
    G.SubGraphStartOperatorsVector(b, operators)
    for _ in range(operators):
        b.PrependUOffsetTRelative(operator)
    ops = b.EndVector()
    G.SubGraphStart(b)
    G.SubGraphAddTensors(b, tensors)
    G.SubGraphAddOperators(b, ops)
    graph = G.SubGraphEnd(b)
    M = S["Model"]
    M.ModelStartBuffersVector(b, 2)
    b.PrependUOffsetTRelative(with_data)
    b.PrependUOffsetTRelative(empty)
    buffers = b.EndVector()
    M.ModelStartSubgraphsVector(b, 1)
    b.PrependUOffsetTRelative(graph)
    graphs = b.EndVector()
    M.ModelStart(b)
    M.ModelAddVersion(b, 3)
    M.ModelAddBuffers(b, buffers)
    M.ModelAddSubgraphs(b, graphs)
    b.Finish(M.ModelEnd(b), file_identifier=b"TFL3")
    return bytes(b.Output())


def test_a_tflite_dag_walk_stops_at_the_files_size_and_says_so(tmp_path):
    path = tmp_path / "dag.tflite"
    path.write_bytes(_dag_model(copies=100_000, operators=50))  # 5 million references in ~800 KB
    size = path.stat().st_size
    listing = list_file(str(path))
    steps = size // 4 + 1024
    assert any(f"its tables are walked more than {steps} times" in p and "the walk stopped" in p
               for p in listing.problems), listing.problems
    assert listing.entries == ()  # the walk stopped in the operators, before the tensors


def test_a_tflite_listing_keeps_at_most_the_entry_limit_and_counts_the_rest(tmp_path, monkeypatch):
    monkeypatch.setattr(core.budget, "COPY_BUDGET_BYTES", 16)  # entry_limit(): its floor of 1,000
    tensors = [dict(name=f"t{i}", shape=[1], type=0, buffer=1) for i in range(1500)]
    path = tmp_path / "many.tflite"
    path.write_bytes(tflite_test.build_model(tensors, [b"", np.float32(2).tobytes()]))
    listing = list_file(str(path))
    assert [e.name for e in listing.entries] == [f"t{i}" for i in range(1000)]
    assert any(p.startswith("500 more tensors not listed: the listing holds at most 1000 entries")
               for p in listing.problems), listing.problems
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        assert main([str(path), "--list"]) == 0
    assert "500 more tensors not listed" in out.getvalue() + err.getvalue()


def test_a_gguf_listing_keeps_at_most_the_entry_limit_and_counts_the_rest(tmp_path, monkeypatch):
    monkeypatch.setattr(core.budget, "COPY_BUDGET_BYTES", 16)
    tensors = [(f"t{i}", np.full((2,), i, np.float32), None) for i in range(1200)]
    path = gguf_test.write_gguf(tmp_path / "many.gguf", tensors=tensors)
    listing = list_file(path)
    assert len(listing.entries) == 1000 and listing.entries[-1].name == "t999"
    assert listing.problems[0].startswith("200 more tensors not listed")
    with open_source(path) as source:  # the kept entries still point at their data
        assert source.bytes_at(0, listing.entries[999].offset, 8) == np.full((2,), 999, np.float32).tobytes()


def test_a_safetensors_header_over_64_mib_within_the_reference_limit_is_listed(tmp_path):
    from safetensors import safe_open

    header = {"w": {"dtype": "F32", "shape": [2], "data_offsets": [0, 8]}}
    text = json.dumps(header).encode()
    text += b" " * (70_000_000 - len(text))  # padded with spaces, as the writer pads for alignment
    path = tmp_path / "padded.safetensors"
    path.write_bytes(struct.pack("<Q", len(text)) + text + np.array([1.5, -2], np.float32).tobytes())
    with safe_open(str(path), "np") as reference:  # the reference reader accepts it
        assert reference.get_tensor("w").tolist() == [1.5, -2.0]
    listing = list_file(str(path))
    (entry,) = listing.entries
    assert (entry.name, entry.shape, entry.offset, entry.nbytes) == ("w", (2,), 8 + 70_000_000, 8)


def test_a_safetensors_header_over_the_reference_limit_is_refused(tmp_path):
    path = tmp_path / "huge.safetensors"
    with open(path, "wb") as f:
        f.write(struct.pack("<Q", 100_000_001) + b'{"')
        f.truncate(200_000_000)
    with pytest.raises(ContainerError, match="the header length says 100000001 bytes, more than "
                       "the 100,000,000 bytes a header may have"):
        list_file(str(path))


def test_dequantizing_a_gguf_tensor_with_a_zero_dimension_is_a_message(tmp_path):
    rows = np.linspace(-1, 1, 64, dtype=np.float32).reshape(2, 32)
    path = gguf_test.write_gguf(tmp_path / "z.gguf", tensors=[("q", gguf_test.gguf.quants.quantize(rows, gguf_test.Q.Q8_0), gguf_test.Q.Q8_0)])
    blob = bytearray(Path(path).read_bytes())
    at = blob.index(struct.pack("<Q", 1) + b"q") + 9  # the tensor info: name, then n_dims
    assert struct.unpack_from("<I2Q", blob, at) == (2, 32, 2)
    struct.pack_into("<Q", blob, at + 12, 0)  # ne[1] = 0: a (0, 32) tensor of no blocks
    Path(path).write_bytes(bytes(blob))
    listing = list_file(path)
    entry = find_entry(listing, "q")
    assert entry.shape == (0, 32) and entry.problem is None
    with open_source(path) as source, pytest.raises(ContainerError) as caught:
        gguf_format.dequantize(source, entry)
    assert str(caught.value) == (
        f"the gguf file '{path}', tensor 'q' (Q8_0): its shape (0, 32) has no whole blocks of 32 "
        "values to dequantize (a 0-d or empty quantized tensor is a corrupt tensor info; look at "
        "its bytes with dtype uint8)")


def test_the_tensors_dock_says_how_many_tensors_were_not_listed(qtbot, tmp_path, monkeypatch):
    from PySide6.QtCore import QSettings

    from inspector.main_window import MainWindow
    from inspector.state.settings_store import SettingsStore

    monkeypatch.setattr(core.budget, "COPY_BUDGET_BYTES", 16)
    tensors = [(f"t{i}", np.full((2,), i, np.float32), None) for i in range(1003)]
    path = gguf_test.write_gguf(tmp_path / "many.gguf", tensors=tensors)
    window = MainWindow(SettingsStore(QSettings(str(tmp_path / "settings.ini"), QSettings.IniFormat)))
    qtbot.addWidget(window)
    assert window.open_paths([path])
    assert len(window.document.container.entries) == 1000
    problems = window.tensors_panel.problems
    assert problems.isVisibleTo(window) and "3 more tensors not listed" in problems.text()
