"""tensor-inspector's engine: exact ``tf.io.decode_raw``, ``tf.strided_slice`` and TFLite
``TensorBuffer`` semantics on read-only memory-mapped files. Pure Python + numpy; never Qt.

The rules are written down in docs/semantics.md (sections cited in each module).
"""

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
from core.files.sources import FileSource, open_source
from core.pipeline.pipeline import DecodeParams, Pipeline, PipelineResult
from core.slicing.expr import format_slice, parse_slice
from core.slicing.spec import SliceSpec, strided_slice
from core.tflite.tensor_buffer import TensorBuffer

__all__ = [
    "BudgetError", "CoreError", "DataType", "DecodeError", "DecodeParams", "ENGINE_TYPES", "FileSource",
    "Pipeline", "PipelineResult", "ShapeError", "SliceError", "SliceSpec", "SourceError", "TensorBuffer",
    "TensorBufferError", "decode_raw", "format_slice", "is_tf_decode_type", "open_source", "parse_slice",
    "resolve_dtype", "strided_slice",
]
