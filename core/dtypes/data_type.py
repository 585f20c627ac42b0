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

import numpy as np

from core.dtypes.table import TYPE_ROWS, TypeRow, row_for_numpy_kind
from core.errors import IllegalArgumentError

__all__ = ["DataType"]

# TFLite's order: floats, signed ints, unsigned ints, complex, bool, each by size, then STRING
# (a stable sort keeps float16 before bfloat16, as in the table).
_KIND_ORDER = ("float", "int", "uint", "complex", "bool")
# The rows beyond TFLite too (float8, int4, int24) are no members.
_ROWS: tuple[TypeRow, ...] = tuple(
    sorted((row for row in TYPE_ROWS if row.tensor_buffer), key=lambda row: (_KIND_ORDER.index(row.kind), row.itemsize)))
_ROW_BY_MEMBER: dict[str, TypeRow] = {row.data_type: row for row in _ROWS}


class _DataTypeBase(enum.Enum):
    """Element type of a TensorBuffer (docs/semantics.md §6; TFLite's ``org.tensorflow.lite.DataType``).

    Members, derived from :data:`core.dtypes.table.TYPE_ROWS` in TFLite's order: FLOAT16,
    BFLOAT16, FLOAT32, FLOAT64, INT8, INT16, INT32, INT64, UINT8, UINT16, UINT32, UINT64,
    COMPLEX64, COMPLEX128, BOOL, then STRING (which no buffer can hold).
    The value of each member is its numpy name (``DataType.FLOAT32.value == "float32"``).
    ``DataType(x)`` accepts everything :meth:`parse` accepts.

    Raises
    ------
    IllegalArgumentError
        From ``DataType(x)`` / :meth:`parse` when ``x`` names no supported type.
    """

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
        row = _ROW_BY_MEMBER.get(self.name)
        return "string" if row is None else row.kind

    @property
    def tf_name(self) -> str:
        """TensorFlow's name: ``"half"``, ``"float"``, ``"double"``, otherwise the numpy name."""
        row = _ROW_BY_MEMBER.get(self.name)
        return "string" if row is None else row.tf_name

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
        return _ROW_BY_MEMBER[self.name].dtype

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


#: The enum itself: one member per row of the type table, then STRING.
DataType = _DataTypeBase(
    "DataType", [(row.data_type, row.name) for row in _ROWS] + [("STRING", "string")],
    module=__name__, qualname="DataType")
DataType.__doc__ = _DataTypeBase.__doc__

_NAMES: dict[str, DataType] = {}
for _row in _ROWS:
    for _spelling in (_row.data_type.lower(), _row.name, _row.tf_name, *_row.aliases):
        _NAMES[_spelling] = DataType[_row.data_type]
_NAMES["string"] = _NAMES["str"] = DataType.STRING
del _row, _spelling


def _from_numpy(dtype: np.dtype) -> DataType | None:
    if dtype.name == "bfloat16":
        return DataType.BFLOAT16
    if dtype.kind in ("S", "U"):
        return DataType.STRING
    row = row_for_numpy_kind(dtype.kind, dtype.itemsize)
    return None if row is None else DataType[row.data_type]


_AMBIGUOUS = {"int", "uint", "long", "ulong"}


def _unknown(value: object, hint: str = "") -> IllegalArgumentError:
    names = ", ".join(member.value for member in DataType if member is not DataType.STRING)
    why = f"; {hint}" if hint else ""
    return IllegalArgumentError(
        f"Unknown data type {value!r} (use one of {names}; TF names half/float/double and numpy "
        f"dtypes are accepted too{why})",
        field="dtype",
    )
