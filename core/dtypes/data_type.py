"""Element types of :class:`core.tflite.tensor_buffer.TensorBuffer` (docs/semantics.md §1 and §6).

TFLite Support's Java ``DataType`` enum, widened to every numeric type of docs/semantics.md §1 plus
``uint32`` and ``uint64`` (docs/semantics.md §6, "Extension"). ``STRING`` exists, as in TFLite, but no buffer
can hold it: asking for its numpy dtype raises a clear error.

Names accepted by :meth:`DataType.parse` (and by ``DataType(...)``), case-insensitively, with an
optional ``tf.`` / ``np.`` / ``numpy.`` prefix:

* the member names and numpy names (``"FLOAT32"``, ``"float32"``, ``"bfloat16"``, ``"bool"`` ...);
* TensorFlow's names ``"half"``, ``"float"`` (= float32, TF's meaning) and ``"double"``;
* anything :class:`numpy.dtype` accepts (``np.float32``, ``np.dtype(">f4")``, ``"<i2"``), in any
  byte order (byte order is a property of storage, not of the type). Note that the Python type
  ``float`` means float64 (numpy's meaning) while the string ``"float"`` means float32 (TF's).
  The strings ``"int"``, ``"uint"``, ``"long"`` and ``"ulong"`` are refused: their width differs
  between Java/C (32 bits) and numpy (64 bits), so the caller must say ``int32`` or ``int64``.
"""

from __future__ import annotations

import enum

import ml_dtypes
import numpy as np

from core.errors import IllegalArgumentError

__all__ = ["DataType"]

_BFLOAT16 = np.dtype(ml_dtypes.bfloat16)

# name -> (numpy name, TF name, kind); kind is one of float/int/uint/bool/complex/string.
_TABLE = {
    "FLOAT16": ("float16", "half", "float"),
    "BFLOAT16": ("bfloat16", "bfloat16", "float"),
    "FLOAT32": ("float32", "float", "float"),
    "FLOAT64": ("float64", "double", "float"),
    "INT8": ("int8", "int8", "int"),
    "INT16": ("int16", "int16", "int"),
    "INT32": ("int32", "int32", "int"),
    "INT64": ("int64", "int64", "int"),
    "UINT8": ("uint8", "uint8", "uint"),
    "UINT16": ("uint16", "uint16", "uint"),
    "UINT32": ("uint32", "uint32", "uint"),
    "UINT64": ("uint64", "uint64", "uint"),
    "COMPLEX64": ("complex64", "complex64", "complex"),
    "COMPLEX128": ("complex128", "complex128", "complex"),
    "BOOL": ("bool", "bool", "bool"),
    "STRING": ("string", "string", "string"),
}


class DataType(enum.Enum):
    """Element type of a TensorBuffer (docs/semantics.md §6; TFLite's ``org.tensorflow.lite.DataType``).

    The value of each member is its numpy name (``DataType.FLOAT32.value == "float32"``).
    ``DataType(x)`` accepts everything :meth:`parse` accepts.

    Raises
    ------
    IllegalArgumentError
        From ``DataType(x)`` / :meth:`parse` when ``x`` names no supported type.
    """

    FLOAT16 = "float16"
    BFLOAT16 = "bfloat16"
    FLOAT32 = "float32"
    FLOAT64 = "float64"
    INT8 = "int8"
    INT16 = "int16"
    INT32 = "int32"
    INT64 = "int64"
    UINT8 = "uint8"
    UINT16 = "uint16"
    UINT32 = "uint32"
    UINT64 = "uint64"
    COMPLEX64 = "complex64"
    COMPLEX128 = "complex128"
    BOOL = "bool"
    STRING = "string"

    def __str__(self) -> str:
        # Java's DataType.toString() is the bare name; TFLite's messages rely on it.
        return self.name

    # ------------------------------------------------------------------ parsing
    @classmethod
    def parse(cls, value: object) -> DataType:
        """Return the member named or described by ``value``.

        Parameters
        ----------
        value
            A :class:`DataType`, a name (see the module docstring), a :class:`numpy.dtype` of any
            byte order, or a numpy scalar type such as ``np.float32`` / ``ml_dtypes.bfloat16``.

        Returns
        -------
        DataType

        Raises
        ------
        IllegalArgumentError
            ``value`` names no supported type (e.g. ``"float8"``, ``np.longdouble``, object
            dtype, a big-endian bfloat16, which numpy cannot represent as bfloat16).
        """
        if isinstance(value, cls):
            return value
        if value is None:  # np.dtype(None) would silently mean float64
            raise _unknown(value)
        if isinstance(value, str):
            key = value.strip().lower()
            for prefix in ("tf.", "np.", "numpy."):
                if key.startswith(prefix):
                    key = key[len(prefix):]
            found = _NAMES.get(key)
            if found is not None:
                return found
            if key in _AMBIGUOUS:
                raise _unknown(value, hint=f"{key!r} is 32-bit in Java and C but 64-bit in numpy")
        try:
            dtype = np.dtype(value)  # type: ignore[call-overload]
        except (TypeError, ValueError):
            raise _unknown(value) from None
        found = _from_numpy(dtype)
        if found is None:
            raise _unknown(value)
        return found

    @classmethod
    def _missing_(cls, value: object) -> DataType:
        return cls.parse(value)

    # --------------------------------------------------------------- properties
    @property
    def kind(self) -> str:
        """``"float"``, ``"int"``, ``"uint"``, ``"bool"``, ``"complex"`` or ``"string"``."""
        return _TABLE[self.name][2]

    @property
    def tf_name(self) -> str:
        """TensorFlow's name: ``"half"``, ``"float"``, ``"double"``, otherwise the numpy name."""
        return _TABLE[self.name][1]

    @property
    def is_floating(self) -> bool:
        """True for FLOAT16, BFLOAT16, FLOAT32, FLOAT64 (complex types are not floating)."""
        return self.kind == "float"

    @property
    def is_integer(self) -> bool:
        """True for the signed and unsigned integer types (BOOL is not an integer type)."""
        return self.kind in ("int", "uint")

    @property
    def is_complex(self) -> bool:
        """True for COMPLEX64 and COMPLEX128."""
        return self.kind == "complex"

    @property
    def is_numeric(self) -> bool:
        """True for every type a TensorBuffer can hold, i.e. everything except STRING."""
        return self.kind != "string"

    @property
    def is_tflite(self) -> bool:
        """True for the two types TFLite Support's TensorBuffer implements: FLOAT32 and UINT8."""
        return self in (DataType.FLOAT32, DataType.UINT8)

    @property
    def numpy_dtype(self) -> np.dtype:
        """The numpy dtype in native byte order.

        Raises
        ------
        IllegalArgumentError
            For STRING: ``TensorBuffer does not support data type: STRING (...)`` (TFLite's
            ``AssertionError`` text for unsupported types, with the fix appended).
        """
        if self is DataType.STRING:
            raise IllegalArgumentError(
                "TensorBuffer does not support data type: STRING (choose a numeric type such as "
                "FLOAT32 or UINT8; decode text with another tool)",
                field="dtype",
            )
        if self is DataType.BFLOAT16:
            return _BFLOAT16
        return np.dtype(self.value)

    @property
    def type_size(self) -> int:
        """Bytes per element (FLOAT32 -> 4, UINT8 -> 1, COMPLEX128 -> 16, BOOL -> 1).

        Raises
        ------
        IllegalArgumentError
            For STRING (see :attr:`numpy_dtype`).
        """
        return self.numpy_dtype.itemsize

    @property
    def int_range(self) -> tuple[int, int]:
        """``(min, max)`` of an integer type, ``(0, 1)`` for BOOL, as Python ints.

        Raises
        ------
        IllegalArgumentError
            For float, complex and string types, which have no integer range.
        """
        if self is DataType.BOOL:
            return (0, 1)
        if not self.is_integer:
            raise IllegalArgumentError(
                f"{self.name} has no integer range (ask an integer type or BOOL)", field="dtype"
            )
        info = np.iinfo(self.numpy_dtype)
        return (int(info.min), int(info.max))


_NAMES: dict[str, DataType] = {}
for _member in DataType:
    _NAMES[_member.name.lower()] = _member
    _NAMES[_member.value] = _member
    _NAMES[_member.tf_name] = _member
_NAMES["str"] = DataType.STRING
del _member

_BY_KIND_SIZE = {
    ("f", 2): DataType.FLOAT16,
    ("f", 4): DataType.FLOAT32,
    ("f", 8): DataType.FLOAT64,
    ("i", 1): DataType.INT8,
    ("i", 2): DataType.INT16,
    ("i", 4): DataType.INT32,
    ("i", 8): DataType.INT64,
    ("u", 1): DataType.UINT8,
    ("u", 2): DataType.UINT16,
    ("u", 4): DataType.UINT32,
    ("u", 8): DataType.UINT64,
    ("c", 8): DataType.COMPLEX64,
    ("c", 16): DataType.COMPLEX128,
    ("b", 1): DataType.BOOL,
}


def _from_numpy(dtype: np.dtype) -> DataType | None:
    if dtype.name == "bfloat16":
        return DataType.BFLOAT16
    if dtype.kind in ("S", "U"):
        return DataType.STRING
    return _BY_KIND_SIZE.get((dtype.kind, dtype.itemsize))


_AMBIGUOUS = {"int", "uint", "long", "ulong"}


def _unknown(value: object, hint: str = "") -> IllegalArgumentError:
    names = ", ".join(member.value for member in DataType if member is not DataType.STRING)
    why = f"; {hint}" if hint else ""
    return IllegalArgumentError(
        f"Unknown data type {value!r} (use one of {names}; TF names half/float/double and numpy "
        f"dtypes are accepted too{why})",
        field="dtype",
    )
