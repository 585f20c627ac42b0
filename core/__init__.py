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
  (:func:`export_view`).
"""

from core.api import (
    compare_values,
    export_values,
    open_pipeline,
    read_values,
    run,
    slice_array,
    statistics,
    tensor,
)
from core.compare.result import CompareResult
from core.decode.decode_raw import decode_raw
from core.dtypes.data_type import DataType
from core.dtypes.table import ENGINE_TYPES, is_tf_decode_type, resolve_dtype
from core.errors import (
    BudgetError,
    CoreError,
    DecodeError,
    ShapeError,
    SliceError,
    SourceError,
    TensorBufferError,
)
from core.export.arrays import export_view
from core.files.memory import MemorySource, open_memory
from core.files.sources import FileSource, Source, open_source
from core.formats.entry import ContainerListing, TensorEntry, find_entry
from core.formats.registry import list_file
from core.guess.ranking import Candidate, guess_layout
from core.pipeline.pipeline import DecodeParams, Pipeline, PipelineResult
from core.scan.statistics import Statistics, compute_statistics
from core.slicing.expr import format_slice, parse_slice
from core.slicing.spec import SliceSpec, strided_slice
from core.tflite.tensor_buffer import TensorBuffer

__all__ = [
    "BudgetError", "Candidate", "CompareResult", "ContainerListing", "CoreError", "DataType", "DecodeError",
    "DecodeParams", "ENGINE_TYPES", "FileSource", "MemorySource", "Pipeline", "PipelineResult", "ShapeError",
    "SliceError", "SliceSpec", "Source", "SourceError", "Statistics", "TensorBuffer", "TensorBufferError",
    "TensorEntry", "compare_values", "compute_statistics", "decode_raw", "export_values", "export_view",
    "find_entry", "format_slice", "guess_layout", "is_tf_decode_type", "list_file", "open_memory",
    "open_pipeline", "open_source", "parse_slice", "read_values", "resolve_dtype", "run", "slice_array", "statistics",
    "strided_slice", "tensor",
]
