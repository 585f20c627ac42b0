"""The one type table of the engine (docs/semantics.md §1): every fact about an element type.

Each row of :data:`TYPE_ROWS` is one element type. Everything else that needs a type, a name for
a type or a byte size derives from these rows: ``decode_raw``'s ``out_type`` lookup
(:func:`resolve_dtype`, :data:`ENGINE_TYPES`, :func:`is_tf_decode_type`), TensorBuffer's
:class:`core.dtypes.data_type.DataType`, the ``.npy`` descr parser
(:mod:`core.files.npy_header`), the numpy / TensorFlow names written into code snippets
(:mod:`core.export.code_snippets`) and the layout guess (:mod:`core.guess`: item sizes, kinds,
float layouts, the words that name a type in a file name).

========== ========== ======= ========== ===== ========================================
name       TF name    DecodeR DecodePadR .npy  note
========== ========== ======= ========== ===== ========================================
float32    float      yes     yes        f4
float64    double     yes     yes        f8
float16    half       yes     yes        f2
int8       int8       yes     yes        i1
int16      int16      yes     yes        i2
int32      int32      yes     yes        i4
int64      int64      yes     yes        i8
uint8      uint8      yes     yes        u1
uint16     uint16     yes     yes        u2
complex64  complex64  yes     no         c8
complex128 complex128 yes     no         c16
bfloat16   bfloat16   yes     yes        —     ``ml_dtypes``; ``.npy`` has no type code
bool       bool       yes     no         b1
uint32     uint32     no      no         u4    beyond TF (``extended_types``)
uint64     uint64     no      no         u8    beyond TF (``extended_types``)
float8_*   same       no      no         —     beyond TF; ``ml_dtypes`` (1 byte, a view)
int4       int4       no      no         —     beyond TF; two per byte, decoded to int8
uint4      uint4      no      no         —     beyond TF; two per byte, decoded to uint8
int24      int24      no      no         —     beyond TF; 3 bytes, decoded to int32
uint24     uint24     no      no         —     beyond TF; 3 bytes, decoded to uint32
========== ========== ======= ========== ===== ========================================

The float8 rows are the variants of ml_dtypes 0.7: ``float8_e4m3fn``, ``float8_e5m2``,
``float8_e4m3fnuz``, ``float8_e5m2fnuz``, ``float8_e4m3b11fnuz``, ``float8_e3m4``, ``float8_e4m3``,
``float8_e8m0fnu`` (an exponent only: a power of two or NaN, no sign, no zero) and
``float8_e5m3fnu`` (unsigned). ml_dtypes 0.5 (the lower bound) lacks the last one: choosing it
there is refused with a message saying to upgrade. The numpy dtype of an ml_dtypes row is resolved on
first use of :attr:`TypeRow.dtype` (:mod:`core.dtypes.ml_types`: importing ml_dtypes is slow);
its name, size and every other fact are known without it. The *packed* rows (``stored_bits`` not a
whole number of bytes of their ``dtype``) store values narrower than the numpy type that holds them
once decoded: int4/uint4 two per byte, **low nibble first** (value ``2k`` is the low 4 bits of
byte ``k``, value ``2k + 1`` its high 4 bits, as ml_dtypes and ONNX pack them, whatever the byte
order); int24/uint24 in 3 bytes, in either byte order. Decoding them unpacks into a copy
(:mod:`core.decode.packed`). None of the beyond-TF rows is a TensorBuffer type (``tensor_buffer``).

Either name, a ``numpy.dtype`` or a numpy scalar type is accepted. The byte order of a given
dtype is ignored: ``decode_raw``'s ``little_endian`` says how the bytes are ordered, and
:func:`resolve_dtype` always returns the native-order dtype.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import numpy as np

from core.dtypes.ml_types import loaded_ml_dtypes, ml_dtypes_module
from core.errors import DecodeError

__all__ = [
    "TypeRow",
    "needs_ml_dtypes_import",
    "TYPE_ROWS",
    "ENGINE_TYPES",
    "TF_DECODE_RAW_TYPES",
    "TF_DECODE_PADDED_RAW_TYPES",
    "EXTENDED_TYPES",
    "FLOAT8_NAMES",
    "type_row",
    "packed_row",
    "row_for_npy_code",
    "row_for_numpy_kind",
    "resolve_dtype",
    "tf_name",
    "engine_name",
    "is_tf_decode_type",
    "check_padded_type",
    "attr_error",
]


@dataclass(frozen=True)
class TypeRow:
    """Everything the program knows about one element type.

    Attributes
    ----------
    name
        The engine's (numpy-style) name, the key everywhere: ``"float32"``, ``"bfloat16"``.
    numpy_type
        The numpy scalar type, or for an ml_dtypes type its name in ml_dtypes (``"bfloat16"``),
        resolved by :attr:`dtype` on first use.
    tf_name
        TensorFlow's name (``DataTypeString``): ``"float"`` for float32, ``"half"``, ``"double"``.
    decode_raw_position
        Position in TF's ``DecodeRaw`` attr list (TF's order, quoted verbatim in messages), or
        ``None`` when ``tf.io.decode_raw`` refuses the type (the types beyond TF).
    padded
        TF's ``DecodePaddedRaw`` (``decode_raw`` with ``fixed_length``) accepts it.
    data_type
        Member name of TensorBuffer's :class:`~core.dtypes.data_type.DataType` (``"FLOAT32"``).
    kind
        ``"float"``, ``"int"``, ``"uint"``, ``"bool"`` or ``"complex"``.
    npy_code
        The ``.npy`` descr without its byte-order mark (``"f4"``, ``"b1"``), or ``None`` when
        the format has no code for the type (bfloat16).
    numpy_code
        How numpy code snippets name the type (``"np.float32"``, ``"ml_dtypes.bfloat16"``).
    tf_code
        How TensorFlow code snippets name the type (``"tf.float32"``).
    aliases
        Further spellings accepted from users, beyond the name and the TF name.
    itemsize
        Bytes per decoded element (the ``dtype``'s item size).
    stored_bits
        Bits one value occupies in the file: ``8 * itemsize`` except for the packed types
        (4 for int4/uint4, 24 for int24/uint24), whose ``dtype`` is the wider decoded type.
    tensor_buffer
        TFLite's ``DataType`` has the type (False for float8, int4/uint4 and int24/uint24).
    mantissa_bits, exponent_bits, min_exponent
        A float's layout (of each part, for a complex type), as ``finfo`` gives it: the stored
        mantissa bits (``nmant``), the exponent bits (``nexp``) and the exponent of the smallest
        normal value (``minexp``, so :attr:`smallest_normal` is ``2 ** min_exponent``); all 0
        for integer and bool types.
    name_words
        Words that name the type in a file name or a text header (``f32``, ``fp16``, ``half``,
        ``u8``...), as the layout guess reads them (:mod:`core.guess.names`). Unlike
        ``aliases`` they are not accepted as a decode type: ``int`` or ``long`` in a file name is
        a hint, as a ``--dtype`` it would be ambiguous.
    """

    name: str
    numpy_type: Any
    itemsize: int
    tf_name: str
    decode_raw_position: int | None
    padded: bool
    data_type: str
    kind: str
    npy_code: str | None
    numpy_code: str
    tf_code: str
    aliases: tuple[str, ...] = ()
    stored_bits: int = 0
    tensor_buffer: bool = True
    mantissa_bits: int = 0
    exponent_bits: int = 0
    min_exponent: int = 0
    name_words: tuple[str, ...] = ()
    _dtype: np.dtype | None = field(default=None, compare=False, repr=False)

    def __post_init__(self) -> None:
        if not self.stored_bits:
            object.__setattr__(self, "stored_bits", 8 * self.itemsize)
        if not self.from_ml_dtypes:
            object.__setattr__(self, "_dtype", np.dtype(self.numpy_type))

    @property
    def from_ml_dtypes(self) -> bool:
        """The type is one of ml_dtypes' (bfloat16, float8_*), named by ``numpy_type``."""
        return isinstance(self.numpy_type, str)

    @property
    def dtype(self) -> np.dtype:
        """The native-byte-order numpy dtype (bfloat16 is ``ml_dtypes.bfloat16``, imported now
        if it is not yet)."""
        if self._dtype is None:
            ml_dtypes = ml_dtypes_module()
            numpy_type = getattr(ml_dtypes, self.numpy_type, None)
            if numpy_type is None:
                raise DecodeError(
                    f"{self.name} is not in the installed ml_dtypes {ml_dtypes.__version__} "
                    "(upgrade it: pip install -U ml_dtypes)", field="dtype")
            object.__setattr__(self, "_dtype", np.dtype(numpy_type))
        return self._dtype

    @property
    def packed(self) -> bool:
        """Values are stored in fewer bits than ``dtype`` holds (int4/uint4, int24/uint24)."""
        return self.stored_bits != 8 * self.itemsize

    @property
    def stored_size(self) -> int:
        """Bytes of one stored unit: ``itemsize``; 1 for int4/uint4 (two values), 3 for int24."""
        return max(1, self.stored_bits // 8)

    @property
    def values_per_unit(self) -> int:
        """Values in one stored unit (2 for int4/uint4, else 1)."""
        return max(1, 8 // self.stored_bits) if self.stored_bits < 8 else 1

    @property
    def byte_order_matters(self) -> bool:
        """A stored value spans more than one byte, so its byte order matters (False for the
        one-byte types and int4/uint4; True for int24/uint24)."""
        return self.stored_bits > 8

    @property
    def part(self) -> TypeRow | None:
        """The row of each part of a complex type (float32 for complex64), else None."""
        return _BY_NAME[f"float{4 * self.itemsize}"] if self.kind == "complex" else None

    @property
    def smallest_normal(self) -> float | None:
        """The smallest positive normal value of a float type (of each part, for a complex
        type): ``2 ** min_exponent``; None for integer and bool types."""
        return 2.0 ** self.min_exponent if self.exponent_bits else None

    @property
    def in_tf_decode_raw(self) -> bool:
        """``tf.io.decode_raw`` accepts the type (False for the types beyond TF)."""
        return self.decode_raw_position is not None


def _itemsize(numpy_type: Any) -> int:
    """Item size of a numpy type, or of an ml_dtypes type named by a string (known without it:
    bfloat16 is 2 bytes, each float8 1)."""
    if isinstance(numpy_type, str):
        return 2 if numpy_type == "bfloat16" else 1
    return np.dtype(numpy_type).itemsize


#: (mantissa bits, exponent bits, smallest normal's exponent) of every float type, of each part
#: of a complex type: numpy's / ml_dtypes' ``finfo`` (nmant, nexp, minexp), known without them.
_FLOAT_LAYOUTS: dict[str, tuple[int, int, int]] = {
    "float16": (10, 5, -14), "bfloat16": (7, 8, -126), "float32": (23, 8, -126), "float64": (52, 11, -1022),
    "complex64": (23, 8, -126), "complex128": (52, 11, -1022),
    "float8_e4m3fn": (3, 4, -6), "float8_e5m2": (2, 5, -14), "float8_e4m3fnuz": (3, 4, -7),
    "float8_e5m2fnuz": (2, 5, -15), "float8_e4m3b11fnuz": (3, 4, -10), "float8_e3m4": (4, 3, -2),
    "float8_e4m3": (3, 4, -6), "float8_e8m0fnu": (0, 8, -127), "float8_e5m3fnu": (3, 5, -14),
}

#: The words of :attr:`TypeRow.name_words` beyond the type's name (which is one of its words
#: where it has any).
_NAME_WORDS: dict[str, str] = {
    "float32": "f32 fp32 float single", "float64": "f64 fp64 double", "float16": "f16 fp16 half",
    "bfloat16": "bf16", "uint8": "u8 byte ubyte", "int8": "i8 s8", "uint16": "u16 ushort",
    "int16": "i16 s16 short", "uint32": "u32 uint", "int32": "i32 s32 int", "int64": "i64 s64 long",
    "complex64": "c64 cf32", "complex128": "c128",
}


def _layout_fields(name: str) -> dict[str, Any]:
    mantissa, exponent, min_exponent = _FLOAT_LAYOUTS.get(name, (0, 0, 0))
    return {"mantissa_bits": mantissa, "exponent_bits": exponent, "min_exponent": min_exponent,
            "name_words": (name, *_NAME_WORDS[name].split()) if name in _NAME_WORDS else ()}


def _row(name: str, numpy_type: Any, tf: str, position: int | None, padded: bool, kind: str,
         npy_code: str | None, aliases: tuple[str, ...] = ()) -> TypeRow:
    numpy_code = f"ml_dtypes.{numpy_type}" if isinstance(numpy_type, str) else f"np.{name}"
    return TypeRow(name=name, numpy_type=numpy_type, itemsize=_itemsize(numpy_type), tf_name=tf,
                   decode_raw_position=position,
                   padded=padded, data_type=name.upper(), kind=kind, npy_code=npy_code,
                   numpy_code=numpy_code, tf_code=f"tf.{name}", aliases=aliases, **_layout_fields(name))


#: The float8 variants of ml_dtypes 0.7, in the order the GUI lists them (the last is new in 0.7).
FLOAT8_NAMES: tuple[str, ...] = (
    "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
    "float8_e4m3b11fnuz", "float8_e3m4", "float8_e4m3", "float8_e8m0fnu", "float8_e5m3fnu",
)


def _beyond_tf_row(name: str, numpy_type: Any, kind: str, stored_bits: int = 0,
                   numpy_code: str | None = None) -> TypeRow:
    """A row beyond TF that TFLite's DataType lacks too (float8, int4/uint4, int24/uint24)."""
    return TypeRow(name=name, numpy_type=numpy_type, itemsize=_itemsize(numpy_type), tf_name=name,
                   decode_raw_position=None,
                   padded=False, data_type=name.upper(), kind=kind, npy_code=None,
                   numpy_code=numpy_code or f"ml_dtypes.{name}", tf_code=f"tf.{name}",
                   stored_bits=stored_bits, tensor_buffer=False, **_layout_fields(name))


#: The table, in the order a GUI lists the types (the last two are beyond TF). TF's DecodeRaw
#: attr list is ``half, float, double, int32, uint16, uint8, int16, int8, int64, complex64,
#: complex128, bool, bfloat16``: the positions below.
TYPE_ROWS: tuple[TypeRow, ...] = (
    _row("float32", np.float32, "float", 1, True, "float", "f4"),
    _row("float64", np.float64, "double", 2, True, "float", "f8"),
    _row("float16", np.float16, "half", 0, True, "float", "f2"),
    _row("int8", np.int8, "int8", 7, True, "int", "i1"),
    _row("int16", np.int16, "int16", 6, True, "int", "i2"),
    _row("int32", np.int32, "int32", 3, True, "int", "i4"),
    _row("int64", np.int64, "int64", 8, True, "int", "i8"),
    _row("uint8", np.uint8, "uint8", 5, True, "uint", "u1"),
    _row("uint16", np.uint16, "uint16", 4, True, "uint", "u2"),
    _row("complex64", np.complex64, "complex64", 9, False, "complex", "c8"),
    _row("complex128", np.complex128, "complex128", 10, False, "complex", "c16"),
    _row("bfloat16", "bfloat16", "bfloat16", 12, True, "float", None),
    _row("bool", np.bool_, "bool", 11, False, "bool", "b1", aliases=("bool_",)),
    _row("uint32", np.uint32, "uint32", None, False, "uint", "u4"),
    _row("uint64", np.uint64, "uint64", None, False, "uint", "u8"),
    *(_beyond_tf_row(name, name, "float") for name in FLOAT8_NAMES),
    _beyond_tf_row("int4", np.int8, "int", 4, "np.int8"),
    _beyond_tf_row("uint4", np.uint8, "uint", 4, "np.uint8"),
    _beyond_tf_row("int24", np.int32, "int", 24, "np.int32"),
    _beyond_tf_row("uint24", np.uint32, "uint", 24, "np.uint32"),
)

_BY_NAME: dict[str, TypeRow] = {row.name: row for row in TYPE_ROWS}
_BY_NPY_CODE: dict[str, TypeRow] = {row.npy_code: row for row in TYPE_ROWS if row.npy_code}
_BY_NUMPY_KIND: dict[tuple[str, int], TypeRow] = {
    (row.dtype.kind, row.itemsize): row for row in TYPE_ROWS
    # not the beyond-TFLite rows (int4's dtype is int8's, float8_e5m2's numpy kind is "f"), and
    # not bfloat16 (numpy kind "V")
    if not row.from_ml_dtypes and row.dtype.kind in "biufc" and row.tensor_buffer
}

#: Canonical numpy-style names in the order a GUI should list them; those after bool are beyond TF.
ENGINE_TYPES: tuple[str, ...] = tuple(row.name for row in TYPE_ROWS)
_DECODE_RAW_ROWS = sorted((row for row in TYPE_ROWS if row.in_tf_decode_raw),
                          key=lambda row: row.decode_raw_position)
#: TF's ``DecodeRaw`` attr list, in TF's order (used verbatim in error messages).
TF_DECODE_RAW_TYPES: tuple[str, ...] = tuple(row.tf_name for row in _DECODE_RAW_ROWS)
#: TF's ``DecodePaddedRaw`` attr list (``decode_raw`` with ``fixed_length``): no bool, no complex.
TF_DECODE_PADDED_RAW_TYPES: tuple[str, ...] = tuple(row.tf_name for row in _DECODE_RAW_ROWS if row.padded)
#: Types the app offers beyond TF (only with ``extended_types=True``).
EXTENDED_TYPES: tuple[str, ...] = tuple(row.name for row in TYPE_ROWS if not row.in_tf_decode_raw)

# every accepted spelling -> engine name (a packed row's name only: its dtype is another row's)
_ALIASES: dict[str, str] = {}
for _type in TYPE_ROWS:
    for _spelling in (_type.name, _type.tf_name, *_type.aliases):
        _ALIASES[_spelling] = _type.name
del _type, _spelling


def type_row(name: str) -> TypeRow:
    """The row of engine type ``name`` (one of :data:`ENGINE_TYPES`).

    Raises
    ------
    KeyError
        ``name`` is not an engine name (use :func:`engine_name` to normalise user input first).
    """
    return _BY_NAME[name]


def packed_row(out_type: Any) -> TypeRow | None:
    """The row of a packed type (int4, uint4, int24, uint24) named by ``out_type``, else None.

    Only a name (or ml_dtypes' ``int4`` / ``uint4`` dtype) can ask for a packed type: the numpy
    dtype that holds its decoded values (``int8``, ``int32``...) names that wider type.
    """
    name, _quoted = _lookup(out_type)
    if name is None:
        return None
    row = _BY_NAME[name]
    return row if row.packed else None


def row_for_npy_code(code: str) -> TypeRow | None:
    """The row whose ``.npy`` descr is ``code`` without byte-order mark (``"f4"``), or None."""
    return _BY_NPY_CODE.get(code)


def row_for_numpy_kind(kind: str, itemsize: int) -> TypeRow | None:
    """The row of numpy's standard dtype of ``kind`` (``dtype.kind``) and ``itemsize``, or None.

    bfloat16 (numpy kind ``"V"``) is not found this way: look it up by name.
    """
    return _BY_NUMPY_KIND.get((kind, itemsize))

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
        Also accept the types beyond TF (:data:`EXTENDED_TYPES`: uint32, uint64, float8,
        int4/uint4, int24/uint24).
    padded
        The caller decodes with ``fixed_length``, i.e. TF's ``DecodePaddedRaw`` op: a refused
        type's message then quotes that op's list (:data:`TF_DECODE_PADDED_RAW_TYPES`), as TF
        does. It does not refuse bool/complex itself: see :func:`check_padded_type`.

    Returns
    -------
    numpy.dtype
        The native-order dtype (bfloat16 is ``ml_dtypes.bfloat16``, ``dtype.name == "bfloat16"``).
        For a packed type it is the type of the decoded values (``int8`` for int4, ``int32``
        for int24): use :func:`packed_row` to learn the stored size.

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
            "choose one of the allowed types, or a type beyond TF: uint32, uint64, float8_e4m3fn, "
            "float8_e5m2 and the other float8 types, int4, uint4, int24, uint24",
        )
    if name in EXTENDED_TYPES and not extended_types:
        raise attr_error(
            name, allowed,
            f"{name} is beyond TF's decode_raw: enable extended types to use it",
        )
    return _BY_NAME[name].dtype


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


def needs_ml_dtypes_import(dtype: Any) -> bool:
    """Whether using the type ``dtype`` names imports ml_dtypes now (about 0.5 s, once): it is
    one of ml_dtypes' types (bfloat16, float8) and ml_dtypes is not imported yet. An unknown
    name or None needs nothing (it fails elsewhere, or means the default uint8)."""
    if dtype is None or loaded_ml_dtypes() is not None:
        return False
    try:
        return _BY_NAME[engine_name(dtype)].from_ml_dtypes
    except (DecodeError, KeyError, TypeError):
        return False


def tf_name(dtype: Any) -> str:
    """TensorFlow's name of a supported type (``float32`` -> ``"float"``, ``float16`` -> ``"half"``).

    The extended types keep their numpy names (``"uint32"``, ``"uint64"``), as TF's
    ``DataTypeString`` spells them.

    Raises
    ------
    DecodeError
        The type is not in the table (``field="dtype"``).
    """
    return _BY_NAME[engine_name(dtype)].tf_name


def is_tf_decode_type(name: Any) -> bool:
    """Whether ``tf.io.decode_raw`` itself accepts this type (False for the types beyond TF and unknowns).

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
    tf = _BY_NAME[name].tf_name
    if tf not in TF_DECODE_PADDED_RAW_TYPES:
        raise attr_error(
            tf, TF_DECODE_PADDED_RAW_TYPES,
            f"TF cannot pad {tf} values: drop fixed_length or choose another type",
        )
