"""How the headless command prints a view: text laid out as numpy prints arrays, or JSON.

The printed values are read in blocks through the result's BlockReader (pread: a file truncated
meanwhile is an error line, never SIGBUS), converted to the ``--view-as`` type block by block,
and their text is written as it is made: memory stays one block and one line whatever the
limit is, and time is linear in the number of values printed. The output formats are described
in :mod:`core.cli`'s ``--help`` epilog.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator, Sequence

import numpy as np

from core.budget import check_copy_budget
from core.dtypes.table import engine_name, packed_row
from core.pipeline.pipeline import PipelineResult
from core.pipeline.view_as import no_tensor_buffer_error, view_as_target
from core.text.array_layout import layout_pieces, printed_indices
from core.text.number_format import json_value, value_formatter
from core.tflite.conversions import convert_array

__all__ = ["DEFAULT_LIMIT", "json_pieces", "render_json", "render_text", "text_pieces", "write_pieces"]

DEFAULT_LIMIT = 1000

#: Values read, converted and formatted at a time.
_PRINT_CHUNK = 1 << 16
#: Text collected before one write to the output.
_WRITE_BYTES = 1 << 20


class _Printed:
    """What the command prints of a result: its view, read safely, optionally "viewed as".

    With ``view_as`` the result must be the unconverted one (the pipeline run without it):
    only the values printed are converted, by the same ``create_from`` rules.
    """

    def __init__(self, result: PipelineResult, view_as: str | None = None) -> None:
        self.result = result
        self.view = result.view
        # float8 has no TensorBuffer (docs/semantics.md §2a): nothing to "view as" from
        self.source = result.buffer.data_type if result.buffer is not None else None
        if view_as is not None and self.source is None:
            raise no_tensor_buffer_error(engine_name(result.view.dtype), view_as)
        self.target = view_as_target(view_as) if view_as is not None else None
        self.reader = result.block_reader()
        self.dtype = self.convert(self.view[:0] if self.view.ndim else self.view.reshape(1)[:0]).dtype

    def convert(self, values: np.ndarray) -> np.ndarray:
        """``values`` in native byte order, converted to the view-as type if there is one."""
        if self.target is not None:
            return convert_array(values, self.source, self.target)
        return _native(values)

    def blocks(self, view: np.ndarray, count: int | None = None) -> Iterator[np.ndarray]:
        """The first ``count`` (default all) values of ``view`` in C order, flat, converted."""
        left = view.size if count is None else count
        if left <= 0:
            return
        for block in self.reader.blocks(view, _PRINT_CHUNK):
            if left <= 0:
                return
            flat = block.reshape(-1)[:left]
            left -= flat.size
            yield self.convert(flat)

    def gathered(self, edge: int) -> np.ndarray:
        """The values a summary shows (both ends of each long axis), read and converted.

        Raises
        ------
        BudgetError
            They do not fit the copy budget (an absurd ``--limit``).
        """
        view = self.view
        kept = [sum(len(part) for part in printed_indices(n, edge)) for n in view.shape]
        count = math.prod(kept)
        check_copy_budget(count * (view.dtype.itemsize + self.dtype.itemsize),
                          f"printing {count:,} values", "lower --limit")
        return self.convert(_gather(view, edge, self.reader))


def _gather(view: np.ndarray, edge: int, reader) -> np.ndarray:
    """A copy of the values :func:`printed_indices` keeps on every axis, read with ``reader``."""
    for axis, length in enumerate(view.shape):
        parts = printed_indices(length, edge)
        if len(parts) > 1:
            before = (slice(None),) * axis
            return np.concatenate([_gather(view[before + (slice(p.start, p.stop),)], edge, reader)
                                   for p in parts], axis=axis)
    return reader.read(view)


def _leading_view(array: np.ndarray, count: int) -> np.ndarray:
    """A view whose first ``count`` values in C order are ``array``'s first ``count`` values."""
    if array.ndim == 0:
        return array.reshape(1)
    if array.ndim == 1:
        return array[:count]
    inner = math.prod(array.shape[1:])
    if inner == 0 or count == 0:
        return array[:0]
    if inner > count:
        return _leading_view(array[0], count)
    return array[:min(array.shape[0], -(-count // inner))]


def _native(values: np.ndarray) -> np.ndarray:
    if values.dtype.itemsize > 1 and not values.dtype.isnative:
        return values.astype(values.dtype.newbyteorder("="))
    return values


def _json_text(values: np.ndarray) -> str:
    """JSON of a flat block of values, without brackets (json_value's rules)."""
    if values.dtype.kind in "biu":
        return json.dumps(values.tolist())[1:-1]  # exact Python ints and bools, at C speed
    return ", ".join(json.dumps(json_value(value, values.dtype)) for value in values)


def _json_nested(shape: tuple[int, ...], blocks: Iterator[np.ndarray]) -> Iterator[str]:
    """JSON of the values of ``shape`` (given flat, in C order) as nested lists, in pieces."""
    if not shape:
        yield _json_text(next(blocks)[:1])
        return
    if math.prod(shape) == 0:
        yield json.dumps(_nest([], shape))
        return
    row = shape[-1]
    spans = [math.prod(shape[axis:]) for axis in range(len(shape))]
    done = 0
    for block in blocks:
        start = 0
        while start < block.size:
            in_row = done % row
            take = min(row - in_row, block.size - start)
            if in_row == 0:  # a row starts: open the lists that start with it
                yield (", " if done else "") + "[" * sum(done % span == 0 for span in spans)
            else:
                yield ", "
            yield _json_text(block[start:start + take])
            done += take
            start += take
            if done % row == 0:
                yield "]" * sum(done % span == 0 for span in spans)


def _nest(flat: list, shape: tuple[int, ...]) -> object:
    if not shape:
        return flat[0]
    if len(shape) == 1:
        return flat
    step = math.prod(shape[1:])
    return [_nest(flat[i * step:(i + 1) * step], shape[1:]) for i in range(shape[0])]


def _dtype_text(printed: _Printed) -> str:
    name = engine_name(printed.dtype)
    stored = printed.result.params.dtype
    packed = packed_row(stored) if printed.target is None else None
    if packed is not None:  # int4 / int24: the decoded type, and what it was unpacked from
        order = ("" if packed.stored_size == 1 else
                 f", {'little' if printed.result.params.little_endian else 'big'}-endian")
        return f"{name} (unpacked from {packed.name}{order})"
    if printed.dtype.itemsize == 1:
        return name
    return f"{name} ({'little' if printed.result.params.little_endian else 'big'}-endian)"


def _words(values: Iterator[np.ndarray], text_of, width: int) -> Iterator[str]:
    for block in values:
        for value in block:
            yield text_of(value).rjust(width)


def text_pieces(result: PipelineResult, limit: int = DEFAULT_LIMIT,
                view_as: str | None = None) -> Iterator[str]:
    """The text output in pieces: ``shape:`` and ``dtype:`` lines, then the view laid out by
    numpy (summarised past ``limit`` values), each value as the table's "auto" format writes it
    (:func:`core.text.number_format.format_value`), right-aligned to the widest printed value.

    ``view_as``: convert the printed values only (``result`` must be the unconverted one).

    Raises
    ------
    BudgetError
        A summary's values do not fit the copy budget.
    SourceError
        A file shrank while it was read.
    TensorBufferError
        Unknown ``view_as`` type.
    """
    printed = _Printed(result, view_as)
    view = printed.view
    edge = max(1, int(max(limit, 1) ** (1.0 / max(view.ndim, 1))) // 2)
    summarised = view.size > max(limit, 0)
    text_of = value_formatter(printed.dtype)
    if summarised:
        values = printed.gathered(edge)

        def blocks() -> Iterator[np.ndarray]:
            flat = values.reshape(-1)
            for start in range(0, flat.size, _PRINT_CHUNK):
                yield flat[start:start + _PRINT_CHUNK]
    else:
        def blocks() -> Iterator[np.ndarray]:
            return printed.blocks(view)
    # Two passes over the printed values: the widest text, then the text right-aligned to it.
    width = max((len(text_of(value)) for block in blocks() for value in block), default=0)
    yield f"shape: {tuple(view.shape)}\ndtype: {_dtype_text(printed)}\n"
    yield from layout_pieces(view.shape, _words(blocks(), text_of, width),
                             edge if summarised else None)
    yield "\n"


def json_pieces(result: PipelineResult, limit: int = DEFAULT_LIMIT,
                view_as: str | None = None, transposed: bool = False,
                problems: Sequence[str] = (), inside_container: bool = False) -> Iterator[str]:
    """One JSON object (see the --help epilog) in pieces; values past ``limit`` are cut, flat.

    ``inside_container``: the view is a tensor of a container, whose file naturally goes on with
    its other tensors: ``"trailing_bytes"`` is 0 per file (nothing of the tensor is left out).

    ``transposed``: the tensor is a Fortran-order array read in C order even though the result
    does not know it (an ``.npz`` member opened with ``--tensor``). ``problems``: what the
    container's listing could not read (a partial listing...), given as the key ``"problems"``
    when there are any.

    Raises
    ------
    SourceError
        A file shrank while it was read.
    TensorBufferError
        Unknown ``view_as`` type.
    """
    printed = _Printed(result, view_as)
    view = printed.view
    truncated = view.size > limit
    fields = {
        "shape": list(view.shape),
        "dtype": engine_name(printed.dtype),
        "byte_order": "little" if result.params.little_endian else "big",
        "size": int(view.size),
        "truncated": truncated,
        "trailing_bytes": [0] * len(result.trailing_bytes) if inside_container else list(result.trailing_bytes),
        "transposed": result.transposed or transposed,
    }
    if problems:
        fields["problems"] = list(problems)
    head = json.dumps(fields)
    yield head[:-1] + ', "values": '
    if truncated:
        yield from _json_nested((limit,), printed.blocks(_leading_view(view, limit), limit))
    else:
        yield from _json_nested(tuple(view.shape), printed.blocks(view))
    yield "}\n"


def render_text(result: PipelineResult, limit: int = DEFAULT_LIMIT, view_as: str | None = None) -> str:
    """:func:`text_pieces` as one string (for small views; the command streams the pieces)."""
    return "".join(text_pieces(result, limit, view_as))


def render_json(result: PipelineResult, limit: int = DEFAULT_LIMIT, view_as: str | None = None) -> str:
    """:func:`json_pieces` as one string (for small views; the command streams the pieces)."""
    return "".join(json_pieces(result, limit, view_as))


def write_pieces(pieces: Iterator[str], out) -> None:
    """Write ``pieces`` to ``out`` in writes of about :data:`_WRITE_BYTES`."""
    batch: list[str] = []
    size = 0
    for piece in pieces:
        batch.append(piece)
        size += len(piece)
        if size >= _WRITE_BYTES:
            out.write("".join(batch))
            batch.clear()
            size = 0
    out.write("".join(batch))


