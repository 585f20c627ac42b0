"""TFLite Support's ``TensorBuffer`` in Python, extended to every numeric type (docs/semantics.md §6).

A TensorBuffer is a shape plus storage of one :class:`~core.dtypes.data_type.DataType` (a numpy array
in that shape; C-contiguous unless :meth:`TensorBuffer.wrap` was given a strided view).
*Fixed-size* buffers keep their shape for life; *dynamic* buffers adopt the shape of whatever is
loaded and reallocate only when the flat size (number of elements) changes.

Storage is a numpy array, and is held **by reference** whenever the caller supplies memory
(:meth:`TensorBuffer.load_buffer`, :meth:`TensorBuffer.wrap`): a writable source stays shared
both ways; a read-only source (``bytes``, a read-only memoryview or memory map) is shared for
reading and replaced by a private copy on the first write (copy-on-write), so the caller's
memory is never written. Every ``load_array`` overwrites all elements, so copy-on-write needs no
copy of the old contents: the converted values simply become the new private storage.

Element conversions (clamping, truncation toward zero, rounding) are those of
:mod:`core.tflite.conversions`.

Copies of a whole buffer (``create_fixed_size``, ``create_from``, ``get_float_array``,
``get_int_array``) first ask :func:`core.budget.check_copy_budget`: a buffer wrapping a 1 TiB
memory map refuses them with a :class:`~core.errors.BudgetError` instead of running out of memory.
"""

from __future__ import annotations

import math
import operator
from typing import Any

import numpy as np

from core.budget import check_copy_budget
from core.dtypes.data_type import DataType
from core.errors import IllegalArgumentError
from core.tflite.conversions import as_value_array, convert_to
from core.tflite.inputs import ShapeLike, byte_view, check_shape

__all__ = ["TensorBuffer"]


class TensorBuffer:
    """A typed, shaped buffer with TFLite Support's loading and conversion rules (docs/semantics.md §6).

    Create one with :meth:`create_fixed_size`, :meth:`create_dynamic`, :meth:`create_from` or
    :meth:`wrap`; the constructor is private.
    """

    __slots__ = ("_data_type", "_shape", "_flat_size", "_data", "_is_dynamic")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise TypeError(
            "TensorBuffer has no public constructor (use TensorBuffer.create_fixed_size, "
            "create_dynamic, create_from or wrap)"
        )

    @classmethod
    def _make(cls, data_type: DataType, data: np.ndarray, dynamic: bool) -> TensorBuffer:
        buffer = object.__new__(cls)
        buffer._data_type = data_type
        buffer._shape = tuple(int(n) for n in data.shape)
        buffer._flat_size = math.prod(buffer._shape)
        buffer._data = data
        buffer._is_dynamic = dynamic
        return buffer

    # ------------------------------------------------------------------------ factories
    @classmethod
    def create_fixed_size(cls, shape: ShapeLike, data_type: DataType | str) -> TensorBuffer:
        """A zero-filled buffer whose shape never changes (Java ``createFixedSize``).

        ``()`` is a scalar (flat size 1); a shape containing 0 has flat size 0 and is allowed
        (the Java docs say "non-positive", the code accepts 0).

        Parameters
        ----------
        shape
            Sequence of non-negative ints (a bare int ``n`` means ``(n,)``).
        data_type
            Anything :meth:`DataType.parse` accepts.

        Raises
        ------
        IllegalArgumentError
            A negative entry: ``Values in TensorBuffer shape should be non-negative.``;
            an unknown type or STRING (``TensorBuffer does not support data type: STRING``).
        TypeError
            ``shape`` is None.
        """
        data_type = DataType.parse(data_type)
        shape = check_shape(shape)
        _check_copy(math.prod(shape) * data_type.type_size, f"a TensorBuffer of shape {shape}")
        return cls._make(data_type, np.zeros(shape, data_type.numpy_dtype), False)

    @classmethod
    def create_dynamic(cls, data_type: DataType | str) -> TensorBuffer:
        """An empty resizable buffer of shape ``(0,)`` (Java ``createDynamic``).

        Raises
        ------
        IllegalArgumentError
            Unknown type or STRING.
        """
        data_type = DataType.parse(data_type)
        return cls._make(data_type, np.zeros((0,), data_type.numpy_dtype), True)

    @classmethod
    def create_from(cls, other: TensorBuffer, data_type: DataType | str) -> TensorBuffer:
        """A deep copy of ``other`` converted to ``data_type`` (Java ``createFrom``).

        Same shape and same kind (fixed or dynamic). FLOAT32 -> FLOAT32 copies the floats bit for
        bit; the other TFLite pairs go through ints, which for FLOAT32 -> UINT8 equals loading the
        floats (truncate toward zero, clamp, NaN -> 0). Extension: a float target from a float
        source takes the float values, an integer source keeps its exact integers; see
        :mod:`core.tflite.conversions` for the full rule and where it departs from an int32 detour.

        Raises
        ------
        TypeError
            ``other`` is None (``Cannot create a buffer from null.``) or not a TensorBuffer.
        IllegalArgumentError
            Unknown type or STRING.
        """
        if other is None:
            raise TypeError("Cannot create a buffer from null. (pass a TensorBuffer)")
        if not isinstance(other, TensorBuffer):
            raise TypeError(
                f"create_from takes a TensorBuffer, not {type(other).__name__} (use "
                "TensorBuffer.wrap for a numpy array)"
            )
        data_type = DataType.parse(data_type)
        _check_copy(other._flat_size * data_type.type_size, f"create_from into {data_type}")
        return cls._make(data_type, convert_to(other._data, data_type), other._is_dynamic)

    @classmethod
    def wrap(cls, array: np.ndarray, *, fixed: bool = False) -> TensorBuffer:
        """A buffer over an existing typed ndarray, zero copy (extension, docs/semantics.md §6 and §7).

        The array is held by reference in its own shape, layout and byte order (a big-endian
        ``>f4`` view of a memory map stays one); the data type comes from its dtype. A writable
        array stays shared both ways; a read-only one is copy-on-write. Reading methods never
        copy the storage except where documented (``buffer`` of a non-contiguous array).
        A dynamic ``load_array`` that changes the shape keeps sharing only if numpy can reshape
        the array without a copy; otherwise the buffer detaches into new storage.

        Parameters
        ----------
        array
            A numpy array of any supported dtype (subclasses such as ``np.memmap`` are viewed
            as plain ndarrays, still without copying).
        fixed
            True for a fixed-size buffer, False (default) for a dynamic one.

        Raises
        ------
        TypeError
            ``array`` is None or not a numpy array.
        IllegalArgumentError
            Its dtype is not a supported numeric type (strings, objects, longdouble).
        """
        if array is None:
            raise TypeError("The array to wrap cannot be null. (pass a numpy array)")
        if not isinstance(array, np.ndarray):
            raise TypeError(
                f"wrap takes a numpy array, not {type(array).__name__} (use load_array to copy "
                "a list, or load_buffer for bytes)"
            )
        data_type = DataType.parse(array.dtype)
        data_type.numpy_dtype  # STRING -> clear error  # noqa: B018
        return cls._make(data_type, np.asarray(array), not fixed)

    # ----------------------------------------------------------------------- properties
    @property
    def data_type(self) -> DataType:
        """The element type."""
        return self._data_type

    @property
    def shape(self) -> tuple[int, ...]:
        """The current shape, as a tuple (immutable, so callers cannot change the buffer)."""
        return tuple(self._shape)

    @property
    def flat_size(self) -> int:
        """Number of elements: the product of the shape (1 for ``()``, 0 if any entry is 0)."""
        return self._flat_size

    @property
    def type_size(self) -> int:
        """Bytes per element (FLOAT32 -> 4, UINT8 -> 1)."""
        return self._data_type.type_size

    @property
    def is_dynamic(self) -> bool:
        """True for a resizable buffer (``create_dynamic``, ``wrap(fixed=False)``)."""
        return self._is_dynamic

    @property
    def is_copy_on_write(self) -> bool:
        """True while the storage is read-only memory that the next write will replace."""
        return not self._data.flags.writeable

    @property
    def array(self) -> np.ndarray:
        """The contents as a typed ndarray in the buffer's shape: a view, never a copy.

        Its dtype is the storage's, byte order included (``<`` after ``load_buffer``, whatever
        was wrapped after ``wrap``). It is read-only while the buffer is copy-on-write; otherwise
        writing into it writes into the buffer (and into a shared caller's memory). A BOOL
        buffer loaded from raw bytes may hold bytes other than 0 and 1 here; the get_* methods
        read any nonzero byte as True.
        """
        return self._data.view()

    @property
    def buffer(self) -> np.ndarray:
        """The raw bytes as a 1-D uint8 ndarray (Java ``getBuffer``).

        A view of the storage (writable exactly when the storage is) when the storage is
        C-contiguous, which it always is unless ``wrap`` was given a strided array; then this
        is a copy. The bytes are in the storage's byte order: little-endian unless a
        big-endian array was wrapped.
        """
        data = self._data
        if not data.flags.c_contiguous:
            data = np.ascontiguousarray(data)
        return data.reshape(-1).view(np.uint8)

    # ---------------------------------------------------------------------- loading
    def load_array(self, values: Any, shape: ShapeLike | None = None) -> None:
        """Copy ``values`` into the buffer, converting them (Java ``loadArray``).

        The dtype of ``values`` chooses Java's overload: integers and bools take
        ``loadArray(int[])`` (exact integers, clamped for integer targets, rounded to nearest
        for float targets), floats take ``loadArray(float[])`` (truncated toward zero and
        clamped, NaN -> 0, for integer targets; rounded to nearest for float targets), complex
        numbers give their real part to real targets. Lists go through ``numpy.asarray``,
        except that a list of ints stays integral (int64 or uint64; larger ints are refused);
        integers are never wrapped or saturated at int32 as Java's ``int[]`` would need.
        To reproduce Java exactly pass float32 values: a float64 value is rounded once, directly
        into the target, which can differ from rounding it to float32 first. N-d inputs are
        taken flat in C order.

        Without ``shape`` the number of values must equal the current flat size (fixed and
        dynamic buffers alike). With ``shape`` it must equal the shape's product; a fixed buffer
        also requires the shape to equal its own, a dynamic one adopts it and reallocates only
        when the flat size changes. While the flat size is unchanged the values are written into
        the existing storage (a shared caller buffer sees them); read-only storage is replaced
        instead (copy-on-write). A failed call changes nothing.

        Parameters
        ----------
        values
            A numpy array or a (nested) sequence of numbers.
        shape
            Optional new shape (sequence of non-negative ints).

        Raises
        ------
        TypeError
            ``values`` is None (``The array to be loaded cannot be null.``) or ``shape`` holds
            non-integers.
        IllegalArgumentError
            ``The size of the array to be loaded does not match the specified shape.``; a
            negative shape entry (checked first, before the size); a different shape on a fixed
            buffer; strings or integers beyond 64 bits.
        """
        array = as_value_array(values)
        target = self._shape if shape is None else check_shape(shape)
        expected = math.prod(target)
        if array.size != expected:
            hint = (
                f"the buffer's flat size is {expected}; pass {expected} values"
                + (", or pass shape= to resize this dynamic buffer" if self._is_dynamic else "")
                if shape is None
                else f"shape {target} has {expected} elements; pass {expected} values or a "
                f"shape with {array.size} elements"
            )
            raise IllegalArgumentError(
                "The size of the array to be loaded does not match the specified shape. "
                f"(got {array.size} values: {hint})",
                field="shape",
            )
        self._check_fixed(target)
        converted = convert_to(array, self._data_type)
        self._store(converted, target)

    def load_buffer(self, buffer: Any, shape: ShapeLike | None = None) -> None:
        """Use ``buffer``'s bytes as the contents, by reference (Java ``loadBuffer``).

        The bytes are little-endian elements of :attr:`data_type`. Their number must equal
        ``type_size * prod(shape)``; a fixed buffer requires ``shape`` to equal its own, a
        dynamic one adopts any shape. Nothing is copied: a writable source (bytearray, writable
        memoryview, numpy uint8/int8 array) stays shared both ways, so a later ``load_array``
        of the same flat size writes into it (a dynamic resize detaches); a read-only source
        (bytes, read-only memoryview, ``np.memmap(mode="r")``) is copy-on-write. A bytearray
        cannot be resized while a buffer holds it (Python's buffer export rule).

        Parameters
        ----------
        buffer
            A C-contiguous bytes-like object, or a C-contiguous numpy uint8/int8 array of any
            shape (its bytes are used in order). Typed arrays belong to :meth:`wrap`.
        shape
            Optional new shape; default: the current shape.

        Raises
        ------
        TypeError
            ``buffer`` is None (``Byte buffer cannot be null.``).
        IllegalArgumentError
            ``The size of byte buffer and the shape do not match. Expected: 24 Actual: 20``;
            a negative shape entry; a different shape on a fixed buffer; not bytes-like, a
            typed numpy array, or not C-contiguous.
        """
        if buffer is None:
            raise TypeError(
                "Byte buffer cannot be null. (pass bytes, bytearray, memoryview or a numpy "
                "uint8 array)"
            )
        target = self._shape if shape is None else check_shape(shape)
        raw = byte_view(buffer)
        count = math.prod(target)
        expected = self.type_size * count
        if raw.size != expected:
            raise IllegalArgumentError(
                "The size of byte buffer and the shape do not match. "
                f"Expected: {expected} Actual: {raw.size} (shape {target} of "
                f"{self._data_type.name} needs {count} x {self.type_size} bytes; pass that many "
                "bytes, or a shape that matches the buffer)",
                field="shape",
            )
        self._check_fixed(target)
        dtype = self._data_type.numpy_dtype
        if dtype.itemsize > 1:
            dtype = dtype.newbyteorder("<")
        self._data = raw.view(dtype).reshape(target)
        self._shape = target
        self._flat_size = count

    # ---------------------------------------------------------------------- reading
    def get_float_array(self) -> np.ndarray:
        """A new 1-D float32 array of the values, rounded to nearest (Java ``getFloatArray``).

        Complex buffers give their real part; BOOL gives 0.0 / 1.0.
        """
        _check_copy(self._flat_size * 4, "get_float_array")
        return convert_to(self._data, DataType.FLOAT32).reshape(-1)

    def get_int_array(self) -> np.ndarray:
        """A new 1-D int32 array of the values by Java's ``(int)`` rule (``getIntArray``).

        Floats truncate toward zero, NaN -> 0, and saturate at int32's range (FLOAT32
        {400.32, 23.04} -> {400, 23}; +Inf -> 2147483647). Integers wider than int32 saturate
        too (Java's long-to-int cast would wrap; we apply the same clamping as everywhere
        else). Complex buffers use their real part.
        """
        _check_copy(self._flat_size * 4, "get_int_array")
        return convert_to(self._data, DataType.INT32).reshape(-1)

    def get_float_value(self, index: int) -> float:
        """The element at flat ``index`` converted like :meth:`get_float_array`.

        Raises
        ------
        IndexError
            ``index < 0`` or ``index >= flat_size``.
        TypeError
            ``index`` is not an integer.
        """
        return float(convert_to(self._element(index), DataType.FLOAT32))

    def get_int_value(self, index: int) -> int:
        """The element at flat ``index`` converted like :meth:`get_int_array`.

        Raises
        ------
        IndexError
            ``index < 0`` or ``index >= flat_size``.
        TypeError
            ``index`` is not an integer.
        """
        return int(convert_to(self._element(index), DataType.INT32))

    def __repr__(self) -> str:
        kind = "dynamic" if self._is_dynamic else "fixed"
        return f"TensorBuffer({self._data_type.name}, shape={self._shape}, {kind})"

    # ---------------------------------------------------------------------- internals
    def _element(self, index: int) -> np.ndarray:
        position = operator.index(index)
        if not 0 <= position < self._flat_size:
            raise IndexError(
                f"Index {position} out of range for a TensorBuffer of flat size "
                f"{self._flat_size} (use 0 <= index < {self._flat_size})"
            )
        # A 0-d view keeps the storage dtype, so the conversion sees the exact element.
        return self._data[np.unravel_index(position, self._shape) + (Ellipsis,)]

    def _check_fixed(self, target: tuple[int, ...]) -> None:
        if not self._is_dynamic and target != self._shape:
            # TFLite: checkArgument(Arrays.equals(shape, this.shape)) with no message.
            raise IllegalArgumentError(
                f"Cannot load shape {target} into a fixed-size TensorBuffer of shape "
                f"{self._shape} (pass the buffer's own shape, or use TensorBuffer.create_dynamic "
                "for a buffer that can be reshaped)",
                field="shape",
            )

    def _store(self, values: np.ndarray, target: tuple[int, ...]) -> None:
        """Put converted ``values`` (fresh, flat) into the buffer with shape ``target``."""
        count = math.prod(target)
        data = self._data
        if count == self._flat_size and data.flags.writeable:
            reshaped = data.reshape(target)
            # reshape copies a strided array it cannot view; writing there would detach
            # silently, so only write in place into a true view.
            if count == 0 or np.may_share_memory(reshaped, data):
                reshaped[...] = values.reshape(target)
                self._data, self._shape = reshaped, target
                return
        self._data = values.reshape(target)
        self._shape, self._flat_size = target, count


def _check_copy(nbytes: int, what: str) -> None:
    """A buffer that copies (a wrapped 1 TiB memory map...) first asks the copy budget."""
    check_copy_budget(nbytes, what, "use a smaller buffer, or read values one at a time")
