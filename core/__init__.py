"""tensor-inspector's engine: exact ``tf.io.decode_raw``, ``tf.strided_slice`` and TFLite
``TensorBuffer`` semantics on read-only memory-mapped files and objects in memory. Pure Python +
numpy; never Qt.

The rules are written down in docs/semantics.md (sections cited in each module). The public
API, what this package exports, is documented with examples in docs/api.md:

- open and decode: :func:`open_pipeline` (paths, or bytes / arrays / tensors in memory),
  :func:`run` (a :class:`PipelineResult` with byte provenance), :func:`read_values` (the values);
  :class:`Pipeline`, :class:`DecodeParams`, :func:`open_source`, :func:`open_memory`;
- slice: :func:`slice_array`, :func:`parse_slice`, :func:`format_slice`, :class:`SliceSpec`,
  :func:`strided_slice`; decode bytes: :func:`decode_raw`, :class:`TensorBuffer`;
- containers: :func:`list_file`, :func:`find_entry`, :func:`tensor`;
- compare: :func:`compare_values` (:class:`CompareResult`); guess: :func:`guess_layout`;
- statistics: :func:`statistics` (:func:`compute_statistics`); export: :func:`export_values`
  (:func:`export_view`), :func:`export_kerchunk` (kerchunk references to the decode's bytes).
"""

import importlib

#: Where each public name lives: imported on first use (PEP 562), so that importing one engine
#: module, or the app, does not import the whole engine.
_EXPORTS = {
    "BudgetError": "core.errors",
    "Candidate": "core.guess.ranking",
    "CompareResult": "core.compare.result",
    "ContainerListing": "core.formats.entry",
    "CoreError": "core.errors",
    "DataType": "core.dtypes.data_type",
    "DecodeError": "core.errors",
    "DecodeParams": "core.pipeline.pipeline",
    "ENGINE_TYPES": "core.dtypes.table",
    "FileSource": "core.files.sources",
    "MemorySource": "core.files.memory",
    "Pipeline": "core.pipeline.pipeline",
    "PipelineResult": "core.pipeline.pipeline",
    "ShapeError": "core.errors",
    "SliceError": "core.errors",
    "SliceSpec": "core.slicing.spec",
    "Source": "core.files.sources",
    "SourceError": "core.errors",
    "Statistics": "core.scan.statistics",
    "TensorBuffer": "core.tflite.tensor_buffer",
    "TensorBufferError": "core.errors",
    "TensorEntry": "core.formats.entry",
    "compare_values": "core.api",
    "compute_statistics": "core.scan.statistics",
    "decode_raw": "core.decode.decode_raw",
    "export_kerchunk": "core.export.kerchunk",
    "export_values": "core.api",
    "export_view": "core.export.arrays",
    "find_entry": "core.formats.entry",
    "format_slice": "core.slicing.expr",
    "guess_layout": "core.guess.ranking",
    "is_tf_decode_type": "core.dtypes.table",
    "list_file": "core.formats.registry",
    "open_memory": "core.files.memory",
    "open_pipeline": "core.api",
    "open_source": "core.files.sources",
    "parse_slice": "core.slicing.expr",
    "read_values": "core.api",
    "resolve_dtype": "core.dtypes.table",
    "run": "core.api",
    "slice_array": "core.api",
    "statistics": "core.api",
    "strided_slice": "core.slicing.spec",
    "tensor": "core.api",
}

__all__ = [
    "BudgetError", "Candidate", "CompareResult", "ContainerListing", "CoreError", "DataType", "DecodeError",
    "DecodeParams", "ENGINE_TYPES", "FileSource", "MemorySource", "Pipeline", "PipelineResult", "ShapeError",
    "SliceError", "SliceSpec", "Source", "SourceError", "Statistics", "TensorBuffer", "TensorBufferError",
    "TensorEntry", "compare_values", "compute_statistics", "decode_raw", "export_kerchunk", "export_values", "export_view",
    "find_entry", "format_slice", "guess_layout", "is_tf_decode_type", "list_file", "open_memory",
    "open_pipeline", "open_source", "parse_slice", "read_values", "resolve_dtype", "run", "slice_array", "statistics",
    "strided_slice", "tensor",
]


def __getattr__(name: str) -> object:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'core' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value  # the next access is a plain attribute
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(_EXPORTS))
