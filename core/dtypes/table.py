"""The type table of ``decode_raw`` (docs/semantics.md §1).

TensorFlow names and their numpy equivalents:

========== ============ ==========================
TF name    numpy name   note
========== ============ ==========================
half       float16
float      float32
double     float64
bfloat16   bfloat16     from ``ml_dtypes``
int8       int8
int16      int16
int32      int32
int64      int64
uint8      uint8
uint16     uint16
complex64  complex64
complex128 complex128
bool       bool
uint32     uint32       beyond TF (``extended_types``)
uint64     uint64       beyond TF (``extended_types``)
========== ============ ==========================

Either name, a ``numpy.dtype`` or a numpy scalar type is accepted. The byte order of a given
dtype is ignored: ``decode_raw``'s ``little_endian`` says how the bytes are ordered, and
:func:`resolve_dtype` always returns the native-order dtype.
"""

from __future__ import annotations

from typing import Any

import ml_dtypes
import numpy as np

from core.errors import DecodeError

__all__ = [
    "ENGINE_TYPES",
    "TF_DECODE_RAW_TYPES",
    "TF_DECODE_PADDED_RAW_TYPES",
    "EXTENDED_TYPES",
    "resolve_dtype",
    "tf_name",
    "engine_name",
    "is_tf_decode_type",
    "check_padded_type",
    "attr_error",
]

#: TF's ``DecodeRaw`` attr list, in TF's order (used verbatim in error messages).
TF_DECODE_RAW_TYPES: tuple[str, ...] = (
    "half", "float", "double", "int32", "uint16", "uint8", "int16", "int8", "int64",
    "complex64", "complex128", "bool", "bfloat16",
)
#: TF's ``DecodePaddedRaw`` attr list (``decode_raw`` with ``fixed_length``): no bool, no complex.
TF_DECODE_PADDED_RAW_TYPES: tuple[str, ...] = (
    "half", "float", "double", "int32", "uint16", "uint8", "int16", "int8", "int64", "bfloat16",
)
#: Types the app offers beyond TF (only with ``extended_types=True``).
EXTENDED_TYPES: tuple[str, ...] = ("uint32", "uint64")

# engine (numpy-style) name -> (TF name, native numpy dtype)
_TABLE: dict[str, tuple[str, np.dtype]] = {
    "float32": ("float", np.dtype(np.float32)),
    "float64": ("double", np.dtype(np.float64)),
    "float16": ("half", np.dtype(np.float16)),
    "int8": ("int8", np.dtype(np.int8)),
    "int16": ("int16", np.dtype(np.int16)),
    "int32": ("int32", np.dtype(np.int32)),
    "int64": ("int64", np.dtype(np.int64)),
    "uint8": ("uint8", np.dtype(np.uint8)),
    "uint16": ("uint16", np.dtype(np.uint16)),
    "complex64": ("complex64", np.dtype(np.complex64)),
    "complex128": ("complex128", np.dtype(np.complex128)),
    "bfloat16": ("bfloat16", np.dtype(ml_dtypes.bfloat16)),
    "bool": ("bool", np.dtype(np.bool_)),
    "uint32": ("uint32", np.dtype(np.uint32)),
    "uint64": ("uint64", np.dtype(np.uint64)),
}

#: Canonical numpy-style names in the order a GUI should list them; the last two are beyond TF.
ENGINE_TYPES: tuple[str, ...] = tuple(_TABLE)

# every accepted spelling -> engine name
_ALIASES: dict[str, str] = {}
for _engine, (_tf, _dt) in _TABLE.items():
    _ALIASES[_engine] = _engine
    _ALIASES[_tf] = _engine
_ALIASES["bool_"] = "bool"

# The numpy stand-ins of TF's quantized types (tf.qint8.as_numpy_dtype...): TF recognises them,
# so its message quotes "qint8", where numpy would call the dtype "void8".
_TF_QUANTIZED_NUMPY: dict[np.dtype, str] = {
    np.dtype([(name, base)]): name
    for name, base in (("qint8", np.int8), ("quint8", np.uint8), ("qint16", np.int16),
                       ("quint16", np.uint16), ("qint32", np.int32))
}

# A numpy dtype is looked up by ``dtype.name``, which ignores the byte order and, unlike
# ``dtype.type``, is the same for numpy's aliased scalar types: on Linux ``np.longlong`` is a
# type distinct from ``np.int64`` but its dtype is named "int64", and TF accepts it as int64.


def attr_error(name: str, allowed: tuple[str, ...], fix: str) -> DecodeError:
    """Build TF's attr error: ``Value for attr 'out_type' of NAME is not in the list ...``.

    Parameters
    ----------
    name
        The refused type, spelled as TF spells it (``uint32``, ``bool``...).
    allowed
        The op's attr list (:data:`TF_DECODE_RAW_TYPES` or :data:`TF_DECODE_PADDED_RAW_TYPES`).
    fix
        How to fix it; appended in parentheses.
    """
    return DecodeError(
        f"Value for attr 'out_type' of {name} is not in the list of allowed values: "
        f"{', '.join(allowed)} ({fix})",
        field="dtype",
    )


def _lookup(out_type: Any) -> tuple[str | None, str]:
    """Return (engine name or None if unknown, the name to quote in an error)."""
    if isinstance(out_type, str):
        text = out_type.strip()
        key = text.lower()
        for prefix in ("tf.", "np.", "numpy.", "ml_dtypes."):
            if key.startswith(prefix):
                key = key[len(prefix):]
                break
        return _ALIASES.get(key), text
    if isinstance(out_type, type) and out_type in (float, int, bool, complex):
        # Python's float is a double, TF's "float" is float32: refuse the ambiguity.
        return None, f"Python type {out_type.__name__}"
    tf_dtype_name = getattr(out_type, "name", None)
    if hasattr(out_type, "as_datatype_enum") and isinstance(tf_dtype_name, str):
        # A tf.DType, recognised without importing TF. Look it up by its name ("float32",
        # "bfloat16"...): types with no numpy equivalent (tf.string, tf.qint8, tf.resource,
        # tf.variant) must be quoted as TF quotes them, and their as_numpy_dtype is useless
        # (object, a structured void, or a KeyError).
        return _ALIASES.get(tf_dtype_name), tf_dtype_name
    try:
        dt = np.dtype(out_type)
    except (TypeError, ValueError):
        return None, repr(out_type)
    if dt.kind in "OSU":
        # TF converts numpy's object / bytes / str types to tf.string, and quotes "string".
        return None, "string"
    if dt in _TF_QUANTIZED_NUMPY:
        return None, _TF_QUANTIZED_NUMPY[dt]
    if dt.fields is not None or dt.subdtype is not None:
        return None, dt.name
    name = _ALIASES.get(dt.name)
    return name, name if name is not None else dt.name


def resolve_dtype(
    out_type: Any, *, extended_types: bool = False, padded: bool = False
) -> np.dtype:
    """Return the native-byte-order numpy dtype for a decode_raw ``out_type`` (docs/semantics.md §1).

    Parameters
    ----------
    out_type
        A TF name (``"float"``, ``"half"``...), a numpy name (``"float32"``...), a
        ``numpy.dtype`` or numpy scalar type, or a ``tf.DType``. Names may carry a ``tf.`` /
        ``np.`` prefix and are case-insensitive. A dtype's byte order is ignored.
    extended_types
        Also accept ``uint32`` and ``uint64`` ("beyond TF").
    padded
        The caller decodes with ``fixed_length``, i.e. TF's ``DecodePaddedRaw`` op: a refused
        type's message then quotes that op's list (:data:`TF_DECODE_PADDED_RAW_TYPES`), as TF
        does. It does not refuse bool/complex itself: see :func:`check_padded_type`.

    Returns
    -------
    numpy.dtype
        The native-order dtype (bfloat16 is ``ml_dtypes.bfloat16``, ``dtype.name == "bfloat16"``).

    Raises
    ------
    DecodeError
        ``Value for attr 'out_type' of uint32 is not in the list of allowed values: ...`` (TF's
        text, then the fix), ``field="dtype"``, for unknown types and for the extended types
        without ``extended_types``. A tf.DType or numpy type is quoted by TF's name for it
        (``tf.qint8`` -> ``qint8``; ``tf.string``, ``np.object_``, ``np.str_`` -> ``string``). Python's builtin ``float``/``int``/``bool``/``complex`` are
        refused because ``float`` means float64 in Python but float32 in TF.
    """
    name, quoted = _lookup(out_type)
    # TF checks the attr of the op it builds: DecodePaddedRaw when fixed_length is given.
    allowed = TF_DECODE_PADDED_RAW_TYPES if padded else TF_DECODE_RAW_TYPES
    if name is None:
        raise attr_error(
            quoted, allowed,
            "choose one of the allowed types, or uint32/uint64, which are beyond TF",
        )
    if name in EXTENDED_TYPES and not extended_types:
        raise attr_error(
            name, allowed,
            f"{name} is beyond TF's decode_raw: enable extended types to use it",
        )
    return _TABLE[name][1]


def engine_name(dtype: Any) -> str:
    """Canonical numpy-style name (one of :data:`ENGINE_TYPES`) of a supported type.

    Raises
    ------
    DecodeError
        The type is not in the table (``field="dtype"``).
    """
    name, quoted = _lookup(dtype)
    if name is None:
        raise attr_error(quoted, TF_DECODE_RAW_TYPES, "choose one of the allowed types")
    return name


def tf_name(dtype: Any) -> str:
    """TensorFlow's name of a supported type (``float32`` -> ``"float"``, ``float16`` -> ``"half"``).

    The extended types keep their numpy names (``"uint32"``, ``"uint64"``), as TF's
    ``DataTypeString`` spells them.

    Raises
    ------
    DecodeError
        The type is not in the table (``field="dtype"``).
    """
    return _TABLE[engine_name(dtype)][0]


def is_tf_decode_type(name: Any) -> bool:
    """Whether ``tf.io.decode_raw`` itself accepts this type (False for uint32/uint64 and unknowns).

    A GUI uses it to mark the extended entries of :data:`ENGINE_TYPES` as "beyond TF".
    """
    engine, _quoted = _lookup(name)
    return engine is not None and engine not in EXTENDED_TYPES


def check_padded_type(dtype: np.dtype) -> None:
    """Refuse the types TF's ``DecodePaddedRaw`` does not register (bool, complex64, complex128).

    ``decode_raw`` with ``fixed_length`` runs TF's ``DecodePaddedRaw`` op, whose attr list lacks
    bool and the complex types. (TF 2.21 also lacks a CPU kernel for half: a TF defect that we
    do not reproduce, docs/semantics.md §2.) The extended types remain allowed.

    Raises
    ------
    DecodeError
        TF's attr message with the padded op's list, ``field="dtype"``.
    """
    name = engine_name(dtype)
    if name in EXTENDED_TYPES:
        return
    tf = _TABLE[name][0]
    if tf not in TF_DECODE_PADDED_RAW_TYPES:
        raise attr_error(
            tf, TF_DECODE_PADDED_RAW_TYPES,
            f"TF cannot pad {tf} values: drop fixed_length or choose another type",
        )
